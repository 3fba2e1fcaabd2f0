/**
 * From an unpickled PyTorch state_dict to checkpoint tensors: both file formats (zip and legacy) name storages
 * through persistent ids and build tensors as strided views of them; only where the storage bytes live differs,
 * so each format supplies a `TorchStorage` and this module does the rest.
 */
import { CitebenchError } from '../../../util/errors.ts';
import { DTYPE_BYTES, decodeElements, elementCount, type CheckpointTensor, type StoredDtype } from './tensors.ts';
import { PickleDict, PickleTuple, StorageType, TensorRef } from './unpickle.ts';

/** One storage of the file: `numel` elements of `dtype`; `read` returns bytes of it (offsets in bytes). */
export interface TorchStorage {
  readonly key: string;
  readonly dtype: StoredDtype;
  readonly numel: number;
  read(byteOffset: number, byteLength: number): Uint8Array;
}

/** Fields of a persistent id `('storage', storage_type, key, location, numel, ...rest)`, checked. */
export function storageId(pid: unknown, file: string): { dtype: StoredDtype; key: string; numel: number; rest: readonly unknown[] } {
  const items = pid instanceof PickleTuple ? pid.items : undefined;
  if (!items || items.length < 5 || items[0] !== 'storage')
    throw new CitebenchError(`${file}: a persistent id is not ('storage', type, key, location, size); not a state_dict of tensors`);
  const [, type, key, , numel] = items;
  if (!(type instanceof StorageType)) throw new CitebenchError(`${file}: a storage's type is not a torch storage class`);
  if (typeof key !== 'string' && typeof key !== 'number') throw new CitebenchError(`${file}: a storage key is not a string`);
  if (typeof numel !== 'number' || !Number.isSafeInteger(numel) || numel < 0) throw new CitebenchError(`${file}: storage ${String(key)} has no valid element count`);
  return { dtype: type.dtype, key: String(key), numel, rest: items.slice(5) };
}

function isContiguous(size: readonly number[], stride: readonly number[]): boolean {
  let expect = 1;
  for (let d = size.length - 1; d >= 0; d--) {
    if (size[d] !== 1 && stride[d] !== expect) return false;
    expect *= size[d]!;
  }
  return true;
}

function tensorOf(name: string, ref: TensorRef, file: string): CheckpointTensor {
  const storage = ref.storage as TorchStorage;
  const where = `${file}: tensor '${name}'`;
  if (!storage || typeof (storage as TorchStorage).read !== 'function') throw new CitebenchError(`${where}: its storage is not a persistent storage of the file`);
  const { size, stride, offset } = ref;
  const n = elementCount(size);
  // The highest element the view touches must lie inside the storage.
  let last = offset;
  for (let d = 0; d < size.length; d++) if (size[d]! > 0) last += (size[d]! - 1) * stride[d]!;
  if (n > 0 && last >= storage.numel)
    throw new CitebenchError(`${where}: shape [${size}] stride [${stride}] at offset ${offset} reaches element ${last} of storage ${storage.key}, which holds ${storage.numel}`);
  const es = DTYPE_BYTES[storage.dtype];
  const contiguous = isContiguous(size, stride);
  return {
    name,
    dtype: storage.dtype,
    shape: size,
    ...(contiguous ? { float32Range: (start: number, count: number) => decodeElements(storage.read((offset + start) * es, count * es), storage.dtype, count, where) } : {}),
    float32: () => {
      if (n === 0) return new Float32Array(0);
      if (contiguous) return decodeElements(storage.read(offset * es, n * es), storage.dtype, n, where);
      // A strided view (a transposed or sliced weight saved as is): decode the span it covers and gather.
      const span = decodeElements(storage.read(offset * es, (last - offset + 1) * es), storage.dtype, last - offset + 1, where);
      const out = new Float32Array(n);
      const idx = new Array<number>(size.length).fill(0);
      for (let i = 0; i < n; i++) {
        let at = 0;
        for (let d = 0; d < size.length; d++) at += idx[d]! * stride[d]!;
        out[i] = span[at]!;
        for (let d = size.length - 1; d >= 0; d--) {
          if (++idx[d]! < size[d]!) break;
          idx[d] = 0;
        }
      }
      return out;
    },
  };
}

/** The tensors of an unpickled state_dict (a dict of name → tensor). */
export function stateDictTensors(value: unknown, file: string): Map<string, CheckpointTensor> {
  if (!(value instanceof PickleDict)) throw new CitebenchError(`${file}: the pickle holds no dict of tensors (not a state_dict)`);
  const out = new Map<string, CheckpointTensor>();
  for (const [k, v] of value) {
    if (typeof k !== 'string') throw new CitebenchError(`${file}: a state_dict key is not a string (${String(k)})`);
    if (!(v instanceof TensorRef))
      throw new CitebenchError(`${file}: entry '${k}' is not a tensor (${v instanceof PickleDict ? 'a nested dict: save model.state_dict() itself' : typeof v}); citebench reads flat state_dicts`);
    out.set(k, tensorOf(k, v, file));
  }
  return out;
}
