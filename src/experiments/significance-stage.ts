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
import { TRIALS, holmFamily, testAgainstBaseline, type QueryValue } from '../eval/significance.ts';
import { significanceFrameOf, type Frame } from '../report/frames.ts';
import { SIGNIFICANCE_ALPHA, SIGNIFICANCE_FAMILY, readCell, type CellSummary, type SignificanceRecord, type SignificanceRow } from '../report/results.ts';
import { CitebenchError } from '../util/errors.ts';
import { fieldSchemeOf, type ExperimentConfig } from './config.ts';
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
export function significanceOf(values: Iterable<CellQueryValue>, baseline: string, opts: { trials?: number; seed?: number; fieldScheme?: FieldScheme } = {}): ComparisonRow[] {
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
  const rows: ComparisonRow[] = testAgainstBaseline(keyed(), baseline, { trials: opts.trials ?? TRIALS, seed: opts.seed ?? 0, name }).map((c) => ({
    ...families.get(c.family)!, ...cells.get(c.cell)!, model: c.system,
    queries: c.n, meanDiff: c.meanDiff, pT: c.tP, pRandomization: c.randP, pHolm: c.tHolm, pRandomizationHolm: c.randHolm,
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

/** results.json's significance record of a finished run (always written: no rows without a baseline). */
export function significanceStage(cfg: Pick<ExperimentConfig, 'measures' | 'seed' | 'significance'> & Partial<Pick<ExperimentConfig, 'corpus'>>, dir: string, models: readonly Pick<ModelInfo, 'name' | 'kind' | 'weights'>[], cells: CellSummary[], log?: (line: string) => void): SignificanceRecord {
  const baselines = baselinesOf(cfg, models, log);
  const rows = baselines.flatMap((baseline) =>
    (significanceOf(testCellValues(dir, cells, cfg.measures), baseline, { trials: TRIALS, seed: cfg.seed, fieldScheme: cfg.corpus ? fieldSchemeOf({ corpus: cfg.corpus }) : undefined }) as Omit<SignificanceRow, 'baseline'>[]).map((x) => ({ baseline, ...x })));
  const beyond = models.filter((m) => isBeyondPaper(m.kind)).map((m) => m.name);
  return { baselines, trials: TRIALS, seed: cfg.seed, family: SIGNIFICANCE_FAMILY, alpha: SIGNIFICANCE_ALPHA, rows, ...(beyond.length ? { beyondPaper: beyond } : {}) };
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
  return significanceFrameOf(significanceOf(values(), opts.baseline, { trials: opts.trials, seed: opts.seed }).map((x) => ({ baseline: opts.baseline, ...x })));
}
