/**
 * MDCR's build over a corpus store (paper §4.1) from its plan to its files: both splits' field-level queries and
 * pools (planMdcr), both splits built from the models' ranked lists (buildMdcr: test chooses the model-based types
 * by Jaccard, val reuses them), and the official files with a build report (writeMdcr). The lists come from the
 * caller — the runner reads its run files, `citebench mdcr build` searches or reads TREC runs.
 */
import { join } from 'node:path';
import type { CorpusStore } from '../corpus/store.ts';
import { schemeFields, type FieldName } from '../corpus/fields.ts';
import { writeFileAtomic } from '../util/atomic.ts';
import {
  MDCR_OFFICIAL_KEYS, buildMdcrSplit, mdcrBenchmarkText, mdcrDataRecords, mdcrDataText, mdcrOfficialCheck, sampleMdcrQueries,
  type MdcrBuild, type MdcrOfficialCheck, type MdcrSplit, type RankedIds,
} from './mdcr-build.ts';
import { samplePool } from './pools.ts';

export const MDCR_SPLITS: readonly MdcrSplit[] = ['test', 'val'];

export interface MdcrPlanConfig {
  fields?: readonly FieldName[];
  /** Queries per field and split (paper: 200). */
  queriesPerField?: number;
  /** Field-level pool size (paper: 100,000; the whole field-cited set when smaller). */
  poolSize?: number;
  seed: number;
  queryYear?: number;
}

export interface MdcrPlan {
  fields: FieldName[];
  queries: Record<MdcrSplit, Map<FieldName, Uint32Array>>;
  pools: Record<MdcrSplit, Map<FieldName, Uint32Array>>;
  seed: number;
  /** Notes on the query sets (a val split smaller than asked), carried into the val build's notes. */
  notes?: string[];
}

/** Model name → split → field → ranked lists (rows in plan.queries order). */
export type MdcrModelLists = Record<string, Record<MdcrSplit, Map<FieldName, RankedIds>>>;

/** Depth a model's lists need: 200 negatives after dropping up to all the query's cited articles. */
export function mdcrListDepth(store: CorpusStore, queries: Uint32Array, negatives = 200): number {
  let most = 0;
  for (const q of queries) most = Math.max(most, store.outOffsets[q + 1] - store.outOffsets[q]);
  return negatives + most + 1;
}

export function planMdcr(store: CorpusStore, cfg: MdcrPlanConfig): MdcrPlan {
  const scheme = schemeFields(store.fieldScheme);
  const fields = scheme.filter((f) => (cfg.fields ?? scheme).includes(f));
  const count = cfg.queriesPerField ?? 200;
  const { test, val, notes } = sampleMdcrQueries(store, { fields, count, seed: cfg.seed, queryYear: cfg.queryYear });
  const queries = { test, val };
  const pools = { test: new Map<FieldName, Uint32Array>(), val: new Map<FieldName, Uint32Array>() };
  for (const split of MDCR_SPLITS) {
    for (const f of fields) {
      const p = samplePool(store, queries[split].get(f)!, { size: cfg.poolSize ?? 100_000, repeat: 1, seed: cfg.seed, field: f, queryYear: cfg.queryYear, split });
      pools[split].set(f, p.members);
    }
  }
  return { fields, queries, pools, seed: cfg.seed, ...(notes.length ? { notes } : {}) };
}

export interface MdcrBuilt {
  test: MdcrBuild;
  val: MdcrBuild;
  /** How the files stand with the official evaluate.py (empty official keys, keys it ignores, missing fields). */
  official: MdcrOfficialCheck;
}

/** Both splits: test chooses the model-based types by Jaccard, val uses the same models. */
export function buildMdcr(store: CorpusStore, plan: MdcrPlan, models: MdcrModelLists): MdcrBuilt {
  const listsOf = (split: MdcrSplit) => Object.fromEntries(Object.entries(models).map(([name, per]) => [name, per[split]]));
  const test = buildMdcrSplit(store, { queries: plan.queries.test, modelLists: listsOf('test'), seed: plan.seed, split: 'test' });
  const val = buildMdcrSplit(store, { queries: plan.queries.val, modelLists: listsOf('val'), seed: plan.seed, split: 'val', chosen: test.chosen });
  val.notes.unshift(...(plan.notes ?? []));
  return { test, val, official: mdcrOfficialCheck(test.chosen, Object.keys(models), plan.fields, store.fieldScheme) };
}

/** The official files and a build report (Jaccard matrices, chosen models, notes, counts), each written atomically. */
export function writeMdcr(dir: string, store: CorpusStore, built: MdcrBuilt, config: Record<string, unknown> = {}): string[] {
  const files: string[] = [];
  for (const split of MDCR_SPLITS) {
    const b = built[split];
    const json = join(dir, `mdcr_${split}.json`);
    const data = join(dir, `mdcr_${split}_data.jsonl`);
    writeFileAtomic(json, mdcrBenchmarkText(b.benchmark));
    writeFileAtomic(data, mdcrDataText(mdcrDataRecords(store, b.benchmark)));
    files.push(json, data);
  }
  const report = join(dir, 'mdcr_build_report.json');
  const summary = (b: MdcrBuild) => ({ chosen: b.chosen, jaccard: b.jaccard, counts: b.counts, notes: b.notes });
  const official = { keys: MDCR_OFFICIAL_KEYS, ...built.official };
  writeFileAtomic(report, JSON.stringify({ config, official, test: summary(built.test), val: summary(built.val) }, null, 2) + '\n');
  files.push(report);
  return files;
}

/** The Jaccard matrix as a small text table. */
export function formatJaccard(b: MdcrBuild): string {
  const j = b.jaccard;
  if (j.models.length === 0) return `${b.split}: no models\n`;
  const w = Math.max(8, ...j.models.map((m) => m.length));
  const head = `${''.padEnd(w)}  ${j.models.map((m) => m.padStart(w)).join('  ')}  ${'average'.padStart(w)}`;
  const rows = j.models.map(
    (m, i) => `${m.padEnd(w)}  ${j.matrix[i].map((v) => v.toFixed(4).padStart(w)).join('  ')}  ${(j.average[i] === null ? '–' : j.average[i]!.toFixed(4)).padStart(w)}`,
  );
  return [`${b.split}: mean Jaccard index of the models' top-200 negatives over ${j.queries} queries`, head, ...rows, `chosen: ${b.chosen.join(', ') || 'none'}`].join('\n') + '\n';
}

