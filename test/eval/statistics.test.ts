/**
 * Intervals, effect sizes, corrections, the randomised Tukey HSD, letter groups and slices against scipy and
 * statsmodels: test/fixtures/statistics/expected.json (scripts/dev/check-statistics.py) holds their values for a
 * committed fixture of six runs of graded strength over 60 queries.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { comparisonJson, compareTrecRecord, readSliceLabels } from '../../src/eval/compare.ts';
import { adjustP, bootstrapInterval, compactLetters, meanInterval, randomizedTukeyHsd, tQuantile } from '../../src/eval/statistics.ts';
import { Rng } from '../../src/util/rng.ts';
import { cliArgv } from '../helpers/cli.ts';

const FX = fileURLToPath(new URL('../fixtures/statistics/', import.meta.url));
const E = JSON.parse(readFileSync(FX + 'expected.json', 'utf8'));
const RUNS = [0, 1, 2, 3, 4, 5].map((k) => FX + `run${k}.txt`);
const close = (a: number, b: number, tol: number, what: string) => assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b} (tolerance ${tol})`);
const closeI = (a: [number, number] | null, b: [number, number] | null, tol: number, what: string) => {
  assert.ok(a && b, `${what}: ${a} vs ${b}`);
  close(a[0], b[0], tol, `${what} lo`);
  close(a[1], b[1], tol, `${what} hi`);
};

let cached: ReturnType<typeof compareTrecRecord> | undefined;
const record = () =>
  (cached ??= compareTrecRecord(FX + 'qrels.txt', RUNS, ['map', 'P.10'], { missing: 'zero' }, {
    trials: 10000, seed: 3, allPairs: true, slices: { file: FX + 'slices.tsv', labels: readSliceLabels(FX + 'slices.tsv') },
  }));

test('tQuantile equals scipy.stats.t.ppf to 1e-12 (relative)', () => {
  assert.ok(E.tPpf.length >= 50);
  for (const { q, df, x } of E.tPpf) close(tQuantile(q, df), x, 1e-12, `t.ppf(${q}, ${df})`);
  assert.equal(tQuantile(0.5, 7), 0);
});

test('adjustP equals statsmodels multipletests (holm, bonferroni, fdr_bh) to 1e-12, ties included', () => {
  for (const l of E.multipletests) {
    for (const m of ['holm', 'bonferroni', 'bh'] as const) adjustP(l.p, m).forEach((x, i) => close(x, l[m][i], 1e-12, `${m} ${l.p}[${i}]`));
    assert.deepEqual(adjustP(l.p, 'none'), l.p);
  }
});

test('eval record: means, t-interval, d_z and t-test p equal scipy to 1e-9; corrections statsmodels to 1e-12', () => {
  const r = record().record;
  assert.deepEqual(r.runs, ['run0', 'run1', 'run2', 'run3', 'run4', 'run5']);
  assert.equal(r.means.length, E.means.length);
  r.means.forEach((m, i) => {
    const e = E.means[i];
    assert.deepEqual([m.measure, m.run, m.queries], [e.measure, e.run, e.queries]);
    close(m.mean, e.mean, 1e-9, `mean ${m.measure} ${m.run}`);
    closeI(m.ci95, e.ci95, 1e-9, `mean ci ${m.measure} ${m.run}`);
  });
  assert.equal(r.comparisons.length, 10);
  r.comparisons.forEach((c, i) => {
    const e = E.comparisons[i];
    const what = `${c.measure} ${c.run}`;
    assert.deepEqual([c.measure, c.run, c.baseline, c.queries, c.correction], [e.measure, e.run, e.baseline, e.queries, 'holm']);
    close(c.meanDiff, e.meanDiff, 1e-9, what);
    closeI(c.ci95, e.ci95, 1e-9, `${what} t-interval`);
    close(c.effectSize, e.effectSize, 1e-9, `${what} d_z`);
    close(c.pT, e.pT, 1e-9, `${what} pT`);
    close(c.pAdjusted, e.pAdjusted.holm, 1e-12, `${what} Holm`);
    // The percentile bootstrap is Monte-Carlo (other draws than scipy's): within 5 % of the interval's width.
    const w = e.bootstrapCi95[1] - e.bootstrapCi95[0];
    assert.ok(Math.abs(c.bootstrapCi95![0] - e.bootstrapCi95[0]) < 0.05 * w && Math.abs(c.bootstrapCi95![1] - e.bootstrapCi95[1]) < 0.05 * w, `${what} bootstrap ${c.bootstrapCi95} vs ${e.bootstrapCi95}`);
    // The randomization test's p and its correction: a family's adjusted values are adjustP of its p.
  });
  for (const correction of ['bonferroni', 'bh', 'none'] as const) {
    const other = compareTrecRecord(FX + 'qrels.txt', RUNS, ['map', 'P.10'], { missing: 'zero' }, { trials: 200, seed: 3, correction }).record;
    other.comparisons.forEach((c, i) => {
      assert.equal(c.correction, correction);
      close(c.pAdjusted, correction === 'none' ? E.comparisons[i].pT : E.comparisons[i].pAdjusted[correction], 1e-12, `${correction} ${c.measure} ${c.run}`);
      const family = other.comparisons.filter((x) => x.measure === c.measure);
      assert.equal(c.pRandomizationAdjusted, adjustP(family.map((x) => x.pRandomization), correction)[family.indexOf(c)]);
    });
  }
});

test('Tukey HSD: p within Monte-Carlo error of an independent implementation; letters valid', () => {
  const r = record().record;
  assert.equal(r.allPairs!.length, 30);
  r.allPairs!.forEach((x, i) => {
    const e = E.allPairs[i];
    assert.deepEqual([x.measure, x.a, x.b], [e.measure, e.a, e.b]);
    close(x.meanDiff, e.meanDiff, 1e-12, `${x.measure} ${x.a}-${x.b} diff`);
    // Two independent estimates of p, 10,000 permutations each: |Δ| ≤ 4 standard errors of their difference.
    const p = (x.pTukey + e.pTukey) / 2;
    assert.ok(Math.abs(x.pTukey - e.pTukey) <= 4 * Math.sqrt((2 * p * (1 - p)) / 10000) + 3 / 10001, `${x.measure} ${x.a}-${x.b}: ${x.pTukey} vs ${e.pTukey}`);
  });
  for (const [measure, letters] of Object.entries(r.groups!)) {
    for (const x of r.allPairs!.filter((y) => y.measure === measure)) {
      const share = [...letters[x.a]].some((l) => letters[x.b].includes(l));
      assert.equal(share, x.pTukey >= 0.05, `${measure} ${x.a} (${letters[x.a]}) ${x.b} (${letters[x.b]}) p=${x.pTukey}`);
    }
    // The best mean's group is a.
    const best = r.means.filter((m) => m.measure === measure).sort((a, b) => b.mean - a.mean)[0];
    assert.match(letters[best.run], /^a/);
  }
  // Graded strength: the strongest and the weakest run differ.
  assert.ok(r.allPairs!.find((x) => x.measure === 'map' && x.a === 'run0' && x.b === 'run5')!.pTukey < 0.01);
});

test('compactLetters: the pairwise property on random significance patterns', () => {
  const rng = new Rng(11);
  for (let t = 0; t < 200; t++) {
    const m = 2 + rng.nextInt(8);
    const means = Array.from({ length: m }, () => rng.next());
    const diff = Array.from({ length: m }, () => new Array<boolean>(m).fill(false));
    for (let i = 0; i < m; i++) for (let j = i + 1; j < m; j++) diff[i][j] = diff[j][i] = rng.next() < 0.5;
    const letters = compactLetters(means, (i, j) => diff[i][j]);
    for (let i = 0; i < m; i++) {
      assert.ok(letters[i].length > 0);
      for (let j = i + 1; j < m; j++) assert.equal([...letters[i]].some((l) => l !== "'" && letters[j].includes(l)), !diff[i][j], `${letters} ${i} ${j}`);
    }
  }
});

test('randomizedTukeyHsd agrees with a straightforward implementation (same data, other draws)', () => {
  const rng = new Rng(5);
  const cols = [0, 0.05, 0.3].map((shift) => Float64Array.from({ length: 40 }, () => rng.next() + shift));
  const ours = randomizedTukeyHsd(cols, { trials: 4000, seed: 1 });
  // Straightforward: materialise each permuted matrix, column means, largest difference.
  const r2 = new Rng(99);
  const ranges: number[] = [];
  for (let b = 0; b < 4000; b++) {
    const means = [0, 0, 0];
    for (let q = 0; q < 40; q++) {
      const row = r2.shuffle(cols.map((c) => c[q]));
      row.forEach((v, s) => (means[s] += v / 40));
    }
    ranges.push(Math.max(...means) - Math.min(...means));
  }
  for (const [i, j] of [[0, 1], [0, 2], [1, 2]]) {
    const d = Math.abs(ours.means[i] - ours.means[j]);
    const p = (ranges.filter((x) => x >= d * (1 - 1e-12)).length + 1) / 4001;
    const pm = (p + ours.p[i][j]) / 2;
    assert.ok(Math.abs(p - ours.p[i][j]) <= 4 * Math.sqrt((2 * pm * (1 - pm)) / 4000) + 3 / 4001, `${i}-${j}: ${ours.p[i][j]} vs ${p}`);
  }
});

test('slices: per label n, mean and intervals exact (1e-12), differences to the baseline', () => {
  const s = record().record.slices!;
  assert.equal(s.length, E.slices.length);
  s.forEach((x, i) => {
    const e = E.slices[i];
    const what = `${x.measure} ${x.slice} ${x.run}`;
    assert.deepEqual([x.measure, x.slice, x.run, x.queries, x.baseline, x.pairedQueries], [e.measure, e.slice, e.run, e.queries, e.baseline, e.pairedQueries], what);
    close(x.mean, e.mean, 1e-12, what);
    closeI(x.ci95, e.ci95, 1e-12, what);
    if (e.meanDiff !== undefined) {
      close(x.meanDiff!, e.meanDiff, 1e-12, `${what} diff`);
      closeI(x.diffCi95!, e.diffCi95, 1e-12, `${what} diff ci`);
    }
  });
});

test('the same seed gives byte-identical JSON; another seed other Monte-Carlo values', () => {
  const opts = { trials: 300, seed: 9, allPairs: true };
  const a = comparisonJson(compareTrecRecord(FX + 'qrels.txt', RUNS.slice(0, 3), ['map'], { missing: 'zero' }, opts).record);
  const b = comparisonJson(compareTrecRecord(FX + 'qrels.txt', RUNS.slice(0, 3), ['map'], { missing: 'zero' }, opts).record);
  assert.equal(a, b);
  const c = comparisonJson(compareTrecRecord(FX + 'qrels.txt', RUNS.slice(0, 3), ['map'], { missing: 'zero' }, { ...opts, seed: 10 }).record);
  assert.notEqual(a, c);
  assert.deepEqual(JSON.parse(a).comparisons.map((x: { pT: number }) => x.pT), JSON.parse(c).comparisons.map((x: { pT: number }) => x.pT));
});

test('meanInterval and bootstrapInterval of fewer than two values: no interval', () => {
  assert.equal(meanInterval([0.5]).ci95, null);
  assert.equal(bootstrapInterval([0.5], { trials: 10, seed: 0 }), null);
});

test('citebench eval --json writes the record; bad --correction and a bad slices line are one line each', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-stats-'));
  try {
    const out = join(dir, 'r.json');
    const ok = spawnSync(process.execPath, cliArgv(['eval', '-c', '-m', 'map', FX + 'qrels.txt', RUNS[0], RUNS[5], '--trials', '200', '--correction', 'bh', '--all-pairs', '--json', out]), { encoding: 'utf8' });
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /95% CI of diff/);
    const j = JSON.parse(readFileSync(out, 'utf8'));
    assert.deepEqual(Object.keys(j.comparisons[0]), ['measure', 'run', 'baseline', 'queries', 'meanDiff', 'ci95', 'bootstrapCi95', 'effectSize', 'pT', 'pRandomization', 'pAdjusted', 'pRandomizationAdjusted', 'correction']);
    assert.equal(j.comparisons[0].correction, 'bh');
    assert.deepEqual(Object.keys(j.groups.map), ['run0', 'run5']);
    const bad = spawnSync(process.execPath, cliArgv(['eval', FX + 'qrels.txt', RUNS[0], RUNS[1], '--correction', 'sidak']), { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
    assert.match(bad.stderr, /--correction: unknown correction 'sidak' \(expected one of: holm, bonferroni, bh, none\)/);
    const slices = join(dir, 'slices.tsv');
    writeFileSync(slices, 'q01\tcs\nq02 bio\n');
    const bad2 = spawnSync(process.execPath, cliArgv(['eval', FX + 'qrels.txt', RUNS[0], RUNS[1], '--slices', slices]), { encoding: 'utf8' });
    assert.equal(bad2.status, 2);
    assert.equal(bad2.stderr.trim().split('\n').length, 1, bad2.stderr);
    assert.match(bad2.stderr, /slices\.tsv:2: expected 'qid<TAB>label'/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
