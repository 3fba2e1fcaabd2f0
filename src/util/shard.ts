/**
 * Work split for clusters: `--shard I/N` (0 ≤ I < N, as SLURM_ARRAY_TASK_ID counts) names the I-th of N
 * disjoint, deterministic slices of a job. Which slicing a command uses is its own choice (chunks round-robin,
 * queries in contiguous blocks …); every slicing here covers each unit exactly once over I = 0…N−1.
 */
import { CitebenchError } from './errors.ts';

export interface Shard {
  index: number;
  count: number;
}

export function parseShard(v: string | undefined, option = '--shard'): Shard | undefined {
  if (v === undefined) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(v.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index >= count)
    throw new CitebenchError(`${option} must be I/N with 0 ≤ I < N (e.g. 0/4, as SLURM_ARRAY_TASK_ID counts), got '${v}'`);
  return { index, count };
}

/** Round-robin: unit u belongs to shard u mod N (chunks, pool groups: spreads big and small ones). */
export function inShard(unit: number, shard: Shard | undefined): boolean {
  return !shard || unit % shard.count === shard.index;
}

/** Contiguous block [from, to) of n items for a shard: concatenating the blocks in shard order gives 0…n−1. */
export function shardRange(n: number, shard: Shard | undefined): { from: number; to: number } {
  if (!shard) return { from: 0, to: n };
  return { from: Math.floor((shard.index * n) / shard.count), to: Math.floor(((shard.index + 1) * n) / shard.count) };
}

export function shardLabel(shard: Shard | undefined): string {
  return shard ? `shard ${shard.index}/${shard.count}` : 'all';
}
