/**
 * Lucene's lossy one-byte document lengths (SmallFloat.intToByte4 / byte4ToInt): exact below 24, then 4
 * significant bits, rounded down. BM25Similarity stores intToByte4(length) and scores with byte4ToInt of it.
 */
const NUM_FREE_VALUES = 255 - longToInt4(2 ** 31 - 1); // 24

function longToInt4(i: number): number {
  const numBits = i < 2 ** 31 ? 32 - Math.clz32(i) : Math.floor(Math.log2(i)) + 1;
  if (numBits < 4) return i;
  const shift = numBits - 4;
  let encoded = (i < 2 ** 31 ? i >>> shift : Math.floor(i / 2 ** shift)) & 0x07; // 4 significant bits, top one implicit
  encoded |= (shift + 1) << 3;
  return encoded;
}

function int4ToLong(i: number): number {
  const bits = i & 0x07;
  const shift = (i >>> 3) - 1;
  return shift === -1 ? bits : (bits | 0x08) * 2 ** shift;
}

const MAX_INT4 = int4ToLong(255 - NUM_FREE_VALUES);

/** Encode a document length (≥ 0) into Lucene's norm byte. */
export function intToByte4(i: number): number {
  if (i < 0 || !Number.isInteger(i)) throw new RangeError(`document length must be a non-negative integer, got ${i}`);
  if (i < NUM_FREE_VALUES) return i;
  return NUM_FREE_VALUES + longToInt4(i - NUM_FREE_VALUES);
}

/** Decode a norm byte into the length BM25 scores with. */
export function byte4ToInt(b: number): number {
  const i = b & 0xff;
  if (i < NUM_FREE_VALUES) return i;
  return Math.min(NUM_FREE_VALUES + int4ToLong(i - NUM_FREE_VALUES), MAX_INT4);
}

/** LENGTH_TABLE of BM25Similarity: the decoded length of each of the 256 norm bytes. */
export const LENGTH_TABLE: Float32Array = Float32Array.from({ length: 256 }, (_, b) => byte4ToInt(b));
