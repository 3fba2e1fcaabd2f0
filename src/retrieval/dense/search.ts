/**
 * Exact nearest-neighbour search restricted to a pool, for single-vector and multi-vector (ASPIRE) models.
 *
 * Candidate generation runs as a tiny ONNX graph in onnxruntime (Gemm = MLAS sgemm, then TopK), one
 * single-threaded session per worker thread over a shared pool: BLAS-class speed, 6× usearch's exactSearch and
 * two orders of magnitude over JS loops on the same data (see docs/benchmarks.md). Float32 Gemm rounds, so the candidates are then re-scored exactly (float64 sums) and
 * ordered by (float32 score desc, pool position asc). A per-query certificate makes the result exact: every
 * article left out has a Gemm score ≤ T, hence a true score ≤ T + ε (ε = a worst-case bound on the float32
 * rounding of the Gemm); when the k-th exact score is not above T + ε the query is retried with more candidates.
 * So the output equals a float64 brute force, independent of block sizes and thread counts.
 *
 * Scores: `l2` → −squared Euclidean distance (what faiss IndexFlatL2 reports, negated); `ip` → inner product.
 *
 * This module spreads the queries over worker threads; the parts: onnx-sessions.ts (the graphs),
 * exact-blocks.ts (one thread's passes), rescore.ts (float64 scores and the certificate), selection.ts (top-K
 * in JS), multi-vector.ts (exactSearchMulti), hits.ts (result type and options).
 */
import { cpus } from 'node:os';
import { tsWorker } from '../../util/ts-worker.ts';
import type { Worker } from 'node:worker_threads';
import { concatHits, type ExactOptions, type PoolHits } from './hits.ts';
import { searchBlocks, type ExactWorkerInit, type ExactWorkerTask } from './exact-blocks.ts';
import { norms2 } from './rescore.ts';

/**
 * Exact top-k of each query row over the pool rows (single-vector models). `queries` is nq×d, `pool` np×d.
 * With several threads and more than one query block, the queries are split over worker threads that each run
 * a single-threaded onnxruntime session: here two such sessions reach 177 GFLOP/s of sgemm against 160 for one
 * session on two MLAS threads (numpy/OpenBLAS: 180), and the JS re-scoring runs in parallel too. The pool is
 * shared with the workers when it lives in a SharedArrayBuffer (EmbeddingStore.load gives one); otherwise it
 * is copied into one first.
 */
export async function exactSearch(queries: Float32Array, pool: Float32Array, d: number, opts: ExactOptions): Promise<PoolHits> {
  const nq = queries.length / d;
  const threads = opts.threads ?? cpus().length;
  const workers = Math.min(threads, Math.ceil(nq / (opts.queryBlock ?? 512)));
  if (workers <= 1) return searchBlocks(queries, pool, d, opts, threads);
  // Workers start (module loading, onnxruntime) while this thread computes the pool's norms.
  const spawned = Array.from({ length: workers }, () => tsWorker(new URL('./exact-worker.ts', import.meta.url)));
  try {
    return await searchOnWorkers(spawned, queries, pool, d, opts);
  } finally {
    // Also on failure: a worker left running would keep the process alive.
    await Promise.all(spawned.map((w) => w.terminate()));
  }
}

async function searchOnWorkers(spawned: Worker[], queries: Float32Array, pool: Float32Array, d: number, opts: ExactOptions): Promise<PoolHits> {
  const nq = queries.length / d;
  const workers = spawned.length;
  const sharedPool = pool.buffer instanceof SharedArrayBuffer ? pool : shareCopy(pool);
  const pN = norms2(sharedPool, d, true);
  const tieRank = opts.tieRank;
  const init: ExactWorkerInit = {
    // The buffer, not the view: Node 20 clones a typed array over more than 4 GiB with a truncated length.
    pool: { buffer: sharedPool.buffer as SharedArrayBuffer, byteOffset: sharedPool.byteOffset, length: sharedPool.length }, d, pN,
    opts: { k: opts.k, distance: opts.distance, tieRank, queryBlock: opts.queryBlock, poolBlock: opts.poolBlock, selection: opts.selection, scores: opts.scores },
  };
  // Equal contiguous slices: every query costs the same (one pass over the pool).
  const parts = Array.from({ length: workers }, (_, w) => [Math.floor((w * nq) / workers), Math.floor(((w + 1) * nq) / workers)] as const);
  const doneBy = new Array<number>(workers).fill(0);
  const hits = await Promise.all(
    parts.map(([q0, q1], w) =>
      new Promise<PoolHits>((resolve, reject) => {
        const worker = spawned[w];
        worker.on('message', (m: { progress?: number; hits?: PoolHits }) => {
          if (m.hits) return resolve(m.hits);
          doneBy[w] = m.progress!;
          opts.onProgress?.(doneBy.reduce((a, b) => a + b, 0));
        });
        worker.on('error', reject);
        worker.on('exit', (code) => reject(new Error(`exact search worker exited with code ${code} before finishing`)));
        const task: ExactWorkerTask = { queries: queries.slice(q0 * d, q1 * d), exclude: opts.exclude?.slice(q0, q1) };
        worker.postMessage({ init, task }, [task.queries.buffer as ArrayBuffer]);
      }),
    ),
  );
  return concatHits(hits);
}

function shareCopy(a: Float32Array): Float32Array {
  const out = new Float32Array(new SharedArrayBuffer(a.byteLength));
  out.set(a);
  return out;
}
