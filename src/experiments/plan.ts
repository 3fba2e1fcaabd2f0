/**
 * The plan of a run: its pool groups (protocol × field × pool size × repeat × split) — every model is a cell
 * of each group, searching the same queries and pool — and a rough estimate of time and memory per stage for
 * `citebench run --dry-run`. The estimate uses per-unit costs measured on the development machine
 * (docs/benchmarks.md); it is a planning aid, not a promise.
 */
import { memoryLimit } from '../util/memory.ts';
import { PROCESS_MEMORY_SHARE, processCopiesFit } from '../retrieval/bm25/parallel.ts';
import { FIELD_ABBREV, type Field } from '../corpus/fields.ts';
import { settingsOf, type ExperimentConfig } from './config.ts';
export { formatBytes, formatDuration } from '../util/format.ts';
import { anyNeeds, entryOf } from './kinds/index.ts';
import type { CostEnv, Estimate } from './kinds/types.ts';
import { UNIT } from './kinds/cost.ts';

export type Split = 'test' | 'val';

export interface PoolGroup {
  protocol: 'dataset' | 'field';
  split: Split;
  field: Field | null;
  /** Requested pool size (the actual one is smaller only for an exhausted field-cited set). */
  poolSize: number;
  repeat: number;
  queries: number;
  /** Present only for the inductive setting (Goyal et al. 2026 §3.1); absent = transductive, the paper's. */
  setting?: 'inductive';
}

/** Folder of a group's files under runs/<model>/, qrels/ and cells/<model>/: e.g. dataset/4k-r1, field/Bio/r2. */
export function groupPath(g: PoolGroup): string {
  const proto = `${g.split === 'test' ? g.protocol : `${g.protocol}-val`}${g.setting ? `-${g.setting}` : ''}`;
  return g.protocol === 'dataset' ? `${proto}/${sizeLabel(g.poolSize)}-r${g.repeat}` : `${proto}/${FIELD_ABBREV[g.field!]}/r${g.repeat}`;
}

export { poolLabel as sizeLabel } from '../report/tables.ts';
import { poolLabel as sizeLabel } from '../report/tables.ts';

/**
 * Every group the config asks for, in execution order. Field-level groups list every repeat; a field whose
 * field-cited set does not exceed the pool size runs one (the runner drops the others and records it).
 * MDCR needs a validation split of the field level (its val queries are disjoint from the test ones), whose
 * first repeat gives the model-based negatives of mdcr_val.
 */
export function planGroups(cfg: ExperimentConfig): PoolGroup[] {
  const out: PoolGroup[] = [];
  for (const setting of settingsOf(cfg)) {
    const s = setting === 'inductive' ? { setting } as const : {};
    const d = cfg.protocols.dataset;
    if (d) {
      for (const size of d.pools) for (let r = 1; r <= d.repeats; r++) out.push({ protocol: 'dataset', split: 'test', field: null, poolSize: size, repeat: r, queries: d.queries, ...s });
    }
    const f = cfg.protocols.field;
    if (f) {
      for (const field of f.fields) for (let r = 1; r <= f.repeats; r++) out.push({ protocol: 'field', split: 'test', field, poolSize: f.pool, repeat: r, queries: f.queries, ...s });
      // MDCR is built in the transductive setting (its val groups give the model-based negatives of mdcr_val).
      if (cfg.protocols.mdcr && setting === 'transductive') for (const field of f.fields) out.push({ protocol: 'field', split: 'val', field, poolSize: f.pool, repeat: 1, queries: f.queries });
    }
  }
  return out;
}

/**
 * Per-unit costs of the corpus, index and MDCR stages on the 2-core development machine (docs/benchmarks.md),
 * for the dry-run estimate; each model kind's own rates are in its entry (kinds/), the shared ones in kinds/cost.ts.
 */
const COST = {
  /** Synthesis + prefilter + store build, per synthetic article (2.6 M: 16 min 14 s, docs/benchmarks.md). */
  corpusPerArticle: 3.7e-4,
  /**
   * Its peak memory (the store build), linear in the stored articles through the two sizes measured: 0.42 GB at
   * 155 k and 2.47 GB at 1.54 M (docs/benchmarks.md, "Corpus"); 16 M extrapolates to ≈ 22 GiB.
   */
  corpusBytesFixed: 0.19e9,
  corpusBytesPerArticle: 1480,
  /** BM25 index build, per stored article (2.0 M: 124 s with 2 builders). */
  indexPerArticle: 6.2e-5,
  /** MDCR: build both splits, write the files, score and evaluate, per query (179 s for 3,800 + 3,726 at 2.0 M). */
  mdcrPerQuery: 0.024,
  /** Bytes per stored article (columns). */
  storeBytesPerArticle: 60,
};

export type { Estimate } from './kinds/types.ts';

/** The cost environment of a config: each model's costs through its kind's entry, other models' on request. */
function costEnv(cfg: ExperimentConfig, articles: number, processes: boolean): CostEnv {
  const env: CostEnv = {
    articles, processes,
    graphBytes: articles * (4 * UNIT.citationsPerArticle[cfg.corpus.synthetic ? 'synthetic' : 'store'] + 1),
    model: (n) => cfg.models.find((x) => x.name === n)!,
    dense: (m) => entryOf(m).needs?.encode ?? false,
    perQuery: (m, pool) => entryOf(m).cost.perQuery(m, env, pool),
    perGroup: (m, pool) => entryOf(m).cost.perGroup?.(m, env, pool) ?? { seconds: 0, bytes: 0 },
    modelBytes: (m) => entryOf(m).cost.modelBytes?.(m, env) ?? 0,
    rescore: (m) => entryOf(m).cost.rescore?.(m, env) ?? UNIT.rescorePerCandidate,
  };
  return env;
}

export function estimate(cfg: ExperimentConfig, groups: PoolGroup[], storeArticles?: number, memory = memoryLimit()): Estimate[] {
  // The paper's prefiltered S2ORC holds ~16 M articles; a synthetic corpus keeps ~77 % after the prefilter.
  const articles = storeArticles ?? (cfg.corpus.synthetic ? Math.round(cfg.corpus.synthetic.articles * 0.77) : Math.round(16e6 * cfg.scale));
  // Process-mode BM25 search where its index copies fit this machine (the rule parallel.ts applies).
  const processes = processCopiesFit(articles * UNIT.indexBytesPerArticle, UNIT.searchProcesses, PROCESS_MEMORY_SHARE * memory);
  const env = costEnv(cfg, articles, processes);
  const out: Estimate[] = [];
  if (cfg.corpus.synthetic) out.push({ stage: 'corpus (synthesize, prefilter, store)', seconds: cfg.corpus.synthetic.articles * COST.corpusPerArticle, bytes: COST.corpusBytesFixed + articles * COST.corpusBytesPerArticle });
  if (anyNeeds(cfg.models, 'bm25Index')) out.push({ stage: 'BM25 index', seconds: articles * COST.indexPerArticle, bytes: articles * UNIT.indexBytesPerArticle });
  // Articles an encoder must encode: the expected union of all pools (each a random sample of the corpus).
  let missProbability = 1;
  for (const g of groups) missProbability *= 1 - Math.min(1, g.poolSize / articles);
  const poolArticles = Math.round(articles * (1 - missProbability));
  // Stages of the models' own (encoding): the encoders' first, then what models built on them add.
  const own = (encoders: boolean) => cfg.models.filter((m) => env.dense(m) === encoders).flatMap((m) => entryOf(m).cost.stages?.(m, env, poolArticles) ?? []);
  out.push(...own(true), ...own(false));
  // Cells: every model of every group, per setting (the inductive setting's pools are as large; same unit costs).
  const settings = settingsOf(cfg);
  for (const m of cfg.models) {
    const c = entryOf(m).cost;
    settings.forEach((setting, si) => {
      const gs = groups.filter((g) => (g.setting ?? 'transductive') === setting);
      if (!gs.length) return;
      let seconds = gs.reduce((t, g) => t + g.queries * env.perQuery(m, g.poolSize) + env.perGroup(m, g.poolSize).seconds, 0);
      let tune = '';
      // Tuning runs once, on the validation split of the first setting (BM25 k1 × b; a Profiler's β, one profile build each).
      const points = c.tuningPoints?.(m) ?? 0;
      if (si === 0 && points) {
        const pool0 = cfg.protocols.dataset?.pools[0] ?? gs[0].poolSize;
        seconds += points * (cfg.validation.queries * env.perQuery(m, pool0) + env.perGroup(m, pool0).seconds);
        tune = ` (+ tuning, ${points} grid points)`;
      }
      const largest = Math.max(...gs.map((g) => g.poolSize));
      const bytes = env.modelBytes(m) + env.perGroup(m, largest).bytes;
      const label = settings.length > 1 ? ` — ${setting}` : '';
      const assumption = si === 0 ? c.assumption?.(m, env) : undefined;
      out.push({ stage: `cells ${m.name}${label}${tune}${c.cellsNote?.(m, gs.length) ?? ''}`, seconds, bytes, ...(assumption ? { assumption } : {}) });
    });
  }
  if (cfg.protocols.mdcr && cfg.protocols.field) {
    const f = cfg.protocols.field;
    const graph = articles * (8 * UNIT.citationsPerArticle[cfg.corpus.synthetic ? 'synthetic' : 'store'] + COST.storeBytesPerArticle);
    out.push({ stage: `MDCR: build val + test (${2 * f.fields.length * f.queries} queries), score, evaluate`, seconds: 2 * f.fields.length * f.queries * COST.mdcrPerQuery, bytes: articles * UNIT.indexBytesPerArticle + graph });
  }
  return out;
}
