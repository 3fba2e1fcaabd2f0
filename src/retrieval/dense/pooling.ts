/**
 * Single-vector pooling of a sequence's final hidden states, as sentence-transformers' Pooling module computes
 * it (6.x, sentence_transformer/modules/pooling.py, the padded path that runs on CPU): one or several modes,
 * concatenated in the order given; the prompt's tokens left out of the mask when `include_prompt` is false;
 * then the folder's Dense modules (st-dense.ts), optionally Normalize (F.normalize, eps 1e-12), and
 * `truncate_dim` (the first N dimensions, after every module, not normalised again: SentenceTransformer.encode). Sums run in float64 (torch sums in
 * float32: the vectors agree to float32 rounding). ASPIRE's sentence vectors are not here (encoder.ts).
 */
import { CitebenchError } from '../../util/errors.ts';
import { applyDense, type DenseModule } from './st-dense.ts';

export type PoolingMode = 'cls' | 'max' | 'mean' | 'mean_sqrt_len_tokens' | 'weightedmean' | 'lasttoken';

export const POOLING_MODES: readonly PoolingMode[] = ['cls', 'max', 'mean', 'mean_sqrt_len_tokens', 'weightedmean', 'lasttoken'];

/** How an encoder turns token vectors into article vectors: single-vector modes, or ASPIRE's sentence vectors. */
export type Pooling = string;

/** The modes of a pooling name (`mean`, `cls+mean`), or 'aspire'; undefined when the name is not one. */
export function poolingModes(p: Pooling): PoolingMode[] | 'aspire' | undefined {
  if (p === 'aspire') return 'aspire';
  const modes = p.split('+');
  return modes.length > 0 && modes.every((m) => (POOLING_MODES as readonly string[]).includes(m)) ? (modes as PoolingMode[]) : undefined;
}

/** `p` checked as a pooling name, else a CitebenchError naming `what`. */
export function parsePooling(p: string, what: string): Pooling {
  if (!poolingModes(p)) throw new CitebenchError(`${what} must be aspire or one of ${POOLING_MODES.join(', ')} (several joined by '+'), got '${p}'`);
  return p;
}

export interface PoolingSpec {
  modes: PoolingMode[];
  /** false: the prompt's tokens (and the token before them, e.g. [CLS]) are masked out of pooling. */
  includePrompt: boolean;
  /** Dense modules after Pooling, in modules.json order (weights loaded). */
  dense?: DenseModule[];
  /** A Normalize module follows. */
  normalize: boolean;
  /** Keep the first N dimensions of the (normalised) vector (config_sentence_transformers.json truncate_dim). */
  truncateDim?: number;
}

/** Dimensions of the pooled vector for hidden size `hidden`. */
export function pooledDim(spec: Pick<PoolingSpec, 'modes' | 'truncateDim'> & { dense?: { outFeatures: number }[] }, hidden: number): number {
  const full = spec.dense?.length ? spec.dense.at(-1)!.outFeatures : spec.modes.length * hidden;
  return spec.truncateDim !== undefined ? Math.min(spec.truncateDim, full) : full;
}

/**
 * Pool one sequence: `h[base + t·dim + j]` is token t's hidden state (t < len, the unpadded length);
 * `masked` leading tokens are out of the mask (the prompt's, when include_prompt is false). Writes
 * pooledDim(spec, dim) values to out[dst…].
 */
export function poolSequence(h: Float32Array, base: number, len: number, dim: number, spec: PoolingSpec, masked: number, out: Float32Array, dst: number): void {
  const from = Math.min(Math.max(masked, 0), len);
  const full = new Float64Array(spec.modes.length * dim);
  const row = (t: number) => base + t * dim;
  let sum: Float64Array | undefined;
  const meanSum = () => {
    if (sum) return sum;
    sum = new Float64Array(dim);
    for (let t = from; t < len; t++) for (let j = 0, o = row(t); j < dim; j++) sum[j] += h[o + j];
    return sum;
  };
  spec.modes.forEach((mode, m) => {
    const v = full.subarray(m * dim, (m + 1) * dim);
    const count = len - from;
    switch (mode) {
      case 'cls': {
        // The first token in the mask (argmax of the mask): [CLS], or the first after the prompt; none: token 0.
        const o = row(from < len ? from : 0);
        for (let j = 0; j < dim; j++) v[j] = h[o + j];
        break;
      }
      case 'lasttoken': {
        if (count === 0) break; // no token in the mask: zeros
        const o = row(len - 1);
        for (let j = 0; j < dim; j++) v[j] = h[o + j];
        break;
      }
      case 'max': {
        v.fill(-Infinity);
        for (let t = from; t < len; t++) for (let j = 0, o = row(t); j < dim; j++) if (h[o + j] > v[j]) v[j] = h[o + j];
        break;
      }
      case 'mean':
      case 'mean_sqrt_len_tokens': {
        const s = meanSum();
        const div = mode === 'mean' ? Math.max(count, 1e-9) : Math.sqrt(Math.max(count, 1e-9));
        for (let j = 0; j < dim; j++) v[j] = s[j] / div;
        break;
      }
      case 'weightedmean': {
        // Weights are positions + 1 in the whole sequence (prompt and [CLS] count).
        let w = 0;
        for (let t = from; t < len; t++) {
          w += t + 1;
          for (let j = 0, o = row(t); j < dim; j++) v[j] += h[o + j] * (t + 1);
        }
        const div = Math.max(w, 1e-9);
        for (let j = 0; j < dim; j++) v[j] /= div;
        break;
      }
    }
  });
  // The Dense modules and Normalize work on the float32 vector the Pooling module outputs.
  let f32 = Float32Array.from(full);
  for (const m of spec.dense ?? []) f32 = applyDense(m, f32);
  let norm = 1;
  if (spec.normalize) {
    let s = 0;
    for (const x of f32) s += x * x;
    norm = Math.max(Math.sqrt(s), 1e-12);
  }
  const n = pooledDim(spec, dim);
  for (let j = 0; j < n; j++) out[dst + j] = f32[j] / norm;
}
