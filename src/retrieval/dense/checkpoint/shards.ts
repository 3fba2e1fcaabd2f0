/**
 * Sharded checkpoints: `model.safetensors.index.json` or `pytorch_model.bin.index.json`, whose `weight_map`
 * names for every tensor the shard file (beside the index) that holds it. Each shard is read by the format's own
 * reader; the index decides which shard a name comes from, every name it lists must be found there, and every
 * tensor a shard holds must be listed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CitebenchError } from '../../../util/errors.ts';
import type { Checkpoint, CheckpointTensor } from './tensors.ts';

/** The shard files an index names, in first-mention order, checked to be plain names beside it. */
export function shardFiles(path: string): { map: Record<string, string>; files: string[] } {
  let index: { weight_map?: Record<string, unknown> };
  try {
    index = JSON.parse(readFileSync(path, 'utf8')) as typeof index;
  } catch (e) {
    throw new CitebenchError(`${path}: cannot read the shard index (${(e as Error).message})`);
  }
  const map = index?.weight_map;
  if (!map || typeof map !== 'object' || Array.isArray(map)) throw new CitebenchError(`${path}: no "weight_map" object`);
  const shards = [...new Set(Object.values(map))];
  for (const s of shards)
    if (typeof s !== 'string' || s.includes('/') || s.includes('\\') || s.startsWith('.')) throw new CitebenchError(`${path}: weight_map names shard ${JSON.stringify(s)}, not a file beside the index`);
  return { map: map as Record<string, string>, files: (shards as string[]).map((s) => join(dirname(path), s)) };
}

export function readSharded(path: string, format: string, readShard: (file: string) => Map<string, CheckpointTensor>): Checkpoint {
  const { map, files } = shardFiles(path);
  const tensors = new Map<string, CheckpointTensor>();
  for (const file of files) {
    const s = basename(file);
    if (!existsSync(file)) throw new CitebenchError(`${path}: shard ${s} is missing (${basename(path)} names it)`);
    for (const [name, t] of readShard(file)) {
      // The index decides which shard holds a name; a tensor it does not list at all means index and shards disagree.
      if (!(name in map)) throw new CitebenchError(`${path}: tensor '${name}' of shard ${s} is not in the index (the index and its shards do not belong together)`);
      if (map[name] === s) tensors.set(name, t);
    }
  }
  for (const name of Object.keys(map)) if (!tensors.has(name)) throw new CitebenchError(`${path}: tensor '${name}' is not in its shard ${map[name]}`);
  return { files, format, tensors };
}
