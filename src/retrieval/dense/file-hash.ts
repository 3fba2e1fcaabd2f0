/**
 * Content hashes of model files: a sampled digest for fingerprints of large files that are never edited in place,
 * and the whole file's SHA-256 where every byte must count (ONNX weights, checkpoints, the conversion key).
 */
import { sha256 } from '../../util/identity.ts';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';

/** Fast, content-based: size + SHA-256 of the first and last 4 MiB (the whole file when smaller than 8 MiB). */
export function fileDigest(path: string): string {
  const size = statSync(path).size;
  const h = sha256().update(String(size));
  const fd = openSync(path, 'r');
  try {
    const span = 4 << 20;
    const readAt = (pos: number, len: number) => {
      const b = Buffer.alloc(len);
      let o = 0;
      while (o < len) {
        const r = readSync(fd, b, o, len - o, pos + o);
        if (r === 0) break;
        o += r;
      }
      h.update(b.subarray(0, o));
    };
    if (size <= 2 * span) readAt(0, size);
    else {
      readAt(0, span);
      readAt(size - span, span);
    }
  } finally {
    closeSync(fd);
  }
  return h.hex();
}

const contentHashes = new Map<string, string>();

/**
 * SHA-256 of a whole file (an ONNX model: any changed weight changes it, unlike the sampled fileDigest), computed
 * once per process for each (path, size, mtime).
 */
export function fileContentHash(path: string): string {
  const st = statSync(path);
  const key = `${resolve(path)}\u0000${st.size}\u0000${st.mtimeMs}`;
  let h = contentHashes.get(key);
  if (h === undefined) {
    contentHashes.set(key, (h = sha256().updateFile(path).hex()));
  }
  return h;
}
