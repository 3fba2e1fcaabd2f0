/**
 * The plan of a run: its pool groups (protocol × field × pool size × repeat × split) — every model is a cell
 * of each group, searching the same queries and pool — and a rough estimate of time and memory per stage for
 * `citebench run --dry-run`. The estimate uses per-unit costs measured on the development machine
 * (docs/benchmarks.md); it is a planning aid, not a promise.
 */
import { memoryLimit } from '../util/memory.ts';
import { SLICE_BELOW } from '../retrieval/bm25/search.ts';
import { PROCESS_MEMORY_SHARE, processCopiesFit } from '../retrieval/bm25/parallel.ts';
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
  /**
   * BM25 search, per query and searched article, plus a fixed part per query and one per pool group (sampling
   * and slicing the pool, qrels, writing the run and cell): fitted to the quiet paper-scale run (2.0 M-article
   * index; 3,800 queries over 200 k … 2 M pools, 200 over 100 k), which they give back within 10 %.
   * A pool under half the index is searched over its own postings (slicePool), else over the whole index's.
   */
  bm25PerQueryIndexed: 2.56e-8,
  bm25PerQuery: 6.3e-3,
  bm25PerGroup: 3.8,
  /**
   * BM25 searches in 2 child processes (2 cores, threads 2), each with its own copy of the index, where the
   * copies fit (parallel.ts); otherwise in 2 worker threads sharing one copy, 1.95 / 1.4 times slower here.
   */
  searchProcesses: 2,
  threadsSlowdown: 1.95 / 1.4,
  /** MDCR: build both splits, write the files, score and evaluate, per query (179 s for 3,800 + 3,726 at 2.0 M). */
  mdcrPerQuery: 0.024,
  /** Encoding a BERT-base model, per article (8.25 articles/s). */
  encodePerArticle: 1 / 8.25,
  /** Exact dense search, per query × pool article × dimension (≈150 GFLOP/s with 2 flops each). */
  densePerQueryDocDim: 2 / 150e9,
  /** Bytes per stored article (columns) and per BM25 posting-bearing article (index in memory). */
  storeBytesPerArticle: 60,
  indexBytesPerArticle: 900,
  // Beyond the paper (docs/benchmarks.md, "Beyond the paper"; bench/beyond/cost.ts at 40 k … 2 M pools).
  /**
   * BM25 re-scoring of a navigation or re-ranking candidate (and collecting the citations): navigation cost
   * BM25's top k_d plus 7.1 s per 200 queries of 1,000 candidates at a 2 M pool, measured quietly twice
   * (the 200 k figure, 50 ms per query, was taken under load); it does not grow with the pool.
   */
  rescorePerCandidate: 3.56e-5,
  /** Outbound citations per stored article (navigation's CSR, 4 bytes each): 27.3 in the synthetic corpus; S2ORC ~14 (230 M / 16 M). */
  citationsPerArticle: { synthetic: 27.3, store: 14.4 },
  /** Sparse profile postings per candidate: 1,610 with every citing term (200 k pool, synthetic: ~34 citing articles each). */
  profilePostings: 1610,
  /** …and with `topTerms` m: own terms + m, 178 at m = 100 (the own part fitted to that one measurement). */
  profileOwnTerms: 78,
  /**
   * Profile build per citing posting (128.7 s for 322 M at 200 k: the slowest rate measured); with topTerms the
   * quickselect build costs 0.35 of the all-terms estimate (451 s for a 2 M pool, 356.6 M postings kept).
   */
  profileBuildPerPosting: 4.0e-7,
  profileBuildTopTermsFactor: 0.35,
  /** Bytes per profile posting: forward + inverted arrays, RSS growth 5.1 GiB for 322 M at 200 k. */
  profileBytesPerPosting: 17,
  /** Profiler search per query and profile posting of the pool: 17.5 s for 200 queries over 322 M (200 k); with topTerms 100, 131.9 s over 356.6 M (2 M). */
  profileSearchPerPosting: { all: 2.7e-10, topTerms: 1.85e-9 },
  /** Citing articles per candidate (synthetic: 5.6 M citing edges for a 200 k pool): the dense Profiler's vector adds. */
  citingPerCandidate: 28,
  /** A cross-encoder pair: one BERT-base forward, costed as one article encoded (not measured: no trained cross-encoder here). */
  crossEncoderPerPair: 1 / 8.25,
  /** What a loaded BERT-base model and a batch hold (measured while encoding). */
  bertBytes: 1.9e9,
  dim: 768,
};

export interface Estimate {
  stage: string;
  seconds: number;
  bytes: number;
  /** The assumption behind a number that was not measured as such (printed under the stage). */
  assumption?: string;
}

type Model = ExperimentConfig['models'][number];

/** Per-query search cost of one model for a pool (seconds), following its first stage and scorers. */
function perQuery(cfg: ExperimentConfig, m: Model, pool: number, articles: number, processes: boolean): number {
  const byName = (n: string) => cfg.models.find((x) => x.name === n)!;
  const scorers = (parts: { model: string }[], candidates: number) => parts.reduce((t, p) => {
    if (p.model === 'cross-encoder') return t + candidates * COST.crossEncoderPerPair;
    const s = byName(p.model);
    return t + (isVectors(s) || (s.kind === 'profiler' && isVectors(byName(s.base))) ? candidates * COST.dim * COST.densePerQueryDocDim : candidates * COST.rescorePerCandidate);
  }, 0);
  switch (m.kind) {
    case 'bm25': return ((pool < SLICE_BELOW * articles ? pool : articles) * COST.bm25PerQueryIndexed + COST.bm25PerQuery) * (processes ? 1 : COST.threadsSlowdown);
    case 'dense':
    case 'embeddings': return pool * COST.dim * COST.densePerQueryDocDim;
    case 'profiler':
      if (isVectors(byName(m.base))) return pool * COST.dim * COST.densePerQueryDocDim;
      return pool * profilePostings(m) * (m.topTerms ? COST.profileSearchPerPosting.topTerms : COST.profileSearchPerPosting.all);
    case 'navigation': return perQuery(cfg, byName(m.first), pool, articles, processes) + m.kd.reduce((t, kd, i) => t + scorers(m.scorer, kd + m.kc[i]), 0);
    case 'rerank': return perQuery(cfg, byName(m.first), pool, articles, processes) + scorers(m.scorer, m.depth);
  }
}

/** Models that search stored vectors (an encoder's or imported ones). */
const isVectors = (m: Model) => m.kind === 'dense' || m.kind === 'embeddings';

const profilePostings = (m: { topTerms?: number }) => (m.topTerms ? Math.min(COST.profilePostings, COST.profileOwnTerms + m.topTerms) : COST.profilePostings);

/** One-off work of a model per pool group (profile builds) and what it holds in memory at a pool. */
function perGroup(cfg: ExperimentConfig, m: Model, pool: number): { seconds: number; bytes: number } {
  if (m.kind === 'bm25') return { seconds: COST.bm25PerGroup, bytes: 0 };
  // Navigation and re-ranking sample, slice and search the pool with their first stage: its per-group part.
  if (m.kind === 'navigation' || m.kind === 'rerank') return { seconds: perGroup(cfg, cfg.models.find((x) => x.name === m.first)!, pool).seconds, bytes: 0 };
  if (m.kind !== 'profiler') return { seconds: 0, bytes: 0 };
  if (isVectors(cfg.models.find((x) => x.name === m.base)!)) {
    // One vector add per citing edge, and the pool's vectors plus their profiles in memory.
    return { seconds: pool * COST.citingPerCandidate * COST.dim * COST.densePerQueryDocDim, bytes: 2 * pool * COST.dim * 4 };
  }
  const postings = pool * profilePostings(m);
  return {
    seconds: pool * COST.profilePostings * COST.profileBuildPerPosting * (m.topTerms ? COST.profileBuildTopTermsFactor : 1),
    bytes: postings * COST.profileBytesPerPosting,
  };
}

/** Memory a model's cells hold besides the pool's own structures: its index, graph or encoder. */
function modelBytes(cfg: ExperimentConfig, m: Model, articles: number, processes: boolean): number {
  const byName = (n: string) => cfg.models.find((x) => x.name === n)!;
  const graph = articles * (4 * COST.citationsPerArticle[cfg.corpus.synthetic ? 'synthetic' : 'store'] + 1);
  switch (m.kind) {
    case 'bm25': return articles * COST.indexBytesPerArticle * (processes ? 1 + COST.searchProcesses : 1);
    case 'dense':
    case 'embeddings': return 0;
    case 'profiler': return modelBytes(cfg, byName(m.base), articles, processes) + graph;
    case 'navigation':
    case 'rerank': {
      const scorers = m.scorer.reduce((b, p) => b + (p.model === 'cross-encoder' ? COST.bertBytes : p.model === m.first ? 0 : modelBytes(cfg, byName(p.model), articles, processes)), 0);
      return modelBytes(cfg, byName(m.first), articles, processes) + scorers + (m.kind === 'navigation' ? graph : 0);
    }
  }
}

function assumptionOf(cfg: ExperimentConfig, m: Model): string | undefined {
  const byName = (n: string) => cfg.models.find((x) => x.name === n)!;
  const ce = (m.kind === 'navigation' || m.kind === 'rerank') && m.scorer.some((p) => p.model === 'cross-encoder')
    ? ' A cross-encoder pair costs one BERT-base forward on CPU (1/8.25 s, as one article encoded; not measured).' : '';
  if (m.kind === 'navigation') {
    return `Navigation: ${m.first}'s search plus re-scoring ≤ k_d + k_c candidates per iteration, +36 µs per candidate (measured at a 2 M pool: 35 ms per query of 1,000 candidates), assumed the same at every pool size and iteration; memory adds the outbound citation graph (4 bytes per citation).${ce}`;
  }
  if (m.kind === 'rerank') return `Re-ranking: ${m.first}'s search plus re-scoring its top ${m.depth}, costed as navigation's re-scoring (per candidate).${ce}`;
  if (m.kind === 'profiler' && isVectors(byName(m.base))) {
    return 'Dense Profiler (not measured): one vector add per citing edge (~28 per candidate), the pool\'s vectors and profiles in memory; citing articles outside the pool must be encoded too, up to the whole corpus.';
  }
  if (m.kind === 'profiler') {
    return `Sparse profiles: one build per pool group and setting, ${profilePostings(m)} postings per candidate × ${COST.profileBytesPerPosting} bytes ` +
      `(${m.topTerms ? `topTerms ${m.topTerms}: own terms + ${m.topTerms}, fitted at topTerms 100` : 'every citing term: ~34 citing articles per candidate in the synthetic corpus'}), ` +
      (m.topTerms
        ? 'build and search rates per posting measured at a 2 M pool with topTerms 100 and assumed constant; '
        : 'build and search rates per posting measured at 200 k and assumed constant (the build rate grew with the pool, 0.11 µs at 40 k to 0.40 µs at 200 k: ' +
          'small pools are over-estimated, pools beyond 200 k may be under-estimated); ') +
      'an inductive profile has fewer citing articles, so its memory is an upper bound.';
  }
  return undefined;
}

export function estimate(cfg: ExperimentConfig, groups: PoolGroup[], storeArticles?: number, memory = memoryLimit()): Estimate[] {
  // The paper's prefiltered S2ORC holds ~16 M articles; a synthetic corpus keeps ~77 % after the prefilter.
  const articles = storeArticles ?? (cfg.corpus.synthetic ? Math.round(cfg.corpus.synthetic.articles * 0.77) : Math.round(16e6 * cfg.scale));
  // Process-mode BM25 search where its index copies fit this machine (the rule parallel.ts applies).
  const processes = processCopiesFit(articles * COST.indexBytesPerArticle, COST.searchProcesses, PROCESS_MEMORY_SHARE * memory);
  const out: Estimate[] = [];
  if (cfg.corpus.synthetic) out.push({ stage: 'corpus (synthesize, prefilter, store)', seconds: cfg.corpus.synthetic.articles * COST.corpusPerArticle, bytes: COST.corpusBytesFixed + articles * COST.corpusBytesPerArticle });
  const dense = cfg.models.filter((m) => m.kind === 'dense');
  if (cfg.models.some((m) => m.kind === 'bm25')) out.push({ stage: 'BM25 index', seconds: articles * COST.indexPerArticle, bytes: articles * COST.indexBytesPerArticle });
  // Articles a dense model must encode: the expected union of all pools (each a random sample of the corpus).
  let missProbability = 1;
  for (const g of groups) missProbability *= 1 - Math.min(1, g.poolSize / articles);
  const poolArticles = Math.round(articles * (1 - missProbability));
  // Encoding holds the model and a batch (~1.9 GB measured for BERT-base); the vectors go to disk chunk by chunk.
  for (const m of dense) out.push({ stage: `encode ${m.name}: ${poolArticles} articles, BERT-base on CPU (${formatBytes(poolArticles * COST.dim * 4)} on disk)`, seconds: poolArticles * COST.encodePerArticle, bytes: COST.bertBytes });
  for (const m of cfg.models.filter((x) => x.kind === 'profiler' && cfg.models.find((b) => b.name === x.base)?.kind === 'dense')) {
    out.push({ stage: `encode ${m.name}: citing articles outside the pools, up to ${articles - poolArticles}`, seconds: (articles - poolArticles) * COST.encodePerArticle, bytes: COST.bertBytes });
  }
  // Cells: every model of every group, per setting (the inductive setting's pools are as large; same unit costs).
  const settings = settingsOf(cfg);
  for (const m of cfg.models) {
    settings.forEach((setting, si) => {
      const gs = groups.filter((g) => (g.setting ?? 'transductive') === setting);
      if (!gs.length) return;
      let seconds = gs.reduce((t, g) => t + g.queries * perQuery(cfg, m, g.poolSize, articles, processes) + perGroup(cfg, m, g.poolSize).seconds, 0);
      let tune = '';
      // Tuning runs once, on the validation split of the first setting (BM25 k1 × b; a Profiler's β, one profile build each).
      if (si === 0 && (m.kind === 'bm25' || m.kind === 'profiler') && m.tune) {
        const pool0 = cfg.protocols.dataset?.pools[0] ?? gs[0].poolSize;
        const points = m.kind === 'bm25' ? m.tune.k1.length * m.tune.b.length : m.kind === 'profiler' ? m.tune.beta.length : 0;
        seconds += points * (cfg.validation.queries * perQuery(cfg, m, pool0, articles, processes) + perGroup(cfg, m, pool0).seconds);
        tune = ` (+ tuning, ${points} grid points)`;
      }
      const largest = Math.max(...gs.map((g) => g.poolSize));
      const bytes = modelBytes(cfg, m, articles, processes) + perGroup(cfg, m, largest).bytes + (isVectors(m) ? largest * COST.dim * 4 : 0);
      const label = settings.length > 1 ? ` — ${setting}` : '';
      const what = m.kind === 'profiler' ? `, ${gs.length} profile builds` : '';
      out.push({ stage: `cells ${m.name}${label}${tune}${what}`, seconds, bytes, ...(si === 0 && assumptionOf(cfg, m) ? { assumption: assumptionOf(cfg, m) } : {}) });
    });
  }
  if (cfg.protocols.mdcr && cfg.protocols.field) {
    const f = cfg.protocols.field;
    const graph = articles * (8 * COST.citationsPerArticle[cfg.corpus.synthetic ? 'synthetic' : 'store'] + COST.storeBytesPerArticle);
    out.push({ stage: `MDCR: build val + test (${2 * f.fields.length * f.queries} queries), score, evaluate`, seconds: 2 * f.fields.length * f.queries * COST.mdcrPerQuery, bytes: articles * COST.indexBytesPerArticle + graph });
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
