import type { Rng } from './rng.ts';

/** Walker's alias table: O(1) draws from a fixed discrete distribution (Zipfian vocabularies, topic mixes). */
export class AliasTable {
  private readonly prob: Float64Array;
  private readonly alias: Uint32Array;

  constructor(weights: ArrayLike<number>) {
    const n = weights.length;
    if (n === 0) throw new RangeError('AliasTable needs at least one weight');
    let sum = 0;
    for (let i = 0; i < n; i++) sum += weights[i];
    this.prob = new Float64Array(n);
    this.alias = new Uint32Array(n);
    const scaled = new Float64Array(n);
    const small: number[] = [];
    const large: number[] = [];
    for (let i = 0; i < n; i++) {
      scaled[i] = (weights[i] * n) / sum;
      (scaled[i] < 1 ? small : large).push(i);
    }
    while (small.length && large.length) {
      const s = small.pop()!;
      const l = large.pop()!;
      this.prob[s] = scaled[s];
      this.alias[s] = l;
      scaled[l] = scaled[l] + scaled[s] - 1;
      (scaled[l] < 1 ? small : large).push(l);
    }
    for (const i of large) this.prob[i] = 1;
    for (const i of small) this.prob[i] = 1;
  }

  get size(): number {
    return this.prob.length;
  }

  sample(rng: Rng): number {
    const i = rng.nextInt(this.prob.length);
    return rng.next() < this.prob[i] ? i : this.alias[i];
  }
}

/** Zipf–Mandelbrot weights 1/(rank+q)^s for ranks 0..n-1. */
export function zipfWeights(n: number, s: number, q = 2.7): Float64Array {
  const w = new Float64Array(n);
  for (let r = 0; r < n; r++) w[r] = 1 / Math.pow(r + q, s);
  return w;
}
