/**
 * The numbers a reviewer asks for beside a p-value (docs/statistics.md): the t quantile (exact, by inverting
 * Student's CDF), the 95 % t-interval of a mean, a seeded percentile-bootstrap interval, the effect size d_z,
 * the corrections for multiple comparisons (Holm, Bonferroni, Benjamini–Hochberg, none; statsmodels'
 * `multipletests`), the randomised Tukey HSD over all pairs of several systems and its compact letter display.
 * significance.ts runs them for every comparison citebench makes; nothing here knows about runs or cells.
 */
import { CitebenchError } from '../util/errors.ts';
import { Rng } from '../util/rng.ts';

type Values = ArrayLike<number>;

/** A closed interval [lo, hi]; null where none exists (fewer than two values). */
export type Interval = [number, number] | null;

/** Two-sided p-value of Student's t with df degrees of freedom: I_{df/(df+t²)}(df/2, 1/2). */
export function studentTwoSidedP(t: number, df: number): number {
  if (!Number.isFinite(t)) return 0;
  // x = df/(df+t²) and 1 − x = t²/(df+t²), each with its logarithm computed without cancellation (large df).
  const r = (t * t) / df;
  return incompleteBetaParts(1 / (1 + r), r / (1 + r), -Math.log1p(r), Math.log(r) - Math.log1p(r), df / 2, 0.5);
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
  return incompleteBetaParts(x, 1 - x, Math.log(x), Math.log1p(-x), a, b);
}

/** I_x(a, b) given x, y = 1 − x and their logarithms (a caller may know them more precisely than 1 − x gives). */
function incompleteBetaParts(x: number, y: number, lnx: number, lny: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (y <= 0) return 1;
  const lnFront = -logBeta(a, b) + a * lnx + b * lny;
  // The continued fraction converges fast for x < (a+1)/(a+b+2); otherwise use the symmetry I_x(a,b) = 1 − I_{1−x}(b,a).
  if (x < (a + 1) / (a + b + 2)) return (Math.exp(lnFront) * betaContinuedFraction(x, a, b)) / a;
  return 1 - (Math.exp(lnFront) * betaContinuedFraction(y, b, a)) / b;
}

/** ln Γ(x) − (Stirling's approximation) for x ≥ 10: the Stirling series to x^-13 (error < 1e-17). */
function logGammaCorrection(x: number): number {
  const x2 = 1 / (x * x);
  return (1 / x) * (1 / 12 - x2 * (1 / 360 - x2 * (1 / 1260 - x2 * (1 / 1680 - x2 * (1 / 1188 - x2 * (691 / 360360 - x2 / 156))))));
}

/**
 * ln B(a, b) without the cancellation of ln Γ(a + b) − ln Γ(a) − ln Γ(b) at large arguments (R's lbeta): the
 * Stirling terms cancel analytically, their corrections are summed.
 */
function logBeta(a: number, b: number): number {
  const p = Math.min(a, b);
  const q = Math.max(a, b);
  if (p >= 10) {
    const corr = logGammaCorrection(p) + logGammaCorrection(q) - logGammaCorrection(p + q);
    return -0.5 * Math.log(q) + 0.918938533204672742 + corr + (p - 0.5) * Math.log(p / (p + q)) + q * Math.log1p(-p / (p + q));
  }
  if (q >= 10) {
    const corr = logGammaCorrection(q) - logGammaCorrection(p + q);
    return logGamma(p) + corr + p - p * Math.log(p + q) + (q - 0.5) * Math.log1p(-p / (p + q));
  }
  return logGamma(p) + logGamma(q) - logGamma(p + q);
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

const quantileCache = new Map<string, number>();

/**
 * Student's t quantile: the x with P(T ≤ x) = q for df degrees of freedom (scipy.stats.t.ppf), by bisection
 * on the two-sided p (regularized incomplete beta) to the last bit: monotone, so exact to rounding (~1e-14).
 */
export function tQuantile(q: number, df: number): number {
  if (!(q > 0 && q < 1) || !(df > 0)) throw new CitebenchError(`t quantile needs 0 < q < 1 and df > 0, got q=${q}, df=${df}`);
  if (q === 0.5) return 0;
  const key = `${q}|${df}`;
  const hit = quantileCache.get(key);
  if (hit !== undefined) return hit;
  // P(|T| ≥ x) = 2·min(q, 1 − q): find x ≥ 0.
  const target = 2 * Math.min(q, 1 - q);
  let lo = 0;
  let hi = 1;
  while (studentTwoSidedP(hi, df) > target) hi *= 2;
  for (let i = 0; i < 2000 && hi - lo > 0; i++) {
    const mid = lo + (hi - lo) / 2;
    if (mid === lo || mid === hi) break;
    if (studentTwoSidedP(mid, df) > target) lo = mid;
    else hi = mid;
  }
  const x = (lo + hi) / 2;
  const out = q > 0.5 ? x : -x;
  quantileCache.set(key, out);
  return out;
}

export interface MeanInterval {
  n: number;
  mean: number;
  /** Standard deviation with n − 1 (NaN for one value). */
  sd: number;
  /** mean ± t(0.975, n − 1)·sd/√n (scipy.stats.t.interval(0.95, n-1, loc=mean, scale=sd/√n)); null for n < 2. */
  ci95: Interval;
}

/** Mean of the values with its 95 % t-interval. */
export function meanInterval(x: Values, level = 0.95): MeanInterval {
  const n = x.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += x[i];
  mean /= n;
  if (n < 2) return { n, mean, sd: NaN, ci95: null };
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (x[i] - mean) ** 2;
  const sd = Math.sqrt(ss / (n - 1));
  const h = tQuantile(1 - (1 - level) / 2, n - 1) * (sd / Math.sqrt(n));
  return { n, mean, sd, ci95: [mean - h, mean + h] };
}

/** d_z: mean of the differences over their standard deviation (n − 1); 0 when all are 0, ±Infinity for a constant shift. */
export function effectSizeDz(d: Values): number {
  const m = meanInterval(d);
  if (m.sd === 0) return m.mean === 0 ? 0 : Math.sign(m.mean) * Infinity;
  return m.mean / m.sd;
}

/**
 * Percentile bootstrap interval of the mean (scipy.stats.bootstrap(..., method='percentile')): `trials`
 * resamples of the n values with replacement (seeded), the 2.5 % and 97.5 % quantiles of their means with
 * numpy's linear interpolation. null for n < 2.
 */
export function bootstrapInterval(x: Values, opts: { trials: number; seed: number | string; level?: number }): Interval {
  const n = x.length;
  if (n < 2) return null;
  const rng = new Rng(opts.seed);
  const means = new Float64Array(opts.trials);
  for (let b = 0; b < opts.trials; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += x[rng.nextInt(n)];
    means[b] = s / n;
  }
  means.sort();
  const a = (1 - (opts.level ?? 0.95)) / 2;
  return [percentile(means, a), percentile(means, 1 - a)];
}

/** numpy's default (linear) percentile of sorted values. */
function percentile(sorted: Float64Array, q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/** The corrections for multiple comparisons, as statsmodels' multipletests names them: holm, bonferroni, fdr_bh (bh), none. */
export const CORRECTIONS = ['holm', 'bonferroni', 'bh', 'none'] as const;
export type Correction = (typeof CORRECTIONS)[number];

/** The correction named `s`, or a one-line error naming `where` (a flag or a config key). */
export function parseCorrection(s: string, where: string): Correction {
  if (!(CORRECTIONS as readonly string[]).includes(s)) throw new CitebenchError(`${where}: unknown correction '${s}' (expected one of: ${CORRECTIONS.join(', ')})`);
  return s as Correction;
}

/** Adjusted p-values of one family, in the input order, equal to statsmodels' multipletests(p, method=…)[1]. */
export function adjustP(p: readonly number[], method: Correction): number[] {
  const m = p.length;
  if (method === 'none') return [...p];
  if (method === 'bonferroni') return p.map((x) => Math.min(1, x * m));
  const order = p.map((x, i) => ({ x, i })).sort((a, b) => a.x - b.x || a.i - b.i);
  const out = new Array<number>(m);
  if (method === 'holm') {
    let running = 0;
    order.forEach(({ x, i }, rank) => {
      running = Math.max(running, (m - rank) * x);
      out[i] = Math.min(1, running);
    });
    return out;
  }
  // Benjamini–Hochberg: p_(k)·m/k, the running minimum from the largest down, clipped at 1 (statsmodels fdr_bh).
  let running = Infinity;
  for (let k = m - 1; k >= 0; k--) {
    const { x, i } = order[k];
    running = Math.min(running, x / ((k + 1) / m));
    out[i] = Math.min(1, running);
  }
  return out;
}

/**
 * Randomised Tukey HSD (Carterette 2012; Sakai 2014): `columns[s][q]` is system s's value on query q (every
 * system has every query). Each of `trials` permutations shuffles every query's values across the systems (seeded
 * Fisher–Yates) and takes the largest difference between two system means; p(i, j) = (number of permutations
 * whose largest difference ≥ |mean_i − mean_j| + 1) / (trials + 1), the +1 of the randomization test (the observed
 * assignment is one of the permutations). Returns the m × m matrix of p (1 on the diagonal) and the means.
 */
export function randomizedTukeyHsd(columns: readonly Values[], opts: { trials: number; seed: number | string }): { means: number[]; p: number[][] } {
  const m = columns.length;
  if (m < 2) throw new CitebenchError(`Tukey HSD needs at least 2 systems, got ${m}`);
  const n = columns[0].length;
  if (columns.some((c) => c.length !== n)) throw new CitebenchError('Tukey HSD needs every system on the same queries');
  // Query-major copy: row q holds the m systems' values of query q.
  const x = new Float64Array(n * m);
  const sums = new Float64Array(m);
  for (let s = 0; s < m; s++) for (let q = 0; q < n; q++) { x[q * m + s] = columns[s][q]; sums[s] += columns[s][q]; }
  const rng = new Rng(opts.seed);
  const ranges = new Float64Array(opts.trials);
  const perm = new Uint32Array(m);
  const acc = new Float64Array(m);
  for (let b = 0; b < opts.trials; b++) {
    acc.fill(0);
    for (let q = 0; q < n; q++) {
      for (let s = 0; s < m; s++) perm[s] = s;
      for (let s = m - 1; s > 0; s--) {
        const j = rng.nextInt(s + 1);
        const t = perm[s]; perm[s] = perm[j]; perm[j] = t;
      }
      const row = q * m;
      for (let s = 0; s < m; s++) acc[s] += x[row + perm[s]];
    }
    let lo = Infinity;
    let hi = -Infinity;
    for (let s = 0; s < m; s++) { if (acc[s] < lo) lo = acc[s]; if (acc[s] > hi) hi = acc[s]; }
    ranges[b] = hi - lo;
  }
  ranges.sort();
  const p: number[][] = Array.from({ length: m }, () => new Array<number>(m).fill(1));
  for (let i = 0; i < m; i++) {
    for (let j = i + 1; j < m; j++) {
      // Sums, not means (same n): a permutation equal to the observed difference counts, despite rounding.
      const threshold = Math.abs(sums[i] - sums[j]) * (1 - 1e-12);
      let a = 0;
      let z = ranges.length;
      while (a < z) { const mid = (a + z) >> 1; if (ranges[mid] < threshold) a = mid + 1; else z = mid; }
      p[i][j] = p[j][i] = (ranges.length - a + 1) / (opts.trials + 1);
    }
  }
  return { means: Array.from(sums, (s) => s / n), p };
}

/**
 * Compact letter display (Piepho 2004): letters such that two systems share one iff they are not significantly
 * different — one letter per maximal clique of the "not different" graph (Bron–Kerbosch). `a` goes to the group
 * of the best mean, then in the order of the groups' best members. Returns each system's letters.
 */
export function compactLetters(means: readonly number[], different: (i: number, j: number) => boolean): string[] {
  const m = means.length;
  const byMean = [...means.keys()].sort((a, b) => means[b] - means[a] || a - b);
  const rankOf = new Array<number>(m);
  byMean.forEach((s, r) => (rankOf[s] = r));
  const adj = Array.from({ length: m }, (_, i) => new Set([...means.keys()].filter((j) => j !== i && !different(i, j))));
  const cliques: number[][] = [];
  const bk = (r: number[], p: number[], x: number[]) => {
    if (!p.length && !x.length) { cliques.push(r); return; }
    const pivot = [...p, ...x].reduce((best, u) => (adj[u].size > adj[best].size ? u : best));
    for (const v of p.filter((u) => !adj[pivot].has(u))) {
      bk([...r, v], p.filter((u) => adj[v].has(u)), x.filter((u) => adj[v].has(u)));
      p = p.filter((u) => u !== v);
      x = [...x, v];
    }
  };
  bk([], [...means.keys()], []);
  const key = (c: number[]) => c.map((s) => rankOf[s]).sort((a, b) => a - b);
  cliques.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < Math.min(ka.length, kb.length); i++) if (ka[i] !== kb[i]) return ka[i] - kb[i];
    return ka.length - kb.length;
  });
  const letters = new Array<string>(m).fill('');
  cliques.forEach((c, i) => { for (const s of c) letters[s] += letterName(i); });
  // Each system's letters in alphabetical order.
  return letters.map((l) => [...l.matchAll(/[a-z]'*/g)].map((x) => x[0]).join(''));
}

/** The i-th group letter: a … z, then a' … z', a'' … */
const letterName = (i: number) => 'abcdefghijklmnopqrstuvwxyz'[i % 26] + "'".repeat(Math.floor(i / 26));
