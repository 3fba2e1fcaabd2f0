import { closeSync, fsyncSync, openSync, renameSync, writeSync, mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Write a file so that a reader never sees it half-written: write to a sibling temp file, fsync, rename.
 * A kill mid-write leaves the old file (or none) plus a `.tmp-*` file that the next write replaces.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array | ArrayBufferView): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w');
  try {
    const bytes =
      typeof data === 'string'
        ? Buffer.from(data, 'utf8')
        : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    let off = 0;
    while (off < bytes.byteLength) off += writeSync(fd, bytes, off, bytes.byteLength - off);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, path);
}

/** Atomically replace a whole directory's contents: build in `${dir}.tmp-*`, then swap. */
export function commitDirectory(tmpDir: string, finalDir: string): void {
  rmSync(finalDir, { recursive: true, force: true });
  renameSync(tmpDir, finalDir);
}
