/**
 * Free disk space, checked before a long job writes: synthesis, the store build and the index build each
 * need gigabytes at the S2ORC scale, and running out hours in gives a truncated file and a cryptic ENOSPC.
 */
import { existsSync, statfsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CitebenchError } from './errors.ts';

/** Bytes an unprivileged process may still write on the volume holding `dir` (or its nearest existing parent). */
export type FreeBytes = (dir: string) => number;

export const freeBytes: FreeBytes = (dir) => {
  let d = resolve(dir);
  while (!existsSync(d) && dirname(d) !== d) d = dirname(d);
  const s = statfsSync(d);
  return s.bavail * s.bsize;
};

const GiB = 2 ** 30;
const human = (b: number) => (b >= GiB ? `${(b / GiB).toFixed(1)} GiB` : `${(b / 2 ** 20).toFixed(0)} MiB`);

/**
 * Throw, before any work starts, when the volume of `dir` has less than `needed` bytes free. `what` names the
 * job ("synth: 20,000,000 records of shards"); `free` is replaceable for tests.
 */
export function requireFreeSpace(dir: string, needed: number, what: string, free: FreeBytes = freeBytes): void {
  needed = Math.ceil(needed);
  const have = free(dir);
  if (have >= needed) return;
  throw new CitebenchError(
    `${dir}: not enough free disk for ${what}: needs about ${needed.toLocaleString('en-US')} bytes (${human(needed)}), ` +
      `the volume has ${have.toLocaleString('en-US')} (${human(have)}) free — free some space or write to another disk`,
  );
}
