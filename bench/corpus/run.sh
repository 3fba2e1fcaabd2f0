#!/usr/bin/env bash
# Time and peak memory of `citebench synth` and `citebench corpus build` for N articles.
# usage: bash bench/corpus/run.sh [N ...]   (default: 200000 2000000); output under bench/out/corpus/
# CPU time is printed beside wall time: on a shared machine it is the figure that does not depend on the load.
#   PROFILE=s2orc-raw bash bench/corpus/run.sh 20000000   records shaped like the raw S2ORC release (~20 % kept)
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p bench/out/corpus
for N in "${@:-200000 2000000}"; do
  for n in $N; do
    dir=bench/out/corpus/synth${PROFILE:+-$PROFILE}-$n
    rm -rf "$dir" "$dir.store"
    echo "== synth $n articles"
    /usr/bin/time -f "synth $n: wall %e s, CPU %U s user + %S s sys, peak RSS %M KB" node --import tsx src/cli.ts synth --articles "$n" --seed 1 ${PROFILE:+--profile "$PROFILE"} --out "$dir"
    du -sh "$dir"
    echo "== corpus build $n"
    /usr/bin/time -f "build $n: wall %e s, CPU %U s user + %S s sys, peak RSS %M KB" node --import tsx src/cli.ts corpus build --input "$dir" --out "$dir.store"
    du -sh "$dir.store"
    node --import tsx src/cli.ts corpus info "$dir.store"
  done
done
for n in ${@:-200000 2000000}; do
  echo "== load bench/out/corpus/synth${PROFILE:+-$PROFILE}-$n.store"
  node --import tsx bench/corpus/load.ts "bench/out/corpus/synth${PROFILE:+-$PROFILE}-$n.store"
done
