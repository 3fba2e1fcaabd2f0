/** Significance tests against values computed with scipy 1.x (stats.t.sf, special.betainc, stats.ttest_rel). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  holm,
  logGamma,
  pairedRandomizationTest,
  pairedTTest,
  regularizedIncompleteBeta,
  studentTwoSidedP,
} from '../../src/eval/significance.ts';

const close = (a: number, b: number, rel = 1e-10) => assert.ok(Math.abs(a - b) <= rel * Math.max(Math.abs(b), 1e-300), `${a} vs ${b}`);

test('log-gamma and the regularized incomplete beta equal scipy', () => {
  for (const [x, v] of [[0.5, 0.5723649429247], [1, 0], [2.5, 0.2846828704729192], [10, 12.801827480081469], [100.5, 361.43554046777757]]) {
    assert.ok(Math.abs(logGamma(x) - v) < 1e-12, `lgamma(${x})`);
  }
  const cases: [number, number, number, number][] = [
    [0.3, 2, 3, 0.34829999999999994],
    [0.9, 0.5, 0.5, 0.7951672353008665],
    [0.01, 10, 0.5, 1.770034965528571e-21],
    [0.5, 50, 0.5, 9.90168898459413e-17],
    [0.2, 100, 0.5, 7.976289553984886e-72],
  ];
  for (const [x, a, b, v] of cases) close(regularizedIncompleteBeta(x, a, b), v, 1e-9);
  assert.ok(Math.abs(regularizedIncompleteBeta(0.999, 3, 7) - 1) < 1e-15);
});

test('two-sided Student t p-values equal scipy (2·t.sf(|t|, df))', () => {
  const cases: [number, number, number][] = [
    [2.0, 10, 0.07338803477074037],
    [1.96, 1000, 0.050273184955748736],
    [0.5, 3, 0.651447964848151],
    [4.2, 5, 0.008489558963066208],
    [-2.571, 5, 0.0499746346838514], // the textbook 5% critical value for df = 5
    [12.0, 199, 2.5799606747931776e-25],
  ];
  for (const [t, df, p] of cases) close(studentTwoSidedP(t, df), p, 1e-9);
});

test('paired t-test equals scipy.stats.ttest_rel', () => {
  const a = [0.5, 0.2, 0.9, 0.4, 0.7, 0.1, 0.3, 0.8];
  const b = [0.4, 0.25, 0.6, 0.35, 0.5, 0.15, 0.2, 0.55];
  const r = pairedTTest(a, b);
  close(r.t, 2.4430352131378665, 1e-12);
  close(r.p, 0.04456011484099075, 1e-9);
  assert.equal(r.df, 7);
  assert.equal(pairedTTest(a, a).p, 1);
  assert.equal(pairedTTest([1, 2, 3], [0, 1, 2]).p, 0); // constant shift, no variance
  assert.throws(() => pairedTTest([1, NaN], [1, 2]), /no value in one run/);
  assert.throws(() => pairedTTest([1, 2], [1]), /equal lengths/);
});

test('randomization test: deterministic given the seed, sensible p-values', () => {
  const a = [0.5, 0.2, 0.9, 0.4, 0.7, 0.1, 0.3, 0.8];
  const b = [0.4, 0.25, 0.6, 0.35, 0.5, 0.15, 0.2, 0.55];
  const r1 = pairedRandomizationTest(a, b, { trials: 20000, seed: 7 });
  const r2 = pairedRandomizationTest(a, b, { trials: 20000, seed: 7 });
  assert.equal(r1.p, r2.p);
  assert.notEqual(pairedRandomizationTest(a, b, { trials: 20000, seed: 8 }).p, r1.p);
  // The exact permutation p over all 2^8 sign patterns, counted here.
  const d = a.map((x, i) => x - b[i]);
  const obs = Math.abs(d.reduce((s, x) => s + x, 0));
  let k = 0;
  for (let m = 0; m < 256; m++) if (Math.abs(d.reduce((s, x, i) => s + (m >> i & 1 ? -x : x), 0)) >= obs - 1e-12) k++;
  assert.ok(Math.abs(r1.p - k / 256) < 0.01, `${r1.p} ≈ exact ${k / 256}`);
  assert.equal(pairedRandomizationTest(a, a, { trials: 100, seed: 1 }).p, 1);
});

test('Holm correction', () => {
  // m = 4: sorted 0.01, 0.02, 0.03, 0.04 → 0.04, 0.06, 0.06, 0.06 (monotone), returned in input order.
  assert.deepEqual(holm([0.03, 0.01, 0.04, 0.02]).map((x) => +x.toFixed(12)), [0.06, 0.04, 0.06, 0.06]);
  assert.deepEqual(holm([0.5, 0.9]), [1, 1]);
  assert.deepEqual(holm([]), []);
});
