/**
 * Paired significance tests between two systems' per-query values over the same queries:
 * a paired t-test (two-sided p from Student's t via the regularized incomplete beta function), a seeded paired
 * randomization test (random sign flips of the differences), and Holm's step-down correction across comparisons.
 */
import { CitebenchError } from '../util/errors.ts';
import { Rng } from '../util/rng.ts';
import { adjustP, bootstrapInterval, compactLetters, effectSizeDz, meanInterval, randomizedTukeyHsd, studentTwoSidedP, type Correction, type Interval } from './statistics.ts';

export { studentTwoSidedP, regularizedIncompleteBeta, logGamma } from './statistics.ts';

interface TTestResult {
  n: number;
  meanDiff: number;
  t: number;
  df: number;
  /** Two-sided p-value. */
  p: number;
}

interface RandomizationResult {
  n: number;
  meanDiff: number;
  trials: number;
  /** Two-sided p-value, (count of |permuted mean| ≥ |observed| + 1) / (trials + 1). */
  p: number;
}

/** Randomization-test trials of every test citebench runs unless told otherwise: the one place the default is written. */
export const TRIALS = 10_000;

type Values = ArrayLike<number>;

function differences(a: Values, b: Values): Float64Array {
  if (a.length !== b.length) throw new CitebenchError(`paired test needs equal lengths, got ${a.length} and ${b.length}`);
  if (a.length < 2) throw new CitebenchError(`paired test needs at least 2 queries, got ${a.length}`);
  const d = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) {
    if (!Number.isFinite(a[i]) || !Number.isFinite(b[i])) {
      throw new CitebenchError(
        `paired test: query ${i} has no value in one run (${a[i]}, ${b[i]}); evaluate with missing: 'zero' or keep only queries evaluated in both`,
      );
    }
    d[i] = a[i] - b[i];
    // Equal values reached by other float paths (e.g. means over repeats whose differences cancel) differ by
    // rounding only: that is no difference, and a t-test over rounding noise would report a p-value for it.
    if (Math.abs(d[i]) <= 1e-12 * Math.max(1, Math.abs(a[i]), Math.abs(b[i]))) d[i] = 0;
  }
  return d;
}

/** Paired two-sided t-test of a − b. */
export function pairedTTest(a: Values, b: Values): TTestResult {
  const d = differences(a, b);
  const n = d.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += d[i];
  mean /= n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (d[i] - mean) ** 2;
  const df = n - 1;
  const se = Math.sqrt(ss / df / n);
  if (se === 0) {
    // All differences equal: no variance. Identical systems ⇒ p = 1; a constant non-zero shift ⇒ p = 0.
    return { n, meanDiff: mean, t: mean === 0 ? 0 : Math.sign(mean) * Infinity, df, p: mean === 0 ? 1 : 0 };
  }
  const t = mean / se;
  return { n, meanDiff: mean, t, df, p: studentTwoSidedP(t, df) };
}

/**
 * Paired randomization test: each trial flips the sign of every difference with probability ½ (the null
 * hypothesis of exchangeable labels) and compares |mean| with the observed |mean|. Deterministic given seed.
 */
export function pairedRandomizationTest(a: Values, b: Values, opts: { trials?: number; seed?: number | string } = {}): RandomizationResult {
  const d = differences(a, b);
  const n = d.length;
  const trials = opts.trials ?? TRIALS;
  if (!Number.isInteger(trials) || trials < 1) throw new CitebenchError(`randomization trials must be a positive integer, got ${trials}`);
  const rng = new Rng(opts.seed ?? 0);
  let observed = 0;
  for (let i = 0; i < n; i++) observed += d[i];
  const threshold = Math.abs(observed) * (1 - 1e-12); // a permutation equal to the observed sum counts, despite rounding
  let atLeast = 0;
  for (let t = 0; t < trials; t++) {
    let sum = 0;
    let bits = 0;
    for (let i = 0; i < n; i++) {
      if ((i & 31) === 0) bits = rng.nextU32();
      sum += bits & 1 ? -d[i] : d[i];
      bits >>>= 1;
    }
    if (Math.abs(sum) >= threshold) atLeast++;
  }
  return { n, meanDiff: observed / n, trials, p: (atLeast + 1) / (trials + 1) };
}

/** Holm–Bonferroni adjusted p-values, in the input order. */
export function holm(pValues: readonly number[]): number[] {
  return adjustP(pValues, 'holm');
}

/**
 * citebench's one Holm family (docs/significance.md): one measure of one report table — a protocol and setting —
 * against one baseline (testAgainstBaseline runs per baseline), each table one question ("which models differ
 * from BM25 in MAP?"). `citebench eval` compares runs over one qrels file, i.e. one table cell of no named
 * protocol or setting: its families are its measures.
 */
export function holmFamily(v: { protocol?: string; setting?: string; measure: string }): string {
  return `${v.protocol ?? ''}|${v.setting ?? ''}|${v.measure}`;
}

/**
 * One value of one system on one query, in one cell of one family: the unit every significance test of citebench
 * (results.json, the report's marks, `citebench eval`'s comparison of runs, a notebook's ad-hoc comparison) is computed from.
 * `family` and `cell` are the caller's keys: the Holm family the comparison belongs to, and what is compared
 * within it (family = holmFamily, cell = e.g. field|pool size). Several values of the same
 * (family, cell, system, query) are the repeats of that query: they are averaged before the test, so a query is
 * one pair however many pool samples it was searched in.
 */
export interface QueryValue {
  family: string;
  cell: string;
  system: string;
  query: string;
  value: number;
}

/** One system against the baseline in one cell: paired tests over the shared queries, corrected within its family. */
export interface BaselineComparison {
  family: string;
  cell: string;
  system: string;
  /** Queries paired (both systems have a value). */
  n: number;
  /** Mean of system − baseline over the paired queries. */
  meanDiff: number;
  /** 95 % t-interval of the mean difference. */
  ci95: Interval;
  /** Seeded percentile-bootstrap 95 % interval of the mean difference (`trials` resamples). */
  bootstrapCi95: Interval;
  /** d_z = mean difference / sd of the differences (n − 1). */
  effectSize: number;
  tP: number;
  randP: number;
  /** Holm-adjusted p-values (the marks' historic family correction, kept whatever `correction` is). */
  tHolm: number;
  randHolm: number;
  /** p-values adjusted by `correction` over the family. */
  tAdj: number;
  randAdj: number;
  correction: Correction;
}

/** Options of the tests: trials of the randomization test, bootstrap and Tukey HSD; seed; how a comparison is named in its seed; the correction. */
export interface TestOptions {
  trials?: number;
  seed?: number | string;
  name?: (family: string, cell: string, system: string) => string;
  /** Correction over a family (default holm). */
  correction?: Correction;
}

type QueryMeans = Map<string, number>;

/** family → cell → system → query → mean over its repeats (insertion order = first appearance). */
function groupValues(values: Iterable<QueryValue>): Map<string, Map<string, Map<string, QueryMeans>>> {
  const tree = new Map<string, Map<string, Map<string, Map<string, { s: number; n: number }>>>>();
  const child = <K, V>(m: Map<K, V>, k: K, make: () => V): V => {
    let v = m.get(k);
    if (v === undefined) m.set(k, (v = make()));
    return v;
  };
  for (const v of values) {
    const q = child(child(child(tree, v.family, () => new Map()), v.cell, () => new Map()), v.system, () => new Map());
    const e = child(q, v.query, () => ({ s: 0, n: 0 }));
    e.s += v.value;
    e.n++;
  }
  return new Map([...tree].map(([f, cells]) => [f, new Map([...cells].map(([c, systems]) => [c, new Map([...systems].map(([s, qs]) => [s, new Map([...qs].map(([q, e]) => [q, e.s / e.n]))]))]))]));
}

const defaultName = (family: string, cell: string, system: string) => `${family}|${cell}|${system}`;

/**
 * Every system against `baseline` in every cell of every family: per query the mean over its repeats; each
 * system paired with the baseline of its own cell on the queries both have (ids in sorted order); a two-sided
 * paired t-test with the t-interval of the mean difference and d_z, a paired randomization test (`trials` sign
 * flips, seeded with `${seed}|${name}`, the name `${family}|${cell}|${system}` unless `name` gives another, so a
 * comparison's p does not depend on which others are run) and a percentile bootstrap interval (`trials`
 * resamples, seeded with `${seed}|${name}|bootstrap`); the correction (and Holm's, always) over the comparisons
 * of one family, for each test. A comparison with fewer than two shared queries has no test: it is left out,
 * and is no member of its family. Results in the order the (family, cell, system) triples first appear.
 */
export function testAgainstBaseline(values: Iterable<QueryValue>, baseline: string, opts: TestOptions = {}): BaselineComparison[] {
  const name = opts.name ?? defaultName;
  const trials = opts.trials ?? TRIALS;
  const correction = opts.correction ?? 'holm';
  const out: BaselineComparison[] = [];
  for (const [family, cells] of groupValues(values)) {
    const members: Omit<BaselineComparison, 'tHolm' | 'randHolm' | 'tAdj' | 'randAdj' | 'correction'>[] = [];
    for (const [cell, systems] of cells) {
      const b = systems.get(baseline);
      if (!b) continue;
      for (const [system, a] of systems) {
        if (system === baseline) continue;
        const shared = [...a.keys()].filter((q) => b.has(q)).sort();
        if (shared.length < 2) continue;
        const x = Float64Array.from(shared, (q) => a.get(q)!);
        const y = Float64Array.from(shared, (q) => b.get(q)!);
        const t = pairedTTest(x, y);
        const seed = `${opts.seed ?? 0}|${name(family, cell, system)}`;
        const r = pairedRandomizationTest(x, y, { trials, seed });
        const d = differences(x, y);
        members.push({
          family, cell, system, n: shared.length, meanDiff: t.meanDiff, ci95: meanInterval(d).ci95,
          bootstrapCi95: bootstrapInterval(d, { trials, seed: `${seed}|bootstrap` }), effectSize: effectSizeDz(d), tP: t.p, randP: r.p,
        });
      }
    }
    const tH = adjustP(members.map((m) => m.tP), 'holm');
    const rH = adjustP(members.map((m) => m.randP), 'holm');
    const tA = adjustP(members.map((m) => m.tP), correction);
    const rA = adjustP(members.map((m) => m.randP), correction);
    members.forEach((m, i) => out.push({ ...m, tHolm: tH[i], randHolm: rH[i], tAdj: tA[i], randAdj: rA[i], correction }));
  }
  return out;
}

/** One system's mean over the queries of one cell (each query's value the mean over its repeats), with its 95 % t-interval. */
export interface CellMean {
  family: string;
  cell: string;
  system: string;
  n: number;
  mean: number;
  ci95: Interval;
}

/** Every system's mean of every cell with its interval over queries, in first-appearance order. */
export function cellMeans(values: Iterable<QueryValue>): CellMean[] {
  const out: CellMean[] = [];
  for (const [family, cells] of groupValues(values)) {
    for (const [cell, systems] of cells) {
      for (const [system, qs] of systems) {
        const m = meanInterval(Float64Array.from([...qs.keys()].sort(), (q) => qs.get(q)!));
        out.push({ family, cell, system, n: m.n, mean: m.mean, ci95: m.ci95 });
      }
    }
  }
  return out;
}

/** All pairs of the systems of one cell: the randomised Tukey HSD and its letter groups. */
export interface AllPairs {
  family: string;
  cell: string;
  /** The systems, in first-appearance order; means and letters by the same index. */
  systems: string[];
  /** Queries every system has (the ones tested). */
  n: number;
  means: number[];
  /** Each system's 95 % t-interval of its mean over those queries. */
  ci95: Interval[];
  /** pairs[k]: systems a and b (a before b), mean_a − mean_b, Tukey HSD p. */
  pairs: { a: string; b: string; meanDiff: number; pTukey: number }[];
  /** Compact letter display at `alpha`: systems sharing a letter are not significantly different. */
  letters: string[];
}

/**
 * The randomised Tukey HSD over all systems of each cell, on the queries every system has (sorted ids; each a
 * mean over its repeats), `trials` permutations seeded with `${seed}|${name(family, cell, 'all-pairs')}|tukey`;
 * one family per cell, whose p are already corrected for all pairs. A cell of one system has no pairs and one
 * group (a); a cell with fewer than two shared queries is left out.
 */
export function testAllPairs(values: Iterable<QueryValue>, opts: TestOptions & { alpha?: number } = {}): AllPairs[] {
  const name = opts.name ?? defaultName;
  const alpha = opts.alpha ?? 0.05;
  const out: AllPairs[] = [];
  for (const [family, cells] of groupValues(values)) {
    for (const [cell, bySystem] of cells) {
      const systems = [...bySystem.keys()];
      const shared = [...bySystem.get(systems[0])!.keys()].filter((q) => systems.every((s) => bySystem.get(s)!.has(q))).sort();
      if (shared.length < 2) continue;
      const cols = systems.map((s) => Float64Array.from(shared, (q) => bySystem.get(s)!.get(q)!));
      if (systems.length === 1) {
        // One system: no pair to test, one group (its mean and interval still belong in the table).
        out.push({ family, cell, systems, n: shared.length, means: [meanInterval(cols[0]).mean], ci95: [meanInterval(cols[0]).ci95], pairs: [], letters: ['a'] });
        continue;
      }
      const t = randomizedTukeyHsd(cols, { trials: opts.trials ?? TRIALS, seed: `${opts.seed ?? 0}|${name(family, cell, 'all-pairs')}|tukey` });
      const pairs: AllPairs['pairs'] = [];
      for (let i = 0; i < systems.length; i++) for (let j = i + 1; j < systems.length; j++) pairs.push({ a: systems[i], b: systems[j], meanDiff: t.means[i] - t.means[j], pTukey: t.p[i][j] });
      out.push({ family, cell, systems, n: shared.length, means: t.means, ci95: cols.map((c) => meanInterval(c).ci95), pairs, letters: compactLetters(t.means, (i, j) => t.p[i][j] < alpha) });
    }
  }
  return out;
}
