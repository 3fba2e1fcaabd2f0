/**
 * The runner's MDCR stage (§4): the benchmark is built from the field level's own queries, pools and run files
 * (test split = the field-level test queries, val = the field-level validation queries, model-based negatives
 * from each model's repeat-1 lists), written as the official files, then every model scores every pair from those
 * files — the same path `citebench mdcr score` takes on the published benchmark — and evaluate.py's numbers are
 * computed per field (Table 3) and per candidate type (Table 4).
 */
import { join } from 'node:path';
import type { CorpusStore } from '../corpus/store.ts';
import { FIELDS, type Field } from '../corpus/fields.ts';
import { evaluateMdcr, mdcrNegativeTypes, readJsonFile, type MdcrBenchmark, type MdcrResult } from '../eval/mdcr.ts';
import { mdcrPairs, mdcrScoresText, readMdcrData, scoreMdcrBm25, scoreMdcrDense, scoreMdcrVectors, storeLookup } from '../retrieval/mdcr-score.ts';
import { shortfallText, type MdcrRecord, type MdcrSummary } from '../report/results.ts';
import { writeFileAtomic } from '../util/atomic.ts';
import type { ExperimentConfig } from './config.ts';
import { buildMdcr, readRunLists, writeMdcr, type MdcrModelLists, type MdcrPlan } from './mdcr.ts';
import type { ReadyModel } from './models.ts';
import { groupPath } from './plan.ts';
import type { QuerySplits } from './splits.ts';

export interface MdcrStageArgs {
  cfg: ExperimentConfig;
  store: CorpusStore;
  /** Results folder (run files are read from it, MDCR files written under mdcr/). */
  dir: string;
  models: ReadyModel[];
  splits: QuerySplits;
  /** Field-level pools of repeat 1 per split and field, as the cells searched them. */
  pools: Map<string, Uint32Array>;
  log: (line: string) => void;
}

export async function runMdcrStage(a: MdcrStageArgs): Promise<MdcrRecord> {
  const fieldCfg = a.cfg.protocols.field!;
  const fields = FIELDS.filter((f) => fieldCfg.fields.includes(f));
  const group = (split: 'test' | 'val', field: Field) => groupPath({ protocol: 'field', split, field, poolSize: fieldCfg.pool, repeat: 1, queries: fieldCfg.queries });
  const plan: MdcrPlan = { fields, seed: a.cfg.seed, queries: { test: new Map(), val: new Map() }, pools: { test: new Map(), val: new Map() } };
  for (const split of ['test', 'val'] as const) {
    for (const f of fields) {
      plan.queries[split].set(f, a.splits.get('field', split, f));
      plan.pools[split].set(f, a.pools.get(group(split, f))!);
    }
  }
  // A field too small for both splits at full size has a smaller val split (QuerySplits); the build report says so.
  const short = a.splits.shortfalls().filter((s) => s.protocol === 'field' && s.setting === 'transductive');
  const notes = fields.flatMap((f) => short.filter((s) => s.field === f).map((s) => `val: ${shortfallText(s)}`));
  if (notes.length) plan.notes = notes;
  // Every model's lists from its run files: identical whether the cell ran now or was reused.
  const lists: MdcrModelLists = {};
  for (const m of a.models) lists[m.name] = readRunLists(a.store, (split, f) => join(a.dir, 'runs', m.name, `${group(split, f)}.trec`), plan);
  const built = buildMdcr(a.store, plan, lists);
  const mdcrDir = join(a.dir, 'mdcr');
  writeMdcr(mdcrDir, a.store, built, { seed: a.cfg.seed, fields: fields.length, queriesPerField: fieldCfg.queries, pool: fieldCfg.pool });
  for (const n of [...built.official.notes, ...built.test.notes, ...built.val.notes]) a.log(`note: ${n}`);
  a.log(`built: ${built.test.counts.queries} test and ${built.val.counts.queries} val queries; model-based negatives from ${built.test.chosen.join(', ') || 'no model'}`);

  // Score the test split with every model, from the files just written.
  const benchmarkPath = join(mdcrDir, 'mdcr_test.json');
  const dataPath = join(mdcrDir, 'mdcr_test_data.jsonl');
  const benchmark = readJsonFile(benchmarkPath);
  const data = readMdcrData(dataPath);
  const pairs = mdcrPairs(benchmark, data, { benchmark: benchmarkPath, data: dataPath });
  // Candidate types with candidates: an official key left empty (its model not given) has no Table 4 column.
  const types = mdcrNegativeTypes(benchmark as MdcrBenchmark, { nonEmpty: true });
  const results: MdcrRecord['results'] = {};
  const files: Record<string, string> = {
    test: 'mdcr/mdcr_test.json', test_data: 'mdcr/mdcr_test_data.jsonl', val: 'mdcr/mdcr_val.json', val_data: 'mdcr/mdcr_val_data.jsonl', report: 'mdcr/mdcr_build_report.json',
  };
  // Imported vectors: every pair scored from the store (no encoder for the data file's texts).
  const stored = (m: ReadyModel) => {
    const r = scoreMdcrVectors(data, pairs, storeLookup(m.embeddings!, (id) => a.store.indexOf(id), m.imported!.file, m.imported!.strict), m.settings.distance as 'l2' | 'ip', dataPath);
    if (r.lacking.count) {
      a.log(`${m.name}: ${r.lacking.count} MDCR candidate(s) have no vector and rank last (${r.lacking.first.join(', ')}${r.lacking.count > r.lacking.first.length ? ', …' : ''})`);
      m.settings.mdcrWithoutVector = r.lacking.count;
      m.summary = `${m.summary}; ${r.lacking.count} MDCR candidate(s) without a vector rank last`;
    }
    return r.scores;
  };
  for (const m of a.models) {
    const scores = m.bm25
      ? await scoreMdcrBm25(data, pairs, { k1: m.bm25.k1, b: m.bm25.b, accurate: m.bm25.accurate })
      : m.imported
        ? stored(m)
        : await scoreMdcrDense(data, pairs, m.encoder!, m.settings.distance as 'l2' | 'ip');
    const scoresFile = `mdcr/scores/${m.name}.json`;
    writeFileAtomic(join(a.dir, scoresFile), mdcrScoresText(data, pairs, scores));
    files[`scores_${m.name}`] = scoresFile;
    const parsed = readJsonFile(join(a.dir, scoresFile));
    const all = summary(evaluateMdcr(benchmark, parsed, { benchmarkPath, scoresPath: scoresFile }));
    const byType: Record<string, MdcrSummary> = {};
    for (const t of types) byType[t] = summary(evaluateMdcr(benchmark, parsed, { benchmarkPath, scoresPath: scoresFile, candidateType: t }));
    results[m.name] = { all, types: byType };
    a.log(`${m.name}: MAP ${all.avg.map.toFixed(1)}, R@5 ${all.avg.recall_5.toFixed(1)} (evaluate.py AVG)`);
  }
  const j = built.test.jaccard;
  return {
    files,
    queriesPerSplit: { test: built.test.counts.queries, val: built.val.counts.queries },
    chosenModels: built.test.chosen,
    jaccard: { models: j.models, matrix: j.matrix, average: j.average },
    notes: [...new Set([...built.official.notes, ...built.test.notes, ...built.val.notes])],
    results,
  };
}

function summary(r: MdcrResult): MdcrSummary {
  return { avg: r.avg, fields: r.fields.map((f) => ({ field: f.field, queries: f.queries, values: f.values })) };
}
