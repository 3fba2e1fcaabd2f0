/**
 * Bm25Retriever: the Retriever interface over a BM25 index and its corpus (queries are corpus articles,
 * analysed from their title + abstract). Pool statistics are computed once per distinct pool and reused.
 * The index is the corpus's (one index, searched with each pool's statistics) or, for a corpus whose index does
 * not fit in memory, each pool's own (PoolIndexes): the same lists either way.
 */
import { createHash } from 'node:crypto';
import type { RankedLists, Retriever, SearchRequest } from '../retriever.ts';
import type { TextSource } from '../../corpus/article.ts';
import { CitebenchError } from '../../util/errors.ts';
import { EnglishAnalyzer, articleText, queryTermIds } from './analyzer.ts';
import { ANALYZER_NAME, INDEX_VERSION, termIdMap, type Bm25Index } from './index-format.ts';
import { DEFAULT_PARAMS, PoolStats, type Bm25Params } from './pool-stats.ts';
import { searchBatch, type SearchProcesses } from './parallel.ts';
import { poolWithCandidates, type PoolIndexes } from './pool-index.ts';
import { slicePosition } from './pool-slice.ts';
import type { TermIndexParams } from '../capabilities.ts';

interface Bm25RetrieverOptions {
  params?: Partial<Bm25Params>;
  /** Tie-break key per document (higher first among equal scores); the corpus store's idOrder = trec_eval. */
  tieKey?: Uint32Array;
  threads?: number;
  /** The index's directory: parallel search then runs in child processes that load it (faster here). */
  indexDir?: string;
  /** Persistent search processes shared by the retrievers of one index (a run's models and tuning points). */
  processes?: SearchProcesses;
  onProgress?: (done: number, total: number) => void;
  /** Name in run tags and tables (default bm25): a config may hold several BM25 models. */
  name?: string;
}

export class Bm25Retriever implements Retriever {
  readonly name: string;
  readonly params: Bm25Params;
  private readonly analyzer = new EnglishAnalyzer();
  private vocab_: Map<string, number> | undefined;
  private lastPool: { pool: Uint32Array | undefined; stats: PoolStats } | undefined;
  private fingerprint_: string | undefined;

  /** `index`: the corpus's BM25 index, or the pools' own indexes built from `texts` as pools are searched. */
  constructor(
    private readonly index: Bm25Index | PoolIndexes,
    private readonly texts: TextSource,
    private readonly opts: Bm25RetrieverOptions = {},
  ) {
    if (!isPoolIndexes(index) && texts.size !== index.docCount) {
      throw new CitebenchError(`BM25 index has ${index.docCount} documents but the corpus has ${texts.size}: rebuild the index`);
    }
    if (isPoolIndexes(index) && index.texts !== texts) throw new Error('Bm25Retriever: pool indexes of other texts');
    this.params = { ...DEFAULT_PARAMS, ...opts.params };
    this.name = opts.name ?? 'bm25';
  }

  /** The corpus index (undefined in pool-index mode). */
  private get corpusIndex(): Bm25Index | undefined {
    return isPoolIndexes(this.index) ? undefined : this.index;
  }

  /**
   * k1, b, exact or lossy lengths, the index format and analyzer, the index's content (see indexIdentity) and
   * the tie-break key. Computed on first use (hashing a large index takes a fraction of a second).
   */
  get fingerprint(): string {
    this.fingerprint_ ??= JSON.stringify({
      retriever: 'bm25',
      k1: this.params.k1,
      b: this.params.b,
      lengths: this.params.accurate ? 'accurate' : 'lossy',
      index: {
        version: INDEX_VERSION, analyzer: ANALYZER_NAME,
        content: isPoolIndexes(this.index) ? `pool indexes of texts ${this.index.identity()}` : indexIdentity(this.index),
      },
      tieKey: this.opts.tieKey ? digest(this.opts.tieKey) : null,
    });
    return this.fingerprint_;
  }

  /** Statistics of a pool over the corpus index (cached for the last pool used, by identity). */
  stats(pool?: Uint32Array): PoolStats {
    if (this.lastPool && this.lastPool.pool === pool) return this.lastPool.stats;
    const stats = new PoolStats(this.requireCorpusIndex('pool statistics'), this.params, pool);
    this.lastPool = { pool, stats };
    return stats;
  }

  readonly scoresCandidates = true;

  get tunable(): Readonly<Record<string, number>> {
    return { k1: this.params.k1, b: this.params.b };
  }

  withParams(p: Readonly<Record<string, number>>): Bm25Retriever {
    const params = { ...this.params, ...p };
    if (!(params.k1 >= 0) || !(params.b >= 0 && params.b <= 1)) throw new CitebenchError(`BM25: k1 must be ≥ 0 and b in [0, 1] (got k1=${params.k1}, b=${params.b})`);
    return new Bm25Retriever(this.index, this.texts, { ...this.opts, params });
  }

  /** What models built on this one use: the index and the parameters it ranks with (capabilities.ts). */
  get termIndex(): TermIndexParams {
    return { index: this.requireCorpusIndex('a sparse Profiler'), k1: this.params.k1, b: this.params.b, accurate: this.params.accurate };
  }

  private requireCorpusIndex(what: string): Bm25Index {
    const ix = this.corpusIndex;
    if (!ix) throw new CitebenchError(`${what} needs the corpus's BM25 index; this BM25 model indexes each pool on its own (bm25Index: pools)`);
    return ix;
  }

  async search(req: SearchRequest): Promise<RankedLists> {
    for (const q of req.queries) {
      if (q >= this.texts.size) throw new CitebenchError(`query ${q} is outside the corpus (${this.texts.size} articles)`);
    }
    if (isPoolIndexes(this.index)) return this.searchOwnIndex(this.index, req);
    const stats = this.stats(req.pool);
    this.vocab_ ??= termIdMap(this.index.terms);
    const vocab = this.vocab_;
    const excludeSelf = req.excludeSelf ?? true;
    const n = req.queries.length;
    return searchBatch(stats.arrays(this.opts.tieKey ?? null), {
      // Analysed while the searchers start (search processes load the index meanwhile).
      queries: () => Array.from(req.queries, (q) => stats.prepare(queryTermIds(this.analyzer, vocab, articleText(this.texts.text(q))))),
      queryCount: n,
      k: req.k,
      exclude: excludeSelf ? Int32Array.from(req.queries) : undefined,
      candidates: req.candidates,
      threads: this.opts.threads ?? 1,
      indexDir: this.opts.indexDir,
      processes: this.opts.processes,
      onProgress: this.opts.onProgress && ((d) => this.opts.onProgress!(d, n)),
      onResult: req.onResult && ((q, top) => req.onResult!(q, top.docs, top.scores)),
    });
  }

  /**
   * Pool-index mode: the request searched in the index of its pool (plus any fixed candidate outside it, which
   * is indexed but does not count in the pool's statistics, as in the corpus index), in the pool's numbering —
   * corpus order, so ties fall as in the corpus index — and the lists mapped back to corpus indices.
   */
  private async searchOwnIndex(pools: PoolIndexes, req: SearchRequest): Promise<RankedLists> {
    const wanted = req.pool ? poolWithCandidates(req.pool, req.candidates) : allDocuments(this.texts.size);
    const own = await pools.of(wanted);
    const { docs } = own;
    const local = (d: number) => slicePosition(docs, d);
    // Statistics per parameters and pool (the pool's own, or the pool's members among pool ∪ candidates).
    const localPool = req.pool && wanted !== req.pool ? Uint32Array.from(req.pool, local) : undefined;
    const statsKey = `stats ${this.params.k1} ${this.params.b} ${this.params.accurate} ${localPool ? `members ${digest(localPool)}` : 'all'}`;
    let stats = own.derived.get(statsKey) as PoolStats | undefined;
    if (!stats) own.derived.set(statsKey, (stats = new PoolStats(own.index, this.params, localPool)));
    const corpusTie = this.opts.tieKey;
    let tieKey = corpusTie ? (own.derived.get('tieKey') as { of: Uint32Array; local: Uint32Array } | undefined) : undefined;
    if (corpusTie && tieKey?.of !== corpusTie) own.derived.set('tieKey', (tieKey = { of: corpusTie, local: Uint32Array.from(docs, (d) => corpusTie[d]) }));
    const s = stats;
    const n = req.queries.length;
    const lists = await searchBatch(s.arrays(tieKey?.local ?? null), {
      queries: () => Array.from(req.queries, (q) => s.prepare(queryTermIds(this.analyzer, own.vocab, articleText(this.texts.text(q))))),
      queryCount: n,
      k: req.k,
      // A query outside the indexed documents cannot be returned anyway.
      exclude: (req.excludeSelf ?? true) ? Int32Array.from(req.queries, local) : undefined,
      candidates: req.candidates?.map((c) => Uint32Array.from(c, local)),
      threads: this.opts.threads ?? 1,
      onProgress: this.opts.onProgress && ((d) => this.opts.onProgress!(d, n)),
      onResult: req.onResult && ((q, top) => req.onResult!(q, Uint32Array.from(top.docs, (d) => docs[d]), top.scores)),
    });
    for (let i = 0; i < lists.docs.length; i++) lists.docs[i] = docs[lists.docs[i]];
    return lists;
  }
}

function isPoolIndexes(x: Bm25Index | PoolIndexes): x is PoolIndexes {
  return 'of' in x && typeof x.of === 'function';
}

function allDocuments(n: number): Uint32Array {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

/**
 * Content identity of an index: its counts, plus SHA-256 over the document lengths, the term offsets (every
 * term's document frequency) and the vocabulary. The postings themselves are left out (billions of entries at
 * S2ORC scale); an index is a pure function of its corpus and analyzer, and these columns already differ for any
 * other corpus or analysis.
 */
export function indexIdentity(ix: Bm25Index): string {
  const h = createHash('sha256');
  h.update(JSON.stringify([ix.docCount, ix.terms.length, ix.docs.length, ix.tfBigPos.length]));
  h.update(bytes(ix.lengths)).update(bytes(ix.offsets));
  for (let i = 0; i < ix.terms.length; i += 65536) h.update(ix.terms.slice(i, i + 65536).join('\n') + '\n');
  return h.digest('hex').slice(0, 32);
}

function digest(a: Uint32Array): string {
  return createHash('sha256').update(bytes(a)).digest('hex').slice(0, 32);
}

function bytes(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}
