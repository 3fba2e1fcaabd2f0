/**
 * DenseRetriever: ranks pool articles for query articles by their stored embeddings (exact by default, HNSW on
 * request), by the model's distance (similarity.ts). Query vectors come from the query store and pool or
 * candidate vectors from the document store — one store for a model whose two prompts are the same
 * (role-stores.ts). With an encoder attached, articles missing from a store are encoded first, in that store's
 * role (once per model — every later pool reuses them).
 */
import { arrayDigest } from '../../util/identity.ts';
import { basename } from 'node:path';
import type { RankedLists, Retriever, SearchRequest } from '../retriever.ts';
import type { TextSource } from '../../corpus/article.ts';
import { CitebenchError } from '../../util/errors.ts';
import type { Encoder } from './encoder.ts';
import { fileContentHash } from './models.ts';
import { exactSearch } from './search.ts';
import { exactSearchL1 } from './l1-search.ts';
import { kernelOf, normalizeRowsInPlace, type Distance } from './similarity.ts';
import { encodeRoles } from './role-stores.ts';
import { exactSearchMulti } from './multi-vector.ts';
import type { PoolHits } from './hits.ts';
import { buildHnsw, searchHnsw, type HnswOptions } from './hnsw.ts';
import type { EmbeddingStore, VectorSet } from './store.ts';
import { mergeSorted, sortedFind, sortedUnique } from '../../util/sorted.ts';

export interface DenseRetrieverOptions {
  name: string;
  /** The document store: pool and candidate vectors. */
  store: EmbeddingStore;
  /** The query store, for a model whose query prompt differs from its document prompt (default: `store`). */
  queryStore?: EmbeddingStore;
  distance: Distance;
  /** Encode missing articles on the fly (else a missing article is an error naming it). */
  encoder?: Encoder;
  texts?: TextSource;
  /**
   * Vectors imported from a file (import/), no encoder: a query without a vector is an error naming it; a pool
   * article without one is left out, a candidate of a fixed list (MDCR) ranks last with score −Infinity (`strict`:
   * either is an error naming it). `file` and `paperId` name them.
   */
  imported?: { file: string; strict: boolean; paperId: (index: number) => string };
  /** Use an HNSW graph instead of exact search (single-vector models only). */
  hnsw?: HnswOptions;
  threads?: number;
  /**
   * Per corpus index: rank of the paper id in byte order (CorpusStore.idOrder). When given, equal scores are
   * ordered by paper id descending — the order trec_eval will use — instead of by corpus index.
   */
  tieKey?: Uint32Array;
  /** Single-vector exact search: float64 re-scoring (default) or faiss-like float32 Gemm scores. */
  scores?: 'exact' | 'float32';
  /** Queries finished so far, during search (for a progress bar). */
  onProgress?: (done: number) => void;
}

export class DenseRetriever implements Retriever {
  readonly name: string;
  /** Seconds spent building the HNSW graph in the last search (0 when exact or loaded from cache). */
  lastBuildSeconds = 0;
  private fingerprint_: string | undefined;
  private present_: Uint8Array | undefined;
  /** Pool and candidate articles left out of the last search for want of a vector (imported vectors only). */
  lastSkipped = 0;

  constructor(private readonly opts: DenseRetrieverOptions) {
    this.name = opts.name;
    if (opts.hnsw && opts.store.manifest.kind === 'multi') throw new CitebenchError(`HNSW search is for single-vector models; ${opts.name} has sentence vectors`);
    if (kernelOf(opts.distance) === 'l1' && (opts.hnsw || opts.store.manifest.kind === 'multi'))
      throw new CitebenchError(`${opts.name}: manhattan distance is searched exactly over single vectors only (no HNSW, no sentence vectors)`);
    const q = opts.queryStore?.manifest;
    if (q && opts.queryStore !== opts.store && (q.dim !== opts.store.manifest.dim || q.kind !== opts.store.manifest.kind || q.corpusSize !== opts.store.manifest.corpusSize))
      throw new CitebenchError(`${opts.name}: the query store ${opts.queryStore!.dir} does not match the document store ${opts.store.dir} (dim, kind or corpus)`);
  }

  private get queryStore(): EmbeddingStore {
    return this.opts.queryStore ?? this.opts.store;
  }

  /** The embedding store it ranks by, and the encoder that fills it (capabilities.ts: a dense Profiler's profiles). */
  get vectors(): EmbeddingStore {
    return this.opts.store;
  }

  /** The store of its query vectors where the query prompt differs from the document prompt. */
  get queryVectors(): EmbeddingStore | undefined {
    return this.opts.queryStore === this.opts.store ? undefined : this.opts.queryStore;
  }

  get encoder(): Encoder | undefined {
    return this.opts.encoder;
  }

  /**
   * The stored vectors' model (weights, tokenizer, pooling as the store recorded them), dtype and corpus; the
   * attached encoder's ONNX file (full content hash; model.onnx vs model_quantized.onnx), pooling and length;
   * distance; exact (and its score mode) or HNSW with its parameters; the tie-break key.
   */
  get fingerprint(): string {
    if (this.fingerprint_ !== undefined) return this.fingerprint_;
    const { store, encoder, hnsw, tieKey } = this.opts;
    const m = store.manifest;
    const model = encoder?.model;
    const qm = this.queryStore === store ? undefined : this.queryStore.manifest;
    this.fingerprint_ = JSON.stringify({
      retriever: 'dense',
      store: { format: m.format, version: m.version, model: m.model, fingerprint: m.fingerprint, dim: m.dim, dtype: m.dtype, kind: m.kind, corpusSize: m.corpusSize, corpusKey: m.corpusKey ?? null },
      ...(qm ? { queryStore: { fingerprint: qm.fingerprint, dtype: qm.dtype, role: qm.role ?? null, prompt: qm.prompt ?? null } } : {}),
      encoder: model
        ? { onnx: basename(model.onnxFile), onnxSha256: fileContentHash(model.onnxFile), fingerprint: model.fingerprint, pooling: model.pooling, layers: model.layers ?? null, maxLength: model.maxLength }
        : null,
      distance: this.opts.distance,
      ...(this.opts.imported ? { missing: this.opts.imported.strict ? 'error' : 'skip' } : {}),
      // Multi-vector models always search exactly (exactSearchMulti); HNSW settings do not apply to them.
      search: m.kind === 'multi'
        ? { mode: 'exact-multi' }
        : hnsw
          ? { mode: 'hnsw', M: hnsw.connectivity ?? 16, efConstruction: hnsw.expansionAdd ?? 128, efSearch: hnsw.expansionSearch ?? 'max(2k,512)', quantization: hnsw.quantization ?? 'f32' }
          : { mode: 'exact', scores: this.opts.scores ?? 'exact' },
      tieKey: tieKey ? arrayDigest(tieKey) : null,
    });
    return this.fingerprint_;
  }

  readonly scoresCandidates = true;

  async search(req: SearchRequest): Promise<RankedLists> {
    const { store } = this.opts;
    const size = store.manifest.corpusSize;
    const k = req.k;
    if (!Number.isInteger(k) || k < 1) throw new CitebenchError(`k must be a positive integer, got ${k}`);
    for (const q of req.queries) if (q >= size) throw new CitebenchError(`query corpus index ${q} out of range (corpus size ${size})`);
    const excludeSelf = req.excludeSelf ?? true;
    const uq = sortedUnique(req.queries);

    if (req.candidates) return this.searchCandidates(req, uq, excludeSelf);

    let pool = req.pool ?? Uint32Array.from({ length: size }, (_, i) => i);
    for (let i = 0; i < pool.length; i++) {
      if (pool[i] >= size) throw new CitebenchError(`pool corpus index ${pool[i]} out of range (corpus size ${size})`);
      if (i > 0 && pool[i] <= pool[i - 1]) throw new CitebenchError(`pool must be sorted and distinct (at position ${i})`);
    }
    if (this.opts.imported) {
      this.requireQueries(uq);
      pool = this.withVectors(pool, 'pool');
    }
    await this.ensureEncoded(uq, pool);
    const kernel = kernelOf(this.opts.distance);
    const qv = gatherRows(this.queryStore.load(uq), uq, req.queries);
    const pv = store.load(pool);
    const exclude = new Int32Array(req.queries.length).fill(-1);
    if (excludeSelf) req.queries.forEach((q, i) => (exclude[i] = sortedFind(pool, q)));
    const d = store.manifest.dim;
    const tk = this.opts.tieKey;
    const tieRank = tk ? Uint32Array.from(pool, (c) => 0xffffffff - tk[c]) : undefined;
    let hits: PoolHits;
    if (kernel === 'l1') {
      hits = exactSearchL1(qv.vectors, pv.vectors, d, { k, exclude, tieRank, onProgress: this.opts.onProgress });
    } else {
      if (kernel.normalize) {
        normalizeRowsInPlace(qv.vectors, d);
        normalizeRowsInPlace(pv.vectors, d);
      }
      const metric = kernel.metric;
      if (store.manifest.kind === 'multi') {
        hits = await exactSearchMulti(qv, pv, d, { k, distance: metric, exclude, tieRank, threads: this.opts.threads, onProgress: this.opts.onProgress });
      } else if (this.opts.hnsw) {
        // The graph's key names the vectors it indexes by their bytes (hnsw.ts); these name where they came from.
        const m = store.manifest;
        const cacheInputs = { model: m.fingerprint, dtype: m.dtype, corpus: m.corpusKey ?? `${m.corpusSize} articles`, pool, normalized: kernel.normalize };
        const h = buildHnsw(pv.vectors, d, metric, { ...this.opts.hnsw, cacheInputs }, k);
        this.lastBuildSeconds = h.buildSeconds;
        hits = searchHnsw(h, qv.vectors, pv.vectors, d, metric, k, exclude, tieRank);
      } else {
        hits = await exactSearch(qv.vectors, pv.vectors, d, { k, distance: metric, exclude, tieRank, threads: this.opts.threads, scores: this.opts.scores, onProgress: this.opts.onProgress });
      }
      if (kernel.score) mapScores(hits.scores, kernel.score);
    }
    return { offsets: hits.offsets, docs: Uint32Array.from(hits.positions, (p) => pool[p]), scores: hits.scores };
  }

  /** MDCR-style: each query ranks only its own candidate list (small), by exact scores. */
  private async searchCandidates(req: SearchRequest, uq: Uint32Array, excludeSelf: boolean): Promise<RankedLists> {
    const cands = req.candidates!;
    if (cands.length !== req.queries.length) throw new CitebenchError(`candidates: ${cands.length} lists for ${req.queries.length} queries`);
    let all = cands.reduce((acc, c) => mergeSorted(acc, sortedUnique(c)), new Uint32Array(0));
    if (this.opts.imported) {
      this.requireQueries(uq);
      all = this.withVectors(all, 'candidate');
    }
    await this.ensureEncoded(uq, all);
    const kernel = kernelOf(this.opts.distance);
    const qv = gatherRows(this.queryStore.load(uq), uq, req.queries);
    if (kernel !== 'l1' && kernel.normalize) normalizeRowsInPlace(qv.vectors, qv.dim);
    const offsets = new Uint32Array(req.queries.length + 1);
    const docs: number[] = [];
    const scores: number[] = [];
    for (let q = 0; q < req.queries.length; q++) {
      let c = sortedUnique(cands[q]);
      if (excludeSelf) c = c.filter((x) => x !== req.queries[q]);
      // Imported vectors: a candidate without one cannot be scored; it ranks last (−Infinity), so a fixed list
      // (MDCR) still scores every pair.
      const unscored = this.opts.imported ? c.filter((x) => this.present()[x] !== 1) : new Uint32Array(0);
      if (unscored.length) c = c.filter((x) => this.present()[x] === 1);
      const one: VectorSet = { dim: qv.dim, offsets: Uint32Array.of(0, qv.offsets[q + 1] - qv.offsets[q]), vectors: qv.vectors.subarray(qv.offsets[q] * qv.dim, qv.offsets[q + 1] * qv.dim) };
      const pv = this.opts.store.load(c);
      const tk = this.opts.tieKey;
      const tieRank = tk ? Uint32Array.from(c, (x) => 0xffffffff - tk[x]) : undefined;
      let hits: PoolHits;
      if (kernel === 'l1') hits = exactSearchL1(one.vectors, pv.vectors, qv.dim, { k: req.k, tieRank });
      else {
        if (kernel.normalize) normalizeRowsInPlace(pv.vectors, qv.dim);
        hits = await exactSearchMulti(one, pv, qv.dim, { k: req.k, distance: kernel.metric, tieRank, threads: this.opts.threads });
        if (kernel.score) mapScores(hits.scores, kernel.score);
      }
      for (let j = 0; j < hits.positions.length; j++) {
        docs.push(c[hits.positions[j]]);
        scores.push(hits.scores[j]);
      }
      for (let j = 0; j < unscored.length && hits.positions.length + j < req.k; j++) {
        docs.push(unscored[j]);
        scores.push(-Infinity);
      }
      offsets[q + 1] = docs.length;
    }
    return { offsets, docs: Uint32Array.from(docs), scores: Float32Array.from(scores) };
  }

  /** The given sorted articles that have no vector in the store (imported vectors: the file had none for them). */
  missing(indices: Uint32Array): Uint32Array {
    const p = this.present();
    return indices.filter((i) => p[i] !== 1);
  }

  /** Per corpus index, 1 where the store holds a vector (chunk headers only; the store does not change during a run). */
  private present(): Uint8Array {
    return (this.present_ ??= this.opts.store.presentMask());
  }

  private requireQueries(queries: Uint32Array): void {
    const miss = this.missing(queries);
    if (!miss.length) return;
    const { file, paperId } = this.opts.imported!;
    throw new CitebenchError(`${file}: no vector for query paper ${paperId(miss[0])}${miss.length > 1 ? ` (nor for ${miss.length - 1} more queries)` : ''}; every query needs one: add it to the file`);
  }

  /** `indices` less those without a vector, counted in lastSkipped (strict: an error naming the first). */
  private withVectors(indices: Uint32Array, what: string): Uint32Array {
    const miss = this.missing(indices);
    this.lastSkipped = miss.length;
    if (!miss.length) return indices;
    const { file, strict, paperId } = this.opts.imported!;
    if (strict) throw new CitebenchError(`${file}: no vector for ${miss.length} ${what} article(s) (first: paper ${paperId(miss[0])}); without strict they are left out and counted`);
    const p = this.present();
    return indices.filter((i) => p[i] === 1);
  }

  /** Encode what the stores lack: the queries in the query role, the pool or candidates in the document role. */
  private async ensureEncoded(queries: Uint32Array, pool: Uint32Array): Promise<void> {
    const { encoder, texts, store } = this.opts;
    if (encoder && texts) await encodeRoles({ query: this.queryStore, document: store }, encoder, texts, queries, pool);
  }
}

/** Kernel scores mapped to the run's (euclidean: −√(squared distance)), in place, as float32. */
function mapScores(scores: Float32Array, f: (s: number) => number): void {
  for (let i = 0; i < scores.length; i++) scores[i] = f(scores[i]);
}

/** Rows of `set` (loaded for sorted unique `keys`) re-arranged in the order of `want` (duplicates allowed). */
function gatherRows(set: VectorSet, keys: Uint32Array, want: Uint32Array): VectorSet {
  const d = set.dim;
  const offsets = new Uint32Array(want.length + 1);
  const idx = Array.from(want, (w) => sortedFind(keys, w));
  idx.forEach((p, i) => (offsets[i + 1] = offsets[i] + set.offsets[p + 1] - set.offsets[p]));
  const vectors = new Float32Array(offsets[want.length] * d);
  idx.forEach((p, i) => vectors.set(set.vectors.subarray(set.offsets[p] * d, set.offsets[p + 1] * d), offsets[i] * d));
  return { dim: d, offsets, vectors };
}
