/**
 * exactSearch's work in one thread (the caller's, or an exact-worker.ts worker): Gemm + TopK passes over pool
 * blocks, candidates re-scored and certified, failed queries retried with more candidates.
 */
import { endianness } from 'node:os';
import * as ort from 'onnxruntime-node';
import { toCsr, type ExactOptions, type PoolHits } from './hits.ts';
import { session } from './onnx-sessions.ts';
import { MARGIN, epsilon, exactScores, finishFloat32, finishQuery, norms2 } from './rescore.ts';
import { heapSelect } from './selection.ts';
import { kthLargest } from '../../util/select.ts';

if (endianness() !== 'LE') throw new Error('citebench dense search reads int64 indices as 32-bit words: little-endian CPUs only');

/** What exact-worker.ts receives once (shared pool and its squared norms) and per task (a slice of queries). */
export interface ExactWorkerInit {
  pool: { buffer: SharedArrayBuffer; byteOffset: number; length: number };
  d: number;
  pN: Float64Array;
  opts: Omit<ExactOptions, 'exclude' | 'threads' | 'onProgress'>;
}

export interface ExactWorkerTask {
  queries: Float32Array;
  exclude?: Int32Array;
}

/** exactSearch in this thread: one onnxruntime session with `threads` intra-op threads. */
export async function searchBlocks(queries: Float32Array, pool: Float32Array, d: number, opts: ExactOptions, threads: number, poolNorms?: Float64Array): Promise<PoolHits> {
  const l2 = opts.distance === 'l2';
  const nq = queries.length / d;
  const np = pool.length / d;
  const k = Math.min(opts.k, np);
  const qBlock = opts.queryBlock ?? 512;
  const pBlock = opts.poolBlock ?? 131072;
  const selectInJs = opts.selection === 'js';
  const gemmScores = opts.scores === 'float32';
  const sess = await session(l2 ? (selectInJs ? 'l2-gemm' : 'l2-topk') : selectInJs ? 'ip-gemm' : 'ip-topk', d, threads);
  const pN = poolNorms ?? norms2(pool, d);
  const qN = norms2(queries, d);
  let pMax = 0;
  for (let i = 0; i < np; i++) pMax = Math.max(pMax, pN[i]);
  const C = Float32Array.from(pN, (x) => -x);
  const blocks: { lo: number; hi: number; C?: ort.Tensor }[] = [];
  for (let lo = 0; lo < np; lo += pBlock) {
    const hi = Math.min(np, lo + pBlock);
    blocks.push({ lo, hi, C: l2 ? new ort.Tensor('float32', C.subarray(lo, hi), [hi - lo]) : undefined });
  }
  // onnxruntime-node refuses SharedArrayBuffer-backed tensors: a shared pool is fed block by block through a
  // private copy (one copy per block and pass, not per Gemm call).
  const poolShared = pool.buffer instanceof SharedArrayBuffer;
  let scratch: Float32Array | undefined;
  const poolTensor = (lo: number, hi: number): ort.Tensor => {
    const rows = pool.subarray(lo * d, hi * d);
    if (!poolShared) return new ort.Tensor('float32', rows, [hi - lo, d]);
    if (!scratch || scratch.length < rows.length) scratch = new Float32Array(rows.length);
    const own = scratch.subarray(0, rows.length);
    own.set(rows);
    return new ort.Tensor('float32', own, [hi - lo, d]);
  };
  const results: { pos: number[]; score: Float32Array }[] = new Array(nq);
  let finished = 0;

  /**
   * One pass over the pool for the given query rows with `want` candidates per block; returns rows that failed.
   * Pool blocks outside, query blocks inside: each pool block is set up once per pass.
   */
  const pass = async (rows: number[], want: number): Promise<number[]> => {
    const nr = rows.length;
    // Candidates of row i: slots [i·stride, i·stride + fill[i]) of candPos/candG.
    const stride = blocks.reduce((a, b) => a + Math.min(want, b.hi - b.lo), 0);
    const candPos = new Int32Array(nr * stride);
    const candG = new Float32Array(nr * stride);
    const fill = new Int32Array(nr);
    const T = new Float64Array(nr).fill(-Infinity);
    const qTensors: ort.Tensor[] = [];
    for (let b0 = 0; b0 < nr; b0 += qBlock) {
      const part = rows.slice(b0, b0 + qBlock);
      const Q = new Float32Array(part.length * d);
      part.forEach((r, i) => Q.set(queries.subarray(r * d, (r + 1) * d), i * d));
      qTensors.push(new ort.Tensor('float32', Q, [part.length, d]));
    }
    const steps = blocks.length * qTensors.length;
    let step = 0;
    for (const blk of blocks) {
      const n = blk.hi - blk.lo;
      const K = Math.min(want, n);
      const P = poolTensor(blk.lo, blk.hi);
      for (let qb = 0; qb < qTensors.length; qb++) {
        const Qt = qTensors[qb];
        const m = Qt.dims[0];
        const first = qb * qBlock;
        const feeds: Record<string, ort.Tensor> = { Q: Qt, P };
        if (blk.C) feeds.C = blk.C;
        if (selectInJs) {
          // Gemm only; a bounded min-heap per row picks the K best (most values fail one comparison).
          const S = (await sess.run(feeds)).S.data as Float32Array;
          for (let i = 0; i < m; i++) {
            const row = first + i;
            const thr = heapSelect(S, i * n, n, K, candPos, candG, row * stride + fill[row], blk.lo);
            fill[row] += K;
            if (K < n) T[row] = Math.max(T[row], thr);
          }
        } else {
          feeds.K = new ort.Tensor('int64', BigInt64Array.of(BigInt(K)), [1]);
          const out = await sess.run(feeds);
          const V = out.V.data as Float32Array;
          const I64 = out.I.data as BigInt64Array;
          // The int64 indices (< 2^31) read as their low 32-bit words (little-endian, checked at load): no
          // BigInt per candidate.
          const I = new Int32Array(I64.buffer, I64.byteOffset, I64.length * 2);
          for (let i = 0; i < m; i++) {
            const row = first + i;
            const o = row * stride + fill[row];
            for (let j = 0; j < K; j++) {
              candPos[o + j] = blk.lo + I[2 * (i * K + j)];
              candG[o + j] = V[i * K + j];
            }
            fill[row] += K;
            if (K < n) T[row] = Math.max(T[row], V[i * K + K - 1]);
          }
        }
        // Queries are only final after the last pool block: report the scanned share meanwhile.
        opts.onProgress?.(finished + Math.floor((nr * ++step) / (steps + 1)));
      }
    }
    const failed: number[] = [];
    rows.forEach((r, i) => {
      // Keep the `want` best by Gemm score (all ties at the cut); the rest only raise T.
      const all = candPos.subarray(i * stride, i * stride + fill[i]);
      const g = candG.subarray(i * stride, i * stride + fill[i]);
      let pos: ArrayLike<number> = all;
      if (all.length > want) {
        const tau = kthLargest(Float32Array.from(g), want);
        const keep: number[] = [];
        for (let j = 0; j < all.length; j++) {
          if (g[j] >= tau) keep.push(all[j]);
          else if (g[j] > T[i]) T[i] = g[j];
        }
        pos = keep;
      }
      const ex = opts.exclude?.[r] ?? -1;
      if (gemmScores) {
        results[r] = finishFloat32(all, g, ex, l2 ? Math.fround(qN[r]) : 0, k, opts.tieRank);
        finished++;
        return;
      }
      const keptPos: number[] = [];
      for (let j = 0; j < pos.length; j++) if (pos[j] !== ex) keptPos.push(pos[j]);
      const exact = exactScores(queries, r * d, pool, keptPos, d, l2);
      const fin = finishQuery(keptPos, exact, k, opts.tieRank);
      // Upper bound on the true score of anything left out (L2 Gemm scores lack the −|q|² term). Compared in
      // float32, the precision of the ordering, so a left-out article cannot even tie with the k-th.
      const bound = (l2 ? T[i] - qN[r] : T[i]) + epsilon(d, l2, qN[r], pMax);
      const complete = T[i] === -Infinity;
      const certified = complete || (fin.pos.length >= k && Math.fround(bound) < Math.fround(fin.kth));
      if (certified) {
        results[r] = fin;
        finished++;
      } else failed.push(r);
    });
    opts.onProgress?.(finished);
    return failed;
  };

  let pending = Array.from({ length: nq }, (_, i) => i);
  let want = k + MARGIN + 1;
  for (;;) {
    pending = await pass(pending, want);
    if (pending.length === 0) break;
    want = want >= np ? np : Math.min(np, want * 4);
  }
  return toCsr(results);
}
