/**
 * Significance tests against reference values computed with scipy (special.gammaln, special.betainc,
 * stats.t.sf/cdf, stats.ttest_rel), an exact randomization distribution by enumeration, and statsmodels'
 * Holm correction: test/eval/fixtures/significance.json, written by make_significance_fixture.py in the same
 * folder (its provenance block names the command and the library versions). No Python is needed here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  holm,
  logGamma,
  pairedRandomizationTest,
  pairedTTest,
  regularizedIncompleteBeta,
  studentTwoSidedP,
  testAgainstBaseline,
  type QueryValue,
} from '../../src/eval/significance.ts';

const F = JSON.parse(readFileSync(new URL('./fixtures/significance.json', import.meta.url), 'utf8'));

const close = (a: number, b: number, rel = 1e-10) => assert.ok(Math.abs(a - b) <= rel * Math.max(Math.abs(b), 1e-300), `${a} vs ${b}`);
/** A Monte-Carlo p from `trials` draws is within 5 standard errors (plus the (k+1)/(n+1) offset) of the exact p. */
const nearExact = (p: number, exact: number, trials: number) =>
  assert.ok(Math.abs(p - exact) <= 5 * Math.sqrt((exact * (1 - exact)) / trials) + 2 / trials, `${p} ≈ exact ${exact}`);

test('fixture provenance names the generating script and library versions', () => {
  const p = F.provenance;
  assert.equal(p.script, 'test/eval/fixtures/make_significance_fixture.py');
  assert.ok(readFileSync(new URL('./fixtures/make_significance_fixture.py', import.meta.url), 'utf8').includes('scipy'));
  assert.match(p.scipy, /^\d+\.\d+/);
  assert.match(p.numpy, /^\d+\.\d+/);
  assert.match(p.date, /^\d{4}-\d{2}-\d{2}$/);
});

test('log-gamma and the regularized incomplete beta equal scipy', () => {
  assert.ok(F.lgamma.length >= 5);
  for (const { x, value } of F.lgamma) assert.ok(Math.abs(logGamma(x) - value) < 1e-12, `lgamma(${x}): ${logGamma(x)} vs ${value}`);
  assert.ok(F.betainc.length >= 6);
  for (const { x, a, b, value } of F.betainc) {
    if (value === 1) assert.ok(Math.abs(regularizedIncompleteBeta(x, a, b) - 1) < 1e-15, `I_${x}(${a}, ${b})`);
    else close(regularizedIncompleteBeta(x, a, b), value, 1e-9);
  }
});

test('two-sided Student t p-values equal scipy (2·t.sf(|t|, df))', () => {
  assert.ok(F.studentTwoSided.length >= 6);
  for (const { t, df, p, cdf } of F.studentTwoSided) {
    close(studentTwoSidedP(t, df), p, 1e-9);
    // the same numbers seen through the CDF: p = 2·min(cdf, 1 − cdf) (where 1 − cdf keeps its digits)
    if (Math.min(cdf, 1 - cdf) > 1e-6) close(studentTwoSidedP(t, df), 2 * Math.min(cdf, 1 - cdf), 1e-9);
  }
});

test('paired t-test equals scipy.stats.ttest_rel', () => {
  const { a, b, t, p, df } = F.ttestRel;
  const r = pairedTTest(a, b);
  close(r.t, t, 1e-12);
  close(r.p, p, 1e-9);
  assert.equal(r.df, df);
  assert.equal(pairedTTest(a, a).p, 1);
  assert.equal(pairedTTest([1, 2, 3], [0, 1, 2]).p, 0); // constant shift, no variance
  assert.throws(() => pairedTTest([1, NaN], [1, 2]), /no value in one run/);
  assert.throws(() => pairedTTest([1, 2], [1]), /equal lengths/);
});

test('randomization test: deterministic given the seed, close to the exact enumerated p', () => {
  const { a, b, p: exact, signPatterns } = F.exactRandomization;
  assert.equal(signPatterns, 2 ** a.length);
  const r1 = pairedRandomizationTest(a, b, { trials: 20000, seed: 7 });
  const r2 = pairedRandomizationTest(a, b, { trials: 20000, seed: 7 });
  assert.equal(r1.p, r2.p);
  assert.notEqual(pairedRandomizationTest(a, b, { trials: 20000, seed: 8 }).p, r1.p);
  nearExact(r1.p, exact, 20000);
  assert.equal(pairedRandomizationTest(a, a, { trials: 100, seed: 1 }).p, 1);
});

test('Holm correction equals statsmodels multipletests(method="holm")', () => {
  assert.ok(F.holm.length >= 4);
  for (const { p, adjusted } of F.holm) {
    const got = holm(p);
    assert.equal(got.length, adjusted.length);
    got.forEach((x, i) => assert.ok(Math.abs(x - adjusted[i]) < 1e-15, `holm(${p})[${i}] = ${x} vs ${adjusted[i]}`));
  }
  assert.deepEqual(holm([]), []);
});

test('rounding noise is no difference: equal means reached by other float paths give p = 1', () => {
  // The same two per-query values averaged over two repeats in swapped roles: equal in exact arithmetic,
  // 5.6e-17 apart in floats (found in a real run: a t-test over that noise reported p 0.34).
  const x = 0.3684210526315789 / 2 + 0.5263157894736842 / 2;
  const y = 0.39473684210526316 / 2 + 0.5 / 2;
  assert.notEqual(x, y);
  const a = [x, 0.5, 0.25, 0.75];
  const b = [y, 0.5, 0.25, 0.75];
  assert.deepEqual([pairedTTest(a, b).p, pairedTTest(a, b).meanDiff], [1, 0]);
  assert.equal(pairedRandomizationTest(a, b, { trials: 100, seed: 1 }).p, 1);
  // Noise of one sign on every query would otherwise look like a perfectly consistent shift (p = 0).
  assert.equal(pairedTTest([x, x, x], [y, y, y]).p, 1);
  assert.ok(pairedTTest([0.5 + 1e-9, 0.25 + 1e-9, 0.75 + 1e-9], [0.5, 0.25, 0.75]).p < 1e-10, 'a real (small) constant shift stays one');
});

test('testAgainstBaseline: repeats averaged per query, pairs on shared queries, Holm within each family only', () => {
  const v = (family: string, cell: string, system: string, query: string, value: number): QueryValue => ({ family, cell, system, query, value });
  const values: QueryValue[] = [
    // family F, cell c1: base and sys over queries q1..q4; sys has two repeats of q1..q3 and q4 once; base also has q5
    ...[0.1, 0.2, 0.3, 0.4, 0.9].map((x, i) => v('F', 'c1', 'base', `q${i + 1}`, x)),
    ...[0.3, 0.5, 0.4].map((x, i) => v('F', 'c1', 'sys', `q${i + 1}`, x)),
    ...[0.5, 0.1, 0.6, 0.8].map((x, i) => v('F', 'c1', 'sys', `q${i + 1}`, x)),
    // cell c2 of the same family, and a system with one shared query only (untestable: left out)
    ...[0.2, 0.4, 0.6].map((x, i) => v('F', 'c2', 'base', `q${i + 1}`, x)),
    ...[0.3, 0.6, 0.6].map((x, i) => v('F', 'c2', 'sys', `q${i + 1}`, x)),
    v('F', 'c2', 'lonely', 'q1', 0.5),
    // another family: its Holm does not see family F
    ...[0.2, 0.4, 0.6].map((x, i) => v('G', 'c1', 'base', `q${i + 1}`, x)),
    ...[0.25, 0.3, 0.9].map((x, i) => v('G', 'c1', 'sys', `q${i + 1}`, x)),
  ];
  const got = testAgainstBaseline(values, 'base', { trials: 2000, seed: 3 });
  assert.deepEqual(got.map((c) => `${c.family} ${c.cell} ${c.system}`), ['F c1 sys', 'F c2 sys', 'G c1 sys']);
  const [c1, c2, g] = got;
  // q1..q3 averaged over both repeats, q4 its single value; q5 has no pair.
  const a1 = [0.4, 0.3, 0.5, 0.8];
  const b1 = [0.1, 0.2, 0.3, 0.4];
  assert.equal(c1.n, 4);
  assert.equal(c1.tP, pairedTTest(a1, b1).p);
  assert.equal(c1.meanDiff, pairedTTest(a1, b1).meanDiff);
  assert.equal(c1.randP, pairedRandomizationTest(a1, b1, { trials: 2000, seed: '3|F|c1|sys' }).p);
  const [h1, h2] = holm([c1.tP, c2.tP]);
  assert.deepEqual([c1.tHolm, c2.tHolm], [h1, h2]);
  assert.deepEqual([c1.randHolm, c2.randHolm], holm([c1.randP, c2.randP]));
  assert.equal(g.tHolm, g.tP, 'a family of one: Holm changes nothing');
  // A comparison's p does not depend on which others run (its seed names it).
  const alone = testAgainstBaseline(values.filter((x) => x.cell === 'c1' && x.family === 'F'), 'base', { trials: 2000, seed: 3 });
  assert.equal(alone[0].randP, c1.randP);
  assert.equal(alone[0].tHolm, c1.tP);
  // No baseline in a cell: nothing to compare there.
  assert.deepEqual(testAgainstBaseline(values, 'nobody'), []);
});
