/**
 * Resumable search: each query's ranked list is appended to a journal file (`RUN.partial`) as soon as the
 * retriever reports it final, so a killed search restarts with only the queries it had not finished.
 *
 * Journal layout (little-endian): a header line `citebench-search-journal 1 <fingerprint>\n`, then one record
 * per query: u32 query position, u32 n, n × u32 corpus index, n × f32 score. A kill can leave at most a torn
 * last record; it is cut off on reopening. A journal whose fingerprint differs (other index, queries, pool or
 * parameters) is discarded, never mixed in.
 */
import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import type { RankedLists, Retriever, SearchRequest } from './retriever.ts';

const MAGIC = 'citebench-search-journal 1 ';

export interface ResumableOptions {
  /** Everything the results depend on besides the request (index, parameters…): a changed value starts over. */
  fingerprint: string;
  /** Called after each journal append with the number of queries on disk (tests use it to simulate a kill). */
  onJournal?: (done: number) => void;
  /** Told how many queries a resumed run found finished. */
  onResume?: (done: number) => void;
}

interface Entry {
  docs: Uint32Array;
  scores: Float32Array;
}

/** Read the finished queries of a journal; cuts a torn tail; null when absent or of another search. */
function readJournal(path: string, header: Buffer, nQueries: number): Map<number, Entry> | null {
  if (!existsSync(path)) return null;
  const buf = readFileSync(path);
  if (buf.length < header.length || !buf.subarray(0, header.length).equals(header)) return null;
  const done = new Map<number, Entry>();
  let at = header.length;
  while (at + 8 <= buf.length) {
    const q = buf.readUInt32LE(at);
    const n = buf.readUInt32LE(at + 4);
    const end = at + 8 + n * 8;
    if (end > buf.length || q >= nQueries) break;
    const docs = new Uint32Array(n);
    const scores = new Float32Array(n);
    new Uint8Array(docs.buffer).set(buf.subarray(at + 8, at + 8 + n * 4));
    new Uint8Array(scores.buffer).set(buf.subarray(at + 8 + n * 4, end));
    done.set(q, { docs, scores });
    at = end;
  }
  if (at < buf.length) {
    const fd = openSync(path, 'r+');
    ftruncateSync(fd, at);
    closeSync(fd);
  }
  return done;
}

/**
 * `retriever.search(req)` with a journal at `journalPath`: queries already in the journal are not searched
 * again. The caller writes its run atomically from the result, then calls removeJournal.
 */
export async function searchResumable(retriever: Retriever, req: SearchRequest, journalPath: string, opts: ResumableOptions): Promise<RankedLists> {
  const n = req.queries.length;
  const header = Buffer.from(`${MAGIC}${opts.fingerprint.replace(/\s+/g, ' ')}\n`, 'utf8');
  const done = readJournal(journalPath, header, n) ?? new Map<number, Entry>();
  if (done.size > 0) opts.onResume?.(done.size);
  let fd: number;
  if (done.size > 0) fd = openSync(journalPath, 'a');
  else {
    fd = openSync(journalPath, 'w');
    writeSync(fd, header);
  }
  const append = (q: number, docs: Uint32Array, scores: Float32Array) => {
    if (done.has(q)) return;
    const rec = Buffer.alloc(8 + docs.length * 8);
    rec.writeUInt32LE(q, 0);
    rec.writeUInt32LE(docs.length, 4);
    Buffer.from(docs.buffer, docs.byteOffset, docs.byteLength).copy(rec, 8);
    Buffer.from(scores.buffer, scores.byteOffset, scores.byteLength).copy(rec, 8 + docs.length * 4);
    writeSync(fd, rec);
    done.set(q, { docs: docs.slice(), scores: scores.slice() });
    opts.onJournal?.(done.size);
  };
  try {
    const todo: number[] = [];
    for (let q = 0; q < n; q++) if (!done.has(q)) todo.push(q);
    if (todo.length > 0) {
      const pick = <T>(a: T[] | undefined) => a && todo.map((q) => a[q]);
      const sub: SearchRequest = {
        ...req,
        queries: Uint32Array.from(todo, (q) => req.queries[q]),
        candidates: pick(req.candidates),
        onResult: (i, docs, scores) => {
          append(todo[i], docs, scores);
          req.onResult?.(todo[i], docs, scores);
        },
      };
      const got = await retriever.search(sub);
      // Retrievers that do not report per query: everything is final now.
      for (let i = 0; i < todo.length; i++) {
        append(todo[i], got.docs.subarray(got.offsets[i], got.offsets[i + 1]), got.scores.subarray(got.offsets[i], got.offsets[i + 1]));
      }
      fsyncSync(fd);
    }
  } finally {
    closeSync(fd);
  }
  const offsets = new Uint32Array(n + 1);
  for (let q = 0; q < n; q++) offsets[q + 1] = offsets[q] + done.get(q)!.docs.length;
  const docs = new Uint32Array(offsets[n]);
  const scores = new Float32Array(offsets[n]);
  for (let q = 0; q < n; q++) {
    const e = done.get(q)!;
    docs.set(e.docs, offsets[q]);
    scores.set(e.scores, offsets[q]);
  }
  return { offsets, docs, scores };
}

/** Remove a journal after its run file has been written. */
export function removeJournal(journalPath: string): void {
  rmSync(journalPath, { force: true });
}
