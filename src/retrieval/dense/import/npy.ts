/**
 * NumPy `.npy` files (format versions 1.0, 2.0 and 3.0, numpy/lib/format.py): magic `\x93NUMPY`, major and minor
 * version bytes, the header length (uint16 LE for 1.0, uint32 LE for 2.0/3.0), a Python dict literal
 * `{'descr': '<f4', 'fortran_order': False, 'shape': (n, d), }` padded with spaces to a multiple of 64 and ending
 * in a newline, then the raw array. Read: little-endian float32 (`<f4`) or float16 (`<f2`, widened exactly), C
 * order, shape (n, d); anything else is one line saying what to change. The header is parsed as data (never
 * evaluated). Written: version 1.0, `<f4`, C order — what `np.load` reads with no options.
 */
import { closeSync, fstatSync } from 'node:fs';
import { openForReading } from '../../../util/open-file.ts';
import { CitebenchError } from '../../../util/errors.ts';
import { decodeHalf } from '../float16.ts';
import { readExactly } from '../checkpoint/tensors.ts';
import { checkFinite, readIdsFile, type VectorFile } from './vector-file.ts';

export interface NpyHeader {
  version: [number, number];
  descr: '<f4' | '<f2';
  shape: [number, number];
  /** Byte offset of the array data. */
  dataOffset: number;
}

const MAGIC = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]); // \x93NUMPY

/** Parse and check the header of an open .npy file of `size` bytes. */
export function readNpyHeader(fd: number, size: number, path: string): NpyHeader {
  const bad = (why: string) => new CitebenchError(`${path}: ${why}`);
  if (size < 10) throw bad(`not a .npy file (${size} bytes)`);
  const pre = Buffer.from(readExactly(fd, 12 <= size ? 12 : 10, 0, path, 'npy preamble'));
  if (!pre.subarray(0, 6).equals(MAGIC)) throw bad('not a .npy file (no \\x93NUMPY magic); save the array with numpy.save');
  const major = pre[6];
  const minor = pre[7];
  if (major !== 1 && major !== 2 && major !== 3) throw bad(`.npy format version ${major}.${minor} is not one citebench reads (1.0, 2.0, 3.0)`);
  const lenBytes = major === 1 ? 2 : 4;
  const headerLen = major === 1 ? pre.readUInt16LE(8) : size >= 12 ? pre.readUInt32LE(8) : Infinity;
  const dataOffset = 8 + lenBytes + headerLen;
  if (dataOffset > size) throw bad(`truncated .npy header (${headerLen} bytes announced, file of ${size})`);
  const raw = Buffer.from(readExactly(fd, headerLen, 8 + lenBytes, path, 'npy header'));
  // Versions 1 and 2 store the header in latin-1, version 3 in UTF-8; the keys and values read here are ASCII.
  const text = raw.toString(major === 3 ? 'utf8' : 'latin1');
  const field = (key: string, value: string) => new RegExp(`['"]${key}['"]\\s*:\\s*${value}`).exec(text);
  const descr = field('descr', `['"]([^'"]*)['"]`)?.[1];
  const fortran = field('fortran_order', '(True|False)')?.[1];
  const shapeText = field('shape', '\\(([^)]*)\\)')?.[1];
  if (!/^\s*\{.*\}\s*$/s.test(text) || descr === undefined || fortran === undefined || shapeText === undefined)
    throw bad(`malformed .npy header ${JSON.stringify(text.trim())} (expected {'descr': …, 'fortran_order': …, 'shape': (…)})`);
  if (fortran === 'True') throw bad(`the array is in Fortran order; save a C-ordered copy: numpy.save(path, numpy.ascontiguousarray(x))`);
  if (descr !== '<f4' && descr !== '<f2') {
    const say = descr === '>f4' || descr === '>f2' ? 'big-endian' : `dtype ${descr}`;
    throw bad(`${say} is not read; save little-endian float32 or float16: numpy.save(path, x.astype('<f4'))`);
  }
  const dims = shapeText.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (dims.length !== 2 || !dims.every((d) => /^\d+$/.test(d))) throw bad(`shape (${shapeText}) is not (n, d): one row per paper, one column per dimension`);
  const shape = dims.map(Number) as [number, number];
  if (shape[1] === 0) throw bad(`shape (${shapeText}) has vectors of dimension 0`);
  const width = descr === '<f4' ? 4 : 2;
  const need = shape[0] * shape[1] * width;
  if (size - dataOffset !== need) throw bad(`${size - dataOffset} data bytes for shape (${shape.join(', ')}) of ${descr} (need ${need}): truncated or not one array`);
  return { version: [major, minor], descr, shape, dataOffset };
}

/** A .npy matrix with its ids file (one paper id per line, in row order). */
export function openNpy(path: string, idsPath: string): VectorFile {
  const fd = openForReading(path);
  try {
    const h = readNpyHeader(fd, fstatSync(fd).size, path);
    const [rows, dim] = h.shape;
    const ids = readIdsFile(idsPath, rows, path);
    const width = h.descr === '<f4' ? 4 : 2;
    const rowBytes = dim * width;
    const where = (r: number) => `${path}: row ${r} (paper ${ids[r]})`;
    return {
      path, format: 'npy', rows, dim,
      id: (r) => ids[r],
      where,
      read(r, out, at) {
        // A fresh, aligned buffer per row: its bytes are the little-endian values themselves.
        const b = readExactly(fd, rowBytes, h.dataOffset + r * rowBytes, path, `row ${r}`);
        const v = out.subarray(at, at + dim);
        if (width === 4) v.set(new Float32Array(b.buffer, 0, dim));
        else decodeHalf(new Uint16Array(b.buffer, 0, dim), v);
        checkFinite(out, at, dim, () => where(r));
      },
      close: () => closeSync(fd),
    };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** The version 1.0 header of a C-ordered little-endian float32 (n, d) array: magic … padded to 64 bytes. */
export function npyHeaderF32(rows: number, dim: number): Buffer {
  const dict = `{'descr': '<f4', 'fortran_order': False, 'shape': (${rows}, ${dim}), }`;
  const total = Math.ceil((10 + dict.length + 1) / 64) * 64;
  if (total - 10 > 0xffff) throw new CitebenchError(`npy header too long`);
  const out = Buffer.alloc(total, 0x20);
  MAGIC.copy(out, 0);
  out[6] = 1;
  out[7] = 0;
  out.writeUInt16LE(total - 10, 8);
  out.write(dict, 10, 'latin1');
  out[total - 1] = 0x0a;
  return out;
}
