/**
 * Exact re-scoring of Gemm candidates: float64 scores, the bound on a float32 Gemm score's rounding that
 * certifies a query's top k, and the final ordering (float32 score desc, tie rank asc).
 */

const U = 2 ** -24;

/** Extra candidates beyond k fetched per block, so the certificate usually holds on the first pass. */
export const MARGIN = 32;

export function norms2(v: Float32Array, d: number, shared = false): Float64Array {
  const n = v.length / d;
  const out = shared ? new Float64Array(new SharedArrayBuffer(n * 8)) : new Float64Array(n);
  let i = 0;
  // Four rows per sweep (independent sums, each in its own order, as in exactScores).
  for (; i + 4 <= n; i += 4) {
    const o = i * d;
    let a0 = 0;
    let a1 = 0;
    let a2 = 0;
    let a3 = 0;
    for (let j = 0; j < d; j++) {
      const x0 = v[o + j];
      const x1 = v[o + d + j];
      const x2 = v[o + 2 * d + j];
      const x3 = v[o + 3 * d + j];
      a0 += x0 * x0;
      a1 += x1 * x1;
      a2 += x2 * x2;
      a3 += x3 * x3;
    }
    out[i] = a0;
    out[i + 1] = a1;
    out[i + 2] = a2;
    out[i + 3] = a3;
  }
  for (; i < n; i++) {
    let a = 0;
    for (let j = i * d, e = j + d; j < e; j++) a += v[j] * v[j];
    out[i] = a;
  }
  return out;
}

/** Exact score of one pair in float64: −Σ(q−p)² or Σq·p. */
export function exactScore(q: Float32Array, qo: number, p: Float32Array, po: number, d: number, l2: boolean): number {
  let a = 0;
  if (l2) {
    for (let j = 0; j < d; j++) {
      const t = q[qo + j] - p[po + j];
      a += t * t;
    }
    return 0 - a; // +0, not −0, for identical vectors
  }
  for (let j = 0; j < d; j++) a += q[qo + j] * p[po + j];
  return a;
}

/**
 * exactScore of one query row against many pool rows, four rows per sweep of the query: each sum keeps its
 * own accumulator and order (so the values equal exactScore's), but the four independent chains let the CPU
 * overlap them instead of waiting on one add after another (≈ 3× faster).
 */
export function exactScores(q: Float32Array, qo: number, p: Float32Array, rows: number[], d: number, l2: boolean): number[] {
  const out = new Array<number>(rows.length);
  let i = 0;
  for (; i + 4 <= rows.length; i += 4) {
    const o0 = rows[i] * d;
    const o1 = rows[i + 1] * d;
    const o2 = rows[i + 2] * d;
    const o3 = rows[i + 3] * d;
    let a0 = 0;
    let a1 = 0;
    let a2 = 0;
    let a3 = 0;
    if (l2) {
      for (let j = 0; j < d; j++) {
        const x = q[qo + j];
        const t0 = x - p[o0 + j];
        const t1 = x - p[o1 + j];
        const t2 = x - p[o2 + j];
        const t3 = x - p[o3 + j];
        a0 += t0 * t0;
        a1 += t1 * t1;
        a2 += t2 * t2;
        a3 += t3 * t3;
      }
      out[i] = 0 - a0;
      out[i + 1] = 0 - a1;
      out[i + 2] = 0 - a2;
      out[i + 3] = 0 - a3;
    } else {
      for (let j = 0; j < d; j++) {
        const x = q[qo + j];
        a0 += x * p[o0 + j];
        a1 += x * p[o1 + j];
        a2 += x * p[o2 + j];
        a3 += x * p[o3 + j];
      }
      out[i] = a0;
      out[i + 1] = a1;
      out[i + 2] = a2;
      out[i + 3] = a3;
    }
  }
  for (; i < rows.length; i++) out[i] = exactScore(q, qo, p, rows[i] * d, d, l2);
  return out;
}

/** Rounding bound of a float32 Gemm score (worst case over summation orders, ×2 for safety). */
export function epsilon(d: number, l2: boolean, qNorm2: number, pMaxNorm2: number): number {
  const g = (d + 4) * U * 1.1;
  const qn = Math.sqrt(qNorm2);
  const pn = Math.sqrt(pMaxNorm2);
  return 2 * g * (l2 ? 2 * qn * pn + pMaxNorm2 + qNorm2 : qn * pn) + 1e-30;
}

/**
 * scores 'float32': the k best candidates by their Gemm score (L2: 2q·p − |p|² from the Gemm, then − |q|² in
 * float32, i.e. −(|q|² + |p|² − 2q·p) as faiss computes it), ties by tie rank.
 */
export function finishFloat32(pos: Int32Array, g: Float32Array, ex: number, qNorm32: number, k: number, tie?: Uint32Array): { pos: number[]; score: Float32Array } {
  const idx: number[] = [];
  for (let j = 0; j < pos.length; j++) if (pos[j] !== ex) idx.push(j);
  const sc = new Float32Array(pos.length);
  for (const j of idx) sc[j] = Math.fround(g[j] - qNorm32);
  idx.sort((a, b) => sc[b] - sc[a] || (tie ? tie[pos[a]] - tie[pos[b]] : pos[a] - pos[b]));
  const take = idx.slice(0, k);
  return { pos: take.map((j) => pos[j]), score: Float32Array.from(take, (j) => sc[j]) };
}

/** Sort candidates by (float32 score desc, tie rank asc) and cut to k; also returns the k-th exact score. */
export function finishQuery(pos: number[], exact: number[], k: number, tie?: Uint32Array): { pos: number[]; score: Float32Array; kth: number } {
  const f32 = exact.map((x) => Math.fround(x));
  const order = pos.map((_, i) => i).sort((a, b) => f32[b] - f32[a] || (tie ? tie[pos[a]] - tie[pos[b]] : pos[a] - pos[b]));
  const take = order.slice(0, k);
  return {
    pos: take.map((i) => pos[i]),
    score: Float32Array.from(take, (i) => f32[i]),
    kth: take.length ? Math.min(...take.map((i) => exact[i])) : Infinity,
  };
}
