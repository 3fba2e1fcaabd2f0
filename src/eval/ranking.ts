/**
 * trec_eval's ranking rule, in one place (form_res_rels.c of trec_eval 9.0.8):
 *  - the run's rank column is ignored; docs are sorted by score descending,
 *  - scores are C floats in 9.0.8 (rounded to float32 first, so near-equal doubles tie), doubles in trec_eval 10,
 *  - ties are broken by docno descending (byte-wise strcmp(b, a)),
 *  - -M n keeps the top n after sorting; qrels stay whole (num_rel counts every relevant doc),
 *  - a retrieved doc absent from qrels is NONPOOL (-1), one with a negative qrels label is UNJUDGED (-2).
 * Every measure works on the JudgedRanking this produces.
 */
import { CitebenchError } from '../util/errors.ts';
import type { DocOrder, QrelsCsr, RunCsr } from './types.ts';

export const NONPOOL = -1;
export const UNJUDGED = -2;

/** One query's ranked, judged view. Buffers are reused between queries: read before the next rank() call. */
export interface JudgedRanking {
  /** Number of ranked docs after -M. */
  numRet: number;
  /** rels[i] = qrels label of the doc at rank i+1, or NONPOOL / UNJUDGED. Valid for i < numRet. */
  rels: Int32Array;
  /** Relevant docs in qrels (label ≥ relevanceLevel). */
  numRel: number;
  /** Relevant docs retrieved (within numRet). */
  numRelRet: number;
  /** levelCounts[l] = qrels docs with label l ≥ 0; valid for l < numRelLevels. */
  levelCounts: Int32Array;
  /** 1 + the highest label with a non-zero count (0 if none). */
  numRelLevels: number;
  relevanceLevel: number;
  /** Judged docs in qrels (any label), for measures that need it. */
  numJudged: number;
}

const TWO32 = 4294967296;

export class Ranker {
  private order = new Uint32Array(16);
  private keys = new Float64Array(16);
  private qdocs = new Uint32Array(16);
  private qlabels = new Int32Array(16);
  private qkeys = new Float64Array(16);
  private readonly f32 = new Float32Array(1);
  private readonly u32 = new Uint32Array(this.f32.buffer);
  private readonly view: JudgedRanking = {
    numRet: 0,
    rels: new Int32Array(16),
    numRel: 0,
    numRelRet: 0,
    levelCounts: new Int32Array(8),
    numRelLevels: 0,
    relevanceLevel: 1,
    numJudged: 0,
  };
  private readonly relevanceLevel: number;
  private readonly maxDocs: number;
  private readonly float32: boolean;

  constructor(
    private readonly qrels: QrelsCsr,
    private readonly run: RunCsr,
    private readonly docOrder: DocOrder | undefined,
    opts: { relevanceLevel?: number; maxDocsPerQuery?: number; trecEval10?: boolean } = {},
  ) {
    this.relevanceLevel = opts.relevanceLevel ?? 1;
    this.maxDocs = opts.maxDocsPerQuery ?? Infinity;
    this.float32 = !opts.trecEval10;
    this.view.relevanceLevel = this.relevanceLevel;
  }

  /** Score of run entry i as trec_eval sees it (float32-rounded in 9.0.8; -0 equals +0 as in C). */
  private score(i: number): number {
    const s = this.float32 ? Math.fround(this.run.scores[i]) : this.run.scores[i];
    return s === 0 ? 0 : s;
  }

  /** Indices into the run (absolute) of query q's docs, best first, after -M. Returns the count. */
  rankOrder(q: number): number {
    const start = this.run.offsets[q];
    const n = this.run.offsets[q + 1] - start;
    if (this.order.length < n) {
      this.order = new Uint32Array(grow(n));
      this.keys = new Float64Array(grow(n));
    }
    const order = this.order;
    const bits = n <= 1 ? 1 : Math.ceil(Math.log2(n));
    // Runs are nearly always written best first: scores already non-increasing in file order need no sort (both
    // sorts below order equal scores by position, so the identity is what they would return).
    let prev = Infinity;
    let i = 0;
    while (i < n) {
      const s = this.score(start + i);
      if (s > prev) break;
      prev = s;
      i++;
    }
    if (i === n) {
      for (let k = 0; k < n; k++) order[k] = start + k;
    } else if (this.float32 && bits <= 21) {
      // Pack (descending float32 order, local index) into one exact double and sort natively: fast, no comparator.
      const pow = 2 ** bits;
      const keys = this.keys;
      for (let i = 0; i < n; i++) {
        this.f32[0] = this.score(start + i);
        const u = this.u32[0];
        const sortable = u >= 0x80000000 ? TWO32 - 1 - u : u + 0x80000000;
        keys[i] = (TWO32 - 1 - sortable) * pow + i;
      }
      const sorted = keys.subarray(0, n).sort();
      for (let i = 0; i < n; i++) order[i] = start + (sorted[i] % pow);
    } else {
      for (let i = 0; i < n; i++) order[i] = start + i;
      const self = this;
      order.subarray(0, n).sort((a, b) => self.score(b) - self.score(a));
    }
    this.breakTies(order, n);
    return Math.min(n, this.maxDocs);
  }

  /** Query q's run entries (indices into the run CSR), best first, after -M (a copy). */
  ranked(q: number): Uint32Array {
    const n = this.rankOrder(q); // first: it may replace this.order with a larger buffer
    return this.order.slice(0, n);
  }

  /** Within each run of equal scores, order by docno descending. */
  private breakTies(order: Uint32Array, n: number): void {
    const docs = this.run.docs;
    let i = 0;
    while (i < n) {
      const s = this.score(order[i]);
      let j = i + 1;
      while (j < n && this.score(order[j]) === s) j++;
      if (j - i > 1) {
        const cmp = this.docCompare();
        const group = Array.from(order.subarray(i, j));
        group.sort((a, b) => cmp(docs[b], docs[a]));
        for (let k = 0; k < group.length; k++) order[i + k] = group[k];
      }
      i = j;
    }
  }

  private docCompare(): (a: number, b: number) => number {
    const o = this.docOrder;
    if (o === undefined) throw new CitebenchError('tied scores need a docOrder (docno order) to rank like trec_eval');
    if (typeof o === 'function') return o;
    return (a, b) => o[a] - o[b];
  }

  /** Rank query q's run against its qrels. The returned view is reused by the next call. */
  rank(q: number): JudgedRanking {
    const v = this.view;
    const numRet = this.rankOrder(q);
    const order = this.order;
    this.sortQrels(q);
    const qStart = this.qrels.offsets[q];
    const nq = this.qrels.offsets[q + 1] - qStart;
    const qdocs = this.qdocs;
    const qlabels = this.qlabels;

    // Label counts per level (labels ≥ 0), num_rel and the number of levels.
    let maxLabel = -1;
    for (let i = 0; i < nq; i++) if (qlabels[i] > maxLabel) maxLabel = qlabels[i];
    if (v.levelCounts.length < maxLabel + 1) v.levelCounts = new Int32Array(grow(maxLabel + 1));
    const counts = v.levelCounts;
    counts.fill(0, 0, Math.max(maxLabel + 1, 0));
    for (let i = 0; i < nq; i++) if (qlabels[i] >= 0) counts[qlabels[i]]++;
    v.numRel = 0;
    v.numRelLevels = 0;
    for (let l = 0; l <= maxLabel; l++) {
      if (counts[l]) {
        v.numRelLevels = l + 1;
        if (l >= this.relevanceLevel) v.numRel += counts[l];
      }
    }
    v.numJudged = nq;

    // Judge the ranked docs (binary search in the query's doc-sorted qrels).
    if (v.rels.length < numRet) v.rels = new Int32Array(grow(numRet));
    const rels = v.rels;
    const docs = this.run.docs;
    let numRelRet = 0;
    // Most retrieved docs are not in the query's qrels; those above its largest doc id need no search.
    const maxQdoc = nq > 0 ? qdocs[nq - 1] : -1;
    for (let i = 0; i < numRet; i++) {
      const d = docs[order[i]];
      if (d > maxQdoc) {
        rels[i] = NONPOOL;
        continue;
      }
      let lo = 0;
      let hi = nq;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (qdocs[mid] < d) lo = mid + 1;
        else hi = mid;
      }
      let rel: number;
      if (lo < nq && qdocs[lo] === d) {
        rel = qlabels[lo] < 0 ? UNJUDGED : qlabels[lo];
        if (rel >= 0 && rel >= this.relevanceLevel) numRelRet++;
      } else rel = NONPOOL;
      rels[i] = rel;
    }
    v.numRet = numRet;
    v.numRelRet = numRelRet;
    return v;
  }

  /** Copy query q's qrels into qdocs/qlabels sorted by doc id; duplicate docs are an error. */
  private sortQrels(q: number): void {
    const start = this.qrels.offsets[q];
    const n = this.qrels.offsets[q + 1] - start;
    if (this.qdocs.length < n) {
      this.qdocs = new Uint32Array(grow(n));
      this.qlabels = new Int32Array(grow(n));
      this.qkeys = new Float64Array(grow(n));
    }
    const bits = n <= 1 ? 1 : Math.ceil(Math.log2(n));
    const pow = 2 ** bits;
    const keys = this.qkeys;
    const srcDocs = this.qrels.docs;
    const srcLabels = this.qrels.labels;
    if (bits <= 21) {
      for (let i = 0; i < n; i++) keys[i] = srcDocs[start + i] * pow + i;
      const sorted = keys.subarray(0, n).sort();
      for (let i = 0; i < n; i++) {
        const local = sorted[i] % pow;
        this.qdocs[i] = srcDocs[start + local];
        this.qlabels[i] = srcLabels[start + local];
      }
    } else {
      const idx = Array.from({ length: n }, (_, i) => i).sort((a, b) => srcDocs[start + a] - srcDocs[start + b]);
      for (let i = 0; i < n; i++) {
        this.qdocs[i] = srcDocs[start + idx[i]];
        this.qlabels[i] = srcLabels[start + idx[i]];
      }
    }
    for (let i = 1; i < n; i++) {
      if (this.qdocs[i] === this.qdocs[i - 1]) {
        throw new CitebenchError(`qrels: query position ${q} judges doc id ${this.qdocs[i]} twice`);
      }
    }
  }

  /** Throws if query q's run lists a doc twice (trec_eval: "duplicate docs"). */
  checkRunDuplicates(q: number, seen: Int32Array): void {
    const start = this.run.offsets[q];
    const end = this.run.offsets[q + 1];
    const docs = this.run.docs;
    for (let i = start; i < end; i++) {
      const d = docs[i];
      if (seen[d] === q + 1) throw new CitebenchError(`run: query position ${q} retrieves doc id ${d} twice`);
      seen[d] = q + 1;
    }
  }
}

function grow(n: number): number {
  let c = 16;
  while (c < n) c *= 2;
  return c;
}
