/**
 * Bm25Retriever: the Retriever interface over a BM25 index and its corpus (queries are corpus articles,
 * analysed from their title + abstract). Pool statistics are computed once per distinct pool and reused.
 */
import { createHash } from 'node:crypto';
import type { RankedLists, Retriever, SearchRequest } from '../retriever.ts';
import type { TextSource } from '../../corpus/article.ts';
import { CitebenchError } from '../../util/errors.ts';
import { EnglishAnalyzer, articleText, queryTermIds } from './analyzer.ts';
import { ANALYZER_NAME, INDEX_VERSION, termIdMap, type Bm25Index } from './index-format.ts';
import { DEFAULT_PARAMS, PoolStats, type Bm25Params } from './pool-stats.ts';
import { searchBatch, type SearchProcesses } from './parallel.ts';
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
  private readonly vocab: Map<string, number>;
  private lastPool: { pool: Uint32Array | undefined; stats: PoolStats } | undefined;
  private fingerprint_: string | undefined;

  constructor(
    private readonly index: Bm25Index,
    private readonly texts: TextSource,
    private readonly opts: Bm25RetrieverOptions = {},
  ) {
    if (texts.size !== index.docCount) {
      throw new CitebenchError(`BM25 index has ${index.docCount} documents but the corpus has ${texts.size}: rebuild the index`);
    }
    this.params = { ...DEFAULT_PARAMS, ...opts.params };
    this.name = opts.name ?? 'bm25';
    this.vocab = termIdMap(index.terms);
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
      index: { version: INDEX_VERSION, analyzer: ANALYZER_NAME, content: indexIdentity(this.index) },
      tieKey: this.opts.tieKey ? digest(this.opts.tieKey) : null,
    });
    return this.fingerprint_;
  }

  /** Statistics of a pool (cached for the last pool used, by identity). */
  stats(pool?: Uint32Array): PoolStats {
    if (this.lastPool && this.lastPool.pool === pool) return this.lastPool.stats;
    const stats = new PoolStats(this.index, this.params, pool);
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
    return { index: this.index, k1: this.params.k1, b: this.params.b, accurate: this.params.accurate };
  }

  async search(req: SearchRequest): Promise<RankedLists> {
    const stats = this.stats(req.pool);
    for (const q of req.queries) {
      if (q >= this.texts.size) throw new CitebenchError(`query ${q} is outside the corpus (${this.texts.size} articles)`);
    }
    const excludeSelf = req.excludeSelf ?? true;
    const n = req.queries.length;
    return searchBatch(stats.arrays(this.opts.tieKey ?? null), {
      // Analysed while the searchers start (search processes load the index meanwhile).
      queries: () => Array.from(req.queries, (q) => stats.prepare(queryTermIds(this.analyzer, this.vocab, articleText(this.texts.text(q))))),
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
