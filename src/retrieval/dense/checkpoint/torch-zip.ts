/**
 * PyTorch's zip checkpoint format (torch.save since 1.6): an uncompressed zip archive holding
 * `<archive>/data.pkl` (the state_dict pickle, whose persistent ids `('storage', type, key, location, numel)`
 * name storages), `<archive>/data/<key>` (each storage's raw little-endian bytes), and `<archive>/byteorder`
 * in recent versions. Only the central directory and data.pkl are read up front; storage bytes are read when a
 * tensor asks, so a BERT-base file is never held whole. Zip64 records are followed for files above 4 GB.
 */
import { closeSync, fstatSync } from 'node:fs';
import { CitebenchError } from '../../../util/errors.ts';
import { DTYPE_BYTES, readExactly, readFileRange, type CheckpointTensor, openCheckpointFile } from './tensors.ts';
import { stateDictTensors, storageId, type TorchStorage } from './torch-state.ts';
import { unpickle } from './unpickle.ts';

interface ZipEntry {
  readonly name: string;
  /** Byte offset of the entry's data in the file. */
  readonly start: number;
  readonly size: number;
}

const EOCD = 0x06054b50;
const EOCD64 = 0x06064b50;
const EOCD64_LOCATOR = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

function u64(v: DataView, at: number, file: string): number {
  const x = v.getBigUint64(at, true);
  if (x > BigInt(Number.MAX_SAFE_INTEGER)) throw new CitebenchError(`${file}: zip field ${x} is too large`);
  return Number(x);
}

/** The stored entries of a zip archive, from its central directory. */
function readZipEntries(fd: number, file: string): Map<string, ZipEntry> {
  const size = fstatSync(fd).size;
  const tailLen = Math.min(size, 22 + 0xffff);
  const tail = readExactly(fd, tailLen, size - tailLen, file, 'zip end record');
  const tv = new DataView(tail.buffer);
  let eocd = -1;
  for (let i = tailLen - 22; i >= 0; i--)
    if (tv.getUint32(i, true) === EOCD) {
      eocd = i;
      break;
    }
  if (eocd < 0) throw new CitebenchError(`${file}: not a zip archive or truncated (no end of central directory record)`);
  let count = tv.getUint16(eocd + 10, true);
  let cdSize = tv.getUint32(eocd + 12, true);
  let cdOffset = tv.getUint32(eocd + 16, true);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    const loc = eocd - 20;
    if (loc < 0 || tv.getUint32(loc, true) !== EOCD64_LOCATOR) throw new CitebenchError(`${file}: zip64 archive without its locator record (damaged)`);
    const at = u64(tv, loc + 8, file);
    const rec = new DataView(readExactly(fd, 56, at, file, 'zip64 end record').buffer);
    if (rec.getUint32(0, true) !== EOCD64) throw new CitebenchError(`${file}: zip64 end record not found at offset ${at} (damaged)`);
    count = u64(rec, 32, file);
    cdSize = u64(rec, 40, file);
    cdOffset = u64(rec, 48, file);
  }
  if (cdOffset + cdSize > size) throw new CitebenchError(`${file}: zip central directory [${cdOffset}, ${cdOffset + cdSize}) lies past the end of the ${size}-byte file (truncated)`);
  const cd = readExactly(fd, cdSize, cdOffset, file, 'zip central directory');
  const v = new DataView(cd.buffer);
  const entries = new Map<string, ZipEntry>();
  let p = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > cdSize || v.getUint32(p, true) !== CENTRAL) throw new CitebenchError(`${file}: zip central directory entry ${i} is damaged`);
    const method = v.getUint16(p + 10, true);
    let csize = v.getUint32(p + 20, true);
    let usize = v.getUint32(p + 24, true);
    const nameLen = v.getUint16(p + 28, true);
    const extraLen = v.getUint16(p + 30, true);
    const commentLen = v.getUint16(p + 32, true);
    let local = v.getUint32(p + 42, true);
    const name = new TextDecoder().decode(cd.subarray(p + 46, p + 46 + nameLen));
    // Zip64 extended information (id 1): the 64-bit values of whichever fields hold 0xffffffff, in this order.
    for (let e = p + 46 + nameLen; e + 4 <= p + 46 + nameLen + extraLen; ) {
      const id = v.getUint16(e, true);
      const len = v.getUint16(e + 2, true);
      if (id === 1) {
        let q = e + 4;
        if (usize === 0xffffffff) (usize = u64(v, q, file)), (q += 8);
        if (csize === 0xffffffff) (csize = u64(v, q, file)), (q += 8);
        if (local === 0xffffffff) local = u64(v, q, file);
      }
      e += 4 + len;
    }
    p += 46 + nameLen + extraLen + commentLen;
    if (method !== 0) throw new CitebenchError(`${file}: zip entry ${name} is compressed (method ${method}); PyTorch checkpoints store entries uncompressed`);
    const lh = new DataView(readExactly(fd, 30, local, file, `zip local header of ${name}`).buffer);
    if (lh.getUint32(0, true) !== LOCAL) throw new CitebenchError(`${file}: zip local header of ${name} not found at offset ${local} (damaged)`);
    const start = local + 30 + lh.getUint16(26, true) + lh.getUint16(28, true);
    if (start + usize > size) throw new CitebenchError(`${file}: zip entry ${name} ends at byte ${start + usize}, past the end of the ${size}-byte file (truncated)`);
    entries.set(name, { name, start, size: usize });
  }
  return entries;
}

/** True when the file starts like a zip archive (a local file header). */
export function isZip(head: Uint8Array): boolean {
  return head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
}

/** The tensors of a zip-format pytorch_model.bin. */
export function readTorchZip(file: string): Map<string, CheckpointTensor> {
  const fd = openCheckpointFile(file);
  let entries: Map<string, ZipEntry>;
  let pickle: Uint8Array;
  let prefix: string;
  try {
    entries = readZipEntries(fd, file);
    const pkls = [...entries.keys()].filter((n) => /^[^/]+\/data\.pkl$/.test(n));
    if (pkls.length !== 1) throw new CitebenchError(`${file}: a zip archive with ${pkls.length} '<archive>/data.pkl' entries, not a PyTorch checkpoint`);
    prefix = pkls[0]!.slice(0, -'data.pkl'.length);
    const pkl = entries.get(pkls[0]!)!;
    pickle = readExactly(fd, pkl.size, pkl.start, file, 'data.pkl');
    const bo = entries.get(`${prefix}byteorder`);
    if (bo) {
      const order = new TextDecoder().decode(readExactly(fd, bo.size, bo.start, file, 'byteorder'));
      if (order !== 'little') throw new CitebenchError(`${file}: storages are ${order}-endian; citebench reads little-endian checkpoints (re-save it on a little-endian machine)`);
    }
  } finally {
    closeSync(fd);
  }
  const storages = new Map<string, TorchStorage>();
  const { value } = unpickle(pickle, {
    file,
    persistentLoad: (pid) => {
      const { dtype, key, numel } = storageId(pid, file);
      const known = storages.get(key);
      if (known) {
        if (known.dtype !== dtype) throw new CitebenchError(`${file}: storage ${key} is named as both ${known.dtype} and ${dtype}`);
        return known;
      }
      const entry = entries.get(`${prefix}data/${key}`);
      if (!entry) throw new CitebenchError(`${file}: storage ${key} has no entry ${prefix}data/${key} in the archive (damaged)`);
      const bytes = numel * DTYPE_BYTES[dtype];
      if (entry.size < bytes) throw new CitebenchError(`${file}: storage ${key} holds ${entry.size} bytes, ${numel} ${dtype} elements need ${bytes} (truncated)`);
      const s: TorchStorage = {
        key,
        dtype,
        numel,
        read: (off, len) => readFileRange(file, entry.start + off, len, `storage ${key}`),
      };
      storages.set(key, s);
      return s;
    },
  });
  return stateDictTensors(value, file);
}
