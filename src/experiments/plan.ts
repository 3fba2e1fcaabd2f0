/**
 * The plan of a run: its pool groups (protocol × field × pool size × repeat × split) — every model is a cell
 * of each group, searching the same queries and pool — and a rough estimate of time and memory per stage for
 * `citebench run --dry-run`. The estimate uses per-unit costs measured on the development machine
 * (docs/benchmarks.md); it is a planning aid, not a promise.
 */
import { memoryLimit } from '../util/memory.ts';
import { PROCESS_MEMORY_SHARE, processCopiesFit } from '../retrieval/bm25/parallel.ts';
import { fieldAbbrev, type FieldName } from '../corpus/fields.ts';
import { settingsOf, type ExperimentConfig, type Release } from './config.ts';
export { formatBytes, formatDuration } from '../util/format.ts';
import { anyNeeds, entryOf, needs } from './kinds/index.ts';
import type { CostEnv, Estimate } from './kinds/types.ts';
import { UNIT } from './kinds/cost.ts';
import { gridPoints } from '../util/best.ts';
import { SHARD_BYTES_PER_RECORD, type SynthProfile } from '../corpus/synth.ts';
import { BUILD_DISK_PER_INPUT_BYTE } from '../corpus/store-build.ts';
import { indexDiskNeed } from '../retrieval/bm25/index.ts';

export type Split = 'test' | 'val';

export interface PoolGroup {
  /** beir: a BEIR-layout task (beir-stage.ts), not in planGroups: it runs on a store of its own. */
  protocol: 'dataset' | 'field' | 'beir';
  split: Split;
  field: FieldName | null;
  /** Requested pool size (the actual one is smaller only for an exhausted field-cited set). */
  poolSize: number;
  repeat: number;
  queries: number;
  /** Present only for the inductive setting (Goyal et al. 2026 §3.1); absent = transductive, the paper's. */
  setting?: 'inductive';
  /** BEIR protocol: the task's name. */
  task?: string;
}

/** Folder of a group's files under runs/<model>/, qrels/ and cells/<model>/: e.g. dataset/4k-r1, field/Bio/r2. */
export function groupPath(g: PoolGroup): string {
  if (g.protocol === 'beir') return `beir/${g.task}`;
  const proto = `${g.split === 'test' ? g.protocol : `${g.protocol}-val`}${g.setting ? `-${g.setting}` : ''}`;
  return g.protocol === 'dataset' ? `${proto}/${sizeLabel(g.poolSize)}-r${g.repeat}` : `${proto}/${fieldAbbrev(g.field!)}/r${g.repeat}`;
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
 * The corpus and index stages by synthetic profile and for a real release (docs/benchmarks.md, "Raw-S2ORC-shaped
 * input", "Corpus"): survival, time, memory and disk per record or article.
 */
export const CORPUS_COST = {
  /** Share of records the paper's prefilter keeps: 2.6 M → 2,007,222 (default); 's2orc-raw' 1 M → 196,244, 20 M → 3,898,794. */
  survival: { default: 0.772, 's2orc-raw': 0.195 } as Record<SynthProfile | 'default', number>,
  /**
   * 's2orc-raw': synthesis and store build per raw record at 20 M records (1,820.4 s and 1,144.8 s). The build's
   * rate grows with the record count (its id lookups outgrow the caches: 39 µs per record at 1 M, 57 µs at 20 M),
   * so the largest run prices the real size; the synthesis shared the machine with another job (an upper bound).
   */
  rawSynthPerRecord: 91.0e-6,
  rawBuildPerRecord: 57.2e-6,
  /**
   * Synthesis peak: fixed (the workers' shard buffers) + per record (attributes and graph), through the two
   * sizes measured with two shard-writing threads: default 2.61 GB at 200 k and 3.78 GB at 2 M records (its
   * records cite 27 in-corpus articles each); 's2orc-raw' 1.74 GB at 1 M and 5.17 GB at 20 M.
   */
  synthBytesFixed: { default: 2.479e9, 's2orc-raw': 1.555e9 } as Record<SynthProfile | 'default', number>,
  synthBytesPerRecord: { default: 649.4, 's2orc-raw': 180.9 } as Record<SynthProfile | 'default', number>,
  /**
   * The store build's peak: fixed + per raw record, through 's2orc-raw' 0.301 GB at 1 M and 2.446 GB at 20 M
   * records (the id index and the columns' slack released before the CSR is filled: 113 B per record).
   */
  buildBytesFixed: 0.1881e9,
  buildBytesPerRecord: 112.9,
  /**
   * The store build's peak for the default profile, linear in the stored articles through the sizes measured
   * with the build of 2026-11-26: 0.241 GB at 154,614 and 0.948 GB at 2,007,222 (0.768 GB at 1,544,538 on the
   * line; docs/benchmarks.md, "Corpus"); beyond 2,007,222 articles, the line from there to 8.21 GB at
   * 16,209,138 (the 21 M-record build of the same day, whose peak is the input's 1.34 G citation entries at 4 B
   * each while the CSR is filled): 511.6 B per article. The synthesis's peak is the larger at every size.
   */
  corpusBytesFixed: 0.182e9,
  corpusBytesPerArticle: 381.6,
  corpusBytesKnee: 2007222,
  corpusBytesPerArticleBeyond: 511.6,
  /** Store on disk per stored article (2,083 B default, 2,034 B 's2orc-raw', 200 k records). */
  storeDiskPerArticle: 2080,
  /** A store's text.bin per article (1,806 B in both profiles), from which the index's disk follows (indexDiskNeed). */
  textBytesPerArticle: 1806,
  /**
   * The BM25 index build's peak (its merge holds the finished postings, 121 per article here, 6 B each): fixed +
   * per article through 0.39 GB at 154,614 articles and 1.00 GB at 977,210 (bm25 index, 2 builders); it gives
   * the 3.20 GB measured at 3,898,794 articles within 2 %.
   */
  indexBuildBytesFixed: 0.277e9,
  indexBuildBytesPerArticle: 737,
  /**
   * Records of the raw S2ORC release (v2020-07-05), and its .jsonl.gz bytes per record: 100 shards of about
   * 530 MB (docs/corpus.md) over 81.1 M records; the 1,000-record real sample gzips to 368 B per record, so this is
   * the safer figure for disk.
   */
  s2orcRecords: 81.1e6,
  s2orcGzBytesPerRecord: 654,
};

/** The default profile's store build peak for `articles` stored articles (two lines, CORPUS_COST). */
export function corpusBuildBytes(articles: number): number {
  const c = CORPUS_COST;
  const atKnee = c.corpusBytesFixed + Math.min(articles, c.corpusBytesKnee) * c.corpusBytesPerArticle;
  return atKnee + Math.max(0, articles - c.corpusBytesKnee) * c.corpusBytesPerArticleBeyond;
}

/**
 * OpenAlex works (`synth --profile openalex`, then `corpus build`; docs/benchmarks.md, "OpenAlex works"): the share
 * of works the paper's prefilter keeps, the build's seconds per work (worker threads reading on both cores) and its
 * peak: fixed + per work, through the two sizes measured.
 */
export const OPENALEX_COST = {
  survival: 0.176587,
  buildPerRecord: 7.7518e-05,
  buildBytesFixed: 0.9367e9,
  buildBytesPerRecord: 23.63,
};

/**
 * Per-unit costs of the corpus, index and MDCR stages on the 2-core development machine (docs/benchmarks.md),
 * for the dry-run estimate; each model kind's own rates are in its entry (kinds/), the shared ones in kinds/cost.ts.
 */
const COST = {
  /**
   * Synthesis + prefilter + store build, per synthetic record: 21 M records in 2,852 s + 2,768 s (2026-11-26;
   * 2.6 M took 16 min 14 s on 2026-11-23, 3.7e-4 s per record, before the build's later changes).
   */
  corpusPerArticle: 2.68e-4,
  /**
   * BM25 index build, per stored article, with 2 builders on quiet machines: the rate grows with the size (its
   * merge), from 38.8 µs at 3,898,794 articles (151.2 s) to 44.0 µs at 16,209,138 (712.7 s, the 16 M run); the
   * rate between gives both within 7 %.
   */
  indexPerArticle: 4.14e-5,
  /** MDCR: build both splits, write the files, score and evaluate, per query (179 s for 3,800 + 3,726 at 2.0 M). */
  mdcrPerQuery: 0.024,
  /** Bytes per stored article (columns). */
  storeBytesPerArticle: 60,
  ...CORPUS_COST,
};


/** The cost environment of a config: each model's costs through its kind's entry, other models' on request. */
/** Outbound citations per article the estimate assumes: the synthetic corpus's, an OpenAlex release's, a store's. */
function citationDensity(cfg: ExperimentConfig, built: boolean): number {
  if (cfg.corpus.synthetic) return UNIT.citationsPerArticle.synthetic;
  return !built && cfg.corpus.from?.startsWith('openalex') ? UNIT.citationsPerArticle.openalex : UNIT.citationsPerArticle.store;
}

function costEnv(cfg: ExperimentConfig, articles: number, processes: boolean, citations: number): CostEnv {
  const env: CostEnv = {
    articles, processes, poolIndexes: cfg.bm25Index === 'pools',
    graphBytes: articles * (4 * citations + 1),
    model: (n) => cfg.models.find((x) => x.name === n)!,
    dense: (m) => needs(m, 'encode'),
    perQuery: (m, pool) => entryOf(m).cost.perQuery(m, env, pool),
    perGroup: (m, pool) => entryOf(m).cost.perGroup?.(m, env, pool) ?? { seconds: 0, bytes: 0 },
    modelBytes: (m) => entryOf(m).cost.modelBytes?.(m, env) ?? 0,
    rescore: (m) => entryOf(m).cost.rescore?.(m, env) ?? UNIT.rescorePerCandidate,
    graphCsrs: (m) => entryOf(m).cost.graphCsrs?.(m, env) ?? 2,
  };
  return env;
}

export function estimate(cfg: ExperimentConfig, groups: PoolGroup[], storeArticles?: number, memory = memoryLimit()): Estimate[] {
  // The paper's prefiltered S2ORC holds ~16 M articles; a synthetic corpus keeps its profile's share.
  const syn = cfg.corpus.synthetic;
  const articles = storeArticles ?? (syn ? Math.round(syn.articles * COST.survival[syn.profile ?? 'default']) : expectedArticles(cfg));
  // Process-mode BM25 search where its index copies fit this machine (the rule parallel.ts applies).
  const poolIndexes = cfg.bm25Index === 'pools';
  const processes = !poolIndexes && processCopiesFit(articles * UNIT.indexBytesPerArticle, UNIT.searchProcesses, PROCESS_MEMORY_SHARE * memory, true);
  const citations = citationDensity(cfg, storeArticles !== undefined);
  const env = costEnv(cfg, articles, processes, citations);
  const out: Estimate[] = [];
  if (syn) out.push(synthCorpusEstimate(syn.articles, syn.profile, articles));
  // With bm25Index: pools each pool group builds its pool's index inside its cells (kinds/bm25.ts).
  if (anyNeeds(cfg.models, 'bm25Index') && !poolIndexes) {
    const disk = indexDiskNeed(articles * COST.textBytesPerArticle);
    out.push({ stage: 'BM25 index', seconds: articles * COST.indexPerArticle, bytes: COST.indexBuildBytesFixed + articles * COST.indexBuildBytesPerArticle, disk: { peak: disk, kept: disk * 6 / 8 } });
  }
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
      const spec = entryOf(m).tuning?.(m);
      const points = spec ? gridPoints(spec.grid).length : 0;
      if (si === 0 && points) {
        const pool0 = cfg.protocols.dataset?.pools[0] ?? gs[0].poolSize;
        seconds += points * (cfg.validation.queries * env.perQuery(m, pool0) + env.perGroup(m, pool0).seconds);
        tune = ` (+ tuning, ${points} grid points)`;
      }
      const largest = Math.max(...gs.map((g) => g.poolSize));
      // Every model's cells also hold the store's citations, which sampling the pools and qrels loads: counted as
      // both CSRs where the rates were fitted so (3.6 GB of the 18.3 GB the BM25 cells held at 16.2 M articles),
      // or as many as the kind's rates were fitted with (its cost's graphCsrs).
      const bytes = env.modelBytes(m) + env.perGroup(m, largest).bytes + env.graphCsrs(m) * env.graphBytes;
      const label = settings.length > 1 ? ` — ${setting}` : '';
      const assumption = si === 0 ? c.assumption?.(m, env) : undefined;
      out.push({ stage: `cells ${m.name}${label}${tune}${c.cellsNote?.(m, gs.length) ?? ''}`, seconds, bytes, ...(assumption ? { assumption } : {}) });
    });
  }
  if (cfg.protocols.mdcr && cfg.protocols.field) {
    const f = cfg.protocols.field;
    const graph = articles * (8 * citations + COST.storeBytesPerArticle);
    // BM25 scores the test split's pairs over the data file's papers: the corpus index, or (pools) theirs alone, at
    // most every candidate of every test query.
    const m = cfg.protocols.mdcr;
    const dataPapers = Math.min(articles, f.fields.length * f.queries * (m.positives + 6 * m.perType + 1));
    // bm25Index: pools — fitted to the 3.5 M-article run's MDCR peak (3.14 GB): its graph, the data file's index,
    // and a fixed part (the run lists read back, the files written: they grow with the queries, not the store).
    const p = UNIT.poolIndex;
    const index = !anyNeeds(cfg.models, 'bm25Index') ? 0
      : poolIndexes ? p.mdcrFixedBytes + articles * p.textOffsetBytes + dataPapers * p.bytesPerArticle : articles * UNIT.indexBytesPerArticle;
    out.push({ stage: `MDCR: build val + test (${2 * f.fields.length * f.queries} queries), score, evaluate`, seconds: 2 * f.fields.length * f.queries * COST.mdcrPerQuery, bytes: index + graph });
  }
  return out;
}

/** The corpus stage of a synthetic config: synthesis, then the store build over its shards (both on disk after). */
function synthCorpusEstimate(records: number, profile: SynthProfile | undefined, articles: number): Estimate {
  const shards = records * SHARD_BYTES_PER_RECORD[profile ?? 'default'];
  const store = articles * COST.storeDiskPerArticle;
  const disk = { peak: shards * (1 + BUILD_DISK_PER_INPUT_BYTE.v2020), kept: shards + store };
  const synthBytes = COST.synthBytesFixed[profile ?? 'default'] + records * COST.synthBytesPerRecord[profile ?? 'default'];
  if (profile === 's2orc-raw') {
    return {
      stage: `corpus (synthesize ${records} s2orc-raw records, prefilter, store)`,
      seconds: records * (COST.rawSynthPerRecord + COST.rawBuildPerRecord),
      bytes: Math.max(synthBytes, COST.buildBytesFixed + records * COST.buildBytesPerRecord),
      disk,
    };
  }
  return {
    stage: 'corpus (synthesize, prefilter, store)', seconds: records * COST.corpusPerArticle,
    bytes: Math.max(synthBytes, corpusBuildBytes(articles)), disk,
  };
}

/**
 * The releases a store not built yet may come from (config `corpus.from`), as the dry run prices them: their
 * records, the stored articles they give, the gzip'd bytes per record and the build's time and memory per record.
 */
export const RELEASES: Record<Release, { label: string; records: number; articles: number; gzBytesPerRecord: number; buildPerRecord: number; buildBytesFixed: number; buildBytesPerRecord: number; format: 'v2020' | 'openalex'; kept: string; share: string }> = {
  's2orc-v2020': {
    label: 'raw records', records: COST.s2orcRecords, articles: 16e6, gzBytesPerRecord: COST.s2orcGzBytesPerRecord,
    buildPerRecord: COST.rawBuildPerRecord, buildBytesFixed: COST.buildBytesFixed, buildBytesPerRecord: COST.buildBytesPerRecord, format: 'v2020',
    kept: "the paper's prefiltered S2ORC", share: "S2ORC's ~20 % kept",
  },
  /**
   * The OpenAlex works snapshot: 278 M works, some 330 GB of gzip (docs/openalex.md: 1,187 B per work). Stored
   * articles: the share the synthetic OpenAlex profile keeps (calibrated on the snapshot's published coverage; an
   * assumption, not a measurement of the real snapshot). Time and memory per work: the build of
   * `synth --profile openalex` works (docs/benchmarks.md, "OpenAlex works").
   */
  openalex: openAlexRelease(278e6, "OpenAlex's 278 M works", '~'),
  /** The same with the "xpac" works of November 2025: 470 M works, priced at the same rates and share (an upper bound on what is kept: xpac works are mostly repository records with fewer abstracts and references). */
  'openalex-xpac': openAlexRelease(470e6, "OpenAlex's 470 M works with xpac", '≤ ', ' (an upper bound)'),
};

/** An OpenAlex release of `records` works, priced at the synthetic OpenAlex builds' rates (OPENALEX_COST). */
function openAlexRelease(records: number, what: string, about: string, bound = ''): (typeof RELEASES)[Release] {
  const pct = 100 * OPENALEX_COST.survival;
  return {
    label: 'works', records, articles: Math.round(records * OPENALEX_COST.survival), gzBytesPerRecord: 1187,
    buildPerRecord: OPENALEX_COST.buildPerRecord, buildBytesFixed: OPENALEX_COST.buildBytesFixed, buildBytesPerRecord: OPENALEX_COST.buildBytesPerRecord, format: 'openalex',
    kept: `${what} × ${pct.toFixed(1)} % kept by the synthetic OpenAlex profile${bound}`, share: `${about}${pct.toFixed(0)} % of the works kept (assumed)`,
  };
}

/** The stored articles a config's store will hold when it is not built yet: its release's × scale. */
export function expectedArticles(cfg: ExperimentConfig): number {
  return Math.round(RELEASES[cfg.corpus.from ?? 's2orc-v2020'].articles * cfg.scale);
}

/**
 * `citebench corpus build` of a config's release × `scale` (the real-store case, which `run` does not build):
 * priced at the rates per record measured on that release's synthetic profile (RELEASES).
 */
export function corpusBuildForecast(scale: number, release: Release = 's2orc-v2020'): Estimate {
  const r = RELEASES[release];
  const records = Math.round(r.records * scale);
  const articles = Math.round(r.articles * scale);
  const input = records * r.gzBytesPerRecord;
  const need = input * BUILD_DISK_PER_INPUT_BYTE[r.format];
  return {
    stage: `corpus build of ~${(records / 1e6).toFixed(1)} M ${r.label} → ${(articles / 1e6).toFixed(1)} M articles`,
    seconds: records * r.buildPerRecord,
    bytes: r.buildBytesFixed + records * r.buildBytesPerRecord,
    disk: { peak: input + need, kept: input + articles * COST.storeDiskPerArticle },
  };
}
