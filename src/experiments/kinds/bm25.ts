/**
 * BM25 (Lucene/Anserini-exact, retrieval/bm25/): fixed k1/b or a grid tuned on the dataset-level validation
 * split (paper §3.1). It needs the corpus's BM25 index; its ready model also offers the index and its parameters
 * to models built on it (a sparse Profiler).
 */
import { SLICE_BELOW } from '../../retrieval/bm25/pool-slice.ts';
import { Bm25Retriever } from '../../retrieval/bm25/retriever.ts';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { SearchProcesses } from '../../retrieval/bm25/parallel.ts';
import type { Bm25Index } from '../../retrieval/bm25/index-format.ts';
import { PoolIndexes } from '../../retrieval/bm25/pool-index.ts';
import { readTune, type Reader, type TunableParam } from '../config-reader.ts';
import type { ReadyModel } from '../models.ts';
import { buildIndex, removeWorkDir } from '../../retrieval/bm25/index.ts';
import { INDEX_VERSION, loadIndex, readIndexMeta, saveIndex } from '../../retrieval/bm25/index-format.ts';
import { keyOf, stampStale, writeStamp } from '../../util/identity.ts';
import type { CorpusStore } from '../../corpus/store.ts';
import type { BuildContext, CorpusEnv, KindEntry, Resource, RunConfig } from './types.ts';
import { UNIT } from './cost.ts';

export interface Bm25ModelConfig {
  kind: 'bm25';
  name: string;
  k1: number;
  b: number;
  /** Lucene's exact document lengths instead of its lossy one-byte norms. */
  accurate: boolean;
  /** Grid search of k1 and b on the validation split (paper §3.1); the chosen values replace k1/b. */
  tune?: { k1: number[]; b: number[]; measure: string };
}

/** BM25's tunable parameters and their default grids. */
const BM25_PARAMS: Record<'k1' | 'b', TunableParam> = {
  k1: { grid: [0.6, 0.9, 1.2, 1.5], check: (n) => n >= 0, what: 'a number ≥ 0' },
  b: { grid: [0.3, 0.4, 0.6, 0.75], check: (n) => n >= 0 && n <= 1, what: 'a number in [0, 1]' },
};
export const DEFAULT_TUNE_GRID = { k1: BM25_PARAMS.k1.grid, b: BM25_PARAMS.b.grid, measure: 'map' };

/**
 * BM25 search, per query and searched article, plus a fixed part per query and one per pool group (sampling
 * and slicing the pool, qrels, writing the run and cell): fitted to the quiet paper-scale run with the compiled
 * kernel and persistent search processes (2.0 M-article index; 3,800 queries over 200 k … 2 M pools, 200 over
 * 100 k; docs/benchmarks.md), which they give back within 10 %.
 * A pool under half the index is searched as an index of its own (slicePool), else over the whole index.
 * Where the processes' index copies do not fit (S2ORC's 16 M articles), 2 worker threads share one copy:
 * `threads` is fitted to the 16.2 M-article run (docs/benchmarks.md, "16 M articles"; every group of its cells
 * within 10 %): per query, the sliced pool's articles and a fixed part; per pool group, what grows with the
 * corpus (sampling the pool, slicing it out of 1.96 G postings) beyond the 2 M fit's, per article. An unsliced
 * search on threads is the processes' cost × 1.95 / 1.4 (measured with the TypeScript loop).
 */
const COST = {
  perQueryIndexed: 6.62e-9, perQuery: 3.09e-3, perGroup: 2.05,
  /** Per pool group, per corpus article beyond the 2 M fit's 2,007,222 (either mode): 8.89 s at 16.2 M. */
  groupAt: 2007222, groupPerArticle: (8.89 - 2.05) / (16209138 - 2007222),
  threads: { perQueryIndexed: 1.31e-8, perQuery: 7.25e-4 },
  threadsSlowdown: 1.95 / 1.4,
  /** A sliced pool's postings (6 B each): 121 per article (1.96 G postings over 16.2 M articles). */
  sliceBytesPerArticle: 121 * 6,
};

const sliced = (pool: number, articles: number) => pool < SLICE_BELOW * articles;

// BM25's own fields of the kind-neutral contexts (types.ts): bm25IndexResource fills them for the kinds that need a
// BM25 index (needs: [bm25IndexResource]), the planner for their costs.
declare module './types.ts' {
  interface RunConfig {
    /** corpus (default): one index of the corpus; pools: each pool's own, built when it is first searched. */
    bm25Index?: 'corpus' | 'pools';
  }
  interface BuildContext {
    /** The corpus's BM25 index (with its folder and search processes), or each pool's own (bm25Index: pools). */
    bm25Index?: { index: Bm25Index | PoolIndexes; dir?: string; processes?: SearchProcesses };
  }
  interface CostEnv {
    /** BM25 searches in child processes (each with its own index copy) rather than threads. */
    processes: boolean;
    /** BM25 indexes each pool on its own (bm25Index: pools): no corpus index, a pool index built per pool group. */
    poolIndexes: boolean;
  }
}

/**
 * The BM25 index the kinds that rank by one need: the corpus's (built once, shared by search processes), or with
 * `bm25Index: pools` each pool's own, built when the pool is first searched (its time counts in the cells'); a
 * store of its own (a BEIR task's, an MDCR data file's papers) gets an index of its own texts.
 */
export const bm25IndexResource: Resource = {
  name: 'bm25Index',
  about: "the corpus's BM25 index (or each pool's, bm25Index: pools)",
  fields: ['bm25Index'],
  async onCorpus({ cfg, store, info, threads, log, timed }) {
    if (cfg.bm25Index === 'pools') {
      log(`[index] BM25: an index of each pool's own texts (bm25Index: pools), not one of the ${store.size} articles`);
      const onBuild = (n: number, s: number) => log(`[index] BM25 index of a pool of ${n} articles: ${s.toFixed(1)} s`);
      return { bm25Index: { index: new PoolIndexes(store, { threads, storeDir: resolve(info.dir), scratchDir: cfg.work, onBuild }) } };
    }
    const ix = await timed('bm25 index', () => prepareBm25Index(cfg, store, info, (l) => log(`[index] ${l}`)));
    return { bm25Index: { ...ix, processes: new SearchProcesses(ix.dir) } };
  },
  async onStore(ctx) {
    ctx.bm25Index ??= { index: await buildIndex(ctx.store) };
  },
  release: (ctx) => ctx.bm25Index?.processes?.close(),
};

export const bm25: KindEntry<Bm25ModelConfig> = {
  kind: 'bm25',
  about: 'BM25 over the corpus index (k1, b, accurate; tune: a k1 × b grid)',
  needs: [bm25IndexResource],
  impliedByName: 'bm25',
  parse(r: Reader, p: string[], name: string): Bm25ModelConfig {
    r.checkKeys(p, ['kind', 'k1', 'b', 'accurate', 'tune']);
    const tune = readTune(r, p, BM25_PARAMS);
    return {
      kind: 'bm25', name,
      k1: r.num([...p, 'k1'], 0.9, BM25_PARAMS.k1.check, BM25_PARAMS.k1.what),
      b: r.num([...p, 'b'], 0.4, BM25_PARAMS.b.check, BM25_PARAMS.b.what),
      accurate: r.bool([...p, 'accurate'], false),
      ...(tune ? { tune: { k1: tune.grid.k1, b: tune.grid.b, measure: tune.measure } } : {}),
    };
  },
  tuning: (c) => c.tune && { grid: { k1: c.tune.k1, b: c.tune.b }, measure: c.tune.measure },
  // k1 and b are the grid's choice; the lengths (accurate) stay the model's.
  tunedVariant: (c, name) => (c.tune ? undefined : { ...c, name, tune: { ...DEFAULT_TUNE_GRID } }),
  describe: (c) => (c.tune ? ', tuned' : `, k1 ${c.k1} b ${c.b}`),
  async build(c, ctx, params) {
    return bm25Ready(c, { k1: params?.k1 ?? c.k1, b: params?.b ?? c.b }, ctx, !!params);
  },
  cost: {
    perQuery: (_c, env, pool) => {
      if (env.poolIndexes) return pool * UNIT.poolIndex.perQueryIndexed + UNIT.poolIndex.perQuery;
      if (!env.processes && sliced(pool, env.articles)) return pool * COST.threads.perQueryIndexed + COST.threads.perQuery;
      const searched = sliced(pool, env.articles) ? pool : env.articles;
      return (searched * COST.perQueryIndexed + COST.perQuery) * (env.processes ? 1 : COST.threadsSlowdown);
    },
    // On threads, this process holds the pool's slice beside the index (the processes' 1.5 copies count theirs).
    perGroup: (_c, env, pool) => {
      // bm25Index: pools — the pool's own index is built first; what grows with the corpus beyond the fitted run's
      // store is priced at the corpus index's rate (which also slices the pool out of the index: an upper bound).
      if (env.poolIndexes) {
        const p = UNIT.poolIndex;
        const grows = Math.max(0, env.articles - p.fittedAt) * COST.groupPerArticle;
        return { seconds: p.perGroup + grows + p.fixedSeconds + pool * p.perArticle, bytes: pool * p.bytesPerArticle };
      }
      const seconds = COST.perGroup + Math.max(0, env.articles - COST.groupAt) * COST.groupPerArticle;
      return { seconds, bytes: !env.processes && sliced(pool, env.articles) ? pool * COST.sliceBytesPerArticle : 0 };
    },
    // bm25Index: pools holds no corpus index: what stays is per stored article (the store's columns, text offsets).
    modelBytes: (_c, env) => (env.poolIndexes
      ? UNIT.poolIndex.fixedBytes + env.articles * UNIT.poolIndex.storeBytesPerArticle
      : env.articles * UNIT.indexBytesPerArticle * (env.processes ? 1 + UNIT.searchProcesses * UNIT.searchProcessCopies : 1)),
    // bm25Index: pools's rates were fitted with the outbound CSR alone, the one its sampling reads.
    graphCsrs: (_c, env) => (env.poolIndexes ? 1 : 2),
  },
};

/** The ready model at these parameters (the chosen ones when `tuned`): lexical weights, a first stage. */
function bm25Ready(c: Bm25ModelConfig, params: { k1: number; b: number }, ctx: Pick<BuildContext, 'store' | 'bm25Index' | 'threads'>, tuned: boolean): ReadyModel {
  const { index, dir, processes } = ctx.bm25Index!;
  const retriever = new Bm25Retriever(index, ctx.store, { params: { ...params, accurate: c.accurate }, tieKey: ctx.store.idOrder, threads: ctx.threads, indexDir: dir, processes, name: c.name });
  return {
    name: c.name, kind: 'bm25', weights: 'lexical',
    settings: { k1: params.k1, b: params.b, accurate: c.accurate, ...(tuned ? { tuned: true } : {}) },
    summary: `k1 ${params.k1}, b ${params.b}${tuned ? ', tuned' : ''}`,
    retriever, firstStage: true, release: async () => {},
  };
}

/** The BM25 index of the whole store (an index of an older format or another corpus is rebuilt). */
export async function prepareBm25Index(cfg: Pick<RunConfig, 'work'>, store: CorpusStore, info: CorpusEnv['info'], log: (line: string) => void): Promise<{ index: Bm25Index; dir: string }> {
  const dir = join(cfg.work, 'bm25-index');
  const stampPath = join(cfg.work, 'bm25-index.config.json');
  const current = existsSync(join(dir, 'meta.json')) && (() => {
    try {
      return readIndexMeta(dir).version === INDEX_VERSION;
    } catch {
      return false;
    }
  })();
  const want = keyOf({ corpus: info.stamp.key, index: INDEX_VERSION });
  const stale = current ? stampStale(stampPath, want) : existsSync(dir) ? 'an older index format' : undefined;
  if (current && !stale) {
    log(`BM25 index: up to date (${dir})`);
    return { index: loadIndex(dir), dir };
  }
  if (stale) log(`BM25 index: made again, ${stale}`);
  log(`BM25 index of ${store.size} articles`);
  const ix = await buildIndex(store, { workDir: `${dir}.work`, threads: availableParallelism(), workerSource: { kind: 'store', dir: resolve(info.dir) } });
  saveIndex(ix, dir, { corpus: { dir: resolve(info.dir), articles: store.size } });
  removeWorkDir(`${dir}.work`);
  writeStamp(stampPath, want);
  // The built index itself (its postings are in shared memory, as loaded ones are): loading the saved copy
  // beside it would hold two indexes at once, 2 × 11 GB for S2ORC's 16 M articles.
  return { index: ix, dir };
}
