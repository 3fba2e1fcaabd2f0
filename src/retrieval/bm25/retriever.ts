/**
 * Bm25Retriever: the Retriever interface over a BM25 index and its corpus (queries are corpus articles,
 * analysed from their title + abstract). Pool statistics are computed once per distinct pool and reused.
 */
import type { RankedLists, Retriever, SearchRequest } from '../retriever.ts';
import type { TextSource } from '../../corpus/article.ts';
import { CitebenchError } from '../../util/errors.ts';
import { EnglishAnalyzer, articleText } from './analyzer.ts';
import { termIdMap, type Bm25Index } from './index-format.ts';
import { DEFAULT_PARAMS, PoolStats, queryTermIds, type Bm25Params } from './search.ts';
import { searchBatch } from './parallel.ts';

export interface Bm25RetrieverOptions {
  params?: Partial<Bm25Params>;
  /** Tie-break key per document (higher first among equal scores); the corpus store's idOrder = trec_eval. */
  tieKey?: Uint32Array;
  threads?: number;
  /** The index's directory: parallel search then runs in child processes that load it (faster here). */
  indexDir?: string;
  onProgress?: (done: number, total: number) => void;
}

export class Bm25Retriever implements Retriever {
  readonly name = 'bm25';
  readonly params: Bm25Params;
  private readonly analyzer = new EnglishAnalyzer();
  private readonly vocab: Map<string, number>;
  private lastPool: { pool: Uint32Array | undefined; stats: PoolStats } | undefined;

  constructor(
    private readonly index: Bm25Index,
    private readonly texts: TextSource,
    private readonly opts: Bm25RetrieverOptions = {},
  ) {
    if (texts.size !== index.docCount) {
      throw new CitebenchError(`BM25 index has ${index.docCount} documents but the corpus has ${texts.size}: rebuild the index`);
    }
    this.params = { ...DEFAULT_PARAMS, ...opts.params };
    this.vocab = termIdMap(index.terms);
  }

  /** Statistics of a pool (cached for the last pool used, by identity). */
  stats(pool?: Uint32Array): PoolStats {
    if (this.lastPool && this.lastPool.pool === pool) return this.lastPool.stats;
    const stats = new PoolStats(this.index, this.params, pool);
    this.lastPool = { pool, stats };
    return stats;
  }

  async search(req: SearchRequest): Promise<RankedLists> {
    const stats = this.stats(req.pool);
    const queries = Array.from(req.queries, (q) => {
      if (q >= this.texts.size) throw new CitebenchError(`query ${q} is outside the corpus (${this.texts.size} articles)`);
      return stats.prepare(queryTermIds(this.analyzer, this.vocab, articleText(this.texts.text(q))));
    });
    const excludeSelf = req.excludeSelf ?? true;
    return searchBatch(stats.arrays(this.opts.tieKey ?? null), {
      queries,
      k: req.k,
      exclude: excludeSelf ? Int32Array.from(req.queries) : undefined,
      candidates: req.candidates,
      threads: this.opts.threads ?? 1,
      indexDir: this.opts.indexDir,
      onProgress: this.opts.onProgress && ((d) => this.opts.onProgress!(d, queries.length)),
      onResult: req.onResult && ((q, top) => req.onResult!(q, top.docs, top.scores)),
    });
  }
}
