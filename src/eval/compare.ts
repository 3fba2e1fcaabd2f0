/**
 * Compare several TREC runs with the first (the baseline) over the same queries: per measure, each run's
 * summary value with its 95 % interval, its difference to the baseline with the t- and bootstrap intervals and
 * d_z, paired t-test and randomization-test p-values corrected over the runs compared in that measure — the
 * tests and the family of results.json (testAgainstBaseline); optionally the randomised Tukey HSD over all runs
 * with letter groups, and slices of the queries by a user's labels.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'node:path';
import { CitebenchError, InputError } from '../util/errors.ts';
import { evaluateTrecFiles } from './trec-eval.ts';
import { parseMeasure } from './registry.ts';
import { TRIALS, cellMeans, holmFamily, testAgainstBaseline, testAllPairs, type QueryValue } from './significance.ts';
import { meanInterval, type Correction, type Interval } from './statistics.ts';
import { formatFixed4 } from './trec-format.ts';
import type { EvalOptions } from './types.ts';

interface RunComparisonRow {
  measure: string;
  run: string;
  value: number;
  /** Mean paired difference (run − baseline) over the compared queries; undefined for the baseline. */
  diff?: number;
  queries?: number;
  ci95?: Interval;
  bootstrapCi95?: Interval;
  effectSize?: number;
  tP?: number;
  tPHolm?: number;
  randP?: number;
  randPHolm?: number;
  /** p-values adjusted by the chosen correction (Holm by default). */
  tPAdjusted?: number;
  randPAdjusted?: number;
  correction?: Correction;
}

/** What a comparison computes besides the tests against the baseline. */
export interface CompareOptions {
  trials?: number;
  seed?: number;
  correction?: Correction;
  /** The randomised Tukey HSD over all runs, per measure, and its letter groups. */
  allPairs?: boolean;
  /** Per-query labels (query id → label): each group's n, mean and interval per run, and the differences to the baseline. */
  slices?: { file: string; labels: Map<string, string> };
}

/** The machine-readable record of `citebench eval QRELS BASELINE RUN… --json` (docs/statistics.md). */
export interface ComparisonRecord {
  format: 'citebench-comparison';
  trials: number;
  seed: number;
  correction: Correction;
  /** Run names (file names without folder and extension), the baseline first. */
  runs: string[];
  means: { measure: string; run: string; queries: number; mean: number; ci95: Interval }[];
  comparisons: {
    measure: string; run: string; baseline: string; queries: number; meanDiff: number; ci95: Interval; bootstrapCi95: Interval;
    effectSize: number; pT: number; pRandomization: number; pAdjusted: number; pRandomizationAdjusted: number; correction: Correction;
  }[];
  allPairs?: { measure: string; a: string; b: string; meanDiff: number; pTukey: number }[];
  groups?: Record<string, Record<string, string>>;
  slices?: SliceRow[];
}

/** A slice's numbers for one system: its mean with a 95 % interval; one after the baseline carries the paired difference. */
export interface SliceStats {
  slice: string;
  queries: number;
  mean: number;
  ci95: Interval;
  baseline?: string;
  /** Queries of the slice both it and the baseline have. */
  pairedQueries?: number;
  meanDiff?: number;
  diffCi95?: Interval;
}

/** One slice of one run in one measure (`citebench eval --slices`). */
export interface SliceRow extends SliceStats {
  measure: string;
  run: string;
}

/** Runs named by their file names without folder and extension; a name given twice gets #2, #3 … */
export function runNames(paths: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return paths.map((p) => {
    const n = parse(p).name || p;
    const k = (seen.get(n) ?? 0) + 1;
    seen.set(n, k);
    return k === 1 ? n : `${n}#${k}`;
  });
}

/**
 * A `qid<TAB>label` file as labels by query id (blank lines and lines starting with # are skipped); a line
 * without a tab, an empty id or label, or an id labelled twice is an error naming file and line.
 */
export function readSliceLabels(file: string): Map<string, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CitebenchError(`${file}: cannot read the slices file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const labels = new Map<string, string>();
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '' || line.startsWith('#')) return;
    const tab = line.indexOf('\t');
    if (tab < 0) throw new InputError(file, i + 1, undefined, `expected 'qid<TAB>label', got ${JSON.stringify(line.slice(0, 60))}`);
    const q = line.slice(0, tab).trim();
    const label = line.slice(tab + 1).trim();
    if (!q) throw new InputError(file, i + 1, 'qid', 'empty query id');
    if (!label) throw new InputError(file, i + 1, 'label', `query ${q} has an empty label`);
    if (labels.has(q)) throw new InputError(file, i + 1, 'qid', `query ${q} is labelled twice`);
    labels.set(q, label);
  });
  if (labels.size === 0) throw new CitebenchError(`${file}: no 'qid<TAB>label' line`);
  return labels;
}

/**
 * Per slice label: each run's n, mean and 95 % t-interval over its queries with that label, and for runs after the
 * first the mean paired difference to it with its t-interval over the queries of the slice both have. Labels in
 * sorted order (numbers by value); queries without a label are in no slice.
 */
export function sliceRows(measure: string, runs: readonly string[], perQuery: readonly Map<string, number>[], labels: Map<string, string>): SliceRow[] {
  const slices = [...new Set(labels.values())].sort(labelOrder);
  const out: SliceRow[] = [];
  for (const slice of slices) {
    const qs = [...labels].filter(([, l]) => l === slice).map(([q]) => q).sort();
    const base = perQuery[0];
    runs.forEach((run, k) => {
      const own = qs.filter((q) => perQuery[k].has(q));
      if (!own.length) return;
      const m = meanInterval(Float64Array.from(own, (q) => perQuery[k].get(q)!));
      const row: SliceRow = { measure, slice, run, queries: m.n, mean: m.mean, ci95: m.ci95 };
      if (k > 0) {
        const paired = own.filter((q) => base.has(q));
        const d = meanInterval(Float64Array.from(paired, (q) => perQuery[k].get(q)! - base.get(q)!));
        Object.assign(row, { baseline: runs[0], pairedQueries: d.n, meanDiff: paired.length ? d.mean : NaN, diffCi95: d.ci95 });
      }
      out.push(row);
    });
  }
  return out;
}

/** Slice labels in order: numbers (and numeric ranges such as quantile labels "q1") by value, others by text. */
export function labelOrder(a: string, b: string): number {
  const na = Number(a);
  const nb = Number(b);
  if (Number.isFinite(na) && Number.isFinite(nb)) return na - nb;
  return a.localeCompare(b, 'en', { numeric: true });
}

/**
 * Compare several TREC runs with the first: the rows of the text table and the record of `--json`, from one
 * evaluation and one testAgainstBaseline (and testAllPairs) over the same values.
 */
export function compareTrecRecord(qrelsPath: string, runPaths: string[], measureSpecs: string[], options: EvalOptions = {}, test: CompareOptions = {}): { rows: RunComparisonRow[]; record: ComparisonRecord } {
  if (runPaths.length < 2) throw new CitebenchError('a comparison needs a baseline run and at least one other run');
  const trials = test.trials ?? TRIALS;
  const seed = test.seed ?? 0;
  const correction = test.correction ?? 'holm';
  const runs = runPaths.map((p) => evaluateTrecFiles(qrelsPath, p, measureSpecs.length ? measureSpecs : ['map'], options));
  const names = runNames(runPaths);
  const measures = runs[0].result.measures.filter((m) => m.kind === 'float' && m.printPerQuery !== false);
  if (measures.length === 0) throw new CitebenchError('no per-query measure to compare (counts and gm_* have no paired values)');
  const mIndex = (r: (typeof runs)[number], name: string) => r.result.measures.findIndex((x) => x.name === name);
  // The record names a measure as -m gave it (map, P.10, nDCG@10) where that spec names one measure; else trec_eval's name.
  const given = new Map<string, string>();
  for (const spec of measureSpecs) {
    const ms = parseMeasure(spec);
    if (ms.length === 1 && !given.has(ms[0].name)) given.set(ms[0].name, spec.trim());
  }
  const label = (name: string) => given.get(name) ?? name;
  // The run's Holm family (holmFamily): one qrels file is one table cell, so one family per measure; a run is
  // named by its position, so the same file given twice is two systems. Queries a run was not evaluated on
  // (NaN) are not paired; with -c every qrels query has a value (0 when missing).
  const values: QueryValue[] = [];
  const measureOf = new Map<string, string>();
  const perQuery = new Map<string, Map<string, number>[]>();
  for (const meas of measures) {
    const family = holmFamily({ measure: meas.name });
    measureOf.set(family, meas.name);
    perQuery.set(meas.name, runs.map((r, k) => {
      const v = r.result.perQuery[mIndex(r, meas.name)];
      const byQuery = new Map<string, number>();
      for (let q = 0; q < v.length; q++) {
        if (Number.isNaN(v[q])) continue;
        byQuery.set(r.tables.queries.get(q), v[q]);
        values.push({ family, cell: '', system: String(k), query: r.tables.queries.get(q), value: v[q] });
      }
      return byQuery;
    }));
  }
  // A comparison's randomization seed names it as `citebench eval` always has (measure||run), so its p-values reproduce.
  const name = (family: string, _cell: string, system: string) => `${measureOf.get(family)}||${system}`;
  const tests = new Map(testAgainstBaseline(values, '0', { trials, seed, name, correction }).map((c) => [`${measureOf.get(c.family)}|${c.system}`, c]));
  const rows: RunComparisonRow[] = [];
  const record: ComparisonRecord = { format: 'citebench-comparison', trials, seed, correction, runs: names, means: [], comparisons: [] };
  const means = new Map(cellMeans(values).map((c) => [`${measureOf.get(c.family)}|${c.system}`, c]));
  for (const meas of measures) {
    runs.forEach((r, k) => {
      const value = r.result.summary[mIndex(r, meas.name)];
      const m = means.get(`${meas.name}|${k}`);
      if (m) record.means.push({ measure: label(meas.name), run: names[k], queries: m.n, mean: m.mean, ci95: m.ci95 });
      const c = tests.get(`${meas.name}|${k}`);
      if (k === 0) rows.push({ measure: meas.name, run: runPaths[0], value });
      else if (!c) throw new CitebenchError(`${runPaths[k]}: fewer than 2 queries in common with the baseline ${runPaths[0]} for ${meas.name}: nothing to pair`);
      else {
        rows.push({
          measure: meas.name, run: runPaths[k], value, diff: c.meanDiff, queries: c.n, ci95: c.ci95, bootstrapCi95: c.bootstrapCi95, effectSize: c.effectSize,
          tP: c.tP, tPHolm: c.tHolm, randP: c.randP, randPHolm: c.randHolm, tPAdjusted: c.tAdj, randPAdjusted: c.randAdj, correction,
        });
        record.comparisons.push({
          measure: label(meas.name), run: names[k], baseline: names[0], queries: c.n, meanDiff: c.meanDiff, ci95: c.ci95, bootstrapCi95: c.bootstrapCi95,
          effectSize: c.effectSize, pT: c.tP, pRandomization: c.randP, pAdjusted: c.tAdj, pRandomizationAdjusted: c.randAdj, correction,
        });
      }
    });
  }
  if (test.allPairs) {
    record.allPairs = [];
    record.groups = {};
    for (const a of testAllPairs(values, { trials, seed, name })) {
      const measure = label(measureOf.get(a.family)!);
      for (const p of a.pairs) record.allPairs.push({ measure, a: names[Number(p.a)], b: names[Number(p.b)], meanDiff: p.meanDiff, pTukey: p.pTukey });
      record.groups[measure] = Object.fromEntries(a.systems.map((s, i) => [names[Number(s)], a.letters[i]]));
    }
  }
  if (test.slices) {
    const known = new Set([...perQuery.values()].flatMap((byRun) => byRun.flatMap((m) => [...m.keys()])));
    if (![...test.slices.labels.keys()].some((q) => known.has(q))) throw new CitebenchError(`${test.slices.file}: none of its query ids is a query of the runs (e.g. ${[...test.slices.labels.keys()][0]})`);
    record.slices = measures.flatMap((meas) => sliceRows(label(meas.name), names, perQuery.get(meas.name)!, test.slices!.labels));
  }
  return { rows, record };
}

/**
 * Compare several TREC runs with the first (the baseline) over the same queries: per measure, each run's
 * summary value, its difference to the baseline with intervals and d_z, and paired t-test and randomization-test
 * p-values, corrected over the runs compared in that measure (compareTrecRecord's rows).
 */
export function compareTrecRuns(
  qrelsPath: string,
  runPaths: string[],
  measureSpecs: string[],
  options: EvalOptions = {},
  test: CompareOptions = {},
): RunComparisonRow[] {
  return compareTrecRecord(qrelsPath, runPaths, measureSpecs, options, test).rows;
}

/** The record as JSON text: NaN and ±Infinity (d_z of a constant shift) as null, two-space indented, a final newline. */
export function comparisonJson(record: ComparisonRecord): string {
  return JSON.stringify(record, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2) + '\n';
}

/** The comparison as a text table: value, difference with its 95 % t-interval and d_z, the p-values and their corrected values. */
export function formatComparison(rows: RunComparisonRow[]): string {
  const runWidth = Math.max(8, ...rows.map((r) => r.run.length));
  const measWidth = Math.max(7, ...rows.map((r) => r.measure.length));
  const correction = rows.find((r) => r.correction)?.correction ?? 'holm';
  const adjHead = { holm: 'Holm', bonferroni: 'Bonf.', bh: 'BH', none: 'none' }[correction];
  const p = (x?: number) => (x === undefined ? '' : x < 0.0001 ? x.toExponential(1) : x.toFixed(4));
  const ci = (x?: Interval) => (x ? `[${formatFixed4(x[0])}, ${formatFixed4(x[1])}]` : '');
  const dz = (x?: number) => (x === undefined ? '' : Number.isFinite(x) ? x.toFixed(3) : x > 0 ? 'inf' : '-inf');
  const head = [
    'measure'.padEnd(measWidth),
    'run'.padEnd(runWidth),
    'value'.padStart(8),
    'diff'.padStart(8),
    '95% CI of diff'.padStart(18),
    'd_z'.padStart(7),
    'queries'.padStart(7),
    't-test p'.padStart(9),
    adjHead.padStart(8),
    'random p'.padStart(9),
    adjHead.padStart(8),
  ].join('  ');
  const lines = rows.map((r) =>
    [
      r.measure.padEnd(measWidth),
      r.run.padEnd(runWidth),
      formatFixed4(r.value).padStart(8),
      (r.diff === undefined ? 'baseline' : (r.diff >= 0 ? '+' : '') + formatFixed4(r.diff)).padStart(8),
      ci(r.ci95).padStart(18),
      dz(r.effectSize).padStart(7),
      (r.queries === undefined ? '' : String(r.queries)).padStart(7),
      p(r.tP).padStart(9),
      p(r.tPAdjusted).padStart(8),
      p(r.randP).padStart(9),
      p(r.randPAdjusted).padStart(8),
    ].join('  '),
  );
  return [head, ...lines].join('\n') + '\n';
}
