/**
 * Bm25Retriever: the Retriever interface over a BM25 index and its corpus (queries are corpus articles,
 * analysed from their title + abstract). Pool statistics are computed once per distinct pool and reused.
 * The index is the corpus's (one index, searched with each pool's statistics) or, for a corpus whose index does
 * not fit in memory, each pool's own (PoolIndexes): the same lists either way.
 */
import { arrayDigest, sha256 } from '../../util/identity.ts';
import type { RankedLists, Retriever, SearchRequest } from '../retriever.ts';
import type { TextSource } from '../../corpus/article.ts';
import { CitebenchError } from '../../util/errors.ts';
import { EnglishAnalyzer, articleText, queryTermIds } from './analyzer.ts';
import { ANALYZER_NAME, INDEX_VERSION, termIdMap, type Bm25Index } from './index-format.ts';
import { DEFAULT_PARAMS, PoolStats, type Bm25Params } from './pool-stats.ts';
import { searchBatch, type SearchProcesses } from './parallel.ts';
import { PoolIndexes, poolWithCandidates } from './pool-index.ts';
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
      tieKey: this.opts.tieKey ? arrayDigest(this.opts.tieKey) : null,
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
    const ix = this.index;
    if (isPoolIndexes(ix)) throw new CitebenchError(`${what} needs the corpus's BM25 index; this BM25 model indexes each pool on its own (bm25Index: pools)`);
    return ix;
  }

  async search(req: SearchRequest): Promise<RankedLists> {
    for (const q of req.queries) {
      if (q >= this.texts.size) throw new CitebenchError(`query ${q} is outside the corpus (${this.texts.size} articles)`);
    }
    const { stats, vocab, tieKey, docs } = isPoolIndexes(this.index) ? await this.poolScope(this.index, req) : this.corpusScope(req.pool);
    // A pool's own index numbers its documents 0…n−1 (docs maps them back); the corpus index, as the corpus does.
    const local = docs ? (d: number) => slicePosition(docs, d) : (d: number) => d;
    const back = (ds: Uint32Array) => (docs ? Uint32Array.from(ds, (d) => docs[d]) : ds);
    const n = req.queries.length;
    const lists = await searchBatch(stats.arrays(tieKey), {
      // Each analysed as its batch is handed out: search processes start and search meanwhile.
      queries: (i) => stats.prepare(queryTermIds(this.analyzer, vocab, articleText(this.texts.text(req.queries[i])))),
      queryCount: n,
      k: req.k,
      // A query outside a pool's index (-1) cannot be returned anyway.
      exclude: (req.excludeSelf ?? true) ? Int32Array.from(req.queries, local) : undefined,
      candidates: docs ? req.candidates?.map((c) => Uint32Array.from(c, local)) : req.candidates,
      threads: this.opts.threads ?? 1,
      indexDir: docs ? undefined : this.opts.indexDir,
      processes: docs ? undefined : this.opts.processes,
      onProgress: this.opts.onProgress && ((d) => this.opts.onProgress!(d, n)),
      onResult: req.onResult && ((q, top) => req.onResult!(q, back(top.docs), top.scores)),
    });
    if (docs) for (let i = 0; i < lists.docs.length; i++) lists.docs[i] = docs[lists.docs[i]];
    return lists;
  }

  /** The corpus index searched with the pool's statistics. */
  private corpusScope(pool: Uint32Array | undefined): SearchScope {
    const stats = this.stats(pool);
    this.vocab_ ??= termIdMap(this.requireCorpusIndex('search').terms);
    return { stats, vocab: this.vocab_, tieKey: this.opts.tieKey ?? null };
  }

  /**
   * The index of the request's pool (plus any fixed candidate outside it, which is indexed but does not count in
   * the pool's statistics, as in the corpus index), numbered in corpus order so ties fall as in the corpus index.
   */
  private async poolScope(pools: PoolIndexes, req: SearchRequest): Promise<SearchScope> {
    const wanted = req.pool ? poolWithCandidates(req.pool, req.candidates) : allDocuments(this.texts.size);
    const own = await pools.of(wanted);
    const localPool = req.pool && wanted !== req.pool ? Uint32Array.from(req.pool, (d) => slicePosition(own.docs, d)) : undefined;
    const key = `${this.params.k1} ${this.params.b} ${this.params.accurate} ${localPool ? `members ${arrayDigest(localPool)}` : 'all'}`;
    let stats = own.stats.get(key);
    if (!stats) own.stats.set(key, (stats = new PoolStats(own.index, this.params, localPool)));
    const corpusTie = this.opts.tieKey;
    let tieKey = corpusTie ? own.tieKeys.get(corpusTie) : undefined;
    if (corpusTie && !tieKey) own.tieKeys.set(corpusTie, (tieKey = Uint32Array.from(own.docs, (d) => corpusTie[d])));
    return { stats, vocab: own.vocab, tieKey: tieKey ?? null, docs: own.docs };
  }
}

/** What one search runs over: statistics, vocabulary and tie key, and for a pool's own index its documents. */
interface SearchScope {
  stats: PoolStats;
  vocab: Map<string, number>;
  tieKey: Uint32Array | null;
  docs?: Uint32Array;
}

function isPoolIndexes(x: Bm25Index | PoolIndexes): x is PoolIndexes {
  return x instanceof PoolIndexes;
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
  const h = sha256();
  h.update(JSON.stringify([ix.docCount, ix.terms.length, ix.docs.length, ix.tfBigPos.length]));
  h.update(ix.lengths).update(ix.offsets);
  for (let i = 0; i < ix.terms.length; i += 65536) h.update(ix.terms.slice(i, i + 65536).join('\n') + '\n');
  return h.hex(32);
}

