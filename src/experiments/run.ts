/**
 * `citebench run CONFIG`: every protocol × model × pool size × repeat of a configuration, resumably, into one
 * results folder (layout in report/results.ts). Stages: corpus → what the kinds need (the BM25 index) → models (tuning, dense encoders)
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
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { CorpusStore } from '../corpus/store.ts';
import { fieldAbbrev } from '../corpus/fields.ts';
import { loadQueryExclusion } from '../sampling/exclusions.ts';
import { type CellSummary, type ResultsIndex, type TimingsRecord, type TuningRecord, type ValidationShortfall, shortfallText } from '../report/results.ts';
import { renderMarkdownReport } from '../report/markdown.ts';
import { loadPaperNumbers } from '../report/paper-numbers.ts';
import { sweepDeadTemps, writeFileAtomic } from '../util/atomic.ts';
import { CitebenchError } from '../util/errors.ts';
import { identity } from '../util/identity.ts';
import { Progress } from '../util/progress.ts';
import { underLock } from '../util/lock.ts';
import { inShard, type Shard } from '../util/shard.ts';
import { canonicalConfig, configHash, type ExperimentConfig } from './config.ts';
import { prepareCorpus, type CorpusInfo, type StageLog } from './corpus-stage.ts';
import type { ReadyModel, SkippedModel } from './models.ts';
import { resourcesOf, type BuildContext, type Resource } from './kinds/index.ts';
import { buildModels } from './models-stage.ts';
import { TopicSets } from './topic-sets.ts';
import { significanceStage, storeFacts } from './significance-stage.ts';
import { cellSummary, runGroup, type GroupContext } from './cells.ts';
import type { CellCost } from './experiment.ts';
import { encodePlan, exhaustedField } from './encode-stage.ts';
import { groupPath, planGroups, type PoolGroup } from './plan.ts';
import { mdcrCellFile, runMdcrStage } from './mdcr-stage.ts';
import { runBeirStage } from './beir-stage.ts';
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

export { dryRun } from './dry-run.ts';

interface Prepared {
  store: CorpusStore;
  info: CorpusInfo;
  ready: ReadyModel[];
  skipped: SkippedModel[];
  tuning: TuningRecord[];
  splits: QuerySplits;
  topicSets: TopicSets;
  excluded: ReturnType<typeof loadQueryExclusion>;
  ctx: GroupContext;
  /** What the models were built with (the BEIR stage builds encoders on its task's store with it). */
  build: BuildContext;
  /** What the kinds needed prepared for the corpus (released with the models). */
  resources: Resource[];
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

  // 1–2. corpus, and what the configured kinds need prepared for it (the BM25 index: kinds/bm25.ts)
  const lockPath = join(cfg.work, 'prepare.lock');
  const resources = resourcesOf(cfg.models);
  const { store, info, prepared } = await underLock(lockPath, {
    staleMs: opts.lockStaleMs, takeover: (why) => log(`[prepare] taking over a stale lock ${lockPath} (${why})`),
    waiting: () => log(`[prepare] another worker is preparing the corpus and index (${lockPath}); waiting`),
  }, async () => {
    const { store, info } = await timed('corpus', () => prepareCorpus(cfg, (l) => log(`[corpus] ${l}`)));
    const prepared: Partial<BuildContext> = {};
    for (const r of resources) Object.assign(prepared, await r.onCorpus?.({ cfg, store, info, threads, log, timed }));
    return { store, info, prepared };
  });

  // Query exclusion lists (paper: SPECTER's and SciNCL's training queries) and the splits.
  const excluded = loadQueryExclusion(store, cfg.excludeQueries);
  for (const f of excluded.files) log(`[queries] excluded ${f.path}: ${f.ids} ids, ${f.notInStore} not in the store`);
  const sampleKey = identity({ corpus: info.stamp.key, exclude: excluded.files.map((f) => f.sha256) }, 32);
  const splits = new QuerySplits(cfg, store, excluded.indices);

  // 3. models, each built (and tuned) by its kind's entry in config order (a model may use those above it)
  const topicSets = new TopicSets(cfg, store, splits);
  const build: BuildContext = { cfg, store, corpusKey: corpusKey(info.dir), ready: [], ...prepared, threads, device: opts.device, allowRemote: opts.allowRemote, log, timed };
  const { ready, skipped, tuning } = await buildModels(cfg, build, topicSets, sampleKey);
  if (ready.length === 0) throw new CitebenchError(`no model of ${cfg.name} can run here: ${skipped.map((s) => s.name).join(', ')} skipped (see above)`);

  const ctx: GroupContext = {
    store, resultsDir: dir, seed: cfg.seed, queryYear: cfg.queryYear, k: cfg.k, measureNames: cfg.measures, sampleKey, emptyLists: cfg.emptyLists,
    log: (l) => log(`[cells] ${l}`), lockStaleMs: opts.lockStaleMs, costs: previousCosts(dir),
  };
  return { store, info, ready, skipped, tuning, splits, topicSets, excluded, ctx, build, resources, groups: planGroups(cfg), timed, timings, log };
}

/** Ends what prepare() started: the models, the resources' (BM25's search processes) and (unless kept) the store. */
async function release(p: Prepared, opts: { keepStore?: boolean } = {}): Promise<void> {
  for (const m of p.ready) await m.release();
  for (const r of p.resources) r.release?.(p.build);
  if (!opts.keepStore) p.store.close();
}

/**
 * The cells' costs of an earlier run into this results folder (timings.json): a cell read back from the cache
 * keeps the cost measured when it was computed. Cells computed by cluster workers (`--worker`, `--stage cells`)
 * have none.
 */
function previousCosts(dir: string): Map<string, CellCost> {
  const file = join(dir, 'timings.json');
  if (!existsSync(file)) return new Map();
  try {
    const t = JSON.parse(readFileSync(file, 'utf8')) as TimingsRecord;
    return new Map(Object.entries(t.cells ?? {}));
  } catch {
    return new Map(); // a torn or foreign file only loses earlier costs
  }
}

/** timings.json: seconds per stage of this run, and each cell's cost (those of this results index only, sorted). */
function timingsRecord(seconds: Record<string, number>, costs: Map<string, CellCost>, results: ResultsIndex): TimingsRecord {
  const files = new Set([...results.cells.map((c) => c.file), ...Object.keys(results.mdcr?.results ?? {}).map(mdcrCellFile)]);
  const cells: Record<string, CellCost> = {};
  for (const f of [...costs.keys()].sort()) if (files.has(f)) cells[f] = costs.get(f)!;
  return { seconds, cells };
}

function shortKey(s: ValidationShortfall): string {
  return `${s.protocol}/${s.setting}/${s.field ?? ''}`;
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
      const r = await runGroup(ctx, p.topicSets.ofGroup(g), p.ready);
      out.cells.done += r.cells.length;
      out.cells.computed += r.lists.size;
      out.cells.skipped += r.skipped.length;
    }
    return out;
  } finally {
    await release(p);
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
      const r = await runGroup(ctx, p.topicSets.ofGroup(g), ready);
      if (g.protocol === 'field' && g.split === 'test' && !g.setting) fieldRepeats[fieldAbbrev(g.field!)] = g.repeat;
      for (const c of r.cells) cells.push(cellSummary(c, `cells/${c.model}/${groupPath(g)}.json`));
      if (g.protocol === 'field' && g.repeat === 1 && !g.setting) fieldPools.set(groupPath(g), r.pool.members);
      progress.tick(ready.length);
    }
  });
  progress.finish();

  // 4b. the BEIR task: every BM25 and dense model on the task's own store, one cell each.
  const beir = cfg.protocols.beir
    ? await timed('beir', () => runBeirStage({ cfg, ctx, build: p.build, ready, tuning, log: (l) => log(`[beir] ${l}`) }))
    : undefined;
  if (beir) cells.push(...beir.cells);

  // 5. MDCR (§4): built from the field-level queries and the models' top lists, then scored and evaluated.
  const mdcr = cfg.protocols.mdcr
    ? await timed('mdcr', () => runMdcrStage({ cfg, store, dir, models: ready.filter((m) => m.firstStage), scorers: ready, splits, pools: fieldPools, costs: ctx.costs, log: (l) => log(`[mdcr] ${l}`) }))
    : undefined;

  // A killed task's half-written file (a cancelled SLURM task, a SIGKILLed shard) never stays beside the results.
  const swept = sweepDeadTemps(dir);
  if (swept) log(`[results] removed ${swept} temp file(s) left by killed processes`);
  const significance = significanceStage(cfg, dir, ready, cells, (l) => log(l), storeFacts(store));
  await release(p, { keepStore: true });
  // Sorted, so the index does not depend on the order the splits happened to be drawn in.
  const shortfalls = splits.shortfalls().sort((a, b) => (shortKey(a) < shortKey(b) ? -1 : shortKey(a) > shortKey(b) ? 1 : 0));
  for (const s of shortfalls) log(`[splits] ${shortfallText(s)}`);
  const results: ResultsIndex = {
    format: 'citebench-results', version: 1, name: cfg.name, configHash: configHash(cfg),
    corpus: { kind: info.kind, articles: info.articles, citations: info.citations, ...(info.synthetic ? { synthetic: info.synthetic } : {}), ...(info.source ? { source: info.source } : {}) },
    seed: cfg.seed, scale: cfg.scale, queryYear: cfg.queryYear, k: cfg.k, measures: cfg.measures,
    models: ready.map((m) => ({ name: m.name, kind: m.kind, weights: m.weights, settings: m.settings, ...(m.summary ? { summary: m.summary } : {}) })),
    skipped, tuning,
    excluded: { files: excluded.files },
    fieldRepeats, ...(shortfalls.length ? { validationShortfalls: shortfalls } : {}), cells, ...(mdcr ? { mdcr } : {}), ...(beir ? { beir: beir.record } : {}), ...(significance ? { significance } : {}),
  };
  writeFileAtomic(join(dir, 'results.json'), JSON.stringify(results, null, 1) + '\n');
  const report = renderMarkdownReport(results, loadPaperNumbers());
  const reportPath = join(dir, 'report.md');
  writeFileAtomic(reportPath, report);
  writeFileAtomic(join(dir, 'timings.json'), JSON.stringify(timingsRecord(timings, ctx.costs!, results), null, 1) + '\n');
  return { resultsDir: dir, results, report, reportPath, store };
}

