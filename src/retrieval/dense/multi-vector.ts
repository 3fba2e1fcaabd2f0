/** Exact search for multi-vector models (ts-ASPIRE): an article's score is its best sentence pair's. */
import { cpus } from 'node:os';
import * as ort from 'onnxruntime-node';
import { toCsr, type ExactOptions, type MultiVectors, type PoolHits } from './hits.ts';
import { session } from './onnx-sessions.ts';
import { MARGIN, epsilon, exactScore, finishQuery, norms2 } from './rescore.ts';
import { kthLargest } from '../../util/select.ts';

/**
 * Exact top-k articles for multi-vector models (ts-ASPIRE): the score of a (query, article) pair is the best
 * score over all (query sentence, article sentence) pairs. Every sentence pair is scored by Gemm, reduced to
 * one value per (query, article) in JS, the top articles re-scored exactly and certified as in exactSearch.
 */
export async function exactSearchMulti(queries: MultiVectors, pool: MultiVectors, d: number, opts: ExactOptions): Promise<PoolHits> {
  const l2 = opts.distance === 'l2';
  const nq = queries.offsets.length - 1;
  const na = pool.offsets.length - 1;
  const k = Math.min(opts.k, na);
  const threads = opts.threads ?? cpus().length;
  const rowBudget = opts.queryBlock ?? 512; // query sentence rows per Gemm
  const colBudget = opts.poolBlock ?? 32768; // pool sentence rows per Gemm
  const sess = await session(l2 ? 'l2-full' : 'ip-full', d, threads);
  // onnxruntime-node refuses SharedArrayBuffer-backed tensors (what EmbeddingStore.load returns): one private copy.
  if (pool.vectors.buffer instanceof SharedArrayBuffer) pool = { offsets: pool.offsets, vectors: pool.vectors.slice() };
  if (queries.vectors.buffer instanceof SharedArrayBuffer) queries = { offsets: queries.offsets, vectors: queries.vectors.slice() };
  const pN = norms2(pool.vectors, d);
  const qN = norms2(queries.vectors, d);
  let pMax = 0;
  for (const x of pN) pMax = Math.max(pMax, x);
  const C = Float32Array.from(pN, (x) => -x);
  // Pool blocks end at article boundaries.
  const blocks: { a0: number; a1: number; P: ort.Tensor; C?: ort.Tensor }[] = [];
  for (let a0 = 0; a0 < na; ) {
    let a1 = a0 + 1;
    while (a1 < na && pool.offsets[a1 + 1] - pool.offsets[a0] <= colBudget) a1++;
    const r0 = pool.offsets[a0];
    const r1 = pool.offsets[a1];
    blocks.push({
      a0,
      a1,
      P: new ort.Tensor('float32', pool.vectors.subarray(r0 * d, r1 * d), [r1 - r0, d]),
      C: l2 ? new ort.Tensor('float32', C.subarray(r0, r1), [r1 - r0]) : undefined,
    });
    a0 = a1;
  }
  const results: { pos: number[]; score: Float32Array }[] = new Array(nq);
  for (let q0 = 0; q0 < nq; ) {
    let q1 = q0 + 1;
    while (q1 < nq && queries.offsets[q1 + 1] - queries.offsets[q0] <= rowBudget) q1++;
    const r0 = queries.offsets[q0];
    const r1 = queries.offsets[q1];
    const rows = r1 - r0;
    const Qt = new ort.Tensor('float32', queries.vectors.subarray(r0 * d, r1 * d), [rows, d]);
    const Rt = new ort.Tensor('float32', Float32Array.from(qN.subarray(r0, r1), (x) => -x), [rows, 1]);
    const best = new Float32Array((q1 - q0) * na).fill(-Infinity);
    for (const blk of blocks) {
      if (rows === 0 || blk.P.dims[0] === 0) continue;
      const feeds: Record<string, ort.Tensor> = { Q: Qt, P: blk.P };
      if (l2) {
        feeds.C = blk.C!;
        feeds.R = Rt;
      }
      const S = (await sess.run(feeds)).S.data as Float32Array;
      const cols = blk.P.dims[0];
      const c0 = pool.offsets[blk.a0];
      for (let q = q0; q < q1; q++) {
        const base = (q - q0) * na;
        for (let r = queries.offsets[q] - r0; r < queries.offsets[q + 1] - r0; r++) {
          const row = r * cols - c0;
          for (let a = blk.a0; a < blk.a1; a++) {
            let m = best[base + a];
            for (let c = pool.offsets[a]; c < pool.offsets[a + 1]; c++) if (S[row + c] > m) m = S[row + c];
            best[base + a] = m;
          }
        }
      }
    }
    for (let q = q0; q < q1; q++) {
      const g = best.subarray((q - q0) * na, (q - q0 + 1) * na);
      const ex = opts.exclude?.[q] ?? -1;
      let qMax = 0;
      for (let r = queries.offsets[q]; r < queries.offsets[q + 1]; r++) qMax = Math.max(qMax, qN[r]);
      const eps = epsilon(d, l2, qMax, pMax);
      for (let want = k + MARGIN + 1; ; want = Math.min(na, want * 4)) {
        const tau = want >= na ? -Infinity : kthLargest(Float32Array.from(g), want);
        let T = -Infinity;
        const pos: number[] = [];
        const exact: number[] = [];
        for (let a = 0; a < na; a++) {
          if (g[a] >= tau) {
            if (a === ex) continue;
            pos.push(a);
            let m = -Infinity;
            for (let r = queries.offsets[q]; r < queries.offsets[q + 1]; r++)
              for (let c = pool.offsets[a]; c < pool.offsets[a + 1]; c++) m = Math.max(m, exactScore(queries.vectors, r * d, pool.vectors, c * d, d, l2));
            exact.push(m);
          } else T = Math.max(T, g[a]);
        }
        const fin = finishQuery(pos, exact, k, opts.tieRank);
        if (T === -Infinity || (fin.pos.length >= k && Math.fround(T + eps) < Math.fround(fin.kth))) {
          results[q] = fin;
          break;
        }
      }
    }
    opts.onProgress?.(q1);
    q0 = q1;
  }
  return toCsr(results);
}
