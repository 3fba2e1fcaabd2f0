/**
 * Exact search by −L1 (Manhattan) distance, the score of sentence-transformers' `manhattan` similarity
 * (−torch.cdist(a, b, p=1)). No Gemm computes it: every (query, pool article) pair is summed in float64 in JS,
 * so the cost is queries × pool × dimensions — fine for MDCR's candidate lists and pools of thousands, slow
 * for a million-article pool (about 2 × 10⁹ operations per query at 2 M × 768).
 */
import { kthLargest } from '../../util/select.ts';
import { toCsr, type PoolHits } from './hits.ts';
import { finishQuery } from './rescore.ts';

export interface L1Options {
  k: number;
  /** Tie order per pool position (lower first; default: the position itself). */
  tieRank?: Uint32Array;
  /** Pool position to leave out of each query's list (−1: none). */
  exclude?: Int32Array;
  onProgress?: (done: number) => void;
}

/** Top k pool rows of each query row by −L1 distance, best first, ties by tie rank (float32 scores). */
export function exactSearchL1(queries: Float32Array, pool: Float32Array, d: number, opts: L1Options): PoolHits {
  const nq = queries.length / d;
  const np = pool.length / d;
  const scores = new Float64Array(np);
  const scratch = new Float32Array(np);
  const results: { pos: number[]; score: Float32Array }[] = [];
  for (let q = 0; q < nq; q++) {
    const qo = q * d;
    for (let p = 0; p < np; p++) {
      let s = 0;
      const po = p * d;
      for (let j = 0; j < d; j++) s += Math.abs(queries[qo + j] - pool[po + j]);
      scores[p] = 0 - s;
    }
    const ex = opts.exclude?.[q] ?? -1;
    const n = np - (ex >= 0 && ex < np ? 1 : 0);
    const k = Math.min(opts.k, n);
    // Every article whose float32 score reaches the k-th best float32 score: ties at the cut are ordered by rank.
    let m = 0;
    for (let p = 0; p < np; p++) if (p !== ex) scratch[m++] = Math.fround(scores[p]);
    const tau = k === 0 ? Infinity : kthLargest(scratch, k, m);
    const pos: number[] = [];
    const exact: number[] = [];
    for (let p = 0; p < np; p++) {
      if (p === ex || Math.fround(scores[p]) < tau) continue;
      pos.push(p);
      exact.push(scores[p]);
    }
    const fin = finishQuery(pos, exact, k, opts.tieRank);
    results.push({ pos: fin.pos, score: fin.score });
    opts.onProgress?.(q + 1);
  }
  return toCsr(results);
}
