/**
 * The plan of a run: its pool groups (protocol × field × pool size × repeat × split) — every model is a cell
 * of each group, searching the same queries and pool — and a rough estimate of time and memory per stage for
 * `citebench run --dry-run`. The estimate uses per-unit costs measured on the development machine
 * (docs/benchmarks.md); it is a planning aid, not a promise.
 */
import { FIELD_ABBREV, type Field } from '../corpus/fields.ts';
import { settingsOf, type ExperimentConfig } from './config.ts';

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

/** Per-unit costs on the 2-core development machine (docs/benchmarks.md), for the dry-run estimate. */
const COST = {
  /** Synthesis + prefilter + store build, per synthetic article. */
  corpusPerArticle: 2.4e-4,
  /** BM25 index build, per stored article (1 M: 36 s with 2 builders). */
  indexPerArticle: 3.6e-5,
  /**
   * BM25 search, per query and INDEXED article (a pool is searched over the whole index, sweeping every posting
   * of the query terms: 2 M pool of a 2.2 M index, 19.9 queries/s), plus a fixed part.
   */
  bm25PerQueryIndexed: 2.3e-8,
  bm25PerQuery: 1e-3,
  /** Encoding a BERT-base model, per article (8.25 articles/s). */
  encodePerArticle: 1 / 8.25,
  /** Exact dense search, per query × pool article × dimension (≈150 GFLOP/s with 2 flops each). */
  densePerQueryDocDim: 2 / 150e9,
  /** Bytes per stored article (columns) and per BM25 posting-bearing article (index in memory). */
  storeBytesPerArticle: 60,
  indexBytesPerArticle: 900,
};

export interface Estimate {
  stage: string;
  seconds: number;
  bytes: number;
}

export function estimate(cfg: ExperimentConfig, groups: PoolGroup[], storeArticles?: number): Estimate[] {
  // The paper's prefiltered S2ORC holds ~16 M articles; a synthetic corpus keeps ~77 % after the prefilter.
  const articles = storeArticles ?? (cfg.corpus.synthetic ? Math.round(cfg.corpus.synthetic.articles * 0.77) : Math.round(16e6 * cfg.scale));
  const out: Estimate[] = [];
  if (cfg.corpus.synthetic) out.push({ stage: 'corpus (synthesize, prefilter, store)', seconds: cfg.corpus.synthetic.articles * COST.corpusPerArticle, bytes: articles * COST.storeBytesPerArticle * 3 });
  const bm25 = cfg.models.filter((m) => m.kind === 'bm25');
  const dense = cfg.models.filter((m) => m.kind === 'dense');
  if (bm25.length) out.push({ stage: 'BM25 index', seconds: articles * COST.indexPerArticle, bytes: articles * COST.indexBytesPerArticle });
  // Articles a dense model must encode: the expected union of all pools (each a random sample of the corpus).
  let missProbability = 1;
  for (const g of groups) missProbability *= 1 - Math.min(1, g.poolSize / articles);
  const poolArticles = Math.round(articles * (1 - missProbability));
  // Encoding holds the model and a batch (~1.9 GB measured for BERT-base); the vectors go to disk chunk by chunk.
  for (const m of dense) out.push({ stage: `encode ${m.name}: ${poolArticles} articles, BERT-base on CPU (${formatBytes(poolArticles * 768 * 4)} on disk)`, seconds: poolArticles * COST.encodePerArticle, bytes: 1.9e9 });
  for (const m of bm25) {
    const perQuery = articles * COST.bm25PerQueryIndexed + COST.bm25PerQuery;
    const s = groups.reduce((t, g) => t + g.queries * perQuery, 0);
    const tune = m.kind === 'bm25' && m.tune ? m.tune.k1.length * m.tune.b.length : 0;
    const tuneS = tune * cfg.validation.queries * perQuery;
    out.push({ stage: `cells ${m.name}${tune ? ` (+ tuning, ${tune} grid points)` : ''}`, seconds: s + tuneS, bytes: articles * COST.indexBytesPerArticle });
  }
  for (const m of dense) {
    const s = groups.reduce((t, g) => t + g.queries * g.poolSize * 768 * COST.densePerQueryDocDim, 0);
    out.push({ stage: `cells ${m.name}`, seconds: s, bytes: groups.reduce((b, g) => Math.max(b, g.poolSize * 768 * 4), 0) });
  }
  return out;
}

export function formatDuration(s: number): string {
  if (s < 90) return `${Math.max(1, Math.round(s))} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 2 * 86400) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86400).toFixed(1)} days`;
}

export function formatBytes(b: number): string {
  if (b < 1 << 20) return `${Math.ceil(b / 1024)} KiB`;
  if (b < 1 << 30) return `${(b / (1 << 20)).toFixed(0)} MiB`;
  return `${(b / (1 << 30)).toFixed(1)} GiB`;
}
