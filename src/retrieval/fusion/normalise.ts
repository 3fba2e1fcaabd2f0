/**
 * ranx's score normalisations (ranx/normalization/), per query and run, in the run's order — sums run in that
 * order, as ranx's do, so the results are ranx's to the last bit wherever the arithmetic is the same. Every one
 * divides by at least 1e-9 (ranx's guard), which is also why `max` of an all-negative run multiplies by 1e9.
 */
import type { FusionNorm, QueryRuns } from './types.ts';

/** `q` normalised by `norm` (a new QueryRuns; `none` returns `q`). */
export function normalise(q: QueryRuns, norm: FusionNorm): QueryRuns {
  if (norm === 'none') return q;
  if (norm === 'borda') return bordaNorm(q);
  return { n: q.n, ids: q.ids, scores: q.scores.map((s) => normaliseRun(s, norm)) };
}

function normaliseRun(s: Float64Array, norm: Exclude<FusionNorm, 'none' | 'borda'>): Float64Array {
  const m = s.length;
  const out = new Float64Array(m);
  if (m === 0) return out;
  let min = s[0];
  let max = s[0];
  for (let i = 1; i < m; i++) {
    if (s[i] < min) min = s[i];
    if (s[i] > max) max = s[i];
  }
  switch (norm) {
    case 'min-max': {
      const d = Math.max(max - min, 1e-9);
      for (let i = 0; i < m; i++) out[i] = (s[i] - min) / d;
      break;
    }
    case 'max': {
      const d = Math.max(max, 1e-9);
      for (let i = 0; i < m; i++) out[i] = s[i] / d;
      break;
    }
    case 'sum': {
      let sum = 0;
      for (let i = 0; i < m; i++) sum += s[i];
      const d = Math.max(sum - min * m, 1e-9);
      for (let i = 0; i < m; i++) out[i] = (s[i] - min) / d;
      break;
    }
    case 'zmuv': {
      // numba's np.mean and np.std: sequential sums, the population deviation, var ** 0.5.
      let sum = 0;
      for (let i = 0; i < m; i++) sum += s[i];
      const mean = sum / m;
      let ssd = 0;
      for (let i = 0; i < m; i++) {
        const v = s[i] - mean;
        ssd += v * v;
      }
      const d = Math.max(Math.sqrt(ssd / m), 1e-9); // var ** 0.5 in C's pow, correctly rounded: the square root
      for (let i = 0; i < m; i++) out[i] = (s[i] - mean) / d;
      break;
    }
    case 'rank':
      for (let i = 0; i < m; i++) out[i] = 1 - i / m;
      break;
  }
  return out;
}

/**
 * Borda normalisation (ranx's borda_norm): every run covers every document of the query's union, in the union's
 * order; a retrieved document scores 1 − position/N, an unretrieved one 0.5 − (retrieved − 1)/(2N), N the union's
 * size. (ranx lists the union in Python set order, which depends on the string hash seed; ours is first appearance.)
 */
function bordaNorm(q: QueryRuns): QueryRuns {
  const n = q.n;
  const all = new Int32Array(n);
  for (let d = 0; d < n; d++) all[d] = d;
  const scores = q.ids.map((ids) => {
    const out = new Float64Array(n).fill(0.5 - (ids.length - 1) / (2 * n));
    for (let i = 0; i < ids.length; i++) out[ids[i]] = 1 - i / n;
    return out;
  });
  return { n, ids: q.ids.map(() => all), scores };
}
