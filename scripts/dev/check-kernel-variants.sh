#!/usr/bin/env bash
# The compiled BM25 kernel picks one of three builds of its grouped sweep at load time (AVX-512, AVX2, baseline
# x86-64; native/bm25-kernel.cc, LANE_CLONES): a machine runs only the one it supports. This builds each on its
# own (and the 8-lane variant) and runs the kernel test against it, so every build is checked on this machine.
#   bash scripts/dev/check-kernel-variants.sh        (needs g++ and the Node headers node-gyp installed)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
headers=$(node -p "require('path').join(require('os').homedir(), '.cache/node-gyp', process.versions.node, 'include/node')")
[ -d "$headers" ] || headers=$(dirname "$(command -v node)")/../include/node
flags=(-shared -fPIC -O3 -ffp-contract=off -fno-fast-math -std=gnu++17 -fno-exceptions -Wall -Wextra -Wno-unused-parameter -I"$headers" -DLANE_CLONES=)
for variant in "avx512:-march=x86-64-v4" "avx2:-march=x86-64-v3" "baseline:-march=x86-64" "8-lanes:-DLANE_BITS=3"; do
  name=${variant%%:*}
  g++ "${flags[@]}" "${variant#*:}" -o "$out/$name.node" native/bm25-kernel.cc
  if [ "$name" = avx512 ] && ! grep -q avx512f /proc/cpuinfo; then echo "$name: built, not run (no AVX-512 here)"; continue; fi
  CITEBENCH_BM25_ADDON="$out/$name.node" node --test --import tsx test/bm25/kernel.test.ts > "$out/$name.log" 2>&1 \
    && echo "$name: kernel test passes" || { echo "$name: kernel test FAILS"; tail -30 "$out/$name.log"; exit 1; }
done
