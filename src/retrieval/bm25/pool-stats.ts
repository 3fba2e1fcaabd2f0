/**
 * BM25 exactly as Lucene ≥ 8 (BM25Similarity, Lucene 8.7) computes it, over the whole corpus or over a candidate
 * pool searched as if it had been indexed alone: the parameters, the pool's collection statistics, the query
 * weights and the score of one posting. The scorers (typescript-kernel.ts, fixed-candidates.ts and the compiled
 * kernel) only sum what this defines.
 *
 *   idf    = (float) ln(1 + (N − df + 0.5) / (df + 0.5))          N = docs of the pool with ≥ 1 term
 *   avgdl  = (float) (sumTotalTermFreq / (double) N)               over the pool
 *   normInverse(d) = 1f / (k1 * ((1 − b) + b * len(d) / avgdl))    float ops; len = byte4ToInt(norm) (lossy)
 *                                                                  or the exact length (accurate)
 *   weight = boost * idf                                           boost = count of the term in the query
 *   term score = weight − weight / (1f + tf * normInverse(d))     float ops (BM25Scorer.score)
 *   doc score  = (float) Σ (double) term scores                    (WANDScorer / BooleanScorer sum in double)
 *
 * Every float step is rounded with Math.fround: for +, −, ×, ÷ of two floats, rounding the double result to
 * float gives the float result (53 ≥ 2·24 + 2), so scores equal Lucene's bit for bit up to the order of the
 * double summation.
 */
import type { Bm25Index } from './index-format.ts';
import { LENGTH_TABLE } from './norms.ts';
import { CitebenchError } from '../../util/errors.ts';
import { cachedSlice } from './pool-slice.ts';
import type { PreparedQuery, ScoringArrays } from './scoring-arrays.ts';

const fround = Math.fround;

export interface Bm25Params {
  k1: number;
  b: number;
  /** Exact document lengths (Anserini -bm25.accurate) instead of Lucene's lossy one-byte norms. */
  accurate: boolean;
}

export const DEFAULT_PARAMS: Bm25Params = { k1: 0.9, b: 0.4, accurate: false };

/** Lucene's BM25Scorer.score of one posting: `weight` = boost·idf, `tf` its frequency, `normInverse` its document's. */
export function termScore(weight: number, tf: number, normInverse: number): number {
  return fround(weight - fround(weight / fround(1 + fround(tf * normInverse))));
}

/** Collection statistics of a pool (or the whole corpus) and the per-document norms derived from them. */
export class PoolStats {
  /** Documents of the pool that have at least one term (Lucene's docCount). */
  readonly N: number;
  readonly sumTotalTermFreq: number;
  readonly avgdl: number;
  readonly member: Uint8Array | null;
  readonly normInv: Float32Array;
  readonly normCache: Float32Array | null;
  private readonly dfCache: Int32Array;

  constructor(
    private readonly ix: Bm25Index,
    readonly params: Bm25Params,
    pool?: Uint32Array,
  ) {
    const { lengths, docCount } = ix;
    let N = 0;
    let sum = 0;
    if (pool) {
      this.member = new Uint8Array(new SharedArrayBuffer(docCount));
      let prev = -1;
      for (let i = 0; i < pool.length; i++) {
        const d = pool[i];
        if (d >= docCount) throw new CitebenchError(`pool: document ${d} is outside the index (${docCount} documents)`);
        if (d <= prev) throw new CitebenchError(`pool: indices must be sorted and distinct (${prev} then ${d} at position ${i})`);
        prev = d;
        this.member[d] = 1;
        if (lengths[d] > 0) N++;
        sum += lengths[d];
      }
    } else {
      this.member = null;
      for (let d = 0; d < docCount; d++) {
        if (lengths[d] > 0) N++;
        sum += lengths[d];
      }
    }
    this.N = N;
    this.sumTotalTermFreq = sum;
    this.avgdl = N > 0 ? fround(sum / N) : 0;
    const { k1, b } = params;
    const k1f = fround(k1);
    const bf = fround(b);
    const oneMinusB = fround(1 - bf);
    const avgdl = this.avgdl;
    const normOf = (len: number) => fround(1 / fround(k1f * fround(oneMinusB + fround(fround(bf * len) / avgdl))));
    if (params.accurate) {
      this.normCache = null;
      this.normInv = new Float32Array(new SharedArrayBuffer(docCount * 4));
      for (let d = 0; d < docCount; d++) this.normInv[d] = normOf(lengths[d]);
    } else {
      this.normCache = new Float32Array(256);
      for (let i = 0; i < 256; i++) this.normCache[i] = normOf(LENGTH_TABLE[i]);
      this.normInv = new Float32Array(0);
    }
    this.dfCache = new Int32Array(ix.terms.length).fill(-1);
  }

  /** Document frequency of term `t` within the pool. */
  df(t: number): number {
    let v = this.dfCache[t];
    if (v >= 0) return v;
    const { offsets, docs } = this.ix;
    const from = offsets[t];
    const to = offsets[t + 1];
    const slice = this.member && cachedSlice(this.member);
    if (this.member === null) v = to - from;
    else if (slice) v = slice.offsets[t + 1] - slice.offsets[t]; // the pool's own postings of t, counted once
    else {
      const m = this.member;
      v = 0;
      for (let p = from; p < to; p++) v += m[docs[p]];
    }
    this.dfCache[t] = v;
    return v;
  }

  /** Lucene's idf, as a float. */
  idf(t: number): number {
    const df = this.df(t);
    return fround(Math.log(1 + (this.N - df + 0.5) / (df + 0.5)));
  }

  /**
   * Turn analysed query terms into a scorable query: one SHOULD clause per token, duplicates folded into a
   * boost (as Lucene's BooleanQuery rewrite does); terms absent from the pool contribute nothing.
   */
  prepare(termIds: ArrayLike<number>): PreparedQuery {
    const counts = new Map<number, number>();
    for (let i = 0; i < termIds.length; i++) counts.set(termIds[i], (counts.get(termIds[i]) ?? 0) + 1);
    const ids = [...counts.keys()].filter((t) => this.df(t) > 0).sort((a, b) => a - b);
    const weights = new Float32Array(ids.length);
    for (let i = 0; i < ids.length; i++) weights[i] = fround(fround(counts.get(ids[i])!) * this.idf(ids[i]));
    return { terms: Uint32Array.from(ids), weights };
  }

  /** The index's postings with this pool's norms and membership, and `tieKey` to break equal scores. */
  arrays(tieKey: Uint32Array | null): ScoringArrays {
    const ix = this.ix;
    return {
      docCount: ix.docCount,
      offsets: ix.offsets,
      docs: ix.docs,
      tfNorms: ix.tfNorms,
      tfBigPos: ix.tfBigPos,
      tfBigVal: ix.tfBigVal,
      normCache: this.normCache,
      normInv: this.normInv,
      member: this.member,
      tieKey,
      poolTokens: this.member ? this.sumTotalTermFreq : undefined,
    };
  }
}
