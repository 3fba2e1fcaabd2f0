/**
 * Lock files that keep workers sharing a folder (one machine or several over NFS) off the same unit of work.
 * A lock is created with O_EXCL and holds {pid, host, time}; its holder refreshes its mtime (a heartbeat)
 * while it works. A lock is stale — its worker is dead — when its pid is not alive on this host, or when its
 * heartbeat is older than the stale timeout (the only test possible for a worker on another host); a stale
 * lock is taken over.
 */
import { closeSync, openSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeSync, mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { pidAlive } from './atomic.ts';

interface LockInfo {
  pid: number;
  host: string;
  /** ISO time the lock was taken. */
  time: string;
}

interface LockOptions {
  /** A heartbeat older than this is a dead worker's (default: $CITEBENCH_LOCK_STALE_S or 600 s). */
  staleMs?: number;
  /** Clock and liveness probes, for tests. */
  now?: () => number;
}

export interface HeldLock {
  path: string;
  release(): void;
}

function defaultStaleMs(): number {
  const s = Number(process.env.CITEBENCH_LOCK_STALE_S);
  return (Number.isFinite(s) && s > 0 ? s : 600) * 1000;
}


function readLock(path: string): { info?: LockInfo; text: string; mtimeMs: number } | undefined {
  try {
    const st = statSync(path);
    const text = readFileSync(path, 'utf8');
    let info: LockInfo | undefined;
    try {
      info = JSON.parse(text) as LockInfo;
    } catch {
      info = undefined; // a lock whose writer died between create and write: judged by age alone
    }
    return { info, text, mtimeMs: st.mtimeMs };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Why a lock is stale (for logs), or undefined when its worker may still be alive. */
export function staleReason(path: string, opts: LockOptions = {}): string | undefined {
  const l = readLock(path);
  if (!l) return 'gone';
  const now = (opts.now ?? Date.now)();
  const staleMs = opts.staleMs ?? defaultStaleMs();
  if (l.info && l.info.host === hostname() && !pidAlive(l.info.pid)) return `pid ${l.info.pid} on ${l.info.host} is not running`;
  if (now - l.mtimeMs > staleMs) return `no heartbeat for ${Math.round((now - l.mtimeMs) / 1000)} s`;
  return undefined;
}

/**
 * Take the lock at `path`, or return undefined when a live worker holds it. A stale lock is first renamed
 * aside (only one taker's rename succeeds) and checked to be the one judged stale, then re-created with O_EXCL.
 */
export function tryLock(path: string, opts: LockOptions & { onTakeover?: (why: string, was: string) => void } = {}): HeldLock | undefined {
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    const held = create(path, opts.staleMs ?? defaultStaleMs());
    if (held) return held;
    const before = readLock(path);
    if (!before) continue; // released meanwhile
    const why = staleReason(path, opts);
    if (!why) return undefined;
    const aside = `${path}.stale-${hostname()}-${process.pid}`;
    try {
      renameSync(path, aside);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue; // another taker was first
      throw e;
    }
    const moved = readFileSync(aside, 'utf8');
    if (moved !== before.text) {
      // Between our check and the rename another worker took the lock over: give it back.
      renameSync(aside, path);
      return undefined;
    }
    rmSync(aside, { force: true });
    opts.onTakeover?.(why, before.text.trim());
  }
  return undefined;
}

function create(path: string, staleMs: number): HeldLock | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw e;
  }
  const info: LockInfo = { pid: process.pid, host: hostname(), time: new Date().toISOString() };
  writeSync(fd, JSON.stringify(info) + '\n');
  closeSync(fd);
  // Heartbeat: a long cell keeps its lock fresh; unref'd, so it never keeps the process alive.
  const beat = setInterval(() => {
    try {
      const t = new Date();
      utimesSync(path, t, t);
    } catch {
      /* lock taken over or folder gone: the owner check at release decides */
    }
  }, Math.max(1000, staleMs / 4));
  beat.unref();
  return {
    path,
    release() {
      clearInterval(beat);
      const l = readLock(path);
      // Remove only our own lock (a worker that lost it to a takeover must not delete the new owner's).
      if (l?.info && l.info.pid === info.pid && l.info.host === info.host && l.info.time === info.time) rmSync(path, { force: true });
    },
  };
}

/**
 * Run `f` holding the lock at `path`, waiting while a live worker holds it (`waiting` is told once, `takeover`
 * when a dead worker's stale lock is taken over).
 */
export async function underLock<T>(path: string, opts: LockOptions & { waiting?: () => void; takeover?: (why: string) => void }, f: () => Promise<T>): Promise<T> {
  let said = false;
  for (;;) {
    const held = tryLock(path, { ...opts, onTakeover: (why) => opts.takeover?.(why) });
    if (held) {
      try {
        return await f();
      } finally {
        held.release();
      }
    }
    if (!said) opts.waiting?.();
    said = true;
    await new Promise((r) => setTimeout(r, 500));
  }
}
