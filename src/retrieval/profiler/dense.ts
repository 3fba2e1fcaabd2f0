/**
 * Dense Profiler (Goyal et al. 2026 §3.2, eq. 3 and 5) over any single-vector embedding store:
 *
 *   v̂_i = v_i + β · (1 / |N_in(i)|) Σ_{j ∈ N_in(i)} v_j         score(q, i) = cosine(v_q, v̂_i)
 *
 * N_in(i) = the articles allowed to cite i (citing.ts: never a query of the request; inductive: published before
 * the query's year). No citation contexts exist in S2ORC metadata, so the paper's α · v^s_ji term is 0 and β is
 * the only weight; the query is its own title + abstract vector (γ = 0, δ = 1). Missing vectors are encoded first
 * when an encoder is attached. Profiles are built once per (pool, query set, setting scope).
 */
import type { RankedLists, Retriever, SearchRequest } from '../retriever.ts';
import type { TextSource } from '../../corpus/article.ts';
import { CitebenchError } from '../../util/errors.ts';
import { sortedFind } from '../../util/sorted.ts';
import type { Encoder } from '../dense/encoder.ts';
import type { EmbeddingStore } from '../dense/store.ts';
import { exactSearch } from '../dense/search.ts';
import { sortedUnique } from '../../util/sorted.ts';
import { encodeRoles } from '../dense/role-stores.ts';
import { arrayDigest } from '../../util/identity.ts';
import { citingSets, profileScopes, wholeCorpus, type CitationGraph } from './citing.ts';

export interface DenseProfilerOptions {
  name: string;
  /** Document vectors: the pool's and the citing articles'. */
  store: EmbeddingStore;
  /** Query vectors, for a model whose query prompt differs from its document prompt (default: `store`). */
  queryStore?: EmbeddingStore;
  beta: number;
  graph: CitationGraph;
  encoder?: Encoder;
  texts?: TextSource;
  threads?: number;
  tieKey?: Uint32Array;
}

export class DenseProfiler implements Retriever {
  readonly name: string;
  private fingerprint_: string | undefined;
  private cache: { pool: Uint32Array | undefined; queries: Uint32Array; before: number | null; vectors: Float32Array } | undefined;

  constructor(private readonly opts: DenseProfilerOptions) {
    this.name = opts.name;
    if (opts.store.manifest.kind !== 'single') throw new CitebenchError(`profiler ${opts.name}: needs a single-vector model (ASPIRE's sentence vectors have no one profile vector)`);
    if (!(opts.beta >= 0)) throw new CitebenchError(`profiler ${opts.name}: beta must be ≥ 0, got ${opts.beta}`);
  }

  get tunable(): Readonly<Record<string, number>> {
    return { beta: this.opts.beta };
  }

  withParams(p: Readonly<Record<string, number>>): DenseProfiler {
    return new DenseProfiler({ ...this.opts, beta: p.beta ?? this.opts.beta });
  }

  get fingerprint(): string {
    const m = this.opts.store.manifest;
    this.fingerprint_ ??= JSON.stringify({
      retriever: 'profiler-dense', version: 1, beta: this.opts.beta, similarity: 'cosine',
      store: { model: m.model, fingerprint: m.fingerprint, dim: m.dim, dtype: m.dtype, corpusSize: m.corpusSize, corpusKey: m.corpusKey ?? null },
      ...(this.opts.queryStore && this.opts.queryStore !== this.opts.store ? { queryStore: this.opts.queryStore.manifest.fingerprint } : {}),
      graph: arrayDigest(this.opts.graph.inOffsets, this.opts.graph.inSources, this.opts.graph.years),
      restriction: 'no request query; inductive: citing year < query year',
      tieKey: this.opts.tieKey ? arrayDigest(this.opts.tieKey) : null,
    });
    return this.fingerprint_;
  }

  /** Profile vectors v̂ of the pool (row p = pool[p]), before cosine normalisation. */
  async profileVectors(pool: Uint32Array, queries: Uint32Array, before: number | null): Promise<Float32Array> {
    const c = this.cache;
    if (c && c.pool === pool && c.queries === queries && c.before === before) return c.vectors;
    const { store, beta } = this.opts;
    const d = store.manifest.dim;
    const citing = citingSets(this.opts.graph, pool, queries, before);
    const src = sortedUnique(citing.sources);
    await this.ensureEncoded(new Uint32Array(0), sortedUnique([...pool, ...src]));
    const pv = store.load(pool).vectors;
    const sv = src.length ? store.load(src).vectors : new Float32Array(0);
    const out = new Float32Array(new SharedArrayBuffer(pool.length * d * 4));
    const acc = new Float64Array(d);
    for (let i = 0; i < pool.length; i++) {
      acc.fill(0);
      const n = citing.offsets[i + 1] - citing.offsets[i];
      for (let e = citing.offsets[i]; e < citing.offsets[i + 1]; e++) {
        const r = sortedFind(src, citing.sources[e]) * d;
        for (let k = 0; k < d; k++) acc[k] += sv[r + k];
      }
      for (let k = 0; k < d; k++) out[i * d + k] = pv[i * d + k] + (n > 0 ? (beta * acc[k]) / n : 0);
    }
    this.cache = { pool, queries, before, vectors: out };
    return out;
  }

  async search(req: SearchRequest): Promise<RankedLists> {
    if (req.candidates) throw new CitebenchError(`${this.name}: the Profiler ranks a pool; it does not score fixed candidate lists`);
    const { store } = this.opts;
    const d = store.manifest.dim;
    const pool = req.pool ?? wholeCorpus(store.manifest.corpusSize);
    const excludeSelf = req.excludeSelf ?? true;
    const lists: { docs: Uint32Array; scores: Float32Array }[] = new Array(req.queries.length);
    await this.ensureEncoded(sortedUnique(req.queries), new Uint32Array(0));
    for (const scope of profileScopes(this.opts.graph, req)) {
      const raw = await this.profileVectors(req.pool ?? pool, req.queries, scope.before);
      const P = normalizeRows(raw, d, true);
      const qs = Uint32Array.from(scope.positions, (i) => req.queries[i]);
      const uq = sortedUnique(qs);
      const qvAll = (this.opts.queryStore ?? store).load(uq).vectors;
      const Q = new Float32Array(qs.length * d);
      qs.forEach((q, i) => Q.set(qvAll.subarray(sortedFind(uq, q) * d, sortedFind(uq, q) * d + d), i * d));
      const exclude = Int32Array.from(qs, (q) => (excludeSelf ? sortedFind(pool, q) : -1));
      const tk = this.opts.tieKey;
      const tieRank = tk ? Uint32Array.from(pool, (x) => 0xffffffff - tk[x]) : undefined;
      const hits = await exactSearch(normalizeRows(Q, d, false), P, d, { k: req.k, distance: 'ip', exclude, tieRank, threads: this.opts.threads });
      scope.positions.forEach((qi, j) => {
        const from = hits.offsets[j];
        const to = hits.offsets[j + 1];
        lists[qi] = { docs: Uint32Array.from(hits.positions.subarray(from, to), (p) => pool[p]), scores: hits.scores.slice(from, to) };
        req.onResult?.(qi, lists[qi].docs, lists[qi].scores);
      });
    }
    const offsets = new Uint32Array(lists.length + 1);
    lists.forEach((l, q) => (offsets[q + 1] = offsets[q] + l.docs.length));
    const docs = new Uint32Array(offsets[lists.length]);
    const scores = new Float32Array(offsets[lists.length]);
    lists.forEach((l, q) => {
      docs.set(l.docs, offsets[q]);
      scores.set(l.scores, offsets[q]);
    });
    return { offsets, docs, scores };
  }

  private async ensureEncoded(queries: Uint32Array, documents: Uint32Array): Promise<void> {
    const { encoder, texts, store } = this.opts;
    if (encoder && texts) await encodeRoles({ query: this.opts.queryStore ?? store, document: store }, encoder, texts, queries, documents);
  }
}

/** Rows scaled to unit length (zero rows stay zero), in a SharedArrayBuffer when `shared` (search workers). */
function normalizeRows(v: Float32Array, d: number, shared: boolean): Float32Array {
  const out = shared ? new Float32Array(new SharedArrayBuffer(v.length * 4)) : new Float32Array(v.length);
  for (let r = 0; r < v.length / d; r++) {
    let s = 0;
    for (let k = 0; k < d; k++) s += v[r * d + k] ** 2;
    const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
    for (let k = 0; k < d; k++) out[r * d + k] = v[r * d + k] * inv;
  }
  return out;
}
