import { closeSync, fsyncSync, linkSync, openSync, readFileSync, readdirSync, renameSync, mkdirSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { IO_SLICE, writeAllSync } from './buffered-file.ts';
import { basename, dirname, join } from 'node:path';

/** Temp-file suffix unique across the machines that share a folder (NFS): pids repeat between hosts. */
const tmpSuffix = () => `.tmp-${hostname()}-${process.pid}`;

/** Temp files and folders this process is writing now: removed when it is told to stop (removeLiveTemps). */
const live = new Set<string>();

/**
 * Remove every temp file or folder this process has open (the CLI calls it on SIGTERM/SIGINT, e.g. a cancelled
 * SLURM task, before it exits): a temp file dies with its writer. Only SIGKILL leaves one; sweepDeadTemps
 * removes those. Returns how many were removed.
 */
export function removeLiveTemps(): number {
  const n = live.size;
  for (const p of live) rmSync(p, { recursive: true, force: true });
  live.clear();
  return n;
}

/**
 * Write a file so that a reader never sees it half-written: write to a sibling temp file, fsync, rename.
 * A kill mid-write leaves the old file (or none) plus a `.tmp-*` file that the next write replaces.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array | ArrayBufferView): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = path + tmpSuffix();
  writeTmp(tmp, data);
  renameLive(tmp, path);
}

/**
 * Like writeFileAtomic for content produced piece by piece (a large file never held whole): `produce` calls
 * `write` with consecutive chunks; the file appears under `path` only once all of them are written and synced.
 */
export function writeFileAtomicWith(path: string, produce: (write: (chunk: Uint8Array) => void) => void): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = path + tmpSuffix();
  writeTmpWith(tmp, produce);
  renameLive(tmp, path);
}

/**
 * writeFileAtomicWith for a producer that awaits between chunks (a compression stream's output): `write` takes
 * each chunk as it comes, synchronously; the file appears under `path` once `produce` resolves and it is synced.
 */
export async function writeFileAtomicAsync(path: string, produce: (write: (chunk: Uint8Array) => void) => Promise<void>): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = path + tmpSuffix();
  const t = openTmp(tmp);
  try {
    await produce(t.write);
  } catch (e) {
    t.abandon();
    throw e;
  }
  t.finish();
  renameLive(tmp, path);
}

/** Commit a temp file: it is no longer this process's to remove. */
function renameLive(tmp: string, path: string): void {
  renameSync(tmp, path);
  live.delete(tmp);
}

/**
 * Create `path` with `data` only if it does not exist yet, atomically (a complete file or none): write a temp
 * file, then hard-link it into place — link(2) fails with EEXIST when another writer was first, also on NFS.
 * Returns the file's content after the call: `data` when this call created it, else the existing content.
 */
export function createFileExclusive(path: string, data: string): { created: boolean; content: string } {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = path + tmpSuffix();
  writeTmp(tmp, data);
  try {
    linkSync(tmp, path);
    return { created: true, content: data };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return { created: false, content: readFileSync(path, 'utf8') };
  } finally {
    rmSync(tmp, { force: true });
    live.delete(tmp);
  }
}

function writeTmp(tmp: string, data: string | Uint8Array | ArrayBufferView): void {
  if (typeof data === 'string') return writeTmpWith(tmp, (write) => write(Buffer.from(data, 'utf8')));
  // Byte views of at most 1 GiB: V8 refuses a Uint8Array of more than 2^32 elements (a 16 M-article index's
  // postings are 7.9 GB), and writeSync more than 2 GiB per call.
  writeTmpWith(tmp, (write) => {
    for (let off = 0; off < data.byteLength; off += IO_SLICE) {
      write(new Uint8Array(data.buffer, data.byteOffset + off, Math.min(IO_SLICE, data.byteLength - off)));
    }
  });
}

/** Write a temp file chunk by chunk and fsync it; on any error it is removed. */
function writeTmpWith(tmp: string, produce: (write: (chunk: Uint8Array) => void) => void): void {
  const t = openTmp(tmp);
  try {
    produce(t.write);
  } catch (e) {
    t.abandon();
    throw e;
  }
  t.finish();
}

/** A temp file open for writing: `finish` fsyncs and closes it; on any error (fsync's too) it is removed. */
function openTmp(tmp: string): { write: (chunk: Uint8Array) => void; finish: () => void; abandon: () => void } {
  live.add(tmp);
  const fd = openSync(tmp, 'w');
  const abandon = () => {
    closeSync(fd);
    rmSync(tmp, { force: true });
    live.delete(tmp);
  };
  return {
    write: (b) => writeAllSync(fd, b),
    finish() {
      try {
        fsyncSync(fd);
      } catch (e) {
        abandon();
        throw e;
      }
      closeSync(fd);
    },
    abandon,
  };
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // alive, someone else's
  }
}

/**
 * A temp sibling of `path` for a directory (or a file another library writes, e.g. an HNSW graph) built aside
 * and committed with commitDirectory or a rename. Temp siblings that
 * killed processes of this host left (a half-written BM25 index can be gigabytes) are removed first.
 */
export function tmpDirFor(path: string): string {
  const parent = dirname(path);
  const prefix = `${basename(path)}.tmp-${hostname()}-`;
  let names: string[] = [];
  try {
    names = readdirSync(parent);
  } catch {
    /* no parent yet: nothing left over */
  }
  for (const n of names) {
    const pid = Number(n.slice(prefix.length));
    if (n.startsWith(prefix) && Number.isInteger(pid) && pid > 0 && pid !== process.pid && !pidAlive(pid)) rmSync(join(parent, n), { recursive: true, force: true });
  }
  live.add(path + tmpSuffix());
  return path + tmpSuffix();
}

/**
 * Remove, under `dir`, every temp file or folder that a dead process of this host left (`NAME.tmp-HOST-PID`):
 * a task killed mid-write (a SLURM task cancelled, a shard SIGKILLed) must not leave its half-written file beside
 * the finished one it was replacing. Temp files of live processes and of other hosts are kept. Returns how many
 * were removed.
 */
export function sweepDeadTemps(dir: string): number {
  const mark = `.tmp-${hostname()}-`;
  let removed = 0;
  const walk = (d: string) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return; // gone meanwhile, or never there
    }
    for (const e of entries) {
      const at = e.name.lastIndexOf(mark);
      const pid = at > 0 ? Number(e.name.slice(at + mark.length)) : NaN;
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !pidAlive(pid)) {
        rmSync(join(d, e.name), { recursive: true, force: true });
        removed++;
      } else if (e.isDirectory()) walk(join(d, e.name));
    }
  };
  walk(dir);
  return removed;
}

/** Atomically replace a whole directory's contents: build in `${dir}.tmp-*`, then swap. */
export function commitDirectory(tmpDir: string, finalDir: string): void {
  rmSync(finalDir, { recursive: true, force: true });
  renameLive(tmpDir, finalDir);
}
