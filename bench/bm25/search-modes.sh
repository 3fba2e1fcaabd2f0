#!/usr/bin/env bash
# Child processes (default) vs worker threads (--shared-memory) for `bm25 search` on the 1 M benchmark index (after `npm run bench:bm25`).
# usage: flock /tmp/citebench-heavy.lock bash bench/bm25/search-modes.sh [N]
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-1000000}
D=data/bench/bm25
for mode in "" --shared-memory; do
  echo "== bm25 search ${mode:-(child processes)}"
  /usr/bin/time -f "wall %e s, peak RSS %M KB" node --import tsx src/cli.ts bm25 search --index $D/index-$N --corpus $D/store-$N \
    --queries $D/queries-$N.txt --k 500 --threads 2 $mode --out $D/run-$N${mode:+-threads}.trec
done
cmp $D/run-$N-threads.trec $D/run-$N.trec && echo "runs identical"
