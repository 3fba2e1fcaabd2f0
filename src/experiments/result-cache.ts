/**
 * The one cache of computed numbers — a run's cells, a tuner's grid points, MDCR's scores — as experiment()
 * keeps them: one JSON record per result at a path of its own, holding the key of everything that determined it
 * (util/identity.ts keyOf: SHA-256 over the content of its inputs, its parameters and the code version) and a
 * short description of each input, written atomically and last (after any file it names), so a record whose key
 * matches is current and complete; a damaged or stale one is computed again with one log line saying why
 * ("pool ids changed"), a missing one is computed. While a record is computed its lock file
 * (<record>.lock, util/lock.ts) keeps other workers sharing the folder off it: they wait for it, or skip it.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic.ts';
import { staleReason, tryLock, type HeldLock } from '../util/lock.ts';
import { whyStale, type InputsDescription } from '../util/identity.ts';

export interface RecordSlot {
  /** Folder the paths are relative to. */
  dir: string;
  /** The record (JSON). */
  record: string;
  /** Files the record names that must exist for it to be current (e.g. its TREC run). */
  files: string[];
  key: string;
  /** The inputs the key was made of (util/identity.ts keyOf), to say why a stored record is stale. */
  inputs: InputsDescription;
  /** Said in log lines. */
  label: string;
}

export interface LockPolicy {
  /** A record whose lock a live worker holds: 'wait' (default) until it is written, or 'skip' it. */
  locked?: 'wait' | 'skip';
  lockStaleMs?: number;
}

/**
 * The stored record at a slot when its key matches and the files it names exist; else why not (undefined when
 * there is none).
 */
function currentRecord<R>(slot: RecordSlot): { record: R } | { why?: string } {
  const path = join(slot.dir, slot.record);
  if (!existsSync(path)) return {};
  let r: R & { key?: string; inputs?: unknown };
  try {
    r = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return { why: 'its record is damaged' };
  }
  const why = whyStale(r, slot);
  if (why) return { why };
  const missing = slot.files.find((f) => !existsSync(join(slot.dir, f)));
  return missing ? { why: `${missing} is missing` } : { record: r };
}

/**
 * The current record of a slot, or `compute`'s (which writes the files the record names) written atomically
 * under the slot's lock. `skipped` when another live worker holds the lock and the policy says skip.
 */
export async function cachedRecord<R>(slot: RecordSlot, policy: LockPolicy, compute: () => Promise<R>, log: (line: string) => void): Promise<R | 'skipped'> {
  const lockPath = join(slot.dir, `${slot.record}.lock`);
  let cached = currentRecord<R>(slot);
  if ('record' in cached) {
    // A worker killed between writing its record and releasing the lock leaves the lock behind: tidy it.
    if (existsSync(lockPath) && staleReason(lockPath, { staleMs: policy.lockStaleMs })) rmSync(lockPath, { force: true });
    return cached.record;
  }
  const lock = await takeLock(policy, lockPath, slot.label, () => 'record' in currentRecord(slot), log);
  if (!lock) return 'skipped';
  try {
    // Another worker may have finished it between our check and our lock.
    cached = currentRecord<R>(slot);
    if ('record' in cached) return cached.record;
    if (cached.why) log(`${slot.label}: recomputed, ${cached.why}`);
    const r = await compute();
    writeFileAtomic(join(slot.dir, slot.record), JSON.stringify(r) + '\n');
    return r;
  } finally {
    if (lock !== 'done') lock.release();
  }
}

/**
 * Take a record's lock. A live holder: with 'skip' return undefined; with 'wait' poll until the record is
 * written ('done') or the lock is free or stale (a dead worker's lock is taken over, util/lock.ts).
 */
async function takeLock(policy: LockPolicy, path: string, label: string, done: () => unknown, log: (l: string) => void): Promise<HeldLock | 'done' | undefined> {
  let said = false;
  for (;;) {
    const held = tryLock(path, { staleMs: policy.lockStaleMs, onTakeover: (why, was) => log(`${label}: taking over a stale lock (${why}; was ${was})`) });
    if (held) return held;
    if (policy.locked === 'skip') {
      log(`${label}: another worker holds it; skipped`);
      return undefined;
    }
    if (!said) log(`${label}: another worker holds it; waiting`);
    said = true;
    await new Promise((r) => setTimeout(r, 500));
    if (done()) return 'done';
  }
}
