/** Writers of the vector files users bring (.npy, safetensors, SciRepEval JSONL), byte for byte as NumPy and the safetensors library lay them out. */
import { writeFileSync } from 'node:fs';

/** A .npy file: `version` 1, 2 or 3, header padded to 64 bytes as numpy.lib.format writes it. */
export function npyBytes(descr: string, shape: number[], data: Uint8Array, opts: { version?: 1 | 2 | 3; fortran?: boolean } = {}): Buffer {
  const v = opts.version ?? 1;
  const dict = `{'descr': '${descr}', 'fortran_order': ${opts.fortran ? 'True' : 'False'}, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  const pre = v === 1 ? 10 : 12;
  const total = Math.ceil((pre + dict.length + 1) / 64) * 64;
  const head = Buffer.alloc(total, 0x20);
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, v, 0]).copy(head);
  if (v === 1) head.writeUInt16LE(total - 10, 8);
  else head.writeUInt32LE(total - 12, 8);
  head.write(dict, pre, 'latin1');
  head[total - 1] = 0x0a;
  return Buffer.concat([head, data]);
}

/** A safetensors file of the given tensors (header JSON, 8-byte aligned as the library writes it). */
export function safetensorsBytes(tensors: Record<string, { dtype: string; shape: number[]; data: Uint8Array }>): Buffer {
  const header: Record<string, unknown> = {};
  let off = 0;
  for (const [name, t] of Object.entries(tensors)) {
    header[name] = { dtype: t.dtype, shape: t.shape, data_offsets: [off, off + t.data.byteLength] };
    off += t.data.byteLength;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([len, Buffer.from(json), ...Object.values(tensors).map((t) => Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength))]);
}

/** SciRepEval's embeddings JSONL: json.dumps of float32 values printed as Python floats (the shortest double repr). */
export function jsonlText(ids: (string | number)[], vectors: Float32Array, dim: number): string {
  return ids.map((id, r) => JSON.stringify({ doc_id: id, embedding: Array.from(vectors.subarray(r * dim, (r + 1) * dim)) })).join('\n') + '\n';
}

export { bytesOf } from '../../src/util/identity.ts';

/** Write `X.npy`/`X.safetensors` and its `X.ids.txt`. */
export function writeWithIds(path: string, bytes: Uint8Array, ids: string[]): void {
  writeFileSync(path, bytes);
  writeFileSync(path.replace(/\.(npy|safetensors)$/, '') + '.ids.txt', ids.join('\n') + '\n');
}
