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
export function roundHalfEven(x: number): number {
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

function range(w: Float32Array): [number, number] {
  let lo = 0;
  let hi = 0; // the range always includes 0
  for (let i = 0; i < w.length; i++) {
    const v = w[i]!;
    if (v < lo) lo = v;
    else if (v > hi) hi = v;
  }
  return [lo, hi];
}

function quantizeWith<T extends Int8Array | Uint8Array>(w: Float32Array, out: T, scale: number, zeroPoint: number, qmin: number, qmax: number): Quantized<T> {
  for (let i = 0; i < w.length; i++) {
    const q = roundHalfEven(Math.fround(w[i]! / scale)) + zeroPoint;
    out[i] = q < qmin ? qmin : q > qmax ? qmax : q;
  }
  return { values: out, scale, zeroPoint };
}

/** int8, symmetric: scale = 2·max|w| / 254, zero point 0 (quantize_dynamic's MatMul weights). */
export function quantizeInt8Symmetric(w: Float32Array): Quantized<Int8Array> {
  const [lo, hi] = range(w);
  const absmax = Math.max(-lo, hi);
  const s = Math.fround(absmax + absmax) / 254;
  if (s < FLOAT32_TINY) return quantizeWith(w, new Int8Array(w.length), 1, 0, -127, 127);
  return quantizeWith(w, new Int8Array(w.length), Math.fround(s), 0, -127, 127);
}

/** uint8, asymmetric: scale = (max − min) / 255, zero point round(−min / scale) (quantize_dynamic's Gather tables). */
export function quantizeUint8Asymmetric(w: Float32Array): Quantized<Uint8Array> {
  const [lo, hi] = range(w);
  const s = Math.fround(hi - lo) / 255;
  if (s < FLOAT32_TINY) return quantizeWith(w, new Uint8Array(w.length), 1, 0, 0, 255);
  const zp = Math.min(255, Math.max(0, roundHalfEven(0 - lo / s)));
  return quantizeWith(w, new Uint8Array(w.length), Math.fround(s), zp, 0, 255);
}
