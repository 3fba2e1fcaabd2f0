/**
 * The search loop in TypeScript: what the compiled kernel (kernel.ts, native/bm25-kernel.cc) runs bit for bit,
 * and the search where that kernel was not built.
 *
 * Scores one query at a time, term at a time, one block of documents at a time: each block's accumulators
 * (8 bytes per document of the block) stay in cache while every query term's postings for that block are
 * read sequentially — at a million documents, a whole-corpus accumulator made every posting a cache miss.
 * Per document, contributions are still added in query-term order, so scores do not depend on the block size.
 * Each block is then swept in order; documents with a positive score compete for a size-k min-heap.
 * (MaxScore pruning was tried: with title+abstract queries of ~100+ terms the non-essential bounds add up to
 * about the top-k threshold, so nearly every document survives and probing cost more than scanning.)
 */
import { TF_BIG, postingTf } from './index-format.ts';
import { termScore } from './pool-stats.ts';
import { TopKHeap } from './top-k-heap.ts';
import type { PreparedQuery, ScoringArrays, TopK } from './scoring-arrays.ts';

/**
 * Score tables are indexed by a posting's tfNorm code (tf << 8 | norm byte) for tf 0..TABLE_TF (row 0 unused),
 * so codes below TABLE_CODES read their score with one load.
 */
const TABLE_TF = 16;
const TABLE_CODES = (TABLE_TF + 1) << 8;
/** Documents per accumulator block: 64 Ki × 8 bytes of accumulators stay in the L2 cache. */
export const TS_BLOCK_DOCS = 1 << 16;

export class TypeScriptKernel {
  private readonly acc: Float64Array;
  private table = new Float32Array(TABLE_CODES * 8);
  private cursor = new Float64Array(0);
  private readonly heap: TopKHeap;

  /**
   * @param tableMinPostings postings count from which a term (lossy lengths) is scored via its table.
   * @param blockDocs documents per accumulator block (blocks change speed only, never a score).
   */
  constructor(
    private readonly a: ScoringArrays,
    private readonly tableMinPostings: number,
    private readonly blockDocs: number,
  ) {
    this.acc = new Float64Array(Math.max(1, Math.min(blockDocs, a.docCount)));
    this.heap = new TopKHeap(a.tieKey);
  }

  /** Top k documents of the arrays for a query, in the arrays' numbering; `exclude` is never returned (or -1). */
  search(q: PreparedQuery, k: number, exclude: number): TopK {
    const a = this.a;
    const { offsets, docs, tfNorms, normInv, docCount } = a;
    const acc = this.acc;
    const heap = this.heap;
    const nTerms = q.terms.length;
    // Restriction: the pool's membership.
    const filter = a.member;
    const cache = a.normCache;
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
          for (let nb = 0; nb < 256; nb++) this.table[row + nb] = termScore(w, tf, cache[nb]);
        }
      }
    }
    const tables = this.table;
    if (this.cursor.length < nTerms) this.cursor = new Float64Array(nTerms * 2);
    const cursor = this.cursor;
    for (let qi = 0; qi < nTerms; qi++) cursor[qi] = offsets[q.terms[qi]];
    heap.reset(k);
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
            if (tf === TF_BIG) tf = postingTf(a, p);
            acc[d - blockStart] += termScore(w, tf, normInv[d]);
          }
        } else if (useTable[qi] === 0) {
          for (; p < end; p++) {
            const d = docs[p];
            if (d >= blockEnd) break;
            if (filter !== null && filter[d] === 0) continue;
            const code = tfNorms[p];
            let tf = code >> 8;
            if (tf === TF_BIG) tf = postingTf(a, p);
            acc[d - blockStart] += termScore(w, tf, cache[code & 255]);
          }
        } else {
          const base = (useTable[qi] - 1) * TABLE_CODES;
          for (; p < end; p++) {
            const d = docs[p];
            if (d >= blockEnd) break;
            if (filter !== null && filter[d] === 0) continue;
            const code = tfNorms[p];
            acc[d - blockStart] += code < TABLE_CODES ? tables[base + code] : termScore(w, postingTf(a, p), cache[code & 255]);
          }
        }
        cursor[qi] = p;
      }
      // Sequential sweep of the block: every document with a positive score competes for the top k. Once the
      // heap is full, a sum at or below the float just under its minimum cannot round to a score that enters,
      // so most documents cost one comparison.
      const len = blockEnd - blockStart;
      let floor = heap.floor();
      for (let l = 0; l < len; l++) {
        const v = acc[l];
        if (v <= floor) continue;
        const d = l + blockStart;
        if (d === exclude) continue;
        heap.offer(Math.fround(v), d);
        floor = heap.floor();
      }
      acc.fill(0, 0, len);
    }
    return heap.drain();
  }
}
