/**
 * Sparse Profiler: Goyal et al. (2026) §3.2's public profile for BM25. A candidate's indexed text is expanded
 * with the texts of the articles allowed to cite it (citing.ts), weighted:
 *
 *   w_i(t) = tf_i(t) + β · (1 / |N_in(i)|) Σ_{j ∈ N_in(i)} tf_j(t)        (0 citing articles: the text alone)
 *   (with `topTerms` m: the citing part kept for the m terms with the largest mean only)
 *   |i|    = Σ_t w_i(t)
 *
 * — the paper's v̂_i = v_i + 1/|N_in| Σ (α v^s_ji + β v_j) with term-frequency vectors for v. S2ORC metadata has
 * no citation contexts, so the context term α v^s is 0 and β is the only weight. The pool is then scored with
 * Lucene's BM25 (pool-stats.ts's formula and float steps, exact lengths) over the profiles as if they had been
 * indexed: N, df and avgdl are the profiles'. β = 0 is BM25 with exact lengths, score for score.
 * Profiles are built once per (pool, query set, setting scope) and reused while they stay the same.
 */
import type { RankedLists, Retriever, SearchRequest } from '../retriever.ts';
import type { TextSource } from '../../corpus/article.ts';
import { CitebenchError } from '../../util/errors.ts';
import { EnglishAnalyzer, articleText, queryTermIds } from '../bm25/analyzer.ts';
import { postingTf, termIdMap, type Bm25Index } from '../bm25/index-format.ts';
import { indexIdentity } from '../bm25/retriever.ts';
import { arrayDigest } from '../../util/identity.ts';
import { citingSets, profileScopes, wholeCorpus, type CitationGraph, type CitingSets } from './citing.ts';
import { topK } from './topk.ts';
import { Growable } from '../../util/growable.ts';
import { kthLargest } from '../../util/select.ts';

const fround = Math.fround;

export interface SparseProfilerOptions {
  name: string;
  k1: number;
  b: number;
  beta: number;
  /**
   * Keep only the citing part of each profile's `topTerms` terms with the largest mean citing tf (0 or absent:
   * all of them): the "texts (or top terms)" — bounds a profile's size at ~(own terms + topTerms).
   */
  topTerms?: number;
  /** Tie order of equal scores (higher first): the corpus store's idOrder = trec_eval's. */
  tieKey?: Uint32Array;
}

/** Profiles of a pool: forward vectors (per pool position) and the inverted postings BM25 scores from. */
export interface SparseProfiles {
  pool: Uint32Array;
  citing: CitingSets;
  /** Forward: pool position p's terms fwdTerms[fwdOffsets[p]..fwdOffsets[p+1]) (ascending) and weights. */
  fwdOffsets: Uint32Array;
  fwdTerms: Uint32Array;
  fwdWeights: Float32Array;
  /** Profile length Σ_t w(t) per pool position. */
  lengths: Float64Array;
  /** Inverted: term t's postings [invOffsets[t], invOffsets[t+1]) of pool positions and weights. */
  invOffsets: Uint32Array;
  invPos: Uint32Array;
  invWeights: Float32Array;
  /** Profiles with at least one term (Lucene's docCount), average length, normInverse per pool position. */
  N: number;
  avgdl: number;
  normInv: Float32Array;
}

export class SparseProfiler implements Retriever {
  readonly name: string;
  private readonly analyzer = new EnglishAnalyzer();
  private readonly vocab: Map<string, number>;
  private fingerprint_: string | undefined;
  private cache: { pool: Uint32Array | undefined; queries: Uint32Array; before: number | null; profiles: SparseProfiles } | undefined;

  constructor(
    private readonly index: Bm25Index,
    private readonly texts: TextSource,
    private readonly graph: CitationGraph,
    private readonly opts: SparseProfilerOptions,
  ) {
    if (texts.size !== index.docCount || graph.size !== index.docCount) throw new CitebenchError(`profiler ${opts.name}: index (${index.docCount}), texts (${texts.size}) and citation graph (${graph.size}) disagree: rebuild the index`);
    if (!(opts.beta >= 0)) throw new CitebenchError(`profiler ${opts.name}: beta must be ≥ 0, got ${opts.beta}`);
    this.name = opts.name;
    this.vocab = termIdMap(index.terms);
  }

  get tunable(): Readonly<Record<string, number>> {
    return { beta: this.opts.beta };
  }

  withParams(p: Readonly<Record<string, number>>): SparseProfiler {
    return new SparseProfiler(this.index, this.texts, this.graph, { ...this.opts, beta: p.beta ?? this.opts.beta });
  }

  get fingerprint(): string {
    this.fingerprint_ ??= JSON.stringify({
      retriever: 'profiler-sparse', version: 1, k1: this.opts.k1, b: this.opts.b, beta: this.opts.beta, topTerms: this.opts.topTerms ?? 0, lengths: 'accurate',
      index: indexIdentity(this.index), graph: arrayDigest(this.graph.inOffsets, this.graph.inSources, this.graph.years),
      restriction: 'no request query; inductive: citing year < query year',
      tieKey: this.opts.tieKey ? arrayDigest(this.opts.tieKey) : null,
    });
    return this.fingerprint_;
  }

  /** The profiles a request's queries of one scope are scored against (cached for the last pool and scope). */
  profiles(pool: Uint32Array | undefined, queries: Uint32Array, before: number | null): SparseProfiles {
    const c = this.cache;
    if (c && c.pool === pool && c.queries === queries && c.before === before) return c.profiles;
    const profiles = buildSparseProfiles(this.index, pool ?? wholeCorpus(this.index.docCount), citingSets(this.graph, pool ?? wholeCorpus(this.index.docCount), queries, before), this.opts);
    this.cache = { pool, queries, before, profiles };
    return profiles;
  }

  async search(req: SearchRequest): Promise<RankedLists> {
    if (req.candidates) throw new CitebenchError(`${this.name}: the Profiler ranks a pool; it does not score fixed candidate lists`);
    const excludeSelf = req.excludeSelf ?? true;
    const lists: { docs: number[]; scores: number[] }[] = new Array(req.queries.length);
    for (const scope of profileScopes(this.graph, req)) {
      const P = this.profiles(req.pool, req.queries, scope.before);
      const acc = new Float64Array(P.pool.length);
      const touched = new Uint8Array(P.pool.length);
      for (const qi of scope.positions) {
        const q = req.queries[qi];
        if (q >= this.texts.size) throw new CitebenchError(`query ${q} is outside the corpus (${this.texts.size} articles)`);
        const hit: number[] = [];
        const counts = new Map<number, number>();
        for (const t of queryTermIds(this.analyzer, this.vocab, articleText(this.texts.text(q)))) counts.set(t, (counts.get(t) ?? 0) + 1);
        // Ascending term ids: the order the BM25 kernels sum in, so β = 0 gives BM25's scores bit for bit.
        for (const [t, n] of [...counts].sort((a, b) => a[0] - b[0])) {
          const df = P.invOffsets[t + 1] - P.invOffsets[t];
          if (df === 0) continue;
          const idf = fround(Math.log(1 + (P.N - df + 0.5) / (df + 0.5)));
          const W = fround(fround(n) * idf);
          for (let p = P.invOffsets[t]; p < P.invOffsets[t + 1]; p++) {
            const i = P.invPos[p];
            if (!touched[i]) {
              touched[i] = 1;
              hit.push(i);
            }
            acc[i] += fround(W - fround(W / fround(1 + fround(P.invWeights[p] * P.normInv[i]))));
          }
        }
        const self = excludeSelf ? q : -1;
        const tk = this.opts.tieKey;
        const score = (i: number) => fround(acc[i]);
        const keep = hit.filter((i) => P.pool[i] !== self);
        const top = topK(keep, score, (i) => (tk ? tk[P.pool[i]] : P.pool[i]), req.k);
        lists[qi] = { docs: top.map((i) => P.pool[i]), scores: top.map(score) };
        for (const i of hit) {
          acc[i] = 0;
          touched[i] = 0;
        }
        req.onResult?.(qi, Uint32Array.from(lists[qi].docs), Float32Array.from(lists[qi].scores));
      }
    }
    const offsets = new Uint32Array(lists.length + 1);
    lists.forEach((l, q) => (offsets[q + 1] = offsets[q] + l.docs.length));
    return { offsets, docs: Uint32Array.from(lists.flatMap((l) => l.docs)), scores: Float32Array.from(lists.flatMap((l) => l.scores)) };
  }
}

/**
 * Build the profiles of `pool` from the index's postings: one pass over the postings gathers the forward term
 * vectors of the pool and of every allowed citing article, then each profile is merged and inverted.
 */
export function buildSparseProfiles(ix: Bm25Index, pool: Uint32Array, citing: CitingSets, opts: Pick<SparseProfilerOptions, 'k1' | 'b' | 'beta' | 'topTerms'>): SparseProfiles {
  const V = ix.terms.length;
  // Forward vectors of the articles needed (pool ∪ citing): slot per article, CSR by slot.
  const slot = new Int32Array(ix.docCount).fill(-1);
  const need: number[] = [];
  const want = (d: number) => {
    if (slot[d] < 0) {
      slot[d] = need.length;
      need.push(d);
    }
  };
  for (const d of pool) want(d);
  for (const d of citing.sources) want(d);
  const cnt = new Uint32Array(need.length + 1);
  for (let t = 0; t < V; t++) for (let p = ix.offsets[t]; p < ix.offsets[t + 1]; p++) if (slot[ix.docs[p]] >= 0) cnt[slot[ix.docs[p]] + 1]++;
  for (let s = 0; s < need.length; s++) cnt[s + 1] += cnt[s];
  const fill = cnt.slice(0, need.length);
  const fTerm = new Uint32Array(cnt[need.length]);
  const fTf = new Uint32Array(cnt[need.length]);
  for (let t = 0; t < V; t++) {
    for (let p = ix.offsets[t]; p < ix.offsets[t + 1]; p++) {
      const s = slot[ix.docs[p]];
      if (s < 0) continue;
      fTerm[fill[s]] = t; // ascending terms per article: t grows in the outer loop
      fTf[fill[s]++] = postingTf(ix, p);
    }
  }

  // Profiles: own tf + β · mean citing tf (its `topTerms` largest terms only, when set), per pool position.
  const own = new Float64Array(V);
  const cit = new Float64Array(V);
  const seen = new Uint8Array(V);
  const fwdOffsets = new Uint32Array(pool.length + 1);
  const terms = new Growable(Uint32Array, pool.length * 64);
  const weights = new Growable(Float32Array, pool.length * 64);
  const lengths = new Float64Array(pool.length);
  const top = opts.topTerms ?? 0;
  let touched = new Uint32Array(1024);
  let scratch = new Float64Array(1024);
  for (let i = 0; i < pool.length; i++) {
    let nt = 0;
    const add = (d: number, into: Float64Array, w: number) => {
      const s = slot[d];
      for (let e = cnt[s]; e < cnt[s + 1]; e++) {
        const t = fTerm[e];
        if (!seen[t]) {
          seen[t] = 1;
          if (nt === touched.length) {
            const grown = new Uint32Array(2 * nt);
            grown.set(touched);
            touched = grown;
          }
          touched[nt++] = t;
        }
        into[t] += w * fTf[e];
      }
    };
    add(pool[i], own, 1);
    const n = citing.offsets[i + 1] - citing.offsets[i];
    if (n > 0 && opts.beta > 0) {
      for (let e = citing.offsets[i]; e < citing.offsets[i + 1]; e++) add(citing.sources[e], cit, 1 / n);
      if (top > 0) {
        if (scratch.length < nt) scratch = new Float64Array(touched.length);
        keepTopTerms(touched.subarray(0, nt), cit, top, scratch);
      }
    }
    const list = touched.subarray(0, nt).sort();
    let len = 0;
    for (const t of list) {
      const w = fround(own[t] + opts.beta * cit[t]);
      if (w > 0) {
        terms.push(t);
        weights.push(w);
        len += w;
      }
      own[t] = 0;
      cit[t] = 0;
      seen[t] = 0;
    }
    lengths[i] = len;
    fwdOffsets[i + 1] = terms.length;
  }
  const fwdTerms = terms.toArray();
  const fwdWeights = weights.toArray();

  // Inverted postings of the profiles.
  const invOffsets = new Uint32Array(V + 1);
  for (const t of fwdTerms) invOffsets[t + 1]++;
  for (let t = 0; t < V; t++) invOffsets[t + 1] += invOffsets[t];
  const at = invOffsets.slice(0, V);
  const invPos = new Uint32Array(fwdTerms.length);
  const invWeights = new Float32Array(fwdTerms.length);
  for (let i = 0; i < pool.length; i++) {
    for (let e = fwdOffsets[i]; e < fwdOffsets[i + 1]; e++) {
      const t = fwdTerms[e];
      invPos[at[t]] = i;
      invWeights[at[t]++] = fwdWeights[e];
    }
  }

  // Lucene's statistics over the profiles, float steps as in pool-stats.ts (accurate lengths).
  let N = 0;
  let sum = 0;
  for (let i = 0; i < pool.length; i++) {
    if (lengths[i] > 0) N++;
    sum += lengths[i];
  }
  const avgdl = N > 0 ? fround(sum / N) : 0;
  const k1f = fround(opts.k1);
  const bf = fround(opts.b);
  const oneMinusB = fround(1 - bf);
  const normInv = new Float32Array(pool.length);
  for (let i = 0; i < pool.length; i++) normInv[i] = fround(1 / fround(k1f * fround(oneMinusB + fround(fround(bf * lengths[i]) / avgdl))));
  return { pool, citing, fwdOffsets, fwdTerms, fwdWeights, lengths, invOffsets, invPos, invWeights, N, avgdl, normInv };
}

/**
 * Zero w[t] for every term of `terms` but the `top` with the largest positive w — ties at the cut kept by
 * lower term id, exactly what sorting by (w desc, t asc) and keeping the first `top` keeps — in linear
 * expected time (a quickselect for the cut value instead of a sort per profile: 2 M profiles of ~1,600 terms).
 */
export function keepTopTerms(terms: Uint32Array, w: Float64Array, top: number, scratch: Float64Array): void {
  let m = 0;
  for (let k = 0; k < terms.length; k++) if (w[terms[k]] > 0) scratch[m++] = w[terms[k]];
  if (m <= top) return;
  if (top <= 0) {
    for (let k = 0; k < terms.length; k++) w[terms[k]] = 0;
    return;
  }
  const cut = kthLargest(scratch, top, m);
  let above = 0;
  const tied: number[] = [];
  for (let k = 0; k < terms.length; k++) {
    const v = w[terms[k]];
    if (v > cut) above++;
    else if (v === cut) tied.push(terms[k]);
  }
  tied.sort((a, b) => a - b);
  for (let k = top - above; k < tied.length; k++) w[tied[k]] = 0;
  for (let k = 0; k < terms.length; k++) if (w[terms[k]] < cut) w[terms[k]] = 0;
}
