/**
 * Vectors computed elsewhere (a Python encoder on a GPU), read row by row: SciRepEval's JSONL, NumPy `.npy` and
 * safetensors, each behind one interface so import.ts treats them alike. A row is read on demand (positioned
 * reads; JSONL remembers each line's byte span), so a file larger than memory imports chunk by chunk. Every value
 * is checked: a NaN or ±Infinity is an error naming the file and the line (JSONL) or row (npy, safetensors).
 */
import { existsSync, readFileSync } from 'node:fs';
import { CitebenchError, InputError } from '../../../util/errors.ts';

export type VectorFormat = 'jsonl' | 'npy' | 'safetensors';

export interface VectorFile {
  readonly path: string;
  readonly format: VectorFormat;
  /** Number of rows (vectors). */
  readonly rows: number;
  readonly dim: number;
  /** Paper id of a row (as written: a JSONL number id is its decimal text). */
  id(row: number): string;
  /** Where a row is, for messages: `line 12` (JSONL, 1-based) or `row 11` (0-based, as NumPy indexes). */
  where(row: number): string;
  /** Copy a row's values (float32, exactly as stored; float16 widened exactly) into `out` at `at`; throws on NaN/±Inf. */
  read(row: number, out: Float32Array, at: number): void;
  close(): void;
}

/** The format a file name says: `.jsonl` (also `.json`, one object a line), `.npy`, `.safetensors`. */
export function formatOf(path: string): VectorFormat {
  if (/\.jsonl?$/i.test(path)) return 'jsonl';
  if (/\.npy$/i.test(path)) return 'npy';
  if (/\.safetensors$/i.test(path)) return 'safetensors';
  throw new CitebenchError(`${path}: unknown embeddings format; give a .jsonl (SciRepEval: {"doc_id": …, "embedding": […]} a line), a .npy or a .safetensors file`);
}

/** The ids file that goes with a .npy or .safetensors file when none is named: X.npy → X.ids.txt (what export writes). */
export function defaultIdsPath(path: string): string {
  return path.replace(/\.(npy|safetensors)$/i, '') + '.ids.txt';
}

/**
 * A paper-id list: one id per line in row order, UTF-8, no header; a final newline is optional, an empty line
 * elsewhere is an error naming it, and the count must equal the vector rows.
 */
export function readIdsFile(path: string, rows: number, vectors: string): string[] {
  if (!existsSync(path)) throw new CitebenchError(`${path}: no such ids file; ${vectors} needs its paper ids, one per line in row order (--ids FILE)`);
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  lines.forEach((l, i) => {
    const id = l.endsWith('\r') ? l.slice(0, -1) : l;
    if (id.trim() === '' ) throw new InputError(path, i + 1, undefined, 'empty line; one paper id per line, in the order of the vector rows');
    if (id !== id.trim()) throw new InputError(path, i + 1, undefined, `paper id ${JSON.stringify(id)} has surrounding spaces`);
    lines[i] = id;
  });
  if (lines.length !== rows) throw new CitebenchError(`${path}: ${lines.length} paper ids for the ${rows} rows of ${vectors}; the ids file must list one id per row, in row order`);
  return lines;
}

/** Throw naming the first value of `v[at..at+dim)` that is NaN or infinite. */
export function checkFinite(v: Float32Array, at: number, dim: number, where: () => string): void {
  for (let j = 0; j < dim; j++) {
    const x = v[at + j];
    if (!Number.isFinite(x)) throw new CitebenchError(`${where()} [embedding[${j}]]: ${x} is not a finite number; vectors must hold finite values (check the encoder's output)`);
  }
}
