/**
 * `citebench run CONFIG`: every protocol × model × pool size × repeat of a configuration, resumably, into one
 * results folder (layout in report/results.ts). Stages: corpus → BM25 index → models (tuning, dense encoders)
 * → pool groups (dataset level §3.1, field level §3.2) → MDCR (§4) → results.json → Markdown report.
 * Every stage and cell is reused when its output exists for the same inputs.
 */
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import type { CorpusStore } from '../corpus/store.ts';
import { FIELD_ABBREV } from '../corpus/fields.ts';
import { parseMeasure } from '../eval/registry.ts';
import { evalObjective, tuneBm25 } from '../retrieval/bm25/tune.ts';
import { samplePool, citationQrels } from '../sampling/pools.ts';
import { loadQueryExclusion } from '../sampling/exclusions.ts';
import { meanOverRepeats, type CellRecord, type CellSummary, type ResultsIndex, type TuningRecord } from '../report/results.ts';
import { renderMarkdownReport } from '../report/markdown.ts';
import { loadPaperNumbers } from '../report/paper-numbers.ts';
import { writeFileAtomic } from '../util/atomic.ts';
import { CitebenchError } from '../util/errors.ts';
import { Progress } from '../util/progress.ts';
import { canonicalConfig, configHash, type ExperimentConfig } from './config.ts';
import { prepareBm25Index, prepareCorpus, type CorpusInfo, type StageLog } from './corpus-stage.ts';
import { bm25Retriever, denseRetriever, isBaseModel, isSkipped, resolveDense, type ReadyModel, type SkippedModel } from './models.ts';
import { composedModel } from './composed-models.ts';
import { significanceStage } from './significance-stage.ts';
import { runGroup, type GroupContext } from './cells.ts';
import { estimate, formatBytes, formatDuration, groupPath, planGroups, sizeLabel, type PoolGroup } from './plan.ts';
import { runMdcrStage } from './mdcr-stage.ts';
import { QuerySplits } from './splits.ts';
import { corpusKey } from '../corpus/store-key.ts';

export interface RunOptions {
  log?: StageLog;
  threads?: number;
}

export interface RunOutcome {
  resultsDir: string;
  results: ResultsIndex;
  report: string;
  reportPath: string;
  store: CorpusStore;
}

/** The dry run: the plan and a rough estimate, without touching any file. */
export function dryRun(cfg: ExperimentConfig): string {
  const groups = planGroups(cfg);
  const lines = [`config ${cfg.name} (hash ${configHash(cfg)}), scale ${cfg.scale}, seed ${cfg.seed}`];
  lines.push(cfg.corpus.store ? `corpus: store ${cfg.corpus.store}` : `corpus: ${cfg.corpus.synthetic!.articles} synthetic articles (seed ${cfg.corpus.synthetic!.seed}), prefiltered as in §3`);
  lines.push(`models: ${cfg.models.map((m) => `${m.name} (${m.kind}${m.kind === 'bm25' ? (m.tune ? ', tuned' : `, k1 ${m.k1} b ${m.b}`) : m.kind === 'dense' ? `, ${m.model}` : m.kind === 'profiler' ? ` of ${m.base}` : ` of ${m.first}`})`).join(', ')}`);
  if (cfg.settings) lines.push(`settings: ${cfg.settings.join(', ')}`);
  const d = cfg.protocols.dataset;
  if (d) lines.push(`dataset level: ${d.queries} queries of ${cfg.queryYear}, pools ${d.pools.map(sizeLabel).join('/')} × ${d.repeats} repeats`);
  const f = cfg.protocols.field;
  if (f) lines.push(`field level: ${f.fields.length} fields × ${f.queries} queries, pools of ${sizeLabel(f.pool)} × ≤ ${f.repeats} repeats (one where the field-cited set is not larger)`);
  if (cfg.protocols.mdcr) lines.push(`MDCR: test = the field-level queries, val = ${f!.queries} disjoint queries per field; ${cfg.protocols.mdcr.positives} positives + 6 types × ${cfg.protocols.mdcr.perType} negatives`);
  lines.push(`cells: ${groups.length} pool groups × ${cfg.models.length} models = ${groups.length * cfg.models.length} (top ${cfg.k}; ${cfg.measures.join(', ')})`);
  lines.push('', 'estimate on a 2-core machine (per-unit costs from docs/benchmarks.md; rough):');
  let total = 0;
  for (const e of estimate(cfg, groups)) {
    total += e.seconds;
    lines.push(`  ${e.stage.padEnd(44)} ${formatDuration(e.seconds).padStart(9)}   peak ≈ ${formatBytes(e.bytes)}`);
  }
  lines.push(`  ${'total'.padEnd(44)} ${formatDuration(total).padStart(9)}`);
  lines.push('', 'pool groups:', ...groups.map((g) => `  ${groupPath(g)}  (${g.queries} queries, pool ${g.poolSize})`));
  return lines.join('\n');
}

export async function runExperiment(cfg: ExperimentConfig, opts: RunOptions = {}): Promise<RunOutcome> {
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

  // 1–2. corpus and index
  const { store, info } = await timed('corpus', () => prepareCorpus(cfg, (l) => log(`[corpus] ${l}`)));
  const bm25Models = cfg.models.filter((m) => m.kind === 'bm25');
  const bm25Index = bm25Models.length ? await timed('bm25 index', () => prepareBm25Index(cfg, store, info, (l) => log(`[index] ${l}`))) : undefined;

  // Query exclusion lists (paper: SPECTER's and SciNCL's training queries) and the splits.
  const excluded = loadQueryExclusion(store, cfg.excludeQueries);
  for (const f of excluded.files) log(`[queries] excluded ${f.path}: ${f.ids} ids, ${f.notInStore} not in the store`);
  const sampleKey = JSON.stringify({ corpus: info.stamp, exclude: excluded.files.map((f) => f.sha256) });
  const splits = new QuerySplits(cfg, store, excluded.indices);

  // 3. models
  const ready: ReadyModel[] = [];
  const skipped: SkippedModel[] = [];
  const tuning: TuningRecord[] = [];
  const key = corpusKey(info.dir);
  for (const m of cfg.models) {
    if (m.kind === 'bm25') {
      let params = { k1: m.k1, b: m.b };
      if (m.tune) {
        const t = await timed(`tune ${m.name}`, () => tune(cfg, store, splits, m, bm25Index!.index, threads, log));
        tuning.push(t);
        params = t.chosen;
      }
      ready.push(bm25Retriever(m, params, bm25Index!.index, store, bm25Index!.dir, threads));
    } else if (m.kind !== 'dense') {
      const c = await timed(`model ${m.name}`, () => composedModel(m, { cfg, store, ready, bm25Index: bm25Index?.index, splits, threads, log }));
      if ('reason' in c) {
        skipped.push(c);
        log(`[models] ${m.name}: skipped — ${c.reason.split('\n')[0]}`);
      } else ready.push(c);
    } else {
      const resolved = resolveDense(m, cfg.modelsDir);
      if (isSkipped(resolved)) {
        skipped.push(resolved);
        log(`[models] ${m.name}: skipped — ${resolved.reason.split('\n')[0]} (docs/dense.md says how to add it)`);
        continue;
      }
      ready.push(await denseRetriever(m, resolved, store, key, cfg.work, threads));
    }
  }
  if (ready.length === 0) throw new CitebenchError(`no model of ${cfg.name} can run here: ${skipped.map((s) => s.name).join(', ')} skipped (see above)`);

  // 4. pool groups: every model searches the same queries and pool
  const ctx: GroupContext = {
    store, resultsDir: dir, seed: cfg.seed, queryYear: cfg.queryYear, k: cfg.k, measureNames: cfg.measures, measures, sampleKey, emptyLists: cfg.emptyLists,
    log: (l) => log(`[cells] ${l}`),
  };
  const groups = planGroups(cfg);
  const progress = new Progress({ label: 'cells', total: groups.length * ready.length, unit: 'cells' });
  const cells: CellSummary[] = [];
  const fieldRepeats: Record<string, number> = {};
  const exhausted = new Set<string>();
  const fieldPools = new Map<string, Uint32Array>();
  await timed('cells', async () => {
    for (const g of groups) {
      const fkey = `${g.split}/${g.field}/${g.setting ?? ''}`;
      if (g.protocol === 'field' && exhausted.has(fkey)) {
        progress.tick(ready.length);
        continue; // the field-cited set holds no more than one pool: no other repeat to draw
      }
      const queries = splits.get(g.protocol, g.split, g.field, g.setting);
      const r = await runGroup(ctx, g, queries, ready);
      if (g.protocol === 'field' && r.pool.exhausted) exhausted.add(fkey);
      if (g.protocol === 'field' && g.split === 'test' && !g.setting) fieldRepeats[FIELD_ABBREV[g.field!]] = g.repeat;
      for (const c of r.cells) cells.push(summary(c, `cells/${c.model}/${groupPath(g)}.json`));
      if (g.protocol === 'field' && g.repeat === 1 && !g.setting) fieldPools.set(groupPath(g), r.pool.members);
      progress.tick(ready.length);
    }
  });
  progress.finish();

  // 5. MDCR (§4): built from the field-level queries and the models' top lists, then scored and evaluated.
  const mdcr = cfg.protocols.mdcr
    ? await timed('mdcr', () => runMdcrStage({ cfg, store, dir, models: ready.filter(isBaseModel), splits, pools: fieldPools, log: (l) => log(`[mdcr] ${l}`) }))
    : undefined;

  const significance = significanceStage(cfg, dir, ready, cells);
  for (const m of ready) await m.release();
  const results: ResultsIndex = {
    format: 'citebench-results', version: 1, name: cfg.name, configHash: configHash(cfg),
    corpus: { kind: info.kind, articles: info.articles, citations: info.citations, ...(info.synthetic ? { synthetic: info.synthetic } : {}) },
    seed: cfg.seed, scale: cfg.scale, queryYear: cfg.queryYear, k: cfg.k, measures: cfg.measures,
    models: ready.map((m) => ({ name: m.name, kind: m.kind, weights: m.weights, settings: m.settings })),
    skipped, tuning,
    excluded: { files: excluded.files },
    fieldRepeats, cells, ...(mdcr ? { mdcr } : {}), ...(significance ? { significance } : {}),
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


async function tune(cfg: ExperimentConfig, store: CorpusStore, splits: QuerySplits, m: Extract<ExperimentConfig['models'][number], { kind: 'bm25' }>, index: import('../retrieval/bm25/index-format.ts').Bm25Index, threads: number, log: StageLog): Promise<TuningRecord> {
  const d = cfg.protocols.dataset;
  if (!d) throw new CitebenchError(`models.${m.name}.tune: tuning uses the dataset-level validation split; add protocols.dataset or give k1 and b`);
  const queries = splits.get('dataset', 'val', null);
  const poolSize = d.pools[0];
  const pool = samplePool(store, queries, { size: poolSize, repeat: 1, seed: cfg.seed, queryYear: cfg.queryYear, split: 'val' });
  const rel = citationQrels(store, queries, pool.members);
  const qrels = { offsets: rel.offsets, docs: rel.docs, labels: new Int32Array(rel.docs.length).fill(1) };
  log(`[tune] ${m.name}: ${m.tune!.k1.length}×${m.tune!.b.length} grid on ${queries.length} validation queries, pool ${sizeLabel(pool.members.length)} (${m.tune!.measure})`);
  const r = await tuneBm25({
    index, texts: store, request: { queries, pool: pool.members, k: cfg.k }, k1: m.tune!.k1, b: m.tune!.b, accurate: m.accurate,
    tieKey: store.idOrder, threads, score: evalObjective(qrels, m.tune!.measure, store.idOrder),
  });
  log(`[tune] ${m.name}: k1=${r.best.k1} b=${r.best.b} (${m.tune!.measure} ${r.best.score.toFixed(4)})`);
  return { model: m.name, measure: m.tune!.measure, queries: queries.length, poolSize: pool.members.length, grid: r.grid, chosen: { k1: r.best.k1, b: r.best.b } };
}
