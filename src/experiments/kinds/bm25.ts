/**
 * BM25 (Lucene/Anserini-exact, retrieval/bm25/): fixed k1/b or a grid tuned on the dataset-level validation
 * split (paper §3.1). It needs the corpus's BM25 index; its ready model also offers the index and its parameters
 * to models built on it (a sparse Profiler).
 */
import { SLICE_BELOW } from '../../retrieval/bm25/pool-slice.ts';
import { Bm25Retriever } from '../../retrieval/bm25/retriever.ts';
import type { TuningRecord } from '../../report/results.ts';
import type { Reader } from '../config-reader.ts';
import { poolLabel } from '../../report/tables.ts';
import { cachedTuning } from '../tuning-cache.ts';
import { tuneGrid, validationSplit } from '../tune.ts';
import type { ReadyModel } from '../models.ts';
import { settingsOf, type BuildContext, type KindEntry } from './types.ts';
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

export const DEFAULT_TUNE_GRID = { k1: [0.6, 0.9, 1.2, 1.5], b: [0.3, 0.4, 0.6, 0.75], measure: 'map' };

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

export const bm25: KindEntry<Bm25ModelConfig> = {
  kind: 'bm25',
  about: 'BM25 over the corpus index (k1, b, accurate; tune: a k1 × b grid)',
  needs: { bm25Index: true },
  parse(r: Reader, p: string[], name: string): Bm25ModelConfig {
    r.checkKeys(p, ['kind', 'k1', 'b', 'accurate', 'tune']);
    let tune: Bm25ModelConfig['tune'];
    if (r.has([...p, 'tune']) && r.raw([...p, 'tune']) !== false) {
      const t = [...p, 'tune'];
      const v = r.raw(t);
      if (v !== true) r.checkKeys(t, ['k1', 'b', 'measure']);
      const grid = (key: 'k1' | 'b') => (v !== true && r.has([...t, key]) ? r.list([...t, key], (q) => r.num(q, undefined, (n) => n >= 0, 'a number ≥ 0')) : DEFAULT_TUNE_GRID[key]);
      tune = { k1: grid('k1'), b: grid('b'), measure: v !== true ? r.str([...t, 'measure'], DEFAULT_TUNE_GRID.measure)! : DEFAULT_TUNE_GRID.measure };
      for (const b of tune.b) if (b > 1) r.fail([...t, 'b'], `b must be in [0, 1], got ${b}`);
    }
    return {
      kind: 'bm25', name,
      k1: r.num([...p, 'k1'], 0.9, (n) => n >= 0, 'a number ≥ 0'),
      b: r.num([...p, 'b'], 0.4, (n) => n >= 0 && n <= 1, 'in [0, 1]'),
      accurate: r.bool([...p, 'accurate'], false),
      tune,
    };
  },
  tuned: (c) => !!c.tune,
  describe: (c) => (c.tune ? ', tuned' : `, k1 ${c.k1} b ${c.b}`),
  async build(c, ctx) {
    let params = { k1: c.k1, b: c.b };
    if (c.tune) {
      const t = await ctx.timed(`tune ${c.name}`, () => tuneCached(c, ctx));
      ctx.tuning.push(t);
      params = t.chosen;
    }
    return bm25Ready(c, params, ctx);
  },
  cost: {
    perQuery: (_c, env, pool) => {
      if (!env.processes && sliced(pool, env.articles)) return pool * COST.threads.perQueryIndexed + COST.threads.perQuery;
      const searched = sliced(pool, env.articles) ? pool : env.articles;
      return (searched * COST.perQueryIndexed + COST.perQuery) * (env.processes ? 1 : COST.threadsSlowdown);
    },
    // On threads, this process holds the pool's slice beside the index (the processes' 1.5 copies count theirs).
    perGroup: (_c, env, pool) => ({
      seconds: COST.perGroup + Math.max(0, env.articles - COST.groupAt) * COST.groupPerArticle,
      bytes: !env.processes && sliced(pool, env.articles) ? pool * COST.sliceBytesPerArticle : 0,
    }),
    modelBytes: (_c, env) => env.articles * UNIT.indexBytesPerArticle * (env.processes ? 1 + UNIT.searchProcesses * UNIT.searchProcessCopies : 1),
    tuningPoints: (c) => (c.tune ? c.tune.k1.length * c.tune.b.length : 0),
  },
};

/** The ready model of fixed parameters (after tuning): lexical weights, its index offered to models built on it. */
export function bm25Ready(c: Bm25ModelConfig, params: { k1: number; b: number }, ctx: Pick<BuildContext, 'store' | 'bm25Index' | 'threads'>): ReadyModel {
  const { index, dir, processes } = ctx.bm25Index!;
  const retriever = new Bm25Retriever(index, ctx.store, { params: { ...params, accurate: c.accurate }, tieKey: ctx.store.idOrder, threads: ctx.threads, indexDir: dir, processes, name: c.name });
  return {
    name: c.name, kind: 'bm25', weights: 'lexical',
    settings: { k1: params.k1, b: params.b, accurate: c.accurate, ...(c.tune ? { tuned: true } : {}) },
    summary: `k1 ${params.k1}, b ${params.b}${c.tune ? ', tuned' : ''}`,
    retriever, firstStage: true, bm25: { index, k1: params.k1, b: params.b, accurate: c.accurate }, release: async () => {},
  };
}

/** BM25 tuning, cached (tuning-cache.ts). */
async function tuneCached(m: Bm25ModelConfig, ctx: BuildContext): Promise<TuningRecord> {
  const { cfg } = ctx;
  const setting = settingsOf(cfg)[0];
  const key = { sampleKey: ctx.sampleKey, model: m, seed: cfg.seed, k: cfg.k, year: cfg.queryYear, validation: cfg.validation, dataset: cfg.protocols.dataset ?? null, ...(setting !== 'transductive' ? { setting } : {}) };
  return cachedTuning(cfg.work, m.name, key, () => tune(m, ctx), (t, path) => ctx.log(`[tune] ${m.name}: k1=${t.chosen.k1} b=${t.chosen.b} (tuned before: ${path})`));
}

async function tune(m: Bm25ModelConfig, ctx: BuildContext): Promise<TuningRecord> {
  const split = validationSplit(ctx, m.name, 'k1 and b');
  const t = m.tune!;
  ctx.log(`[tune] ${m.name}: ${t.k1.length}×${t.b.length} grid on ${split.topics.length} validation queries, pool ${poolLabel(split.pool.length)} (${t.measure})`);
  const points = t.k1.flatMap((k1) => t.b.map((b) => ({ params: { k1, b }, retriever: bm25Ready(m, { k1, b }, ctx).retriever })));
  const r = await tuneGrid(points, t.measure, split, ctx);
  ctx.log(`[tune] ${m.name}: k1=${r.best.k1} b=${r.best.b} (${t.measure} ${r.best.score.toFixed(4)})`);
  return { model: m.name, measure: t.measure, queries: split.topics.length, poolSize: split.pool.length, grid: r.grid, chosen: { k1: r.best.k1, b: r.best.b } };
}
