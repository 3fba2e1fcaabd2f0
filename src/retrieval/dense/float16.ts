/** IEEE 754 binary16 conversion (Node 20 has no Float16Array). Round to nearest, ties to even. */

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function toHalf(x: number): number {
  f32[0] = x;
  const b = u32[0];
  const sign = (b >>> 16) & 0x8000;
  const exp = (b >>> 23) & 0xff;
  let mant = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // inf / nan
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow → inf
  if (e <= 0) {
    if (e < -10) return sign; // underflow → ±0
    mant |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    const rest = mant & ((1 << shift) - 1);
    let m = mant >>> shift;
    if (rest > half || (rest === half && m & 1)) m++;
    return sign | m;
  }
  const rest = mant & 0x1fff;
  let m = mant >>> 13;
  if (rest > 0x1000 || (rest === 0x1000 && m & 1)) {
    m++;
    if (m === 0x400) {
      m = 0;
      e++;
      if (e >= 0x1f) return sign | 0x7c00;
    }
  }
  return sign | (e << 10) | m;
}

export function fromHalf(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 0x1f) return m ? NaN : sign * Infinity;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

export function encodeHalf(src: Float32Array): Uint16Array {
  const out = new Uint16Array(src.length);
  for (let i = 0; i < src.length; i++) out[i] = toHalf(src[i]);
  return out;
}

/** Decode through a 65,536-entry table (fast for millions of values). */
let table: Float32Array | undefined;
export function decodeHalf(src: Uint16Array, out = new Float32Array(src.length)): Float32Array {
  if (!table) {
    table = new Float32Array(65536);
    for (let i = 0; i < 65536; i++) table[i] = fromHalf(i);
  }
  for (let i = 0; i < src.length; i++) out[i] = table[src[i]];
  return out;
}
