/**
 * Significance, computed once: every paired test against each baseline that a report table marks, from the
 * per-query values of the run's cells, stored in results.json (`significance`). The report, its charts and the
 * notebooks read that record (report/significance.ts) and test nothing themselves, so a mark on a page is the
 * stored decision by construction. The one definition:
 *  - baselines: the config's `significance: { baselines: [NAME, …] }`, by default its first lexical model (BM25);
 *  - compared: each other model with a baseline in one table cell — protocol, setting, field (field level) and
 *    pool size — on the test split's queries, each query's value the mean over the cell's pool repeats (every
 *    repeat searches the same queries, so a query is one pair, never one per repeat);
 *  - tests: two-sided paired t-test and paired randomization test, TRIALS sign flips seeded by the config's seed
 *    and the comparison's name (eval/significance.ts testAgainstBaseline);
 *  - Holm family (eval/significance.ts holmFamily): baseline × protocol × setting × measure, i.e. one measure of
 *    one report table against one baseline — Table 1 (a setting's dataset level: every model × pool size), Tables 2, 7, 8 (a setting's field
 *    level: every model × field). The table and chart of the models beyond the paper show Table 1's rows for
 *    them, p-values and all.
 * `citebench eval QRELS BASELINE RUN…` (eval/compare.ts) and significanceFrame (an analyst's ad-hoc comparison in
 * a notebook) go through the same testAgainstBaseline and the same family definition (holmFamily).
 */
import { schemeFields, schemeOfNames, type FieldScheme } from '../corpus/fields.ts';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CorpusStore } from '../corpus/store.ts';
import { sliceRows } from '../eval/compare.ts';
import { TRIALS, cellMeans, holmFamily, testAgainstBaseline, testAllPairs, type QueryValue } from '../eval/significance.ts';
import type { Correction } from '../eval/statistics.ts';
import { significanceFrameOf, slicesFrameOf, type Frame } from '../report/frames.ts';
import { SIGNIFICANCE_ALPHA, SIGNIFICANCE_FAMILY, readCell, type AllPairsRow, type CellSummary, type GroupRow, type MeanIntervalRow, type SignificanceRecord, type SignificanceRow, type SliceRecordRow } from '../report/results.ts';
import { CitebenchError } from '../util/errors.ts';
import { SLICE_ATTRIBUTES, fieldSchemeOf, type ExperimentConfig, type SliceAttribute } from './config.ts';
import { isBeyondPaper } from './kinds/index.ts';
import type { ModelInfo } from './models.ts';


/** One model's value of one measure on one query of one cell (a repeat's; repeats are averaged). */
export interface CellQueryValue {
  protocol: string;
  setting: string;
  measure: string;
  field: string | null;
  poolSize: number;
  model: string;
  query: string;
  value: number;
}

/** A stored row, its protocol and setting as given (an ad-hoc frame may name its own). */
export type ComparisonRow = Omit<SignificanceRow, 'protocol' | 'setting' | 'baseline'> & { protocol: string; setting: string };

const PROTOCOL_ORDER = ['dataset', 'field'];
const SETTING_ORDER = ['transductive', 'inductive'];
const rank = (order: readonly (string | null)[], x: string | null) => (order.indexOf(x) + 1 || order.length + 1);

/**
 * Every model against `baseline`, one Holm family per protocol × setting × measure, one comparison per model ×
 * (field, pool size) cell. Rows ordered by protocol (dataset, field), setting (transductive, inductive), measure
 * and model as they first appear, field (the order of the fields' scheme: given, else the one their names are of), pool size.
 */
export function significanceOf(values: Iterable<CellQueryValue>, baseline: string, opts: { trials?: number; seed?: number; fieldScheme?: FieldScheme; correction?: Correction } = {}): ComparisonRow[] {
  const families = new Map<string, Pick<CellQueryValue, 'protocol' | 'setting' | 'measure'>>();
  const cells = new Map<string, Pick<CellQueryValue, 'field' | 'poolSize'>>();
  const measures: string[] = [];
  const models: string[] = [];
  function* keyed(): Generator<QueryValue> {
    for (const v of values) {
      const family = holmFamily(v);
      const cell = `${v.field ?? ''}|${v.poolSize}`;
      if (!families.has(family)) families.set(family, { protocol: v.protocol, setting: v.setting, measure: v.measure });
      if (!cells.has(cell)) cells.set(cell, { field: v.field, poolSize: v.poolSize });
      if (!measures.includes(v.measure)) measures.push(v.measure);
      if (!models.includes(v.model)) models.push(v.model);
      yield { family, cell, system: v.model, query: v.query, value: v.value };
    }
  }
  // A comparison's randomization seed names it as citebench has always named it (protocol|field|pool|model
  // [|setting]|measure), so the p-values stored by earlier runs and shown in docs reproduce.
  const name = (family: string, cell: string, model: string) => {
    const f = families.get(family)!;
    const c = cells.get(cell)!;
    return `${f.protocol}|${c.field ?? ''}|${c.poolSize}|${model}${f.setting === 'transductive' ? '' : `|${f.setting}`}|${f.measure}`;
  };
  const rows: ComparisonRow[] = testAgainstBaseline(keyed(), baseline, { trials: opts.trials ?? TRIALS, seed: opts.seed ?? 0, name, correction: opts.correction }).map((c) => ({
    ...families.get(c.family)!, ...cells.get(c.cell)!, model: c.system,
    queries: c.n, meanDiff: c.meanDiff, pT: c.tP, pRandomization: c.randP, pHolm: c.tHolm, pRandomizationHolm: c.randHolm,
    ci95: c.ci95, bootstrapCi95: c.bootstrapCi95, effectSize: c.effectSize, pAdjusted: c.tAdj, pRandomizationAdjusted: c.randAdj, correction: c.correction,
  }));
  const fields: (string | null)[] = [null, ...schemeFields(opts.fieldScheme ?? schemeOfNames(rows.flatMap((x) => (x.field ? [x.field] : []))))];
  return rows.sort((a, b) =>
    rank(PROTOCOL_ORDER, a.protocol) - rank(PROTOCOL_ORDER, b.protocol) || a.protocol.localeCompare(b.protocol) ||
    rank(SETTING_ORDER, a.setting) - rank(SETTING_ORDER, b.setting) || a.setting.localeCompare(b.setting) ||
    measures.indexOf(a.measure) - measures.indexOf(b.measure) ||
    rank(fields, a.field) - rank(fields, b.field) || (a.field ?? '').localeCompare(b.field ?? '') ||
    a.poolSize - b.poolSize || models.indexOf(a.model) - models.indexOf(b.model));
}

/** The per-query values of the test cells, in the order of `cells` (plan order), for significanceOf. */
function* testCellValues(dir: string, cells: CellSummary[], measures: string[]): Generator<CellQueryValue> {
  for (const c of cells) {
    if (c.split !== 'test') continue;
    const rec = readCell(dir, c);
    for (const measure of measures) {
      const vals = rec.perQuery[measure];
      if (!vals) throw new CitebenchError(`${dir}/${c.file}: no per-query values of ${measure}; run \`citebench run\` again to rewrite the cell`);
      for (let i = 0; i < rec.queryIds.length; i++) {
        yield { protocol: c.protocol, setting: c.setting ?? 'transductive', measure, field: c.field, poolSize: c.poolSize, model: c.model, query: rec.queryIds[i], value: vals[i] };
      }
    }
  }
}

/**
 * The baselines of a run: the config's `significance.baselines` that are ready (a skipped one is said and left
 * out), else its first lexical model; none without one.
 */
export function baselinesOf(cfg: Pick<ExperimentConfig, 'significance'>, models: readonly Pick<ModelInfo, 'name' | 'weights'>[], log: (line: string) => void = () => {}): string[] {
  const asked = cfg.significance?.baselines;
  if (!asked) {
    const first = models.find((m) => m.weights === 'lexical');
    return first ? [first.name] : [];
  }
  return asked.filter((b) => {
    const ok = models.some((m) => m.name === b);
    if (!ok) log(`[significance] baseline ${b} is not among the ready models (skipped?): no comparisons against it`);
    return ok;
  });
}

/** What a run knows about a query article (its corpus store), for slicing per-query results. */
export interface QueryFacts {
  /** The article's (first) field; undefined when unknown. */
  fieldOf(id: string): string | undefined;
  /** Publication year; undefined when unknown. */
  yearOf(id: string): number | undefined;
  /** How many articles of the store cite it; undefined for an id not in the store. */
  citationsOf(id: string): number | undefined;
}

/** A corpus store's facts about its articles. */
export function storeFacts(store: Pick<CorpusStore, 'indexOf' | 'fieldsOf' | 'years' | 'inbound'>): QueryFacts {
  const at = (id: string) => {
    const i = store.indexOf(id);
    return i >= 0 ? i : undefined;
  };
  return {
    fieldOf: (id) => { const i = at(id); return i === undefined ? undefined : store.fieldsOf(i)[0]; },
    yearOf: (id) => { const i = at(id); return i === undefined || store.years[i] === 0 ? undefined : store.years[i]; },
    citationsOf: (id) => { const i = at(id); return i === undefined ? undefined : store.inbound(i).length; },
  };
}

/** The bins of a query's number of references in its pool: 1, 2, 3–4, 5–8, 9–16, 17–32, 33+. */
export function referencesBin(n: number): string {
  if (n <= 2) return String(n);
  let hi = 4;
  while (n > hi && hi < 32) hi *= 2;
  return n > 32 ? '33+' : `${hi / 2 + 1}–${hi}`;
}

/** Judged-relevant docnos per query of a qrels file (a cell's pool: the query's references in it); undefined when the file is gone (a copied results folder). */
function readQrelsCited(path: string): Map<string, string[]> | undefined {
  if (!existsSync(path)) return undefined;
  const out = new Map<string, string[]>();
  for (const line of readFileSync(path, 'latin1').split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 4 || !(Number(f[3]) > 0)) continue;
    const l = out.get(f[0]);
    if (l) l.push(f[2]);
    else out.set(f[0], [f[2]]);
  }
  return out;
}

/** numpy's linear quantile of sorted values. */
function quantile(sorted: readonly number[], q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  return sorted[lo] + (h - lo) * (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]);
}

/**
 * Per-query results by query attribute (docs/statistics.md): for each protocol × setting × measure × pool size of
 * the test cells, each query's value the mean over its repeats (at the field level a query is a field's query),
 * the queries grouped by `field` (the field level: the cell's field; else the article's first field), `year`
 * (publication year), `references` (its references in the pool — judged relevant in the cell's qrels — in bins
 * 1, 2, 3–4, 5–8, …, 33+) and `citations` (quartile Q1 … Q4, over the queries of the cell, of the mean number of
 * store articles citing each of its referenced articles; Q1 the least cited); per group each model's n, mean and
 * 95 % t-interval, and each other model's difference to `baseline` with its interval.
 */
export function slicesOf(dir: string, cells: CellSummary[], measures: string[], attributes: readonly SliceAttribute[], baseline: string, facts: QueryFacts | undefined): SliceRecordRow[] {
  if (!attributes.length) return [];
  type Group = { protocol: 'dataset' | 'field'; setting: 'transductive' | 'inductive'; poolSize: number; models: string[]; sums: Map<string, Map<string, Map<string, { s: number; n: number }>>>; field: Map<string, string | null>; cited: Map<string, string[] | undefined> };
  const groups = new Map<string, Group>();
  const qrels = new Map<string, Map<string, string[]> | undefined>();
  for (const c of cells) {
    if (c.split !== 'test' || (c.protocol !== 'dataset' && c.protocol !== 'field')) continue;
    const setting = c.setting ?? 'transductive';
    const key = `${c.protocol}|${setting}|${c.poolSize}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { protocol: c.protocol, setting, poolSize: c.poolSize, models: [], sums: new Map(), field: new Map(), cited: new Map() }));
    if (!g.models.includes(c.model)) g.models.push(c.model);
    const rec = readCell(dir, c);
    if (!qrels.has(rec.files.qrels)) qrels.set(rec.files.qrels, readQrelsCited(join(dir, rec.files.qrels)));
    const q = qrels.get(rec.files.qrels);
    for (const measure of measures) {
      const vals = rec.perQuery[measure];
      if (!vals) throw new CitebenchError(`${dir}/${c.file}: no per-query values of ${measure}; run \`citebench run\` again to rewrite the cell`);
      let byModel = g.sums.get(measure);
      if (!byModel) g.sums.set(measure, (byModel = new Map()));
      let byQuery = byModel.get(c.model);
      if (!byQuery) byModel.set(c.model, (byQuery = new Map()));
      rec.queryIds.forEach((id, i) => {
        const k = `${c.field ?? ''}|${id}`;
        const e = byQuery!.get(k);
        if (e) { e.s += vals[i]; e.n++; } else byQuery!.set(k, { s: vals[i], n: 1 });
        if (!g!.field.has(k)) g!.field.set(k, c.field);
        if (!g!.cited.has(k)) g!.cited.set(k, q ? (q.get(id) ?? []) : undefined);
      });
    }
  }
  const out: SliceRecordRow[] = [];
  for (const g of groups.values()) {
    if (!g.models.includes(baseline)) continue;
    const models = [baseline, ...g.models.filter((m) => m !== baseline)];
    const idOf = (k: string) => k.slice(k.indexOf('|') + 1);
    const keys = [...g.field.keys()];
    const citeMean = new Map(keys.map((k) => {
      const c = (g.cited.get(k) ?? []).map((d) => facts?.citationsOf(d)).filter((x): x is number => x !== undefined);
      return [k, c.length ? c.reduce((a, b) => a + b, 0) / c.length : undefined] as const;
    }));
    const known = [...citeMean.values()].filter((x): x is number => x !== undefined).sort((a, b) => a - b);
    const cuts = known.length ? [0.25, 0.5, 0.75].map((q) => quantile(known, q)) : [];
    const label: Record<SliceAttribute, (k: string) => string | undefined> = {
      field: (k) => g.field.get(k) ?? facts?.fieldOf(idOf(k)),
      year: (k) => facts?.yearOf(idOf(k))?.toString(),
      references: (k) => { const c = g.cited.get(k); return c ? referencesBin(c.length) : undefined; },
      citations: (k) => {
        const v = citeMean.get(k);
        return v === undefined || !cuts.length ? undefined : `Q${1 + cuts.filter((c) => v > c).length}`;
      },
    };
    for (const measure of measures) {
      const byModel = g.sums.get(measure)!;
      const perQuery = models.map((m) => new Map([...(byModel.get(m) ?? new Map<string, { s: number; n: number }>())].map(([k, e]) => [k, e.s / e.n])));
      for (const attribute of attributes) {
        const labels = new Map<string, string>();
        for (const k of keys) {
          const l = label[attribute](k);
          if (l !== undefined) labels.set(k, l);
        }
        for (const r of sliceRows(measure, models, perQuery, labels)) {
          const { run, measure: _m, slice, ...rest } = r;
          out.push({ protocol: g.protocol, setting: g.setting, measure, poolSize: g.poolSize, attribute, slice, model: run, ...rest });
        }
      }
    }
  }
  const order = (x: SliceRecordRow) => [rank(PROTOCOL_ORDER, x.protocol), rank(SETTING_ORDER, x.setting), x.poolSize] as const;
  return out.map((x, i) => ({ x, i })).sort((a, b) => {
    const oa = order(a.x);
    const ob = order(b.x);
    return oa[0] - ob[0] || oa[1] - ob[1] || oa[2] - ob[2] || a.i - b.i;
  }).map(({ x }) => x);
}

/**
 * Every cell's mean with its 95 % interval, and all pairs of models (the randomised Tukey HSD, `trials`
 * permutations seeded by the config's seed and `protocol|pool|all-pairs[|setting]|measure`) with their letters.
 */
function meansAndPairs(dir: string, cells: CellSummary[], measures: string[], opts: { trials: number; seed: number; allPairs: boolean }): Pick<SignificanceRecord, 'means' | 'allPairs' | 'groups'> {
  const key = (v: CellQueryValue) => `${v.protocol}|${v.setting}|${v.measure}`;
  const what = new Map<string, Pick<CellQueryValue, 'protocol' | 'setting' | 'measure'>>();
  const cellOf = new Map<string, Pick<CellQueryValue, 'field' | 'poolSize'>>();
  const means: MeanIntervalRow[] = [];
  for (const m of cellMeans((function* () {
    for (const v of testCellValues(dir, cells, measures)) {
      what.set(key(v), v);
      const cell = `${v.field ?? ''}|${v.poolSize}`;
      cellOf.set(cell, v);
      yield { family: key(v), cell, system: v.model, query: v.query, value: v.value };
    }
  })())) {
    const w = what.get(m.family)!;
    const c = cellOf.get(m.cell)!;
    means.push({ protocol: w.protocol as MeanIntervalRow['protocol'], setting: w.setting as MeanIntervalRow['setting'], measure: w.measure, field: c.field, poolSize: c.poolSize, model: m.system, queries: m.n, mean: m.mean, ci95: m.ci95 });
  }
  if (!opts.allPairs) return { means };
  const allPairs: AllPairsRow[] = [];
  const groups: GroupRow[] = [];
  const name = (family: string, cell: string) => {
    const w = what.get(family)!;
    return `${w.protocol}|${cell}|all-pairs${w.setting === 'transductive' ? '' : `|${w.setting}`}|${w.measure}`;
  };
  const pooled = (function* () {
    for (const v of testCellValues(dir, cells, measures)) yield { family: key(v), cell: String(v.poolSize), system: v.model, query: `${v.field ?? ''}|${v.query}`, value: v.value };
  })();
  for (const a of testAllPairs(pooled, { trials: opts.trials, seed: opts.seed, name })) {
    const w = what.get(a.family)! as Pick<AllPairsRow, 'protocol' | 'setting' | 'measure'>;
    const poolSize = Number(a.cell);
    for (const p of a.pairs) allPairs.push({ protocol: w.protocol, setting: w.setting, measure: w.measure, poolSize, ...p });
    groups.push({
      protocol: w.protocol, setting: w.setting, measure: w.measure, poolSize, queries: a.n,
      letters: Object.fromEntries(a.systems.map((s, i) => [s, a.letters[i]])),
      means: Object.fromEntries(a.systems.map((s, i) => [s, a.means[i]])),
      ci95: Object.fromEntries(a.systems.map((s, i) => [s, a.ci95[i]])),
    });
  }
  const order = (x: { protocol: string; setting: string; measure: string; poolSize: number }) => [rank(PROTOCOL_ORDER, x.protocol), rank(SETTING_ORDER, x.setting), measures.indexOf(x.measure), x.poolSize];
  const cmp = (a: Parameters<typeof order>[0], b: Parameters<typeof order>[0]) => {
    const oa = order(a);
    const ob = order(b);
    for (let i = 0; i < oa.length; i++) if (oa[i] !== ob[i]) return oa[i] - ob[i];
    return 0;
  };
  // Stable sorts: within a family the pairs keep the models' first-appearance order.
  return { means, allPairs: allPairs.sort(cmp), groups: groups.sort(cmp) };
}

/** results.json's significance record of a finished run (always written: no rows without a baseline). */
export function significanceStage(
  cfg: Pick<ExperimentConfig, 'measures' | 'seed' | 'significance'> & Partial<Pick<ExperimentConfig, 'corpus'>>, dir: string,
  models: readonly Pick<ModelInfo, 'name' | 'kind' | 'weights'>[], cells: CellSummary[], log?: (line: string) => void, facts?: QueryFacts,
): SignificanceRecord {
  const baselines = baselinesOf(cfg, models, log);
  const correction = cfg.significance?.correction ?? 'holm';
  const fieldScheme = cfg.corpus ? fieldSchemeOf({ corpus: cfg.corpus }) : undefined;
  const rows = baselines.flatMap((baseline) =>
    (significanceOf(testCellValues(dir, cells, cfg.measures), baseline, { trials: TRIALS, seed: cfg.seed, fieldScheme, correction }) as Omit<SignificanceRow, 'baseline'>[]).map((x) => ({ baseline, ...x })));
  const beyond = models.filter((m) => isBeyondPaper(m.kind)).map((m) => m.name);
  const extra = meansAndPairs(dir, cells, cfg.measures, { trials: TRIALS, seed: cfg.seed, allPairs: cfg.significance?.allPairs ?? true });
  const attributes = cfg.significance?.slices ?? SLICE_ATTRIBUTES;
  const slices = baselines.length ? slicesOf(dir, cells, cfg.measures, attributes, baselines[0], facts) : [];
  return {
    baselines, trials: TRIALS, seed: cfg.seed, family: SIGNIFICANCE_FAMILY, alpha: SIGNIFICANCE_ALPHA, rows, ...(beyond.length ? { beyondPaper: beyond } : {}),
    correction, ...extra, ...(slices.length ? { slices } : {}),
  };
}

export interface SignificanceFrameOptions {
  /** The model (retriever) every other is compared with. */
  baseline: string;
  /** The measure columns to test. */
  measures: string[];
  /** Randomization-test trials (default TRIALS, as the run's). */
  trials?: number;
  /** Randomization-test seed (default 0; a run's own seed reproduces its stored p-values). */
  seed?: number;
  /** Correction over a family (default holm; pHolm is Holm's whatever it is). */
  correction?: Correction;
}

/**
 * An ad-hoc comparison in a notebook: per-query values of several retrievers (one row per model × query, with
 * `model`, `query` and the measure columns; `protocol`, `setting`, `field`, `pool` and `repeat` where there are
 * several, as `res.queries()` has them) against a baseline, tested exactly as the run tests its cells
 * (significanceOf): repeats averaged per query, one Holm family per protocol × setting × measure. Returns the
 * rows as a frame with the columns of `res.significance`; `res.queries({ split: 'test' })` with the run's seed
 * gives back its stored rows.
 */
export function significanceFrame(perQuery: Frame | readonly Record<string, unknown>[], opts: SignificanceFrameOptions): Frame {
  const rows = (Array.isArray(perQuery) ? perQuery : (perQuery as Frame).objects()) as Record<string, unknown>[];
  const where = 'significanceFrame';
  if (!opts?.baseline) throw new CitebenchError(`${where}: give the baseline model ({ baseline: 'bm25', measures: [...] })`);
  if (!opts.measures?.length) throw new CitebenchError(`${where}: give the measure columns to test ({ measures: ['MAP'] })`);
  const splits = new Set(rows.map((r) => r.split).filter((s) => s !== undefined));
  if (splits.size > 1) throw new CitebenchError(`${where}: the rows hold the ${[...splits].join(' and ')} splits; keep one (res.queries({ split: 'test' }))`);
  const str = (r: Record<string, unknown>, i: number, col: string, fallback?: string) => {
    const v = r[col] ?? fallback;
    if (v === undefined || v === null) throw new CitebenchError(`${where}: row ${i} has no '${col}' column (needed: model, query, ${opts.measures.join(', ')})`);
    return String(v);
  };
  if (!rows.some((r) => r.model === opts.baseline)) throw new CitebenchError(`${where}: no row of the baseline '${opts.baseline}' (models: ${[...new Set(rows.map((r) => String(r.model)))].join(', ') || 'none'})`);
  function* values(): Generator<CellQueryValue> {
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      for (const measure of opts.measures) {
        const value = r[measure];
        if (typeof value !== 'number' || !Number.isFinite(value)) {
          throw new CitebenchError(`${where}: row ${i} (model ${str(r, i, 'model')}, query ${str(r, i, 'query')}): '${measure}' is ${JSON.stringify(value)}, not a number; drop or fill the row`);
        }
        yield {
          protocol: str(r, i, 'protocol', ''), setting: str(r, i, 'setting', 'transductive'), measure,
          field: r.field === undefined || r.field === null ? null : String(r.field), poolSize: Number(r.pool ?? 0),
          model: str(r, i, 'model'), query: str(r, i, 'query'), value,
        };
      }
    }
  }
  return significanceFrameOf(significanceOf(values(), opts.baseline, { trials: opts.trials, seed: opts.seed, correction: opts.correction }).map((x) => ({ baseline: opts.baseline, ...x })));
}

/**
 * Per-query results grouped by a label column of the rows (`by`: e.g. a field, a year, the analyst's own label):
 * per label each model's n, mean and 95 % t-interval over its queries (each the mean over its repeats), and each
 * other model's mean difference to `baseline` with its t-interval over the label's queries both have — the
 * slices of results.json and of `citebench eval --slices`, on any per-query frame. Rows without a label are in no slice.
 */
export function sliceFrame(perQuery: Frame | readonly Record<string, unknown>[], opts: { baseline: string; measures: string[]; by: string }): Frame {
  const rows = (Array.isArray(perQuery) ? perQuery : (perQuery as Frame).objects()) as Record<string, unknown>[];
  const where = 'sliceFrame';
  if (!opts?.baseline || !opts.measures?.length || !opts.by) throw new CitebenchError(`${where}: give the baseline, the measure columns and the label column ({ baseline: 'bm25', measures: ['MAP'], by: 'field' })`);
  const models: string[] = [];
  const labels = new Map<string, string>();
  const sums = new Map<string, Map<string, Map<string, { s: number; n: number }>>>();
  rows.forEach((r, i) => {
    if (r.model === undefined || r.query === undefined) throw new CitebenchError(`${where}: row ${i} has no 'model' or 'query' column`);
    const model = String(r.model);
    const query = String(r.query);
    if (!models.includes(model)) models.push(model);
    const l = r[opts.by];
    if (l !== undefined && l !== null && l !== '') {
      const prev = labels.get(query);
      if (prev !== undefined && prev !== String(l)) throw new CitebenchError(`${where}: row ${i}: query ${query} has two '${opts.by}' labels (${prev}, ${String(l)})`);
      labels.set(query, String(l));
    }
    for (const measure of opts.measures) {
      const v = r[measure];
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new CitebenchError(`${where}: row ${i} (model ${model}, query ${query}): '${measure}' is ${JSON.stringify(v)}, not a number; drop or fill the row`);
      let m = sums.get(measure);
      if (!m) sums.set(measure, (m = new Map()));
      let q = m.get(model);
      if (!q) m.set(model, (q = new Map()));
      const e = q.get(query);
      if (e) { e.s += v; e.n++; } else q.set(query, { s: v, n: 1 });
    }
  });
  if (!models.includes(opts.baseline)) throw new CitebenchError(`${where}: no row of the baseline '${opts.baseline}' (models: ${models.join(', ') || 'none'})`);
  const ordered = [opts.baseline, ...models.filter((m) => m !== opts.baseline)];
  const out = opts.measures.flatMap((measure) => {
    const perModel = ordered.map((m) => new Map([...(sums.get(measure)!.get(m) ?? new Map<string, { s: number; n: number }>())].map(([q, e]) => [q, e.s / e.n])));
    return sliceRows(measure, ordered, perModel, labels).map(({ run, ...x }) => ({ attribute: opts.by, ...x, model: run }));
  });
  return slicesFrameOf(out as unknown as Record<string, unknown>[]);
}
