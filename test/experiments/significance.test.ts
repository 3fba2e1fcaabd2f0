/**
 * The one place significance is computed (experiments/significance-stage.ts): its families, its baseline rule,
 * and the notebooks' ad-hoc significanceFrame, which on a run's own per-query values gives back the stored rows.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { fabricateResults } from '../../bench/report/fabricate.ts';
import { baselinesOf, significanceFrame, significanceOf, significanceStage, type CellQueryValue } from '../../src/experiments/significance-stage.ts';
import { holm } from '../../src/eval/significance.ts';
import { aq, loadResults } from '../../src/report/frames.ts';
import { readResults, SIGNIFICANCE_FAMILY } from '../../src/report/results.ts';
import { CitebenchError } from '../../src/util/errors.ts';

let tmp = '';
before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'citebench-signif-'));
  fabricateResults(tmp, {
    queries: 10, pools: [500, 1000], scale: 1, repeats: 2, models: ['bm25', 'specter', 'scincl'],
    fields: ['Biology', 'Physics'], fieldQueries: 6, fieldPool: 400, k: 20, cited: 4, seed: 5,
  });
});
after(() => rmSync(tmp, { recursive: true, force: true }));

test("the baselines: the config's list (those ready), else the first lexical model; none without one", () => {
  const models = [{ name: 'specter', weights: 'trained' as const }, { name: 'bm25-tuned', weights: 'lexical' as const }, { name: 'bm25', weights: 'lexical' as const }];
  assert.deepEqual(baselinesOf({}, models), ['bm25-tuned']);
  assert.deepEqual(baselinesOf({ significance: { baselines: ['bm25', 'specter'] } }, models), ['bm25', 'specter']);
  const said: string[] = [];
  assert.deepEqual(baselinesOf({ significance: { baselines: ['scincl', 'bm25'] } }, models, (l) => said.push(l)), ['bm25'], 'a skipped baseline is left out');
  assert.match(said[0], /baseline scincl is not among the ready models/);
  assert.deepEqual(baselinesOf({}, [{ name: 'specter', weights: 'random' }]), []);
  const r = readResults(tmp);
  const none = significanceStage({ measures: r.measures, seed: r.seed }, tmp, [{ name: 'specter', kind: 'dense', weights: 'random' }], r.cells);
  const { correction, means, allPairs, groups, ...rest } = none;
  assert.deepEqual(rest, { baselines: [], trials: 10000, seed: r.seed, family: SIGNIFICANCE_FAMILY, alpha: 0.05, rows: [] }, 'no comparisons and no slices without a baseline');
  assert.equal(correction, 'holm');
  // Means, all pairs and letter groups need no baseline.
  assert.ok(means!.length > 0 && allPairs!.length > 0 && groups!.length > 0);
});

test('two baselines: one Holm family per baseline × protocol × setting × measure; the first baseline\'s rows as with it alone', () => {
  const r = readResults(tmp);
  const one = significanceStage({ measures: r.measures, seed: r.seed }, tmp, r.models, r.cells);
  const two = significanceStage({ measures: r.measures, seed: r.seed, significance: { baselines: ['bm25', 'specter'] } }, tmp, r.models, r.cells);
  assert.deepEqual(two.baselines, ['bm25', 'specter']);
  assert.deepEqual(two.rows.filter((x) => x.baseline === 'bm25'), one.rows);
  const vs = two.rows.filter((x) => x.baseline === 'specter');
  assert.deepEqual([...new Set(vs.map((x) => x.model))].sort(), ['bm25', 'scincl']);
  for (const fam of new Set(vs.map((x) => `${x.protocol}|${x.setting}|${x.measure}`))) {
    const part = vs.filter((x) => `${x.protocol}|${x.setting}|${x.measure}` === fam);
    assert.deepEqual(part.map((x) => x.pHolm), holm(part.map((x) => x.pT)), `${fam}: Holm within the specter family`);
  }
  // specter vs bm25 is bm25 vs specter negated: the same t-test p, the opposite mean difference.
  const a = one.rows.find((x) => x.model === 'specter' && x.protocol === 'dataset')!;
  const b = vs.find((x) => x.model === 'bm25' && x.protocol === 'dataset' && x.poolSize === a.poolSize && x.measure === a.measure)!;
  assert.ok(Math.abs(a.meanDiff + b.meanDiff) < 1e-15 && Math.abs(a.pT - b.pT) < 1e-12);
});

test('families: protocol × setting × measure, one comparison per model × (field, pool size); rows in table order', () => {
  const r = readResults(tmp);
  const s = r.significance!;
  assert.equal(s.rows.length, 2 * (2 * 3 + 2 * 3), 'models × (pools × measures + fields × measures)');
  for (const fam of new Set(s.rows.map((x) => `${x.protocol}|${x.setting}|${x.measure}`))) {
    const part = s.rows.filter((x) => `${x.protocol}|${x.setting}|${x.measure}` === fam);
    assert.equal(part.length, 4, `${fam}: 2 models × 2 pools or fields`);
    assert.deepEqual(part.map((x) => x.pHolm), holm(part.map((x) => x.pT)), `${fam}: t-test Holm within the family`);
    assert.deepEqual(part.map((x) => x.pRandomizationHolm), holm(part.map((x) => x.pRandomization)));
  }
  assert.deepEqual(s.rows.slice(0, 4).map((x) => `${x.protocol} ${x.measure} ${x.poolSize} ${x.model}`), ['dataset MAP 500 specter', 'dataset MAP 500 scincl', 'dataset MAP 1000 specter', 'dataset MAP 1000 scincl']);
  assert.deepEqual(s.rows.filter((x) => x.protocol === 'field').slice(0, 4).map((x) => `${x.field} ${x.model}`), ['Biology specter', 'Biology scincl', 'Physics specter', 'Physics scincl'], 'fields in the order of the tables');
  // Same cells, same record: the stage is deterministic.
  assert.deepEqual(significanceStage({ measures: r.measures, seed: r.seed }, tmp, r.models, r.cells), s);
});

test('significanceFrame: a run\'s own per-query values give back its stored rows; an ad-hoc frame needs no protocol', () => {
  const res = loadResults(tmp);
  const got = significanceFrame(res.queries({ split: 'test' }), { baseline: 'bm25', measures: res.index.measures, seed: res.index.seed });
  assert.deepEqual(got.objects(), res.significance!.objects());
  // An analyst's frame: two retrievers and a baseline on the same queries, two repeats of one.
  const rows = [
    ...['a', 'b', 'c', 'd'].map((query, i) => ({ model: 'base', query, MAP: [0.1, 0.2, 0.3, 0.4][i] })),
    ...['a', 'b', 'c', 'd'].flatMap((query, i) => [0, 1].map((repeat) => ({ model: 'new', query, repeat, MAP: [0.3, 0.3, 0.6, 0.5][i] + 0.1 * repeat }))),
    ...['a', 'b', 'c', 'd'].map((query, i) => ({ model: 'other', query, MAP: [0.1, 0.25, 0.3, 0.35][i] })),
  ];
  const f = significanceFrame(aq.from(rows), { baseline: 'base', measures: ['MAP'], trials: 1000 }).objects() as Record<string, unknown>[];
  assert.deepEqual(f.map((x) => [x.baseline, x.model, x.queries, x.field, x.poolSize]), [['base', 'new', 4, null, 0], ['base', 'other', 4, null, 0]]);
  assert.ok(Math.abs((f[0].meanDiff as number) - (0.25 + 0.15 + 0.35 + 0.15) / 4) < 1e-12, 'repeats averaged per query');
  assert.deepEqual(f.map((x) => x.pHolm), holm(f.map((x) => x.pT as number)));
  // The same rows as a plain array: the same answer.
  assert.deepEqual(significanceFrame(rows, { baseline: 'base', measures: ['MAP'], trials: 1000 }).objects(), f);
});

test('significanceFrame: bad input is one line saying what to do', () => {
  const res = loadResults(tmp);
  const q = res.queries({ split: 'test' });
  const bad = (fn: () => unknown, re: RegExp) => assert.throws(fn, (e: Error) => e instanceof CitebenchError && re.test(e.message) && !e.message.includes('\n'));
  bad(() => significanceFrame([...q.objects(), { ...q.object(0), split: 'val' }] as Record<string, unknown>[], { baseline: 'bm25', measures: ['MAP'] }), /the rows hold the test and val splits; keep one \(res\.queries\(\{ split: 'test' \}\)\)/);
  bad(() => significanceFrame(q, { baseline: 'bm25x', measures: ['MAP'] }), /no row of the baseline 'bm25x' \(models: bm25, specter, scincl\)/);
  bad(() => significanceFrame(q, { baseline: 'bm25', measures: [] }), /give the measure columns/);
  bad(() => significanceFrame(q, { baseline: 'bm25', measures: ['P@5'] }), /row 0 .*'P@5' is undefined, not a number/);
  bad(() => significanceFrame([{ model: 'bm25', MAP: 0.1 }], { baseline: 'bm25', measures: ['MAP'] }), /row 0 has no 'query' column/);
});

test('significanceOf: a family of its own per setting; a comparison with under two shared queries is left out', () => {
  const v = (setting: string, model: string, query: string, value: number): CellQueryValue => ({ protocol: 'dataset', setting, measure: 'MAP', field: null, poolSize: 10, model, query, value });
  const values = [
    ...[0.1, 0.2, 0.3].map((x, i) => v('inductive', 'bm25', `q${i}`, x)),
    ...[0.3, 0.3, 0.5].map((x, i) => v('inductive', 'm', `q${i}`, x)),
    ...[0.1, 0.2, 0.3].map((x, i) => v('transductive', 'bm25', `q${i}`, x)),
    ...[0.2, 0.4, 0.3].map((x, i) => v('transductive', 'm', `q${i}`, x)),
    v('transductive', 'lonely', 'q0', 0.9),
  ];
  const rows = significanceOf(values, 'bm25', { trials: 500, seed: 1 });
  assert.deepEqual(rows.map((x) => `${x.setting} ${x.model}`), ['transductive m', 'inductive m']);
  for (const x of rows) assert.equal(x.pHolm, x.pT, 'one comparison per family');
});
