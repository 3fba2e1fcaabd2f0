/**
 * Vectors in a safetensors file: the tensor named `embeddings` (or the file's only tensor), shape [n, d], dtype F32,
 * F16 or BF16 (both widen to float32 exactly), with an ids file giving each row's paper id (one per line, in row
 * order), as for .npy. The header is checked by the checkpoint reader (checkpoint/safetensors.ts); rows are read
 * with positioned reads, so the matrix is never held whole.
 */
import { closeSync } from 'node:fs';
import { openForReading } from '../../../util/open-file.ts';
import { CitebenchError } from '../../../util/errors.ts';
import { readSafetensorsFile } from '../checkpoint/safetensors.ts';
import { DTYPE_BYTES, decodeElements, readExactly } from '../checkpoint/tensors.ts';
import { checkFinite, readIdsFile, type VectorFile } from './vector-file.ts';

const EMBEDDINGS_TENSOR = 'embeddings';

export function openSafetensorsVectors(path: string, idsPath: string): VectorFile {
  const tensors = readSafetensorsFile(path);
  const names = [...tensors.keys()];
  const t = tensors.get(EMBEDDINGS_TENSOR) ?? (names.length === 1 ? tensors.get(names[0]) : undefined);
  if (!t) throw new CitebenchError(`${path}: no tensor named '${EMBEDDINGS_TENSOR}' among ${names.length ? names.map((n) => `'${n}'`).join(', ') : 'none'}; save the vectors as {'${EMBEDDINGS_TENSOR}': tensor of shape [n, d]}`);
  const where0 = `${path}: tensor '${t.name}'`;
  if (t.dtype !== 'F32' && t.dtype !== 'F16' && t.dtype !== 'BF16') throw new CitebenchError(`${where0}: dtype ${t.dtype} is not read; save float32 (tensor.float()) or float16`);
  if (t.shape.length !== 2 || t.shape[1] === 0) throw new CitebenchError(`${where0}: shape [${t.shape}] is not [n, d]: one row per paper, one column per dimension`);
  const [rows, dim] = t.shape;
  const ids = readIdsFile(idsPath, rows, path);
  const rowBytes = dim * DTYPE_BYTES[t.dtype];
  const offset = t.location!.offset;
  const fd = openForReading(path);
  const where = (r: number) => `${path}: row ${r} (paper ${ids[r]})`;
  return {
    path, format: 'safetensors', rows, dim,
    id: (r) => ids[r],
    where,
    read(r, out, at) {
      out.set(decodeElements(readExactly(fd, rowBytes, offset + r * rowBytes, path, `row ${r}`), t.dtype, dim, where(r)), at);
      checkFinite(out, at, dim, () => where(r));
    },
    close: () => closeSync(fd),
  };
}
