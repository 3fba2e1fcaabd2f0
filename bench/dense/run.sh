#!/usr/bin/env bash
# Dense retrieval benchmarks (npm run bench:dense, which takes the shared heavy lock). Results: one JSON line
# per measurement appended to bench/out/dense/results.jsonl, plus wall time and peak RSS from /usr/bin/time.
#   DENSE_STEPS   which steps (default: "encode search200k exact2m hnsw"; also "int8", after search200k made its data)
#   DENSE_HNSW_N  pool size for the HNSW step (default 100000: a 2 M build would run ~2 h on 2 cores, see docs)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=bench/out/dense
mkdir -p "$OUT"
PY="$OUT/venv/bin/python"
if [ ! -x "$PY" ]; then
  python3 -m venv "$OUT/venv"
  "$OUT/venv/bin/pip" install -q faiss-cpu numpy onnxruntime
fi
free -g
T() { /usr/bin/time -f "  [time] %C: wall %e s, peak RSS %M KB" "$@"; }
NODE="node --import tsx"
for step in ${DENSE_STEPS:-encode search200k exact2m hnsw}; do
  echo "== $step ($(date -u +%H:%M:%S))"
  case $step in
    encode)
      T $NODE bench/dense/encode.ts 160 16
      T "$PY" bench/dense/encode_peer.py ;;
    search200k)
      T $NODE bench/dense/search.ts exact200k
      T "$PY" bench/dense/search_peer.py ;;
    exact2m)
      T $NODE bench/dense/search.ts exact2m ;;
    hnsw)
      N=${DENSE_HNSW_N:-100000}
      DENSE_EXACT_N=$N T $NODE bench/dense/search.ts exact2m
      DENSE_HNSW_N=$N T $NODE bench/dense/search.ts hnsw2m ;;
    int8)
      # Would an exact int8 pre-filter pay? onnxruntime's int8 vs float32 multiply, and the re-scoring it needs.
      $NODE bench/dense/int8-gemm.ts
      "$PY" bench/dense/int8_prefilter_estimate.py ;;
  esac
done
# Selection variants back to back with the faiss peer (ORT TopK, the default, then the JS heap).
if [ -z "${DENSE_STEPS:-}" ]; then
  echo "== search200k, ORT TopK selection then JS heap selection ($(date -u +%H:%M:%S))"
  T $NODE bench/dense/search.ts exact200k
  DENSE_SELECTION=js T $NODE bench/dense/search.ts exact200k
  T "$PY" bench/dense/search_peer.py
  DENSE_EXACT_N=2000000 T $NODE bench/dense/search.ts exact2m
fi
# Block-size sweep of the ORT TopK path (query rows × pool rows per Gemm call).
if [ -z "${DENSE_STEPS:-}" ]; then
  echo "== block sweep ($(date -u +%H:%M:%S))"
  for qp in 1024x131072 1024x262144 4096x32768 2048x65536; do
    DENSE_ONLY_OURS=1 DENSE_QBLOCK=${qp%x*} DENSE_PBLOCK=${qp#*x} T $NODE bench/dense/search.ts exact200k
  done
fi
