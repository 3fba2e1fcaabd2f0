/**
 * BM25 scoring exactly as Lucene ≥ 8 (BM25Similarity, Lucene 8.7) computes it, over the whole corpus or over a
 * candidate pool searched as if it had been indexed alone.
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
 *
 * Ranking: score descending, ties by `tieKey` descending — with the corpus store's idOrder this is trec_eval's
 * order (equal scores: docno descending), so evaluation sees exactly our ranking. Default tie key: corpus index.
 */
import type { Bm25Index } from './index.ts';
import { EnglishAnalyzer } from './analyzer.ts';
import { LENGTH_TABLE } from './norms.ts';
import { CitebenchError } from '../../util/errors.ts';

const fround = Math.fround;
const TF_BIG = 255;
/** Score tables cover tf 1..TABLE_TF × 256 norm bytes; used for terms with at least TABLE_MIN_POSTINGS postings. */
const TABLE_TF = 16;
const TABLE_MIN_POSTINGS = 8192;

export interface Bm25Params {
  k1: number;
  b: number;
  /** Exact document lengths (Anserini -bm25.accurate) instead of Lucene's lossy one-byte norms. */
  accurate: boolean;
}

export const DEFAULT_PARAMS: Bm25Params = { k1: 0.9, b: 0.4, accurate: false };

/** What a scorer needs — plain typed arrays, shareable with worker threads. */
export interface ScoringArrays {
  docCount: number;
  offsets: Float64Array;
  docs: Uint32Array;
  tfs: Uint8Array;
  tfBigPos: Float64Array;
  tfBigVal: Uint32Array;
  /** Norm byte of each posting's document (lossy mode). */
  postNorms: Uint8Array;
  /** Lossy mode: normInverse of each of the 256 norm bytes (BM25Similarity's cache); null in accurate mode. */
  normCache: Float32Array | null;
  /** Accurate mode: normInverse of every document (exact length); empty in lossy mode. */
  normInv: Float32Array;
  /** Pool membership (1 = in pool); null = whole corpus. */
  member: Uint8Array | null;
  /** Tie-break key per document, higher ranks first among equal scores; null = corpus index. */
  tieKey: Uint32Array | null;
}

/** A query ready for scoring: distinct term ids (ascending) and their weights boost·idf (float). */
export interface PreparedQuery {
  terms: Uint32Array;
  weights: Float32Array;
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
    if (this.member === null) v = to - from;
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

  arrays(tieKey: Uint32Array | null): ScoringArrays {
    const ix = this.ix;
    return {
      docCount: ix.docCount,
      offsets: ix.offsets,
      docs: ix.docs,
      tfs: ix.tfs,
      tfBigPos: ix.tfBigPos,
      tfBigVal: ix.tfBigVal,
      postNorms: ix.postNorms,
      normCache: this.normCache,
      normInv: this.normInv,
      member: this.member,
      tieKey,
    };
  }
}

/** Analyse query texts into term ids of the index vocabulary (unknown terms dropped). */
export function queryTermIds(analyzer: EnglishAnalyzer, vocab: Map<string, number>, text: string): number[] {
  const ids: number[] = [];
  analyzer.forEachTerm(text, (t) => {
    const id = vocab.get(t);
    if (id !== undefined) ids.push(id);
  });
  return ids;
}

export interface TopK {
  docs: Uint32Array;
  scores: Float32Array;
}

/** Scores one query at a time into a reusable accumulator (term at a time), then selects the top k. */
export class QueryScorer {
  private readonly acc: Float64Array;
  private readonly touched: Uint32Array;
  private readonly mark: Uint8Array;
  private readonly table = new Float32Array(TABLE_TF * 256);
  private heapDocs = new Uint32Array(0);
  private heapScores = new Float32Array(0);

  /** @param tableMinPostings postings count from which a term is scored via its table (tests force 0 or ∞). */
  constructor(
    private readonly a: ScoringArrays,
    private readonly tableMinPostings = TABLE_MIN_POSTINGS,
  ) {
    this.acc = new Float64Array(a.docCount);
    this.touched = new Uint32Array(a.docCount);
    this.mark = new Uint8Array(a.docCount);
  }

  private tf(p: number): number {
    const { tfBigPos, tfBigVal } = this.a;
    let lo = 0;
    let hi = tfBigPos.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (tfBigPos[mid] === p) return tfBigVal[mid];
      if (tfBigPos[mid] < p) lo = mid + 1;
      else hi = mid - 1;
    }
    throw new Error(`bm25: posting ${p} lacks its stored frequency`);
  }

  /**
   * Top k documents for a query. `exclude` = a corpus index never returned (the query article itself, or -1).
   * With `candidates`, only those documents are ranked — all of them, score 0 when no term matches — under
   * the pool's statistics (MDCR-style scoring of fixed candidates).
   */
  search(q: PreparedQuery, k: number, exclude = -1, candidates?: Uint32Array): TopK {
    const { offsets, docs, tfs, normInv, postNorms } = this.a;
    const acc = this.acc;
    const touched = this.touched;
    let n = 0;
    // Restriction: candidates (marked per query) or the pool's membership bitmap.
    let filter = this.a.member;
    if (candidates) {
      filter = this.mark;
      for (let i = 0; i < candidates.length; i++) {
        const d = candidates[i];
        if (d >= this.a.docCount) throw new CitebenchError(`candidates: document ${d} is outside the index`);
        this.mark[d] = 1;
      }
    }
    const cache = this.a.normCache;
    for (let qi = 0; qi < q.terms.length; qi++) {
      const t = q.terms[qi];
      const w = q.weights[qi];
      const from = offsets[t];
      const end = offsets[t + 1];
      if (cache === null) {
        // Accurate lengths: normInverse per document.
        for (let p = from; p < end; p++) {
          const d = docs[p];
          if (filter !== null && filter[d] === 0) continue;
          let tf = tfs[p];
          if (tf === TF_BIG) tf = this.tf(p);
          const s = fround(w - fround(w / fround(1 + fround(tf * normInv[d]))));
          const prev = acc[d];
          if (prev === 0) touched[n++] = d;
          acc[d] = prev + s;
        }
      } else if (end - from < this.tableMinPostings) {
        for (let p = from; p < end; p++) {
          const d = docs[p];
          if (filter !== null && filter[d] === 0) continue;
          let tf = tfs[p];
          if (tf === TF_BIG) tf = this.tf(p);
          const s = fround(w - fround(w / fround(1 + fround(tf * cache[postNorms[p]]))));
          const prev = acc[d];
          if (prev === 0) touched[n++] = d;
          acc[d] = prev + s;
        }
      } else {
        // Long postings: the term's score depends only on (tf, norm byte), so tabulate it once for small tf;
        // the postings are then read sequentially with a table lookup per entry (same float values).
        const table = this.table;
        for (let tf = 1; tf <= TABLE_TF; tf++) {
          const row = (tf - 1) << 8;
          for (let nb = 0; nb < 256; nb++) table[row | nb] = fround(w - fround(w / fround(1 + fround(tf * cache[nb]))));
        }
        for (let p = from; p < end; p++) {
          const d = docs[p];
          if (filter !== null && filter[d] === 0) continue;
          const tf = tfs[p];
          let s: number;
          if (tf <= TABLE_TF) s = table[((tf - 1) << 8) | postNorms[p]];
          else {
            const f = tf === TF_BIG ? this.tf(p) : tf;
            s = fround(w - fround(w / fround(1 + fround(f * cache[postNorms[p]]))));
          }
          const prev = acc[d];
          if (prev === 0) touched[n++] = d;
          acc[d] = prev + s;
        }
      }
    }
    if (candidates) {
      // Every candidate is ranked; those no term reached enter with score 0.
      for (let i = 0; i < candidates.length; i++) {
        const d = candidates[i];
        if (acc[d] === 0 && this.mark[d] === 1) {
          touched[n++] = d;
          this.mark[d] = 2;
        }
      }
    }
    const out = this.select(n, k, exclude);
    for (let i = 0; i < n; i++) acc[touched[i]] = 0;
    if (candidates) for (let i = 0; i < candidates.length; i++) this.mark[candidates[i]] = 0;
    return out;
  }

  /** Top k of the touched documents by (float score desc, tie key desc), via a size-k min-heap. */
  private select(n: number, k: number, exclude: number): TopK {
    const acc = this.acc;
    const touched = this.touched;
    const key = this.a.tieKey;
    if (this.heapDocs.length < k) {
      this.heapDocs = new Uint32Array(k);
      this.heapScores = new Float32Array(k);
    }
    const hd = this.heapDocs;
    const hs = this.heapScores;
    // worse(x, y): x ranks below y.
    const tk = (d: number) => (key === null ? d : key[d]);
    const worse = (sx: number, dx: number, sy: number, dy: number) => sx < sy || (sx === sy && tk(dx) < tk(dy));
    let size = 0;
    const siftDown = (i: number) => {
      const d = hd[i];
      const s = hs[i];
      for (;;) {
        let c = 2 * i + 1;
        if (c >= size) break;
        if (c + 1 < size && worse(hs[c + 1], hd[c + 1], hs[c], hd[c])) c++;
        if (!worse(hs[c], hd[c], s, d)) break;
        hd[i] = hd[c];
        hs[i] = hs[c];
        i = c;
      }
      hd[i] = d;
      hs[i] = s;
    };
    for (let i = 0; i < n; i++) {
      const d = touched[i];
      if (d === exclude) continue;
      const s = fround(acc[d]);
      if (size < k) {
        // Sift up.
        let j = size++;
        while (j > 0) {
          const parent = (j - 1) >> 1;
          if (!worse(s, d, hs[parent], hd[parent])) break;
          hd[j] = hd[parent];
          hs[j] = hs[parent];
          j = parent;
        }
        hd[j] = d;
        hs[j] = s;
      } else if (k > 0 && worse(hs[0], hd[0], s, d)) {
        hd[0] = d;
        hs[0] = s;
        siftDown(0);
      }
    }
    // Pop worst-first into the back of the output.
    const docsOut = new Uint32Array(size);
    const scoresOut = new Float32Array(size);
    for (let i = size - 1; i >= 0; i--) {
      docsOut[i] = hd[0];
      scoresOut[i] = hs[0];
      size--;
      if (size > 0) {
        hd[0] = hd[size];
        hs[0] = hs[size];
        siftDown(0);
      }
    }
    return { docs: docsOut, scores: scoresOut };
  }
}
