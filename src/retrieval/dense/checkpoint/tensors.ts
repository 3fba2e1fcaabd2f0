/**
 * What every checkpoint reader hands the graph builder: named tensors with their stored dtype and shape, values
 * read lazily as float32 (float16 and bfloat16 widen exactly; nothing is rounded). The readers never execute
 * anything from the file: safetensors is a JSON header plus raw bytes, and PyTorch pickles go through a
 * restricted unpickler (unpickle.ts).
 */
import { closeSync, readSync } from 'node:fs';
import { openForReading } from '../../../util/open-file.ts';
import { CitebenchError } from '../../../util/errors.ts';
import { decodeHalf } from '../float16.ts';

/** Stored element types the readers accept (safetensors names; PyTorch storages map onto them). */
export type StoredDtype = 'F32' | 'F16' | 'BF16' | 'F64' | 'I64' | 'I32' | 'I16' | 'I8' | 'U8' | 'BOOL';

export const DTYPE_BYTES: Record<StoredDtype, number> = { F32: 4, F16: 2, BF16: 2, F64: 8, I64: 8, I32: 4, I16: 2, I8: 1, U8: 1, BOOL: 1 };

export interface CheckpointTensor {
  readonly name: string;
  readonly dtype: StoredDtype;
  readonly shape: readonly number[];
  /** Where the reader knows it (safetensors): the file and byte position of the tensor's data, for reading rows. */
  readonly location?: { file: string; offset: number };
  /** Values as float32 in row-major (C) order of `shape`. Integer tensors are converted too (small ones: position ids). */
  float32(): Float32Array;
  /**
   * Elements [start, start + count) of `float32()`, read without the rest, where the tensor is stored contiguously:
   * lets a large table (a 250 k-token vocabulary) be converted in slices instead of held whole.
   */
  float32Range?(start: number, count: number): Float32Array;
}

export interface Checkpoint {
  /** The file(s) read, for messages and fingerprints. */
  readonly files: readonly string[];
  /** Which reader: `safetensors`, `torch-zip`, `torch-legacy`. */
  readonly format: string;
  readonly tensors: ReadonlyMap<string, CheckpointTensor>;
}

/** Float32 values of `n` elements of `dtype` at `bytes` (little-endian, as safetensors and PyTorch store them). */
export function decodeElements(bytes: Uint8Array, dtype: StoredDtype, n: number, where: string): Float32Array {
  const need = n * DTYPE_BYTES[dtype];
  if (bytes.byteLength < need) throw new CitebenchError(`${where}: ${bytes.byteLength} bytes for ${n} ${dtype} elements (need ${need})`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, need);
  const out = new Float32Array(n);
  switch (dtype) {
    case 'F32':
      if (bytes.byteOffset % 4 === 0) out.set(new Float32Array(bytes.buffer, bytes.byteOffset, n));
      else for (let i = 0; i < n; i++) out[i] = view.getFloat32(4 * i, true);
      break;
    case 'F16': {
      const halves = bytes.byteOffset % 2 === 0 ? new Uint16Array(bytes.buffer, bytes.byteOffset, n) : new Uint16Array(bytes.slice(0, need).buffer);
      decodeHalf(halves, out);
      break;
    }
    case 'BF16': {
      // bfloat16 is the upper half of a float32: exact widening.
      const u = new Uint32Array(out.buffer);
      for (let i = 0; i < n; i++) u[i] = view.getUint16(2 * i, true) << 16;
      break;
    }
    case 'F64':
      for (let i = 0; i < n; i++) out[i] = view.getFloat64(8 * i, true);
      break;
    case 'I64':
      for (let i = 0; i < n; i++) out[i] = Number(view.getBigInt64(8 * i, true));
      break;
    case 'I32':
      for (let i = 0; i < n; i++) out[i] = view.getInt32(4 * i, true);
      break;
    case 'I16':
      for (let i = 0; i < n; i++) out[i] = view.getInt16(2 * i, true);
      break;
    case 'I8':
      for (let i = 0; i < n; i++) out[i] = view.getInt8(i);
      break;
    case 'U8':
    case 'BOOL':
      for (let i = 0; i < n; i++) out[i] = view.getUint8(i);
      break;
  }
  return out;
}

export function elementCount(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/** Exactly `len` bytes of an open file at `pos`; a short read means the file is truncated. */
export function readExactly(fd: number, len: number, pos: number, file: string, what: string): Uint8Array {
  const b = new Uint8Array(len);
  let o = 0;
  while (o < len) {
    const r = readSync(fd, b, o, len - o, pos + o);
    if (r === 0) throw new CitebenchError(`${file}: truncated (${what}: ${o} of ${len} bytes at offset ${pos})`);
    o += r;
  }
  return b;
}

/** A descriptor for reading `file`; a file that cannot be opened is one line naming it and why. */
export const openCheckpointFile = openForReading;

/** Open `file`, read `len` bytes at `pos`, close: tensors read their bytes on demand, so no descriptor is held. */
export function readFileRange(file: string, pos: number, len: number, what: string): Uint8Array {
  const fd = openCheckpointFile(file);
  try {
    return readExactly(fd, len, pos, file, what);
  } finally {
    closeSync(fd);
  }
}
