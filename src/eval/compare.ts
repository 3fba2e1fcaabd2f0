/**
 * Compare several TREC runs with the first (the baseline) over the same queries: per measure, each run's
 * summary value, its difference to the baseline, and paired t-test and randomization-test p-values, Holm-corrected
 * over the runs compared in that measure — the tests and the Holm family of results.json (testAgainstBaseline).
 */
import { CitebenchError } from '../util/errors.ts';
import { evaluateTrecFiles } from './trec-eval.ts';
import { TRIALS, holmFamily, testAgainstBaseline, type QueryValue } from './significance.ts';
import { formatFixed4 } from './trec-format.ts';
import type { EvalOptions } from './types.ts';

interface RunComparisonRow {
  measure: string;
  run: string;
  value: number;
  /** Mean paired difference (run − baseline) over the compared queries; undefined for the baseline. */
  diff?: number;
  queries?: number;
  tP?: number;
  tPHolm?: number;
  randP?: number;
  randPHolm?: number;
}

export function compareTrecRuns(
  qrelsPath: string,
  runPaths: string[],
  measureSpecs: string[],
  options: EvalOptions = {},
  test: { trials?: number; seed?: number } = {},
): RunComparisonRow[] {
  if (runPaths.length < 2) throw new CitebenchError('a comparison needs a baseline run and at least one other run');
  const runs = runPaths.map((p) => evaluateTrecFiles(qrelsPath, p, measureSpecs.length ? measureSpecs : ['map'], options));
  const measures = runs[0].result.measures.filter((m) => m.kind === 'float' && m.printPerQuery !== false);
  if (measures.length === 0) throw new CitebenchError('no per-query measure to compare (counts and gm_* have no paired values)');
  const mIndex = (r: (typeof runs)[number], name: string) => r.result.measures.findIndex((x) => x.name === name);
  // The run's Holm family (holmFamily): one qrels file is one table cell, so one family per measure; a run is
  // named by its position, so the same file given twice is two systems. Queries a run was not evaluated on
  // (NaN) are not paired; with -c every qrels query has a value (0 when missing).
  const values: QueryValue[] = [];
  const measureOf = new Map<string, string>();
  for (const meas of measures) {
    const family = holmFamily({ measure: meas.name });
    measureOf.set(family, meas.name);
    runs.forEach((r, k) => {
      const v = r.result.perQuery[mIndex(r, meas.name)];
      for (let q = 0; q < v.length; q++) if (!Number.isNaN(v[q])) values.push({ family, cell: '', system: String(k), query: r.tables.queries.get(q), value: v[q] });
    });
  }
  // A comparison's randomization seed names it as `citebench eval` always has (measure||run), so its p-values reproduce.
  const name = (family: string, _cell: string, system: string) => `${measureOf.get(family)}||${system}`;
  const tests = new Map(testAgainstBaseline(values, '0', { trials: test.trials ?? TRIALS, seed: test.seed ?? 0, name }).map((c) => [`${measureOf.get(c.family)}|${c.system}`, c]));
  const rows: RunComparisonRow[] = [];
  for (const meas of measures) {
    runs.forEach((r, k) => {
      const value = r.result.summary[mIndex(r, meas.name)];
      const c = tests.get(`${meas.name}|${k}`);
      if (k === 0) rows.push({ measure: meas.name, run: runPaths[0], value });
      else if (!c) throw new CitebenchError(`${runPaths[k]}: fewer than 2 queries in common with the baseline ${runPaths[0]} for ${meas.name}: nothing to pair`);
      else rows.push({ measure: meas.name, run: runPaths[k], value, diff: c.meanDiff, queries: c.n, tP: c.tP, tPHolm: c.tHolm, randP: c.randP, randPHolm: c.randHolm });
    });
  }
  return rows;
}

export function formatComparison(rows: RunComparisonRow[]): string {
  const runWidth = Math.max(8, ...rows.map((r) => r.run.length));
  const measWidth = Math.max(7, ...rows.map((r) => r.measure.length));
  const p = (x?: number) => (x === undefined ? '' : x < 0.0001 ? x.toExponential(1) : x.toFixed(4));
  const head = [
    'measure'.padEnd(measWidth),
    'run'.padEnd(runWidth),
    'value'.padStart(8),
    'diff'.padStart(8),
    'queries'.padStart(7),
    't-test p'.padStart(9),
    'Holm'.padStart(8),
    'random p'.padStart(9),
    'Holm'.padStart(8),
  ].join('  ');
  const lines = rows.map((r) =>
    [
      r.measure.padEnd(measWidth),
      r.run.padEnd(runWidth),
      formatFixed4(r.value).padStart(8),
      (r.diff === undefined ? 'baseline' : (r.diff >= 0 ? '+' : '') + formatFixed4(r.diff)).padStart(8),
      (r.queries === undefined ? '' : String(r.queries)).padStart(7),
      p(r.tP).padStart(9),
      p(r.tPHolm).padStart(8),
      p(r.randP).padStart(9),
      p(r.randPHolm).padStart(8),
    ].join('  '),
  );
  return [head, ...lines].join('\n') + '\n';
}
