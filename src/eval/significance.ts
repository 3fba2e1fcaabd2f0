/**
 * Paired significance tests between two systems' per-query values over the same queries:
 * a paired t-test (two-sided p from Student's t via the regularized incomplete beta function), a seeded paired
 * randomization test (random sign flips of the differences), and Holm's step-down correction across comparisons.
 */
import { CitebenchError } from '../util/errors.ts';
import { Rng } from '../util/rng.ts';

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

/** Two-sided p-value of Student's t with df degrees of freedom: I_{df/(df+t²)}(df/2, 1/2). */
export function studentTwoSidedP(t: number, df: number): number {
  if (!Number.isFinite(t)) return 0;
  return regularizedIncompleteBeta(df / (df + t * t), df / 2, 0.5);
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
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((x, y) => x.p - y.p || x.i - y.i);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms; ~15 significant digits). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Regularized incomplete beta I_x(a, b) by Lentz's continued fraction (Numerical Recipes betacf). */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const lnFront = logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x);
  // The continued fraction converges fast for x < (a+1)/(a+b+2); otherwise use the symmetry I_x(a,b) = 1 − I_{1−x}(b,a).
  if (x < (a + 1) / (a + b + 2)) return (Math.exp(lnFront) * betaContinuedFraction(x, a, b)) / a;
  return 1 - (Math.exp(lnFront) * betaContinuedFraction(1 - x, b, a)) / b;
}

function betaContinuedFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 10000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-16) return h;
  }
  return h;
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

/** One system against the baseline in one cell: paired tests over the shared queries, Holm-adjusted within its family. */
interface BaselineComparison {
  family: string;
  cell: string;
  system: string;
  /** Queries paired (both systems have a value). */
  n: number;
  /** Mean of system − baseline over the paired queries. */
  meanDiff: number;
  tP: number;
  randP: number;
  tHolm: number;
  randHolm: number;
}

/**
 * Every system against `baseline` in every cell of every family: per query the mean over its repeats; each
 * system paired with the baseline of its own cell on the queries both have (ids in sorted order); a two-sided
 * paired t-test and a paired randomization test (`trials` sign flips, seeded with `${seed}|${name}`, the name
 * `${family}|${cell}|${system}` unless `name` gives another, so a comparison's p does not depend on which others
 * are run); Holm's correction over the comparisons of one
 * family, for each test. A comparison with fewer than two shared queries has no test: it is left out, and is no
 * member of its family. Results in the order the (family, cell, system) triples first appear.
 */
export function testAgainstBaseline(
  values: Iterable<QueryValue>,
  baseline: string,
  opts: { trials?: number; seed?: number | string; name?: (family: string, cell: string, system: string) => string } = {},
): BaselineComparison[] {
  const name = opts.name ?? ((family: string, cell: string, system: string) => `${family}|${cell}|${system}`);
  // family → cell → system → query → running sum and count (insertion order = first appearance)
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
  const mean = (m: Map<string, { s: number; n: number }>) => new Map([...m].map(([q, e]) => [q, e.s / e.n]));
  const out: BaselineComparison[] = [];
  for (const [family, cells] of tree) {
    const members: Omit<BaselineComparison, 'tHolm' | 'randHolm'>[] = [];
    for (const [cell, systems] of cells) {
      const base = systems.get(baseline);
      if (!base) continue;
      const b = mean(base);
      for (const [system, qs] of systems) {
        if (system === baseline) continue;
        const a = mean(qs);
        const shared = [...a.keys()].filter((q) => b.has(q)).sort();
        if (shared.length < 2) continue;
        const x = Float64Array.from(shared, (q) => a.get(q)!);
        const y = Float64Array.from(shared, (q) => b.get(q)!);
        const t = pairedTTest(x, y);
        const r = pairedRandomizationTest(x, y, { trials: opts.trials ?? TRIALS, seed: `${opts.seed ?? 0}|${name(family, cell, system)}` });
        members.push({ family, cell, system, n: shared.length, meanDiff: t.meanDiff, tP: t.p, randP: r.p });
      }
    }
    const tH = holm(members.map((m) => m.tP));
    const rH = holm(members.map((m) => m.randP));
    members.forEach((m, i) => out.push({ ...m, tHolm: tH[i], randHolm: rH[i] }));
  }
  return out;
}
