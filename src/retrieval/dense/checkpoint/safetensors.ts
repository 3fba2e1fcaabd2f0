/**
 * safetensors reader (huggingface/safetensors format): 8-byte little-endian header length, a JSON header
 * `{name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {...}}`, then the raw tensor bytes; offsets
 * are relative to the end of the header. Every entry is checked against the file before anything is read, as the
 * format's own reader checks it (safetensors `Metadata::validate`, then `SafeTensors::deserialize`): a known dtype,
 * offsets inside the file, a byte span equal to shape × dtype size, and the tensors tiling the data buffer exactly —
 * in order of offsets each begins where the one before ended (no overlap, no gap) and the last ends at the end of
 * the file (no trailing bytes). Sharded checkpoints
 * (`model.safetensors.index.json`, `weight_map: {name: shard file}`) read each shard the same way.
 * Tensor bytes are read on demand with positioned reads, so a BERT-base file is never held whole.
 */
import { closeSync, fstatSync } from 'node:fs';
import { CitebenchError } from '../../../util/errors.ts';
import { readSharded } from './shards.ts';
import { DTYPE_BYTES, decodeElements, elementCount, openCheckpointFile, readExactly, readFileRange, type Checkpoint, type CheckpointTensor, type StoredDtype } from './tensors.ts';

/** The header may not be larger than this (the format's own reader refuses more than 100 MB). */
const MAX_HEADER = 100_000_000;

/** Read one safetensors file's header; tensors read their bytes from the file when asked. */
export function readSafetensorsFile(file: string): Map<string, CheckpointTensor> {
  const fd = openCheckpointFile(file);
  const tensors = new Map<string, CheckpointTensor>();
  try {
    const size = fstatSync(fd).size;
    if (size < 8) throw new CitebenchError(`${file}: not a safetensors file (${size} bytes, the header length alone takes 8)`);
    const headerLen = Number(new DataView(readExactly(fd, 8, 0, file, 'header length').buffer).getBigUint64(0, true));
    if (headerLen > MAX_HEADER || 8 + headerLen > size)
      throw new CitebenchError(`${file}: not a safetensors file or truncated (header of ${headerLen} bytes, file of ${size})`);
    let header: Record<string, unknown>;
    try {
      header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(readExactly(fd, headerLen, 8, file, 'header'))) as Record<string, unknown>;
    } catch (e) {
      throw new CitebenchError(`${file}: safetensors header is not JSON (${(e as Error).message})`);
    }
    if (typeof header !== 'object' || header === null || Array.isArray(header)) throw new CitebenchError(`${file}: safetensors header is not a JSON object`);
    const dataStart = 8 + headerLen;
    const dataLen = size - dataStart;
    const spans: { name: string; begin: number; end: number }[] = [];
    for (const [name, raw] of Object.entries(header)) {
      if (name === '__metadata__') continue;
      const e = raw as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
      const where = `${file}: tensor '${name}'`;
      if (typeof e?.dtype !== 'string' || !(e.dtype in DTYPE_BYTES)) throw new CitebenchError(`${where}: dtype ${JSON.stringify(e?.dtype)} is not one citebench reads (${Object.keys(DTYPE_BYTES).join(', ')})`);
      if (!Array.isArray(e.shape) || !e.shape.every((d) => Number.isSafeInteger(d) && d >= 0)) throw new CitebenchError(`${where}: shape ${JSON.stringify(e.shape)} is not a list of sizes`);
      if (!Array.isArray(e.data_offsets) || e.data_offsets.length !== 2 || !e.data_offsets.every((d) => Number.isSafeInteger(d) && d >= 0))
        throw new CitebenchError(`${where}: data_offsets ${JSON.stringify(e.data_offsets)} is not [begin, end]`);
      const dtype = e.dtype as StoredDtype;
      const shape = e.shape as number[];
      const [begin, end] = e.data_offsets as number[];
      const n = elementCount(shape);
      if (end < begin || end > dataLen)
        throw new CitebenchError(`${where}: data_offsets [${begin}, ${end}] lie outside the ${dataLen} data bytes (truncated or damaged file)`);
      if (end - begin !== n * DTYPE_BYTES[dtype])
        throw new CitebenchError(`${where}: ${end - begin} bytes for shape [${shape}] of ${dtype} (need ${n * DTYPE_BYTES[dtype]})`);
      spans.push({ name, begin, end });
      tensors.set(name, {
        name,
        dtype,
        shape,
        location: { file, offset: dataStart + begin },
        float32: () => decodeElements(readFileRange(file, dataStart + begin, end - begin, `tensor '${name}'`), dtype, n, where),
        float32Range: (start, count) => {
          const es = DTYPE_BYTES[dtype];
          return decodeElements(readFileRange(file, dataStart + begin + start * es, count * es, `tensor '${name}'`), dtype, count, where);
        },
      });
    }
    checkTiling(file, spans, dataLen);
  } finally {
    closeSync(fd);
  }
  return tensors;
}

/** The tensors' byte spans must tile [0, dataLen) exactly, as safetensors' own reader requires. */
function checkTiling(file: string, spans: { name: string; begin: number; end: number }[], dataLen: number): void {
  spans.sort((a, b) => a.begin - b.begin || a.end - b.end);
  let at = 0;
  let prev: (typeof spans)[number] | undefined;
  for (const s of spans) {
    const where = `${file}: tensor '${s.name}': data_offsets [${s.begin}, ${s.end}]`;
    if (s.begin < at) throw new CitebenchError(`${where} overlap tensor '${prev!.name}' [${prev!.begin}, ${prev!.end}] (safetensors tensors tile the data buffer without overlap)`);
    if (s.begin > at)
      throw new CitebenchError(`${where} leave data bytes [${at}, ${s.begin}) unused ${prev ? `after tensor '${prev.name}'` : 'before it'} (safetensors tensors tile the data buffer without gaps)`);
    at = s.end;
    prev = s;
  }
  if (at !== dataLen)
    throw new CitebenchError(
      prev
        ? `${file}: ${dataLen - at} bytes after the last tensor '${prev.name}' (it ends at data byte ${at} of ${dataLen}); safetensors tensors end where the file ends`
        : `${file}: no tensors, but ${dataLen} data bytes after the header; safetensors tensors end where the file ends`,
    );
}

/** `model.safetensors`, or the shards named by `model.safetensors.index.json`. */
export function readSafetensors(path: string): Checkpoint {
  if (!path.endsWith('.index.json')) return { files: [path], format: 'safetensors', tensors: readSafetensorsFile(path) };
  return readSharded(path, 'safetensors', readSafetensorsFile);
}
