/** Several runs vs a baseline: paired on common queries, Holm over the runs of one measure (results.json's family), reproducible. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compareTrecRuns, formatComparison } from '../../src/eval/compare.ts';
import { holm, pairedTTest, testAgainstBaseline } from '../../src/eval/significance.ts';
import { evaluateTrecFiles } from '../../src/eval/trec-eval.ts';

const DATA = fileURLToPath(new URL('../../../shared/data/trec_eval/', import.meta.url));
const skip = existsSync(DATA) ? false : `trec_eval fixtures not found at ${DATA} (../shared absent)`;

test('compareTrecRuns: rows, pairing, Holm and determinism', { skip }, () => {
  const runs = [DATA + 'results.test', DATA + 'results.trunc', DATA + 'results.test'];
  const rows = compareTrecRuns(DATA + 'qrels.test', runs, ['map', 'P.10'], { missing: 'zero' }, { trials: 500, seed: 5 });
  assert.equal(rows.length, 6); // 2 measures × (baseline + 2 runs)
  const mapRows = rows.filter((r) => r.measure === 'map');
  assert.equal(mapRows[0].diff, undefined);
  assert.equal(mapRows[0].value.toFixed(4), '0.1785');
  assert.equal(mapRows[1].value.toFixed(4), '0.1016'); // -c: averaged over all 3 qrels queries
  // The identical run: no difference, p = 1.
  assert.equal(mapRows[2].diff, 0);
  assert.equal(mapRows[2].tP, 1);
  // The truncated run's t-test equals a paired t-test on the per-query values (missing query 302 = 0 under -c).
  const a = evaluateTrecFiles(DATA + 'qrels.test', DATA + 'results.trunc', ['map'], { missing: 'zero' }).result.perQuery[0];
  const b = evaluateTrecFiles(DATA + 'qrels.test', DATA + 'results.test', ['map'], { missing: 'zero' }).result.perQuery[0];
  assert.equal(mapRows[1].queries, 3);
  assert.equal(mapRows[1].tP, pairedTTest(a, b).p);
  for (const m of ['map', 'P_10']) {
    const compared = rows.filter((r) => r.diff !== undefined && r.measure === m);
    assert.equal(compared.length, 2, m);
    assert.deepEqual(compared.map((r) => r.tPHolm), holm(compared.map((r) => r.tP!)), `${m}: Holm over its own runs`);
    assert.deepEqual(compared.map((r) => r.randPHolm), holm(compared.map((r) => r.randP!)));
  }
  // The tests are testAgainstBaseline's (the run's): the same values, family and seed give the same p.
  const values = [runs[0], runs[1]].flatMap((path, k) => {
    const e = evaluateTrecFiles(DATA + 'qrels.test', path, ['map'], { missing: 'zero' });
    return Array.from(e.result.perQuery[0], (value, q) => ({ family: 'map', cell: '', system: String(k), query: e.tables.queries.get(q), value }));
  });
  assert.equal(testAgainstBaseline(values, '0', { trials: 500, seed: 5 })[0].randP, mapRows[1].randP);
  assert.deepEqual(compareTrecRuns(DATA + 'qrels.test', runs, ['map', 'P.10'], { missing: 'zero' }, { trials: 500, seed: 5 }), rows);
  assert.match(formatComparison(rows), /baseline/);
});
