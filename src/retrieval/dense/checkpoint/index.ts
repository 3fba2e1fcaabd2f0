/**
 * A model folder's checkpoint: which weight files it has, and reading them. This version knows safetensors only
 * (`model.safetensors`, or shards listed by `model.safetensors.index.json`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CitebenchError } from '../../../util/errors.ts';
import { readSafetensors } from './safetensors.ts';
import type { Checkpoint } from './tensors.ts';

const CANDIDATES = ['model.safetensors', 'model.safetensors.index.json'];

/** The file that names the checkpoint (a weights file or a shard index), or undefined when the folder has none. */
export function checkpointEntry(dir: string): string | undefined {
  for (const c of CANDIDATES) if (existsSync(join(dir, c))) return join(dir, c);
  return undefined;
}

/** The weight files the checkpoint consists of (shards included), in a fixed order. */
export function checkpointFiles(dir: string): string[] {
  return [...readCheckpoint(dir).files];
}

export function readCheckpoint(dir: string): Checkpoint {
  const entry = checkpointEntry(dir);
  if (!entry) throw new CitebenchError(`${dir}: no checkpoint (looked for ${CANDIDATES.join(', ')})`);
  return readSafetensors(entry);
}
