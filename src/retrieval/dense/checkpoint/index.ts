/**
 * A model folder's weights, whichever way the hub publishes them: `model.safetensors`, its sharded index,
 * `pytorch_model.bin` (PyTorch zip or legacy format, told apart by the first bytes), or its sharded index.
 * safetensors comes first: it is the format that needs no unpickling at all.
 */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { CitebenchError } from '../../../util/errors.ts';
import { readSafetensors } from './safetensors.ts';
import { readSharded, shardFiles } from './shards.ts';
import { readFileRange, type Checkpoint, type CheckpointTensor } from './tensors.ts';
import { readTorchLegacy } from './torch-legacy.ts';
import { isZip, readTorchZip } from './torch-zip.ts';

/** The checkpoint files of a model folder, in order of preference (the hub download fetches the first it finds). */
export const CHECKPOINT_FILES = ['model.safetensors', 'model.safetensors.index.json', 'pytorch_model.bin', 'pytorch_model.bin.index.json'] as const;

function chosen(dir: string): string | undefined {
  return CHECKPOINT_FILES.map((c) => join(dir, c)).find((p) => existsSync(p));
}

/** One pytorch_model.bin (or shard): zip archive or legacy pickle stream. */
export function readTorchFile(file: string): Map<string, CheckpointTensor> {
  const head = readFileRange(file, 0, 4, 'first bytes');
  if (isZip(head)) return readTorchZip(file);
  if (head[0] === 0x80) return readTorchLegacy(file); // a pickle's PROTO opcode
  throw new CitebenchError(`${file}: not a PyTorch checkpoint (neither a zip archive nor a legacy pickle stream)`);
}

/** The tensors of the model folder `dir`. */
export function readCheckpoint(dir: string): Checkpoint {
  const path = chosen(dir);
  if (!path) throw new CitebenchError(`${dir}: no model.safetensors or pytorch_model.bin`);
  if (path.includes('safetensors')) return readSafetensors(path);
  if (path.endsWith('.index.json')) {
    const sharded = readSharded(path, 'torch', readTorchFile);
    return { ...sharded, format: `torch-${formatOf(sharded.files[0]!)}` };
  }
  return { files: [path], format: `torch-${formatOf(path)}`, tensors: readTorchFile(path) };
}

function formatOf(file: string): 'zip' | 'legacy' {
  return isZip(readFileRange(file, 0, 4, 'first bytes')) ? 'zip' : 'legacy';
}

/** The files `readCheckpoint(dir)` would read (index and shards included), for fingerprints; undefined when none. */
export function checkpointFiles(dir: string): string[] | undefined {
  const path = chosen(dir);
  if (!path) return undefined;
  if (!path.endsWith('.index.json')) return [path];
  const shards = shardFiles(path).files;
  const missing = shards.find((f) => !existsSync(f));
  if (missing) throw new CitebenchError(`${path}: shard ${basename(missing)} is missing (${basename(path)} names it)`);
  return [path, ...shards];
}
