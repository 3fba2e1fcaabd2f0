/**
 * `citebench run CONFIG`: every protocol × model × pool size × repeat of a configuration, resumably, into one
 * results folder (layout in report/results.ts). Stages: corpus → BM25 index → models (tuning, dense encoders)
 * → encode (dense models: every article of the plan's pools and queries) → pool groups (dataset level §3.1,
 * field level §3.2) → MDCR (§4) → results.json → Markdown report. Every stage and cell is reused when its
 * output exists for the same inputs.
 *
 * On a cluster (docs/cluster.md) the same run is split into stages that share the work and results folders:
 * `runStage` 'prepare' (corpus, index, tuning, store manifests; one task), 'encode' with a shard (chunks
 * c mod N = I of every dense store), 'cells' with a shard (pool groups g mod N = I; a lock per cell), then a
 * plain `runExperiment` assembles: every cell exists, so it only reads them back, runs MDCR and writes the
 * report — the same bytes as one process.
 */
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { memoryLimit } from '../util/memory.ts';
import { CorpusStore } from '../corpus/store.ts';
import { FIELD_ABBREV } from '../corpus/fields.ts';
import { parseMeasure } from '../eval/registry.ts';
import { samplePool } from '../sampling/pools.ts';
import { loadQueryExclusion } from '../sampling/exclusions.ts';
import { meanOverRepeats, type CellRecord, type CellSummary, type ResultsIndex, type TuningRecord, type ValidationShortfall, shortfallText } from '../report/results.ts';
import { renderMarkdownReport } from '../report/markdown.ts';
import { loadPaperNumbers } from '../report/paper-numbers.ts';
import { writeFileAtomic } from '../util/atomic.ts';
import { CitebenchError } from '../util/errors.ts';
import { Progress } from '../util/progress.ts';
import { tryLock } from '../util/lock.ts';
import { inShard, shardLabel, type Shard } from '../util/shard.ts';
import { canonicalConfig, configHash, type ExperimentConfig } from './config.ts';
import { prepareBm25Index, prepareCorpus, type CorpusInfo, type StageLog } from './corpus-stage.ts';
import { checkImportedCoverage, type ReadyModel, type SkippedModel } from './models.ts';
import { anyNeeds, entryOf, type BuildContext } from './kinds/index.ts';
import { significanceStage } from './significance-stage.ts';
import { runGroup, type GroupContext } from './cells.ts';
import { estimate, formatBytes, formatDuration, groupPath, planGroups, sizeLabel, type PoolGroup } from './plan.ts';
import { runMdcrStage } from './mdcr-stage.ts';
import { storeArticles } from './slurm.ts';
import { QuerySplits } from './splits.ts';
import { corpusKey } from '../corpus/store-key.ts';
import type { Device } from '../retrieval/dense/encoder.ts';

export interface RunOptions {
  log?: StageLog;
  threads?: number;
  /** Lock staleness timeout for cells and the prepare stage (default: util/lock.ts). */
  lockStaleMs?: number;
  /** Where dense encoders run (default cpu; docs/cluster.md). */
  device?: Device;
  /** Download a dense model whose folder is missing from the Hugging Face hub (`--allow-remote`; default: never). */
  allowRemote?: boolean;
}

/** A part of a run for one cluster task (see the module comment). */
export type RunStage = 'prepare' | 'encode' | 'cells';

export interface StageOptions extends RunOptions {
  stage: RunStage;
  /** encode: chunks c mod N = I; cells: pool groups g mod N = I (plan order). Default: all. */
  shard?: Shard;
}

export interface StageOutcome {
  stage: RunStage;
  shard?: Shard;
  /** Articles encoded now (encode stage). */
  encoded: number;
  /** Cells of this task's groups: already there or computed now; held by another live worker and skipped. */
  cells: { done: number; computed: number; skipped: number };
}

export interface RunOutcome {
  resultsDir: string;
  results: ResultsIndex;
  report: string;
  reportPath: string;
  store: CorpusStore;
}

/** The dry run: the plan and a rough estimate, without touching any file. Memory above `memoryBytes` (default: this machine's) is flagged. */
export function dryRun(cfg: ExperimentConfig, opts: { memoryBytes?: number } = {}): string {
  const groups = planGroups(cfg);
  const lines = [`config ${cfg.name} (hash ${configHash(cfg)}), scale ${cfg.scale}, seed ${cfg.seed}`];
  lines.push(cfg.corpus.store ? `corpus: store ${cfg.corpus.store}` : `corpus: ${cfg.corpus.synthetic!.articles} synthetic articles (seed ${cfg.corpus.synthetic!.seed}), prefiltered as in §3`);
  lines.push(`models: ${cfg.models.map((m) => `${m.name} (${m.kind}${entryOf(m).describe(m)})`).join(', ')}`);
  if (cfg.settings) lines.push(`settings: ${cfg.settings.join(', ')}`);
  const d = cfg.protocols.dataset;
  if (d) lines.push(`dataset level: ${d.queries} queries of ${cfg.queryYear}, pools ${d.pools.map(sizeLabel).join('/')} × ${d.repeats} repeats`);
  const f = cfg.protocols.field;
  if (f) lines.push(`field level: ${f.fields.length} fields × ${f.queries} queries, pools of ${sizeLabel(f.pool)} × ≤ ${f.repeats} repeats (one where the field-cited set is not larger)`);
  if (cfg.protocols.mdcr) lines.push(`MDCR: test = the field-level queries, val = ${f!.queries} disjoint queries per field (what is left where a field has fewer); ${cfg.protocols.mdcr.positives} positives + 6 types × ${cfg.protocols.mdcr.perType} negatives`);
  lines.push(`cells: ${groups.length} pool groups × ${cfg.models.length} models = ${groups.length * cfg.models.length} (top ${cfg.k}; ${cfg.measures.join(', ')})`);
  const articles = storeArticles(cfg);
  lines.push('', 'estimate on a 2-core machine (per-unit costs from docs/benchmarks.md; rough):');
  if (cfg.corpus.store && articles === undefined) lines.push(`  (corpus store ${cfg.corpus.store} not built yet: assuming ${Math.round(16e6 * cfg.scale)} articles, the paper's prefiltered S2ORC × scale)`);
  let total = 0;
  const memory = opts.memoryBytes ?? memoryLimit();
  const est = estimate(cfg, groups, articles, memory);
  const w = Math.max(...est.map((e) => e.stage.length));
  for (const e of est) {
    total += e.seconds;
    lines.push(`  ${e.stage.padEnd(w)} ${formatDuration(e.seconds).padStart(9)}   peak ≈ ${formatBytes(e.bytes)}${e.bytes > memory ? `   ⚠ exceeds this machine's ${formatBytes(memory)}` : ''}`);
  }
  lines.push(`  ${'total'.padEnd(w)} ${formatDuration(total).padStart(9)}`);
  const over = est.filter((e) => e.bytes > memory);
  if (over.length) lines.push('', `⚠ ${over.length} stage${over.length > 1 ? 's need' : ' needs'} more memory than this machine has (${formatBytes(memory)}): ${over.map((e) => e.stage).join('; ')}. A sparse Profiler's \`topTerms\` bounds its profiles (docs/benchmarks.md).`);
  const assumed = est.filter((e) => e.assumption);
  if (assumed.length) lines.push('', 'assumptions (not measured as such):', ...assumed.map((e) => `  ${e.stage.split(' — ')[0].replace(/^cells /, '').split(' (')[0].split(',')[0]}: ${e.assumption}`));
  lines.push('', 'pool groups:', ...groups.map((g) => `  ${groupPath(g)}  (${g.queries} queries, pool ${g.poolSize})`));
  return lines.join('\n');
}

interface Prepared {
  store: CorpusStore;
  info: CorpusInfo;
  ready: ReadyModel[];
  skipped: SkippedModel[];
  tuning: TuningRecord[];
  splits: QuerySplits;
  excluded: ReturnType<typeof loadQueryExclusion>;
  ctx: GroupContext;
  groups: PoolGroup[];
  timed: <T>(stage: string, f: () => Promise<T>) => Promise<T>;
  timings: Record<string, number>;
  log: StageLog;
}

/** Stages 1–3: corpus, BM25 index (under a lock: concurrent workers build them once), models. */
async function prepare(cfg: ExperimentConfig, opts: RunOptions): Promise<Prepared> {
  const log = opts.log ?? ((l: string) => console.error(l));
  const threads = opts.threads ?? availableParallelism();
  const timings: Record<string, number> = {};
  const timed = async <T>(stage: string, f: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await f();
    } finally {
      timings[stage] = (timings[stage] ?? 0) + Math.round(performance.now() - t0) / 1000;
    }
  };
  const dir = cfg.results;
  writeFileAtomic(join(dir, 'config.json'), canonicalConfig(cfg));
  const measures = cfg.measures.map((m) => parseMeasure(m)[0]);

  // 1–2. corpus and index (when a configured kind needs one)
  const { store, info, bm25Index } = await underLock(join(cfg.work, 'prepare.lock'), opts, log, async () => {
    const { store, info } = await timed('corpus', () => prepareCorpus(cfg, (l) => log(`[corpus] ${l}`)));
    const bm25Index = anyNeeds(cfg.models, 'bm25Index') ? await timed('bm25 index', () => prepareBm25Index(cfg, store, info, (l) => log(`[index] ${l}`))) : undefined;
    return { store, info, bm25Index };
  });

  // Query exclusion lists (paper: SPECTER's and SciNCL's training queries) and the splits.
  const excluded = loadQueryExclusion(store, cfg.excludeQueries);
  for (const f of excluded.files) log(`[queries] excluded ${f.path}: ${f.ids} ids, ${f.notInStore} not in the store`);
  const sampleKey = JSON.stringify({ corpus: info.stamp, exclude: excluded.files.map((f) => f.sha256) });
  const splits = new QuerySplits(cfg, store, excluded.indices);

  // 3. models, each built by its kind's entry in config order (a model may use those above it)
  const ready: ReadyModel[] = [];
  const skipped: SkippedModel[] = [];
  const tuning: TuningRecord[] = [];
  const build: BuildContext = { cfg, store, corpusKey: corpusKey(info.dir), ready, bm25Index, splits, sampleKey, threads, device: opts.device, allowRemote: opts.allowRemote, log, tuning, timed };
  for (const m of cfg.models) {
    const entry = entryOf(m);
    const c = await entry.build(m, build);
    if ('reason' in c) {
      skipped.push(c);
      log(`[models] ${m.name}: skipped — ${c.reason.split('\n')[0]}${entry.skipHint ? ` (${entry.skipHint})` : ''}`);
    } else ready.push(c);
  }
  if (ready.length === 0) throw new CitebenchError(`no model of ${cfg.name} can run here: ${skipped.map((s) => s.name).join(', ')} skipped (see above)`);

  const ctx: GroupContext = {
    store, resultsDir: dir, seed: cfg.seed, queryYear: cfg.queryYear, k: cfg.k, measureNames: cfg.measures, measures, sampleKey, emptyLists: cfg.emptyLists,
    log: (l) => log(`[cells] ${l}`), lockStaleMs: opts.lockStaleMs,
  };
  return { store, info, ready, skipped, tuning, splits, excluded, ctx, groups: planGroups(cfg), timed, timings, log };
}

/** Run `f` holding the lock at `path`, waiting while a live worker holds it. */
async function underLock<T>(path: string, opts: RunOptions, log: StageLog, f: () => Promise<T>): Promise<T> {
  let said = false;
  for (;;) {
    const held = tryLock(path, { staleMs: opts.lockStaleMs, onTakeover: (why) => log(`[prepare] taking over a stale lock ${path} (${why})`) });
    if (held) {
      try {
        return await f();
      } finally {
        held.release();
      }
    }
    if (!said) log(`[prepare] another worker is preparing the corpus and index (${path}); waiting`);
    said = true;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Field-level repeats beyond the first are dropped where the field-cited set holds no more than one pool
 * (exhaustion does not depend on the repeat, so a shard that did not run repeat 1 can tell too).
 */
function exhaustedField(p: Prepared, cfg: ExperimentConfig, g: PoolGroup, memo: Map<string, boolean>): boolean {
  if (g.protocol !== 'field') return false;
  const fkey = `${g.split}/${g.field}/${g.setting ?? ''}`;
  if (!memo.has(fkey)) {
    const queries = p.splits.get(g.protocol, g.split, g.field, g.setting);
    memo.set(fkey, samplePool(p.store, queries, { ...poolOptions(cfg, g), repeat: 1 }).exhausted);
  }
  return memo.get(fkey)!;
}

function shortKey(s: ValidationShortfall): string {
  return `${s.protocol}/${s.setting}/${s.field ?? ''}`;
}

/** The pool of a group exactly as runGroup samples it (cells.ts). */
function poolOptions(cfg: ExperimentConfig, g: PoolGroup) {
  return { size: g.poolSize, repeat: g.repeat, seed: cfg.seed, field: g.field ?? undefined, queryYear: cfg.queryYear, split: g.split, ...(g.setting === 'inductive' ? { inductive: true } : {}) };
}

/**
 * Stage 3b: every article a dense model will search — the queries and pools of every group — encoded before
 * any cell, chunk by chunk (a shard: chunks c mod N = I). Each chunk is encoded in one call whichever process
 * does it, so a sharded encode and a single process write the same bytes.
 */
async function encodePlan(p: Prepared, cfg: ExperimentConfig, shard?: Shard): Promise<number> {
  const dense = p.ready.filter((m) => m.embeddings && m.encoder);
  const imported = p.ready.filter((m) => m.imported);
  if (!dense.length && !imported.length) return 0;
  // 1: a query, 2: a pool member (bits).
  const mark = new Uint8Array(p.store.size);
  const memo = new Map<string, boolean>();
  for (const g of p.groups) {
    if (g.repeat > 1 && exhaustedField(p, cfg, g, memo)) continue;
    const queries = p.splits.get(g.protocol, g.split, g.field, g.setting);
    for (const q of queries) mark[q] |= 1;
    const pool = samplePool(p.store, queries, poolOptions(cfg, g));
    for (const d of pool.members) mark[d] |= 2;
  }
  const where = (bits: number) => {
    const out: number[] = [];
    for (let i = 0; i < mark.length; i++) if (mark[i] & bits) out.push(i);
    return Uint32Array.from(out);
  };
  const union = where(3);
  // Imported vectors: nothing to encode; the plan's queries must have vectors, pool articles without are counted.
  for (const m of imported) checkImportedCoverage(m, where(1), where(2), (i) => p.store.id(i), p.log);
  let encoded = 0;
  for (const m of dense) {
    const now = await p.timed(`encode ${m.name}`, () => m.embeddings!.encodeMissing(m.encoder!, p.store, union, { shard, progress: true }));
    p.log(`[encode] ${m.name}: ${now} articles encoded now (${shardLabel(shard)} of the ${union.length} the plan searches)`);
    encoded += now;
  }
  return encoded;
}

/** One stage of a run for a cluster task; the final `runExperiment` assembles (module comment). */
export async function runStage(cfg: ExperimentConfig, opts: StageOptions): Promise<StageOutcome> {
  const p = await prepare(cfg, opts);
  const out: StageOutcome = { stage: opts.stage, shard: opts.shard, encoded: 0, cells: { done: 0, computed: 0, skipped: 0 } };
  try {
    if (opts.stage === 'prepare') return out;
    out.encoded = await encodePlan(p, cfg, opts.stage === 'encode' ? opts.shard : undefined);
    if (opts.stage === 'encode') return out;
    const ctx: GroupContext = { ...p.ctx, locked: 'skip' };
    const memo = new Map<string, boolean>();
    for (const [gi, g] of p.groups.entries()) {
      if (!inShard(gi, opts.shard)) continue;
      if (g.repeat > 1 && exhaustedField(p, cfg, g, memo)) continue;
      const r = await runGroup(ctx, g, p.splits.get(g.protocol, g.split, g.field, g.setting), p.ready);
      out.cells.done += r.cells.length;
      out.cells.computed += r.lists.size;
      out.cells.skipped += r.skipped.length;
    }
    return out;
  } finally {
    for (const m of p.ready) await m.release();
    p.store.close();
  }
}

export async function runExperiment(cfg: ExperimentConfig, opts: RunOptions = {}): Promise<RunOutcome> {
  const p = await prepare(cfg, opts);
  const { store, info, ready, skipped, tuning, splits, excluded, ctx, groups, timed, timings, log } = p;
  const dir = cfg.results;
  await encodePlan(p, cfg);

  // 4. pool groups: every model searches the same queries and pool
  const progress = new Progress({ label: 'cells', total: groups.length * ready.length, unit: 'cells' });
  const cells: CellSummary[] = [];
  const fieldRepeats: Record<string, number> = {};
  const exhausted = new Map<string, boolean>();
  const fieldPools = new Map<string, Uint32Array>();
  await timed('cells', async () => {
    for (const g of groups) {
      if (g.repeat > 1 && exhaustedField(p, cfg, g, exhausted)) {
        progress.tick(ready.length);
        continue; // the field-cited set holds no more than one pool: no other repeat to draw
      }
      const queries = splits.get(g.protocol, g.split, g.field, g.setting);
      const r = await runGroup(ctx, g, queries, ready);
      if (g.protocol === 'field' && g.split === 'test' && !g.setting) fieldRepeats[FIELD_ABBREV[g.field!]] = g.repeat;
      for (const c of r.cells) cells.push(summary(c, `cells/${c.model}/${groupPath(g)}.json`));
      if (g.protocol === 'field' && g.repeat === 1 && !g.setting) fieldPools.set(groupPath(g), r.pool.members);
      progress.tick(ready.length);
    }
  });
  progress.finish();

  // 5. MDCR (§4): built from the field-level queries and the models' top lists, then scored and evaluated.
  const mdcr = cfg.protocols.mdcr
    ? await timed('mdcr', () => runMdcrStage({ cfg, store, dir, models: ready.filter((m) => m.bm25 || m.encoder || m.imported), splits, pools: fieldPools, log: (l) => log(`[mdcr] ${l}`) }))
    : undefined;

  const significance = significanceStage(cfg, dir, ready, cells);
  for (const m of ready) await m.release();
  // Sorted, so the index does not depend on the order the splits happened to be drawn in.
  const shortfalls = splits.shortfalls().sort((a, b) => (shortKey(a) < shortKey(b) ? -1 : shortKey(a) > shortKey(b) ? 1 : 0));
  for (const s of shortfalls) log(`[splits] ${shortfallText(s)}`);
  const results: ResultsIndex = {
    format: 'citebench-results', version: 1, name: cfg.name, configHash: configHash(cfg),
    corpus: { kind: info.kind, articles: info.articles, citations: info.citations, ...(info.synthetic ? { synthetic: info.synthetic } : {}) },
    seed: cfg.seed, scale: cfg.scale, queryYear: cfg.queryYear, k: cfg.k, measures: cfg.measures,
    models: ready.map((m) => ({ name: m.name, kind: m.kind, weights: m.weights, settings: m.settings, ...(m.summary ? { summary: m.summary } : {}) })),
    skipped, tuning,
    excluded: { files: excluded.files },
    fieldRepeats, ...(shortfalls.length ? { validationShortfalls: shortfalls } : {}), cells, ...(mdcr ? { mdcr } : {}), ...(significance ? { significance } : {}),
  };
  writeFileAtomic(join(dir, 'results.json'), JSON.stringify(results, null, 1) + '\n');
  const report = renderMarkdownReport(results, loadPaperNumbers());
  const reportPath = join(dir, 'report.md');
  writeFileAtomic(reportPath, report);
  writeFileAtomic(join(dir, 'timings.json'), JSON.stringify({ seconds: timings }, null, 1) + '\n');
  return { resultsDir: dir, results, report, reportPath, store };
}

function summary(c: CellRecord, file: string): CellSummary {
  const { perQuery: _p, queryIds: _q, ...rest } = c;
  return { ...rest, file };
}
