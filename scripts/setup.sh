#!/usr/bin/env bash
# Installs everything citebench needs on a fresh Debian/Ubuntu machine (run as root, or with sudo available).
# Used by the README quick start and by .ci/run, so CI exercises exactly what users run.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

# Debian packages:
#  - liblucene8-java + default-jdk-headless: real Lucene 8.7, the BM25 parity oracle in the tests.
#  - Jupyter (nbconvert, nbclient, ipykernel) from Debian: runs the tslab notebooks, headless in the tests;
#    jupyter-notebook is the interactive front end (`jupyter notebook notebooks/`; JupyterLab is not in Debian 12).
#    (`python3` on PATH may be a pyenv build without Jupyter, so the kernel is registered with /usr/bin/python3.)
#  - chromium (driven by playwright-core: nothing downloads a browser) prints the report's PDF and runs the
#    report's and the notebooks' browser tests; poppler-utils (pdftotext, pdfinfo) checks the PDF and pdftoppm
#    shows its first page in notebook 06; fonts-dejavu-core is the font.
#  - slurm-wlm + munge: the single-node SLURM cluster of test/cluster/slurm.test.ts (scripts/slurm-local.sh);
#    nothing is started here.
#  - g++ + make: `npm ci` compiles the BM25 search kernel, the index file mapper and the TREC run reader
#    (binding.gyp, scripts/build-kernel.mjs) against the installed Node's headers (Debian's nodejs ships them);
#    without them search and run reading fall back to TypeScript.
#  - texlive-latex-recommended: pdflatex with booktabs and graphicx (it brings texlive-latex-base and texlive-base),
#    which the tests compile the report's LaTeX tables (tables/tables.tex) with.
#  - lmodern: Latin Modern's Type 1 fonts in T1 encoding, so names with ą, ę, ł … print as themselves in the tables.
APT_PACKAGES=(g++ make liblucene8-java default-jdk-headless jupyter-nbconvert jupyter-client jupyter-core python3-nbclient python3-nbformat python3-ipykernel jupyter-notebook chromium poppler-utils fonts-dejavu-core slurm-wlm munge texlive-latex-recommended lmodern)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages, and (this package's install script) the compiled BM25 kernel, dist/ (the command line as
# JavaScript, scripts/build-cli.mjs) and lib/citebench.d.ts (the notebooks' types, scripts/build-types.mjs). Node 20
# is what Debian 12 carries (nodesource's 20 here): package.json declares engines node >= 20 and pins usearch to
# 2.25 (2.26 declares node >= 22, and npm would warn EBADENGINE). onnxruntime-node's postinstall
# would try to download CUDA add-ons when it sees nvcc; the CPU binary ships inside the npm tarball, so skip
# that step (works offline and online).
export ONNXRUNTIME_NODE_INSTALL=skip ONNXRUNTIME_NODE_INSTALL_CUDA=skip
if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi

# Register the tslab (TypeScript) Jupyter kernel for this checkout's node_modules.
./node_modules/.bin/tslab install --python=/usr/bin/python3 --binary="$PWD/node_modules/.bin/tslab" >/dev/null
echo "setup: done (Debian packages, npm packages, compiled addons, dist/, notebook types, tslab kernel)"
