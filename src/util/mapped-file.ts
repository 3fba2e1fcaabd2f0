/**
 * Read a whole binary file into shared memory for reading: mapped (native/mapped-file.cc, built with the BM25
 * kernel by `npm ci`) where that addon loads, else read into a fresh SharedArrayBuffer. A mapping skips
 * allocating, zeroing and copying (86 MB of postings ready and read once in 45 ms against 420 ms here), and processes mapping one file
 * share its pages. The pages are copy-on-write: a write into the buffer never reaches the file. For files that
 * are replaced whole, never truncated in place while mapped (the BM25 index's).
 * CITEBENCH_MAPPED_FILES=off reads instead.
 */
import { readFileBuffer } from './buffered-file.ts';
import { loadAddon } from './native-addon.ts';

interface Mapper {
  mapFile(path: string): SharedArrayBuffer;
}

/** The file's bytes in a SharedArrayBuffer: mapped where the addon is built, else read. */
export function readFileShared(path: string): SharedArrayBuffer {
  // Not built: read instead (same bytes; the BM25 kernel's notice already says what is missing).
  const off = process.env.CITEBENCH_MAPPED_FILES === 'off' || process.platform === 'win32';
  const m = loadAddon<Mapper>('citebench_mapped_file', off ? 'off' : undefined).addon;
  return m ? m.mapFile(path) : (readFileBuffer(path, { shared: true }) as SharedArrayBuffer);
}
