/**
 * Exact search results over a pool (PoolHits, per-query CSR) and the options every part of the search takes:
 * the types shared by the single-vector, worker and multi-vector paths, and the CSR assembly.
 */
import type { Metric } from './similarity.ts';

/** Per-query results in CSR form over pool positions (0..poolSize-1), best first. */
export interface PoolHits {
  offsets: Uint32Array;
  positions: Uint32Array;
  scores: Float32Array;
}

export interface ExactOptions {
  k: number;
  distance: Metric;
  /** Tie order per pool position (lower first; default: the position itself), e.g. trec_eval's docno order. */
  tieRank?: Uint32Array;
  /** Pool position to leave out of each query's list (−1: none), e.g. the query article itself. */
  exclude?: Int32Array;
  /** Queries per Gemm call (single-vector: default 512). */
  queryBlock?: number;
  /** Pool vectors per Gemm call (single-vector: default 131,072; the score block is queryBlock × poolBlock float32). */
  poolBlock?: number;
  threads?: number;
  /** Top-K per block by onnxruntime's TopK operator (default, measured faster) or a JS heap over the Gemm scores. */
  selection?: 'js' | 'ort';
  /** Called with the number of queries finished so far (for progress). */
  onProgress?: (done: number) => void;
  /**
   * 'exact' (default): candidates re-scored in float64 and certified, so results equal a float64 brute force.
   * 'float32': rank by the float32 Gemm scores as faiss IndexFlat does (L2: |q|² + |p|² − 2q·p in float32,
   * negated), no re-scoring: faiss's semantics at faiss's speed; near-ties may order differently from exact.
   */
  scores?: 'exact' | 'float32';
}

export interface MultiVectors {
  /** Article i owns rows offsets[i]..offsets[i+1] of `vectors`. */
  offsets: Uint32Array;
  vectors: Float32Array;
}

export function toCsr(results: { pos: number[]; score: Float32Array }[]): PoolHits {
  const offsets = new Uint32Array(results.length + 1);
  results.forEach((r, i) => (offsets[i + 1] = offsets[i] + r.pos.length));
  const positions = new Uint32Array(offsets[results.length]);
  const scores = new Float32Array(offsets[results.length]);
  results.forEach((r, i) => {
    positions.set(r.pos, offsets[i]);
    scores.set(r.score, offsets[i]);
  });
  return { offsets, positions, scores };
}

export function concatHits(parts: PoolHits[]): PoolHits {
  const nq = parts.reduce((a, h) => a + h.offsets.length - 1, 0);
  const total = parts.reduce((a, h) => a + h.positions.length, 0);
  const offsets = new Uint32Array(nq + 1);
  const positions = new Uint32Array(total);
  const scores = new Float32Array(total);
  let q = 0;
  let at = 0;
  for (const h of parts) {
    for (let i = 1; i < h.offsets.length; i++) offsets[++q] = at + h.offsets[i];
    positions.set(h.positions, at);
    scores.set(h.scores, at);
    at += h.positions.length;
  }
  return { offsets, positions, scores };
}
