/** Several runs vs a baseline: paired on common queries, Holm across all comparisons, reproducible. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compareTrecRuns, formatComparison } from '../../src/eval/compare.ts';
import { holm, pairedTTest } from '../../src/eval/significance.ts';
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
  const compared = rows.filter((r) => r.diff !== undefined);
  assert.deepEqual(compared.map((r) => r.tPHolm), holm(compared.map((r) => r.tP!)));
  assert.deepEqual(compareTrecRuns(DATA + 'qrels.test', runs, ['map', 'P.10'], { missing: 'zero' }, { trials: 500, seed: 5 }), rows);
  assert.match(formatComparison(rows), /baseline/);
});
