/**
 * The one cache of computed numbers — a run's cells, a tuner's grid points, MDCR's scores — as experiment()
 * keeps them: one JSON record per result at a path of its own, holding the key of everything that determined it
 * (cacheKey), written atomically and last (after any file it names), so a record whose key matches is current and
 * complete; a missing, damaged or stale one is computed again. While a record is computed its lock file
 * (<record>.lock, util/lock.ts) keeps other workers sharing the folder off it: they wait for it, or skip it.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic.ts';
import { staleReason, tryLock, type HeldLock } from '../util/lock.ts';
import { hashString } from '../util/rng.ts';

/** The key of a record: a hash of everything that determines it (8 hex digits). */
export function cacheKey(parts: unknown): string {
  return hashString(JSON.stringify(parts)).toString(16).padStart(8, '0');
}

export interface RecordSlot {
  /** Folder the paths are relative to. */
  dir: string;
  /** The record (JSON). */
  record: string;
  /** Files the record names that must exist for it to be current (e.g. its TREC run). */
  files: string[];
  key: string;
  /** Said in log lines. */
  label: string;
}

export interface LockPolicy {
  /** A record whose lock a live worker holds: 'wait' (default) until it is written, or 'skip' it. */
  locked?: 'wait' | 'skip';
  lockStaleMs?: number;
}

/** The stored record at a slot when its key matches and the files it names exist; else undefined. */
function currentRecord<R>(slot: RecordSlot): R | undefined {
  const path = join(slot.dir, slot.record);
  if (!existsSync(path)) return undefined;
  let r: R & { key?: string };
  try {
    r = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined; // a damaged record is computed again
  }
  return r.key === slot.key && slot.files.every((f) => existsSync(join(slot.dir, f))) ? r : undefined;
}

/**
 * The current record of a slot, or `compute`'s (which writes the files the record names) written atomically
 * under the slot's lock. `skipped` when another live worker holds the lock and the policy says skip.
 */
export async function cachedRecord<R>(slot: RecordSlot, policy: LockPolicy, compute: () => Promise<R>, log: (line: string) => void): Promise<R | 'skipped'> {
  const lockPath = join(slot.dir, `${slot.record}.lock`);
  let cached = currentRecord<R>(slot);
  if (cached) {
    // A worker killed between writing its record and releasing the lock leaves the lock behind: tidy it.
    if (existsSync(lockPath) && staleReason(lockPath, { staleMs: policy.lockStaleMs })) rmSync(lockPath, { force: true });
    return cached;
  }
  const lock = await takeLock(policy, lockPath, slot.label, () => currentRecord(slot), log);
  if (!lock) return 'skipped';
  try {
    // Another worker may have finished it between our check and our lock.
    cached = currentRecord<R>(slot);
    if (cached) return cached;
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
