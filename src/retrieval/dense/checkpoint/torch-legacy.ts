/**
 * PyTorch's legacy checkpoint format (torch.save before 1.6, or `_use_new_zipfile_serialization=False`), as
 * torch/serialization.py `_legacy_save` writes it: five pickles in a row (the magic number, the protocol version
 * 1001, a sys_info dict, the state_dict whose persistent ids are
 * `('storage', type, root_key, location, numel, view_metadata)`, the sorted list of storage keys), then for each
 * key in that order an 8-byte little-endian element count and the raw bytes. Only the pickles are read up front;
 * storage positions come from the counts, and bytes are read when a tensor asks.
 */
import { closeSync, fstatSync } from 'node:fs';
import { CitebenchError } from '../../../util/errors.ts';
import { DTYPE_BYTES, readExactly, readFileRange, type CheckpointTensor, type StoredDtype, openCheckpointFile } from './tensors.ts';
import { stateDictTensors, storageId, type TorchStorage } from './torch-state.ts';
import { PickleDict, PickleTruncated, PickleTuple, unpickle } from './unpickle.ts';

const MAGIC = 0x1950a86a20f9469cfc6cn;
const PROTOCOL_VERSION = 1001;

/** The pickles before the storages; read from a growing prefix of the file. */
function readPickles(fd: number, size: number, file: string, load: (pid: unknown) => unknown): { values: unknown[]; end: number } {
  for (let len = Math.min(size, 1 << 20); ; len = Math.min(size, len * 4)) {
    const head = readExactly(fd, len, 0, file, 'pickles');
    try {
      const values: unknown[] = [];
      let at = 0;
      for (let i = 0; i < 5; i++) {
        const r = unpickle(head, { file, start: at, persistentLoad: i === 3 ? load : undefined });
        values.push(r.value);
        at = r.end;
        if (i === 0 && r.value !== MAGIC) throw new CitebenchError(`${file}: not a PyTorch checkpoint (the first pickle is not torch's magic number)`);
      }
      return { values, end: at };
    } catch (e) {
      if (!(e instanceof PickleTruncated) || len === size) throw e;
    }
  }
}

/** The tensors of a legacy-format pytorch_model.bin. */
export function readTorchLegacy(file: string): Map<string, CheckpointTensor> {
  const fd = openCheckpointFile(file);
  try {
    const size = fstatSync(fd).size;
    // Storage starts are known only once the counts are read; the pickle's storages look them up then.
    const roots = new Map<string, { dtype: StoredDtype; numel: number; start: number }>();
    const views: { view: string; root: string; offset: number; numel: number }[] = [];
    const made = new Map<string, TorchStorage>();
    const load = (pid: unknown): TorchStorage => {
      const { dtype, key, numel, rest } = storageId(pid, file);
      const root = roots.get(key);
      if (root && root.dtype !== dtype) throw new CitebenchError(`${file}: storage ${key} is named as both ${root.dtype} and ${dtype}`);
      if (!root) roots.set(key, { dtype, numel, start: -1 });
      const meta = rest[0];
      let id = key;
      let base = 0;
      let count = numel;
      if (meta instanceof PickleTuple) {
        // A view into the root storage: (view_key, offset, view_size), offset and size in elements.
        const [vk, off, vn] = meta.items;
        if (typeof off !== 'number' || typeof vn !== 'number' || off < 0 || vn < 0) throw new CitebenchError(`${file}: storage view of ${key} has no valid offset and size`);
        id = `${key}/${String(vk)}`;
        base = off;
        count = vn;
        views.push({ view: String(vk), root: key, offset: off, numel: vn });
      } else if (meta !== null && meta !== undefined) throw new CitebenchError(`${file}: storage ${key} has view metadata that is not a tuple`);
      const known = made.get(id);
      if (known) return known;
      const es = DTYPE_BYTES[dtype];
      const s: TorchStorage = {
        key: id,
        dtype,
        numel: count,
        read: (off, len) => readFileRange(file, roots.get(key)!.start + base * es + off, len, `storage ${key}`),
      };
      made.set(id, s);
      return s;
    };
    const { values, end } = readPickles(fd, size, file, load);
    const [, protocol, sysInfo, stateDict, keys] = values;
    if (protocol !== PROTOCOL_VERSION) throw new CitebenchError(`${file}: legacy protocol version ${String(protocol)}, citebench reads ${PROTOCOL_VERSION}`);
    if (sysInfo instanceof PickleDict && sysInfo.get('little_endian') === false)
      throw new CitebenchError(`${file}: saved on a big-endian machine; citebench reads little-endian checkpoints (re-save it on a little-endian machine)`);
    if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string' || typeof k === 'number'))
      throw new CitebenchError(`${file}: the storage key list after the state_dict is not a list of keys (damaged)`);
    let pos = end;
    for (const k of keys.map(String)) {
      const root = roots.get(k);
      if (!root) throw new CitebenchError(`${file}: storage ${k} is stored but no tensor names it, so its element size is unknown (damaged)`);
      if (pos + 8 > size) throw new CitebenchError(`${file}: truncated (storage ${k}: no element count at offset ${pos}, file of ${size} bytes)`);
      const n = Number(new DataView(readExactly(fd, 8, pos, file, `storage ${k} count`).buffer).getBigUint64(0, true));
      const bytes = n * DTYPE_BYTES[root.dtype];
      if (n < root.numel) throw new CitebenchError(`${file}: storage ${k} holds ${n} elements, the state_dict names ${root.numel} (damaged)`);
      if (pos + 8 + bytes > size) throw new CitebenchError(`${file}: truncated (storage ${k}: ${bytes} bytes from offset ${pos + 8}, file of ${size} bytes)`);
      root.start = pos + 8;
      pos += 8 + bytes;
    }
    for (const [k, r] of roots) if (r.start < 0) throw new CitebenchError(`${file}: storage ${k} is named by a tensor but not stored (damaged)`);
    for (const v of views)
      if (v.offset + v.numel > roots.get(v.root)!.numel) throw new CitebenchError(`${file}: storage view ${v.view} [${v.offset}, +${v.numel}) lies outside storage ${v.root}`);
    return stateDictTensors(stateDict, file);
  } finally {
    closeSync(fd);
  }
}
