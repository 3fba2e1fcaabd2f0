/**
 * The content hash of a file: the whole file's SHA-256, so every byte counts (ONNX weights, checkpoints, data
 * files). One hash per file, used by every key that names the file (a vector store's model fingerprint, a
 * result cell, the conversion key), so a file edited anywhere — in its middle too — gives another identity.
 *
 * Hashing a 16 GB checkpoint takes about 13 s (1.2 GB/s here), so the hash of a large file is remembered: in
 * memory for the process, and beside the file in `.<name>.citebench-sha256` (path, size, mtime, inode and the hash, written
 * atomically). The remembered hash serves while all four still match; a file replaced (another inode),
 * resized, or written to (another mtime) is hashed again; a file changed within 2 s before it was hashed is not
 * remembered (an edit in the same mtime tick would not show). A folder that cannot be written to is read
 * anyway: its large files are then hashed once per process. What the sidecar cannot see is an in-place edit
 * that also restores the old mtime (`touch -r`): delete the sidecar after such an edit.
 */
import { sha256 } from '../../util/identity.ts';
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { writeFileAtomic } from '../../util/atomic.ts';

/** Files at least this large have their hash remembered beside them (smaller ones hash in well under a second). */
export const REMEMBER_BYTES = 64 << 20;

const contentHashes = new Map<string, string>();

interface Remembered {
  format: 'citebench-sha256';
  path: string;
  size: number;
  mtimeMs: number;
  ino: number;
  sha256: string;
}

/** Where the SHA-256 of a large file is remembered: a hidden file beside it. */
export function sidecarPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.citebench-sha256`);
}

/** SHA-256 (hex) of a whole file, computed once per (path, size, mtime, inode), and remembered beside a large file. */
export function fileContentHash(path: string): string {
  const abs = resolve(path);
  const st = statSync(abs);
  const key = `${abs}\u0000${st.size}\u0000${st.mtimeMs}\u0000${st.ino}`;
  let h = contentHashes.get(key);
  if (h !== undefined) return h;
  const big = st.size >= REMEMBER_BYTES;
  if (big) h = readSidecar(abs, st);
  if (h !== undefined) return h;
  const started = Date.now();
  h = sha256().updateFile(abs).hex();
  // A file written moments ago may be written again within the same mtime tick (a few milliseconds here): its
  // hash is not remembered, or that edit would go unseen (git's "racily clean" files). The next run remembers it.
  if (started - st.mtimeMs > RACY_MS) {
    contentHashes.set(key, h);
    if (big) writeSidecar(abs, st, h);
  }
  return h;
}

/** How long before hashing a file must have last changed for its hash to be remembered. */
const RACY_MS = 2000;

function readSidecar(abs: string, st: { size: number; mtimeMs: number; ino: number }): string | undefined {
  try {
    const r = JSON.parse(readFileSync(sidecarPath(abs), 'utf8')) as Partial<Remembered>;
    const ok = r.format === 'citebench-sha256' && r.path === abs && r.size === st.size && r.mtimeMs === st.mtimeMs && r.ino === st.ino;
    return ok && typeof r.sha256 === 'string' && /^[0-9a-f]{64}$/.test(r.sha256) ? r.sha256 : undefined;
  } catch {
    return undefined; // none, or unreadable: hash the file
  }
}

function writeSidecar(abs: string, st: { size: number; mtimeMs: number; ino: number }, sha: string): void {
  const r: Remembered = { format: 'citebench-sha256', path: abs, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, sha256: sha };
  try {
    writeFileAtomic(sidecarPath(abs), JSON.stringify(r) + '\n');
  } catch {
    // A read-only folder: the hash is remembered for this process only.
  }
}
