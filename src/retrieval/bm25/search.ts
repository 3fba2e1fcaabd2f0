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
import { TF_BIG, type Bm25Index } from './index-format.ts';
import { EnglishAnalyzer } from './analyzer.ts';
import { LENGTH_TABLE } from './norms.ts';
import { CitebenchError } from '../../util/errors.ts';
import { bm25Kernel, type Bm25Kernel } from './kernel.ts';

const fround = Math.fround;
/**
 * Score tables are indexed by a posting's tfNorm code (tf << 8 | norm byte) for tf 0..TABLE_TF (row 0 unused),
 * so codes below TABLE_CODES read their score with one load; used for terms with ≥ TABLE_MIN_POSTINGS postings.
 */
const TABLE_TF = 16;
const TABLE_CODES = (TABLE_TF + 1) << 8;
const TABLE_MIN_POSTINGS = 8192;
/** Documents per accumulator block: 64 Ki × 8 bytes of accumulators stay in the L2 cache. */
const BLOCK_DOCS = 1 << 16;
/**
 * The compiled kernel's block: 8 Ki × 8 bytes of accumulators, about the L1 data cache. One thread,
 * bench/bm25/kernel.ts: at 200 k documents 4–8 Ki blocks were level with 64 Ki on a quiet machine (≈ 1.5 ns per
 * posting) and ahead under load; at 1 M, 8–16 Ki blocks beat 4 Ki (2.2 vs 2.8 ns under load) and 64 Ki (2.3).
 */
const KERNEL_BLOCK_DOCS = 1 << 13;

export interface Bm25Params {
  k1: number;
  b: number;
  /** Exact document lengths (Anserini -bm25.accurate) instead of Lucene's lossy one-byte norms. */
  accurate: boolean;
}

export const DEFAULT_PARAMS: Bm25Params = { k1: 0.9, b: 0.4, accurate: false };

/** What a scorer needs — the index's postings plus pool statistics: plain typed arrays, shareable with workers. */
export interface ScoringArrays extends Pick<Bm25Index, 'docCount' | 'offsets' | 'docs' | 'tfNorms' | 'tfBigPos' | 'tfBigVal'> {
  /** Lossy mode: normInverse of each of the 256 norm bytes (BM25Similarity's cache); null in accurate mode. */
  normCache: Float32Array | null;
  /** Accurate mode: normInverse of every document (exact length); empty in lossy mode. */
  normInv: Float32Array;
  /** Pool membership (1 = in pool); null = whole corpus. */
  member: Uint8Array | null;
  /** Tie-break key per document, higher ranks first among equal scores; null = corpus index. */
  tieKey: Uint32Array | null;
  /**
   * A pool's own index (slicePool): document i of these arrays is the corpus's document poolDocs[i]; the scorer
   * takes and returns corpus numbers. Absent or null: the arrays number documents as the corpus does.
   */
  poolDocs?: Uint32Array | null;
  /**
   * The members' tokens (the pool's sumTotalTermFreq): no pool holds more postings, so slicePool allocates its
   * slice from this instead of counting them first. Absent: counted.
   */
  poolTokens?: number;
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
    const slice = this.member && slices.get(this.member);
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

/** Pools holding less than this fraction of the index are searched over their own postings (slicePool). */
export const SLICE_BELOW = 0.5;

type Postings = Pick<ScoringArrays, 'offsets' | 'docs' | 'tfNorms' | 'tfBigPos' | 'tfBigVal'> & { poolDocs: Uint32Array };
const slices = new WeakMap<Uint8Array, Postings>();

/**
 * The pool as an index of its own: the index's postings of member documents only, in the same order, with the
 * members numbered 0…P−1 in corpus order (poolDocs maps them back), so every score, sum order and tie is the one
 * the whole-index sweep gives; `member` becomes null. A query then reads its terms' postings in the pool and
 * sweeps P accumulators instead of the corpus's — at S2ORC's 16 M articles a 200 k pool's queries cost what they
 * cost in a 200 k-article index — for one pass over the postings per pool (cached while the pool's membership
 * array lives; the pool's document frequencies come with it, PoolStats.df). Large pools and whole-corpus
 * searches are returned as they are; so are searches of fixed candidates (they may name documents outside the
 * pool).
 */
export function slicePool(a: ScoringArrays): ScoringArrays {
  const m = a.member;
  if (m === null) return a;
  let size = 0;
  for (let d = 0; d < a.docCount; d++) size += m[d];
  if (size >= SLICE_BELOW * a.docCount) return a;
  let sl = slices.get(m);
  if (!sl) {
    sl = slicePostings(a, m, size);
    slices.set(m, sl);
  }
  const { poolDocs } = sl;
  // Per-document columns in the pool's numbering (the tie key may differ between searches of one pool).
  const local = <T extends Float32Array | Uint32Array>(col: T, C: { new (b: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number }): T => {
    const out = new C(new SharedArrayBuffer(C.BYTES_PER_ELEMENT * poolDocs.length));
    for (let i = 0; i < poolDocs.length; i++) out[i] = col[poolDocs[i]];
    return out;
  };
  return {
    ...a, ...sl,
    docCount: poolDocs.length,
    member: null,
    normInv: a.normInv.length ? local(a.normInv, Float32Array) : a.normInv,
    // Members are numbered in corpus order, so "no key" (the corpus index breaks ties) stays "no key".
    tieKey: a.tieKey && local(a.tieKey, Uint32Array),
  };
}

function slicePostings(a: ScoringArrays, m: Uint8Array, size: number): Postings {
  const { offsets, docs, tfNorms, tfBigPos, tfBigVal, docCount } = a;
  // Membership as a bitmap: 2 MB at 16 M documents stays in cache beside the streamed postings, where a byte
  // per document (16 MB) made each posting's test a cache miss (21 → 5 ns per posting, measured).
  const bits = new Int32Array((docCount + 31) >>> 5);
  const poolDocs = new Uint32Array(new SharedArrayBuffer(4 * size));
  const localOf = new Uint32Array(docCount); // read at members only
  for (let d = 0, i = 0; d < docCount; d++) {
    if (m[d] === 0) continue;
    bits[d >>> 5] |= 1 << (d & 31);
    poolDocs[i] = d;
    localOf[d] = i++;
  }
  let cap = a.poolTokens;
  if (cap === undefined) {
    cap = 0;
    for (let p = 0; p < docs.length; p++) {
      const d = docs[p];
      cap += (bits[d >>> 5] >>> (d & 31)) & 1;
    }
  }
  // Pages of the buffers past the postings written are never touched, so never resident.
  const docsBuf = new SharedArrayBuffer(4 * cap);
  const tfBuf = new SharedArrayBuffer(2 * cap);
  const sDocs = new Uint32Array(docsBuf);
  const sTf = new Uint16Array(tfBuf);
  const V = offsets.length - 1;
  const sOffsets = new Float64Array(new SharedArrayBuffer(8 * (V + 1)));
  const bigPos: number[] = [];
  const bigVal: number[] = [];
  let big = 0; // tfBigPos is ascending, as the postings are walked
  let at = 0;
  for (let t = 0; t < V; t++) {
    const end = offsets[t + 1];
    for (let p = offsets[t]; p < end; p++) {
      const d = docs[p];
      if (((bits[d >>> 5] >>> (d & 31)) & 1) === 0) continue;
      const code = tfNorms[p];
      if ((code >> 8) === TF_BIG) {
        while (tfBigPos[big] < p) big++;
        bigPos.push(at);
        bigVal.push(tfBigVal[big]);
      }
      sDocs[at] = localOf[d];
      sTf[at++] = code;
    }
    sOffsets[t + 1] = at;
  }
  // (Writes past a typed array's end are dropped silently: a count beyond the tokens is a damaged index.)
  if (at > cap) throw new CitebenchError(`bm25 index: a pool's ${at} postings exceed its ${cap} tokens (damaged index files): rebuild the index`);
  const sBigPos = new Float64Array(new SharedArrayBuffer(8 * bigPos.length));
  sBigPos.set(bigPos);
  const sBigVal = new Uint32Array(new SharedArrayBuffer(4 * bigVal.length));
  sBigVal.set(bigVal);
  return { offsets: sOffsets, docs: new Uint32Array(docsBuf, 0, at), tfNorms: new Uint16Array(tfBuf, 0, at), tfBigPos: sBigPos, tfBigVal: sBigVal, poolDocs };
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

/**
 * Scores one query at a time, term at a time, one block of documents at a time: each block's accumulators
 * (8 bytes per document of the block) stay in cache while every query term's postings for that block are
 * read sequentially — at a million documents, a whole-corpus accumulator made every posting a cache miss.
 * Per document, contributions are still added in query-term order, so scores do not depend on the block size.
 * Each block is then swept in order; documents with a positive score compete for a size-k min-heap.
 * (MaxScore pruning was tried: with title+abstract queries of ~100+ terms the non-essential bounds add up to
 * about the top-k threshold, so nearly every document survives and probing cost more than scanning.)
 * The compiled kernel (kernel.ts) runs this same loop, bit for bit, for every search without fixed candidates;
 * this TypeScript is the fallback where it was not built. Fixed candidates are looked up instead (rankCandidates).
 */
export class QueryScorer {
  private readonly acc: Float64Array;
  private table = new Float32Array(TABLE_CODES * 8);
  private cursor = new Float64Array(0);
  private heapDocs = new Uint32Array(0);
  private heapScores = new Float32Array(0);
  private heapSize = 0;
  private readonly blockDocs: number;
  private readonly kernel: Bm25Kernel | null;
  /** The kernel's scorer over `a` (it holds its own scratch space), or null. */
  private readonly native: object | null;

  /**
   * @param tableMinPostings postings count from which a term is scored via its table (tests force 0 or ∞).
   * @param blockDocs documents per accumulator block (tests force small blocks); default: the kernel's or
   * the TypeScript loop's own (blocks change speed only, never a score).
   * @param kernel the compiled kernel, or null for the TypeScript loop (tests compare both).
   */
  constructor(
    private readonly a: ScoringArrays,
    private readonly tableMinPostings = TABLE_MIN_POSTINGS,
    blockDocs?: number,
    kernel: Bm25Kernel | null = bm25Kernel(),
  ) {
    this.blockDocs = blockDocs ?? BLOCK_DOCS;
    const block = Math.max(1, Math.min(this.blockDocs, a.docCount));
    this.acc = new Float64Array(block);
    this.kernel = kernel;
    this.native = this.kernel && this.kernel.createScorer(a, tableMinPostings, blockDocs ?? KERNEL_BLOCK_DOCS);
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
    throw new CitebenchError(`bm25 index: posting ${p} lacks its stored frequency (damaged index files): rebuild the index`);
  }

  /**
   * Top k documents for a query. `exclude` = a corpus index never returned (the query article itself, or -1).
   * With `candidates`, only those documents are ranked — all of them, score 0 when no term matches — under
   * the pool's statistics (MDCR-style scoring of fixed candidates).
   */
  search(q: PreparedQuery, k: number, exclude = -1, candidates?: Uint32Array): TopK {
    const poolDocs = this.a.poolDocs;
    if (!poolDocs) return this.rank(q, k, exclude, candidates);
    if (candidates) throw new Error('QueryScorer: fixed candidates are searched over the corpus numbering, not a pool slice');
    const top = this.rank(q, k, exclude < 0 ? -1 : localIndex(poolDocs, exclude));
    for (let i = 0; i < top.docs.length; i++) top.docs[i] = poolDocs[top.docs[i]];
    return top;
  }

  /** search() in the arrays' own numbering. */
  private rank(q: PreparedQuery, k: number, exclude: number, candidates?: Uint32Array): TopK {
    if (candidates) return this.rankCandidates(q, k, exclude, candidates);
    if (this.native !== null) {
      const r = this.kernel!.search(this.native, q.terms, q.weights, k, exclude);
      if (r === null) throw new CitebenchError('bm25 index: a posting lacks its stored frequency (damaged index files): rebuild the index');
      return { docs: r[0], scores: r[1] };
    }
    const { offsets, docs, tfNorms, normInv, docCount } = this.a;
    const acc = this.acc;
    const nTerms = q.terms.length;
    // Restriction: the pool's membership.
    const filter = this.a.member;
    const cache = this.a.normCache;
    // Long postings in lossy mode: the term's score depends only on (tf, norm byte), tabulated once per query
    // term for small tf; rows of terms below the threshold stay unused.
    const useTable = new Int32Array(nTerms);
    if (cache !== null) {
      let nTables = 0;
      for (let qi = 0; qi < nTerms; qi++) {
        const t = q.terms[qi];
        if (offsets[t + 1] - offsets[t] >= this.tableMinPostings) useTable[qi] = ++nTables;
      }
      if (this.table.length < nTables * TABLE_CODES) this.table = new Float32Array(nTables * TABLE_CODES);
      for (let qi = 0; qi < nTerms; qi++) {
        if (!useTable[qi]) continue;
        const w = q.weights[qi];
        const base = (useTable[qi] - 1) * TABLE_CODES;
        for (let tf = 1; tf <= TABLE_TF; tf++) {
          const row = base + (tf << 8);
          for (let nb = 0; nb < 256; nb++) this.table[row + nb] = fround(w - fround(w / fround(1 + fround(tf * cache[nb]))));
        }
      }
    }
    const tables = this.table;
    if (this.cursor.length < nTerms) this.cursor = new Float64Array(nTerms * 2);
    const cursor = this.cursor;
    for (let qi = 0; qi < nTerms; qi++) cursor[qi] = offsets[q.terms[qi]];
    this.heapReset(k);
    for (let blockStart = 0; blockStart < docCount; blockStart += this.blockDocs) {
      const blockEnd = Math.min(docCount, blockStart + this.blockDocs);
      for (let qi = 0; qi < nTerms; qi++) {
        const w = q.weights[qi];
        const end = offsets[q.terms[qi] + 1];
        let p = cursor[qi];
        if (cache === null) {
          // Accurate lengths: normInverse per document.
          for (; p < end; p++) {
            const d = docs[p];
            if (d >= blockEnd) break;
            if (filter !== null && filter[d] === 0) continue;
            let tf = tfNorms[p] >> 8;
            if (tf === TF_BIG) tf = this.tf(p);
            const s = fround(w - fround(w / fround(1 + fround(tf * normInv[d]))));
            acc[d - blockStart] += s;
          }
        } else if (useTable[qi] === 0) {
          for (; p < end; p++) {
            const d = docs[p];
            if (d >= blockEnd) break;
            if (filter !== null && filter[d] === 0) continue;
            const code = tfNorms[p];
            let tf = code >> 8;
            if (tf === TF_BIG) tf = this.tf(p);
            const s = fround(w - fround(w / fround(1 + fround(tf * cache[code & 255]))));
            acc[d - blockStart] += s;
          }
        } else {
          const base = (useTable[qi] - 1) * TABLE_CODES;
          for (; p < end; p++) {
            const d = docs[p];
            if (d >= blockEnd) break;
            if (filter !== null && filter[d] === 0) continue;
            const code = tfNorms[p];
            let s: number;
            if (code < TABLE_CODES) s = tables[base + code];
            else {
              const tf = code >> 8;
              const f = tf === TF_BIG ? this.tf(p) : tf;
              s = fround(w - fround(w / fround(1 + fround(f * cache[code & 255]))));
            }
            acc[d - blockStart] += s;
          }
        }
        cursor[qi] = p;
      }
      // Sequential sweep of the block: every document with a positive score competes for the top k. Once the
      // heap is full, a sum at or below the float just under its minimum cannot round to a score that enters,
      // so most documents cost one comparison.
      const len = blockEnd - blockStart;
      let floor = this.heapFloor();
      for (let l = 0; l < len; l++) {
        const v = acc[l];
        if (v <= floor) continue;
        const d = l + blockStart;
        if (d === exclude) continue;
        this.heapOffer(fround(v), d);
        floor = this.heapFloor();
      }
      acc.fill(0, 0, len);
    }
    return this.heapDrain();
  }

  /**
   * Fixed candidates (MDCR): exactly those documents, each ranked (score 0 when no term matches it). Each is
   * looked up in its query terms' postings (binary search: a term's postings are in document order), its term
   * scores summed in query-term order in a double as the sweep sums them, and offered to the heap in document
   * order as the sweep offers them, so scores and ties are the sweep's. A query costs its terms × candidates ×
   * log(postings) instead of its terms' postings: 65 candidates in a 16 M-article index.
   */
  private rankCandidates(q: PreparedQuery, k: number, exclude: number, candidates: Uint32Array): TopK {
    const { offsets, docs, tfNorms, normInv, docCount } = this.a;
    const cache = this.a.normCache;
    const sorted = Uint32Array.from(candidates).sort();
    this.heapReset(k);
    for (let i = 0; i < sorted.length; i++) {
      const d = sorted[i];
      if (d >= docCount) throw new CitebenchError(`candidates: document ${d} is outside the index`);
      if (i > 0 && sorted[i - 1] === d) continue; // repeated candidate
      let sum = 0;
      for (let qi = 0; qi < q.terms.length; qi++) {
        const t = q.terms[qi];
        let lo = offsets[t];
        let hi = offsets[t + 1] - 1;
        while (lo <= hi) {
          const mid = Math.floor((lo + hi) / 2);
          const x = docs[mid];
          if (x < d) lo = mid + 1;
          else if (x > d) hi = mid - 1;
          else {
            const code = tfNorms[mid];
            let tf = code >> 8;
            if (tf === TF_BIG) tf = this.tf(mid);
            const w = q.weights[qi];
            sum += fround(w - fround(w / fround(1 + fround(tf * (cache === null ? normInv[d] : cache[code & 255])))));
            break;
          }
        }
      }
      if (d !== exclude) this.heapOffer(fround(sum), d);
    }
    return this.heapDrain();
  }

  // ---- size-k min-heap by (float score, tie key): the root is the worst kept document ----
  private k = 0;

  private worse(sx: number, dx: number, sy: number, dy: number): boolean {
    if (sx !== sy) return sx < sy;
    const key = this.a.tieKey;
    return key === null ? dx < dy : key[dx] < key[dy];
  }

  private readonly f32 = new Float32Array(1);
  private readonly u32 = new Uint32Array(this.f32.buffer);

  /** Sums ≤ this cannot enter the heap: 0 until it is full, then the float just below its minimum score. */
  private heapFloor(): number {
    if (this.k === 0) return Infinity;
    if (this.heapSize < this.k) return 0;
    const min = this.heapScores[0];
    if (!(min > 0)) return -Infinity; // (not reached with positive BM25 scores) let the heap decide
    this.f32[0] = min;
    this.u32[0]--;
    return this.f32[0];
  }

  private heapReset(k: number): void {
    this.k = k;
    this.heapSize = 0;
    if (this.heapDocs.length < k) {
      this.heapDocs = new Uint32Array(k);
      this.heapScores = new Float32Array(k);
    }
  }

  private heapOffer(s: number, d: number): void {
    const hd = this.heapDocs;
    const hs = this.heapScores;
    if (this.heapSize < this.k) {
      let j = this.heapSize++;
      while (j > 0) {
        const parent = (j - 1) >> 1;
        if (!this.worse(s, d, hs[parent], hd[parent])) break;
        hd[j] = hd[parent];
        hs[j] = hs[parent];
        j = parent;
      }
      hd[j] = d;
      hs[j] = s;
    } else if (this.k > 0 && this.worse(hs[0], hd[0], s, d)) {
      this.siftDown(s, d);
    }
  }

  /** Put (s, d) at the root and restore the heap. */
  private siftDown(s: number, d: number): void {
    const hd = this.heapDocs;
    const hs = this.heapScores;
    const size = this.heapSize;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= size) break;
      if (c + 1 < size && this.worse(hs[c + 1], hd[c + 1], hs[c], hd[c])) c++;
      if (!this.worse(hs[c], hd[c], s, d)) break;
      hd[i] = hd[c];
      hs[i] = hs[c];
      i = c;
    }
    hd[i] = d;
    hs[i] = s;
  }

  /** Empty the heap, best first. */
  private heapDrain(): TopK {
    const n = this.heapSize;
    const docsOut = new Uint32Array(n);
    const scoresOut = new Float32Array(n);
    for (let i = n - 1; i >= 0; i--) {
      docsOut[i] = this.heapDocs[0];
      scoresOut[i] = this.heapScores[0];
      this.heapSize--;
      if (this.heapSize > 0) this.siftDown(this.heapScores[this.heapSize], this.heapDocs[this.heapSize]);
    }
    return { docs: docsOut, scores: scoresOut };
  }
}

/** Position of corpus document `d` among a pool's sorted documents, or -1 when it is not a member. */
function localIndex(poolDocs: Uint32Array, d: number): number {
  let lo = 0;
  let hi = poolDocs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (poolDocs[mid] === d) return mid;
    if (poolDocs[mid] < d) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
