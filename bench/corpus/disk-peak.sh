#!/usr/bin/env bash
# Peak disk use of a command in one folder: `du -sb DIR` every 0.3 s while CMD runs; prints the peak and the
# files present at it. usage: bash bench/corpus/disk-peak.sh DIR -- CMD [ARGS...]
#   bash bench/corpus/disk-peak.sh out -- citebench corpus build --input shards --out out/store
set -uo pipefail
dir=$1; shift; [ "${1:-}" = "--" ] && shift
mkdir -p "$dir"
at=$(mktemp)
"$@" & pid=$!
max=0
while kill -0 "$pid" 2>/dev/null; do
  s=$(du -sb "$dir" 2>/dev/null | cut -f1)
  if [ "${s:-0}" -gt "$max" ]; then max=$s; (cd "$dir" && find . -type f -printf '%s %p\n') > "$at" 2>/dev/null; fi
  sleep 0.3
done
wait "$pid"; rc=$?
echo "exit $rc, peak $max bytes in $dir; files at the peak:"
sort -rn "$at"; rm -f "$at"
exit $rc
