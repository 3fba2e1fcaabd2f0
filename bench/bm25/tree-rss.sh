#!/usr/bin/env bash
# Run a command and report the peak of the summed RSS of its whole process tree (sampled every 0.2 s):
# /usr/bin/time reports one process's peak, which misses child processes running in parallel.
# usage: bash bench/bm25/tree-rss.sh CMD ARGS...
set -uo pipefail
"$@" &
root=$!
peak=0
tree() { local p=$1; echo "$p"; for c in $(pgrep -P "$p"); do tree "$c"; done; }
while kill -0 "$root" 2>/dev/null; do
  sum=0
  for p in $(tree "$root"); do
    r=$(awk '/VmRSS/ {print $2}' /proc/$p/status 2>/dev/null || echo 0)
    sum=$((sum + ${r:-0}))
  done
  [ "$sum" -gt "$peak" ] && peak=$sum
  sleep 0.2
done
wait "$root"; rc=$?
echo "peak summed RSS of the process tree: $((peak / 1024)) MiB"
exit $rc
