/**
 * ranx's fusion methods (ranx/fusion/), per query over the union of the runs' documents, with ranx's arithmetic:
 * sums run over the runs in their order (from 0, as Python's sum), a document missing from a run adds 0 to sums
 * and counts as −1e9 for max and 1e9 for min (ranx's fill values), and the rank-based methods (rrf, isr, log_isr,
 * logn_isr, rbc, bordafuse, condorcet) read positions in each run's order after normalisation.
 */
import { logRounded, powRounded } from './pow.ts';
import type { FusionMethod, FusionParams, FusionSpec, QueryRuns } from './types.ts';

/** Which parameters each method takes, and the defaults ranx gives (undefined: required). */
export const METHOD_PARAMS: Record<FusionMethod, Partial<Record<keyof FusionParams, number | undefined>>> = {
  rrf: { k: 60 }, sum: {}, mnz: {}, max: {}, min: {}, med: {}, anz: {}, gmnz: { gamma: undefined },
  wsum: { weights: undefined }, wmnz: { weights: undefined }, isr: {}, log_isr: {}, logn_isr: { sigma: 0.01 },
  rbc: { phi: undefined }, bordafuse: {}, condorcet: {},
};

/** What is wrong with a method's parameters for `runs` inputs (the parameter and the problem), or undefined. */
export function paramsProblem(method: FusionMethod, p: FusionParams, runs: number): { param: keyof FusionParams; problem: string } | undefined {
  const takes = METHOD_PARAMS[method];
  for (const key of Object.keys(p) as (keyof FusionParams)[]) {
    if (p[key] !== undefined && !(key in takes)) {
      const has = Object.keys(takes);
      return { param: key, problem: `${method} takes no ${key} (${has.length ? `it takes ${has.join(', ')}` : 'it takes no parameter'})` };
    }
  }
  for (const key of Object.keys(takes) as (keyof FusionParams)[]) {
    if (p[key] === undefined && takes[key] === undefined) return { param: key, problem: `${method} needs ${key}` };
  }
  const bad = (param: keyof FusionParams, problem: string) => ({ param, problem });
  if (p.k !== undefined && !(Number.isFinite(p.k) && p.k >= 0)) return bad('k', `must be a number ≥ 0, got ${p.k}`);
  if (p.gamma !== undefined && !Number.isFinite(p.gamma)) return bad('gamma', `must be a number, got ${p.gamma}`);
  if (p.sigma !== undefined && !(p.sigma >= 0 && p.sigma <= 1)) return bad('sigma', `must be in [0, 1], got ${p.sigma}`);
  if (p.phi !== undefined && !(p.phi >= 0 && p.phi < 1)) return bad('phi', `must be in [0, 1), got ${p.phi}`);
  if (p.weights !== undefined) {
    if (p.weights.length !== runs) return bad('weights', `${p.weights.length} weight${p.weights.length === 1 ? '' : 's'} for ${runs} runs (give one per run, in the runs' order)`);
    const w = p.weights.find((x) => !Number.isFinite(x));
    if (w !== undefined) return bad('weights', `must be numbers, got ${w}`);
  }
  return undefined;
}

/** ranx's parameters with its defaults filled in. */
export function withDefaults(method: FusionMethod, p: FusionParams): FusionParams {
  const out: FusionParams = { ...p };
  for (const [key, d] of Object.entries(METHOD_PARAMS[method]) as [keyof FusionParams, number | undefined][]) {
    if (out[key] === undefined && d !== undefined) (out as Record<string, unknown>)[key] = d;
  }
  return out;
}

/** numba's float ** int: exponentiation by squaring (not pow), which rbc's phi ** i is in ranx. */
function intPower(a: number, b: number): number {
  let r = 1;
  let exp = b;
  while (exp !== 0) {
    if (exp & 1) r *= a;
    exp >>= 1;
    a *= a;
  }
  return r;
}

/** Per run, the values of its documents (aligned with its ids) laid out over the union (NaN where it lacks one). */
function dense(n: number, ids: Int32Array[], vals: Float64Array[]): Float64Array[] {
  return ids.map((id, r) => {
    const out = new Float64Array(n).fill(NaN);
    for (let i = 0; i < id.length; i++) out[id[i]] = vals[r][i];
    return out;
  });
}

/** Per run, a value for each position of its list. */
function byPosition(q: QueryRuns, f: (i: number) => number): Float64Array[] {
  return q.ids.map((ids) => {
    const out = new Float64Array(ids.length);
    for (let i = 0; i < ids.length; i++) out[i] = f(i);
    return out;
  });
}

/** The fused score of every document of the union (ids 0…n−1) of normalised runs. */
export function fuseScores(q: QueryRuns, spec: FusionSpec): Float64Array {
  const { method } = spec;
  const p = withDefaults(method, spec.params);
  const n = q.n;
  const R = q.ids.length;
  if (method === 'condorcet') return condorcet(q);
  let ids = q.ids;
  let vals: Float64Array[];
  switch (method) {
    case 'rrf': vals = byPosition(q, (i) => 1 / (p.k! + i + 1)); break;
    case 'isr': case 'log_isr': case 'logn_isr': vals = byPosition(q, (i) => 1 / ((i + 1) * (i + 1))); break;
    case 'rbc': vals = byPosition(q, (i) => (1 - p.phi!) * intPower(p.phi!, i)); break;
    case 'bordafuse': {
      // Every run scores every document of the union.
      const all = new Int32Array(n);
      for (let d = 0; d < n; d++) all[d] = d;
      vals = q.ids.map((id) => {
        const col = new Float64Array(n).fill((n - id.length + 1) / 2);
        for (let i = 0; i < id.length; i++) col[id[i]] = n - i;
        return col;
      });
      ids = q.ids.map(() => all);
      break;
    }
    default: vals = q.scores;
  }
  if (method !== 'max' && method !== 'min' && method !== 'med') return accumulate(ids, vals, n, method, p);
  const cols = dense(n, ids, vals);
  const out = new Float64Array(n);
  const present = new Float64Array(R);
  for (let d = 0; d < n; d++) {
    let hits = 0;
    for (let r = 0; r < R; r++) {
      const v = cols[r][d];
      if (v === v) present[hits++] = v;
    }
    if (method === 'med') {
      const s = present.subarray(0, hits).slice().sort();
      out[d] = hits & 1 ? s[hits >> 1] : (s[(hits >> 1) - 1] + s[hits >> 1]) / 2;
    } else {
      const fill = method === 'max' ? -1e9 : 1e9;
      let m = NaN;
      for (let r = 0; r < R; r++) {
        const v = cols[r][d] === cols[r][d] ? cols[r][d] : fill;
        if (m !== m || (method === 'max' ? v > m : v < m)) m = v;
      }
      out[d] = m;
    }
  }
  return out;
}

/**
 * The sum-based methods, run by run: each document's sum gets run 0's value, then run 1's, … — Python's
 * sequential sum over the runs in order — and a run lacking the document adds nothing (ranx adds 0.0).
 */
function accumulate(ids: Int32Array[], vals: Float64Array[], n: number, method: FusionMethod, p: FusionParams): Float64Array {
  const sum = new Float64Array(n);
  const hits = new Float64Array(n);
  const wsum = new Float64Array(n);
  const w = p.weights;
  const weighted = method === 'wsum';
  ids.forEach((id, r) => {
    const v = vals[r];
    for (let i = 0; i < id.length; i++) {
      const d = id[i];
      sum[d] += weighted ? w![r] * v[i] : v[i];
      hits[d]++;
      if (w) wsum[d] += w[r];
    }
  });
  for (let d = 0; d < n; d++) {
    const s = sum[d];
    const h = hits[d];
    switch (method) {
      case 'mnz': case 'isr': sum[d] = s * h; break;
      case 'anz': sum[d] = s / h; break;
      case 'gmnz': sum[d] = s * powRounded(h, p.gamma!); break;
      case 'log_isr': sum[d] = s * logRounded(h); break;
      case 'logn_isr': sum[d] = s * logRounded(h + p.sigma!); break;
      case 'wmnz': sum[d] = s * wsum[d]; break;
      default: // sum, wsum, rrf, rbc, bordafuse
    }
  }
  return sum;
}

/**
 * ranx's condorcet: the union sorted by pairwise majority — x before y when the runs ranking x above y (a missing
 * document ranks below every retrieved one) are at least as many as the rest — scored N − position. That
 * comparison is not a total order where runs disagree in a cycle or leave both documents out; then the outcome
 * depends on the sort's input order, which in ranx is Python's set order of the docnos (string-hash dependent),
 * and here first appearance (JavaScript's sort is TimSort, as Python's).
 */
function condorcet(q: QueryRuns): Float64Array {
  const n = q.n;
  const R = q.ids.length;
  const pos = q.ids.map((ids) => {
    const at = new Int32Array(n).fill(1_000_000);
    for (let i = 0; i < ids.length; i++) if (at[ids[i]] === 1_000_000) at[ids[i]] = i;
    return at;
  });
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => {
    let xv = 0;
    for (let r = 0; r < R; r++) if (pos[r][x] < pos[r][y]) xv++;
    return xv >= R - xv ? -1 : 1;
  });
  const out = new Float64Array(n);
  order.forEach((d, i) => { out[d] = n - i; });
  return out;
}
