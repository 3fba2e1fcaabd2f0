#!/usr/bin/env bash
# Makes docs/img/latex-paper.png: Table 1 and the pool-size figure of configs/ci.yaml's run (a synthetic corpus)
# as they appear in a two-column article compiled with pdflatex — the example of docs/report.md, "Tables and
# figures for your paper". Needs pdflatex (texlive-latex-recommended), Chromium and poppler-utils (setup.sh).
#   usage: bash scripts/dev/latex-paper-example.sh [SCRATCH_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
scratch="${1:-$(mktemp -d)}"
mkdir -p "$scratch"
cd "$root"
node bin/citebench.js run configs/ci.yaml --work "$scratch/ci" --results "$scratch/ci/results" >/dev/null 2>&1
node bin/citebench.js report "$scratch/ci/results" --out "$scratch/report" >/dev/null 2>&1
cd "$scratch/report"
cat > paper.tex <<'TEX'
\documentclass[twocolumn]{article}
\usepackage{booktabs,graphicx}
\usepackage[margin=2cm]{geometry}
\begin{document}
\section{Results}
Table~\ref{tab:citebench-table1} gives each model's values at the dataset level; Figure~\ref{fig:pool} shows
how they fall as the pool grows.

\input{tables/table1}

\begin{figure}[t]
  \centering
  \includegraphics{figures/chart-pool.pdf}
  \caption{Dataset level: metric vs pool size (mean $\pm$ sd over pool samples). Synthetic corpus.}
  \label{fig:pool}
\end{figure}
\end{document}
TEX
pdflatex -interaction=nonstopmode -halt-on-error paper.tex >/dev/null
pdflatex -interaction=nonstopmode -halt-on-error paper.tex >/dev/null
# The top of the first page, where the table and the figure are.
pdftoppm -png -r 100 -f 1 -l 1 -singlefile -H 880 paper.pdf "$root/docs/img/latex-paper"
echo "wrote docs/img/latex-paper.png (from $scratch/report/paper.pdf)"
