/**
 * MDCR end to end over a corpus store (paper §4): sample both splits' field-level queries and pools, get each
 * model's ranked lists (BM25 searched here, other models from TREC runs or in-memory lists), build the splits
 * and write the official files. The runner calls, in order:
 *   planMdcr(store, cfg)                        queries + field-level pools per split and field
 *   bm25MdcrLists(store, retriever, plan)       BM25's ranked lists (or any Retriever's) for every split/field
 *   readRunLists(store, path, plan)             a TREC run (path may hold {split} and {field}) as ranked lists,
 *                                               in trec_eval's order (eval/trec-run.ts)
 *   buildMdcr(store, plan, lists, seed)         both splits; val reuses the models test chose
 *   writeMdcr(dir, store, built)                mdcr_{val,test}.json, mdcr_{val,test}_data.jsonl, report
 */
import { join } from 'node:path';
import type { CorpusStore } from '../corpus/store.ts';
import { FIELDS, FIELD_ABBREV, type Field } from '../corpus/fields.ts';
import { samplePool } from '../sampling/pools.ts';
import {
  MDCR_OFFICIAL_KEYS, buildMdcrSplit, mdcrBenchmarkText, mdcrDataRecords, mdcrDataText, mdcrOfficialCheck, sampleMdcrQueries,
  type MdcrBuild, type MdcrOfficialCheck, type MdcrSplit, type RankedIds,
} from '../sampling/mdcr-build.ts';
import { readRankedRun } from '../eval/trec-run.ts';
import { lineNumbersOf } from '../eval/trec-io.ts';
import type { Retriever } from '../retrieval/retriever.ts';
import { writeFileAtomic } from '../util/atomic.ts';
import { CitebenchError, InputError } from '../util/errors.ts';

export const MDCR_SPLITS: readonly MdcrSplit[] = ['test', 'val'];

export interface MdcrPlanConfig {
  fields?: readonly Field[];
  /** Queries per field and split (paper: 200). */
  queriesPerField?: number;
  /** Field-level pool size (paper: 100,000; the whole field-cited set when smaller). */
  poolSize?: number;
  seed: number;
  queryYear?: number;
}

export interface MdcrPlan {
  fields: Field[];
  queries: Record<MdcrSplit, Map<Field, Uint32Array>>;
  pools: Record<MdcrSplit, Map<Field, Uint32Array>>;
  seed: number;
  /** Notes on the query sets (a val split smaller than asked), carried into the val build's notes. */
  notes?: string[];
}

/** Model name → split → field → ranked lists (rows in plan.queries order). */
export type MdcrModelLists = Record<string, Record<MdcrSplit, Map<Field, RankedIds>>>;

/** Depth a model's lists need: 200 negatives after dropping up to all the query's cited articles. */
export function mdcrListDepth(store: CorpusStore, queries: Uint32Array, negatives = 200): number {
  let most = 0;
  for (const q of queries) most = Math.max(most, store.outOffsets[q + 1] - store.outOffsets[q]);
  return negatives + most + 1;
}

export function planMdcr(store: CorpusStore, cfg: MdcrPlanConfig): MdcrPlan {
  const fields = FIELDS.filter((f) => (cfg.fields ?? FIELDS).includes(f));
  const count = cfg.queriesPerField ?? 200;
  const { test, val, notes } = sampleMdcrQueries(store, { fields, count, seed: cfg.seed, queryYear: cfg.queryYear });
  const queries = { test, val };
  const pools = { test: new Map<Field, Uint32Array>(), val: new Map<Field, Uint32Array>() };
  for (const split of MDCR_SPLITS) {
    for (const f of fields) {
      const p = samplePool(store, queries[split].get(f)!, { size: cfg.poolSize ?? 100_000, repeat: 1, seed: cfg.seed, field: f, queryYear: cfg.queryYear, split });
      pools[split].set(f, p.members);
    }
  }
  return { fields, queries, pools, seed: cfg.seed, ...(notes.length ? { notes } : {}) };
}

/** A retriever's ranked lists over each split's field-level pools (the query itself excluded). */
export async function bm25MdcrLists(store: CorpusStore, retriever: Retriever, plan: MdcrPlan): Promise<Record<MdcrSplit, Map<Field, RankedIds>>> {
  const out = { test: new Map<Field, RankedIds>(), val: new Map<Field, RankedIds>() };
  for (const split of MDCR_SPLITS) {
    for (const f of plan.fields) {
      const queries = plan.queries[split].get(f)!;
      out[split].set(f, await retriever.search({ queries, pool: plan.pools[split].get(f)!, k: mdcrListDepth(store, queries) }));
    }
  }
  return out;
}

/**
 * Ranked lists from a TREC run (`qid Q0 docno rank score tag`, ids = paper ids), best first by score, ties by
 * docno descending as trec_eval orders them. `path` may contain `{split}` (test, val) and `{field}` (the paper's
 * abbreviation, e.g. CS) to read one file per split and field, or be a function of both; otherwise one file
 * serves every query (a query sampled in two fields then gets the same list in both).
 */
export function readRunLists(store: CorpusStore, path: string | ((split: MdcrSplit, field: Field) => string), plan: MdcrPlan): Record<MdcrSplit, Map<Field, RankedIds>> {
  const out = { test: new Map<Field, RankedIds>(), val: new Map<Field, RankedIds>() };
  const cache = new Map<string, Map<string, number[]>>();
  for (const split of MDCR_SPLITS) {
    for (const f of plan.fields) {
      const file = typeof path === 'function' ? path(split, f) : path.replaceAll('{split}', split).replaceAll('{field}', FIELD_ABBREV[f]);
      let lists = cache.get(file);
      if (!lists) cache.set(file, (lists = parseRun(store, file)));
      const queries = plan.queries[split].get(f)!;
      const offsets = new Uint32Array(queries.length + 1);
      const docs: number[] = [];
      queries.forEach((q, k) => {
        const l = lists!.get(store.id(q));
        if (!l) throw new InputError(file, undefined, store.id(q), `no ranked list for ${split} query ${store.id(q)} (${f}); write the plan with --write-plan to see the queries`);
        docs.push(...l);
        offsets[k + 1] = docs.length;
      });
      out[split].set(f, { offsets, docs: Uint32Array.from(docs) });
    }
    if (cache.size > 4) cache.clear(); // one file per split and field: keep memory bounded
  }
  return out;
}

/** A run's lists in trec_eval's order (eval/trec-run.ts), as corpus indices: query id → ranked docs. */
function parseRun(store: CorpusStore, file: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const [qid, list] of readRankedRun(file).lists) {
    out.set(qid, list.map((x) => {
      const doc = store.indexOf(x.docno);
      if (doc < 0) throw new InputError(file, lineNumbersOf(file, [x.entry])[0], 'docno', `paper ${x.docno} is not in the corpus store`);
      return doc;
    }));
  }
  return out;
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
  return { test, val, official: mdcrOfficialCheck(test.chosen, Object.keys(models), plan.fields) };
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

export function checkPlanFields(fields: string[] | undefined, parse: (s: string) => Field | undefined): Field[] | undefined {
  if (!fields) return undefined;
  return fields.map((s) => {
    const f = parse(s.trim());
    if (!f) throw new CitebenchError(`unknown field '${s}' (use a MAG field name or abbreviation)`);
    return f;
  });
}
