/**
 * Compare several TREC runs with the first (the baseline) over the same queries: per measure, each run's
 * summary value, its difference to the baseline, and paired t-test and randomization-test p-values, Holm-corrected
 * across every (run, measure) comparison of the call.
 */
import { CitebenchError } from '../util/errors.ts';
import { evaluateTrecFiles } from './trec-eval.ts';
import { holm, pairedRandomizationTest, pairedTTest } from './significance.ts';
import { formatFixed4 } from './trec-format.ts';
import type { EvalOptions } from './types.ts';

export interface RunComparisonRow {
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
  const perQid = (r: (typeof runs)[number], m: number) => {
    const map = new Map<string, number>();
    const values = r.result.perQuery[m];
    for (let q = 0; q < values.length; q++) if (!Number.isNaN(values[q])) map.set(r.tables.queries.get(q), values[q]);
    return map;
  };
  const rows: RunComparisonRow[] = [];
  const pending: RunComparisonRow[] = [];
  for (const meas of measures) {
    const mIndex = (r: (typeof runs)[number]) => r.result.measures.findIndex((x) => x.name === meas.name);
    const base = runs[0];
    const baseValues = perQid(base, mIndex(base));
    rows.push({ measure: meas.name, run: runPaths[0], value: base.result.summary[mIndex(base)] });
    for (let k = 1; k < runs.length; k++) {
      const r = runs[k];
      const values = perQid(r, mIndex(r));
      // Pair on queries both runs were evaluated on (with -c, every qrels query: missing ones hold 0).
      const qids = [...baseValues.keys()].filter((q) => values.has(q)).sort();
      const a = qids.map((q) => values.get(q)!);
      const b = qids.map((q) => baseValues.get(q)!);
      const t = pairedTTest(a, b);
      const rand = pairedRandomizationTest(a, b, { trials: test.trials ?? 10000, seed: `${test.seed ?? 0}/${meas.name}/${k}` });
      const row: RunComparisonRow = {
        measure: meas.name,
        run: runPaths[k],
        value: r.result.summary[mIndex(r)],
        diff: t.meanDiff,
        queries: qids.length,
        tP: t.p,
        randP: rand.p,
      };
      rows.push(row);
      pending.push(row);
    }
  }
  const tHolm = holm(pending.map((r) => r.tP!));
  const rHolm = holm(pending.map((r) => r.randP!));
  pending.forEach((r, i) => {
    r.tPHolm = tHolm[i];
    r.randPHolm = rHolm[i];
  });
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
