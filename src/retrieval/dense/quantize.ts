/**
 * Weight quantization exactly as onnxruntime's `quantize_dynamic(model, out, weight_type=QuantType.QInt8)` does it
 * (onnxruntime/quantization/quant_utils.py: compute_scale_zp, quantize_nparray), the call that made the project's
 * int8 models and that `optimum-cli onnxruntime quantize` wraps: one scale per tensor; MatMul weights int8
 * symmetric in [-127, 127] with zero point 0; Gather tables (embeddings) uint8 asymmetric in [0, 255]. The
 * arithmetic follows numpy's: range in float32, scale computed in float64 then stored as float32, values divided
 * in float32 and rounded half to even.
 */

const FLOAT32_TINY = 1.1754943508222875e-38;

/** numpy.round / rint: nearest integer, ties to even. */
function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d < 0.5) return f;
  if (d > 0.5) return f + 1;
  return f % 2 === 0 ? f : f + 1;
}

export interface Quantized<T extends Int8Array | Uint8Array> {
  values: T;
  scale: number;
  zeroPoint: number;
}

/** The range [min, max] of the values, always including 0 (as compute_scale_zp widens it), over consecutive slices. */
export function rangeOf(slices: Iterable<Float32Array>): [number, number] {
  let lo = 0;
  let hi = 0;
  for (const w of slices)
    for (let i = 0; i < w.length; i++) {
      const v = w[i]!;
      if (v < lo) lo = v;
      else if (v > hi) hi = v;
    }
  return [lo, hi];
}

export interface QuantParams {
  scale: number;
  zeroPoint: number;
  signed: boolean;
}

/** int8, symmetric: scale = 2·max|w| / 254, zero point 0 (quantize_dynamic's MatMul weights). */
export function int8SymmetricParams([lo, hi]: [number, number]): QuantParams {
  const absmax = Math.max(-lo, hi);
  const s = Math.fround(absmax + absmax) / 254;
  return s < FLOAT32_TINY ? { scale: 1, zeroPoint: 0, signed: true } : { scale: Math.fround(s), zeroPoint: 0, signed: true };
}

/** uint8, asymmetric: scale = (max − min) / 255, zero point round(−min / scale) (quantize_dynamic's Gather tables). */
export function uint8AsymmetricParams([lo, hi]: [number, number]): QuantParams {
  const s = Math.fround(hi - lo) / 255;
  if (s < FLOAT32_TINY) return { scale: 1, zeroPoint: 0, signed: false };
  const zp = Math.min(255, Math.max(0, roundHalfEven(0 - lo / s)));
  return { scale: Math.fround(s), zeroPoint: zp, signed: false };
}

/** Quantize one slice with parameters computed over the whole tensor. */
export function quantizeSlice(w: Float32Array, p: QuantParams): Int8Array | Uint8Array {
  const [out, qmin, qmax] = p.signed ? [new Int8Array(w.length), -127, 127] : [new Uint8Array(w.length), 0, 255];
  for (let i = 0; i < w.length; i++) {
    const q = roundHalfEven(Math.fround(w[i]! / p.scale)) + p.zeroPoint;
    out[i] = q < qmin ? qmin : q > qmax ? qmax : q;
  }
  return out;
}

export function quantizeInt8Symmetric(w: Float32Array): Quantized<Int8Array> {
  const p = int8SymmetricParams(rangeOf([w]));
  return { values: quantizeSlice(w, p) as Int8Array, scale: p.scale, zeroPoint: p.zeroPoint };
}

export function quantizeUint8Asymmetric(w: Float32Array): Quantized<Uint8Array> {
  const p = uint8AsymmetricParams(rangeOf([w]));
  return { values: quantizeSlice(w, p) as Uint8Array, scale: p.scale, zeroPoint: p.zeroPoint };
}
