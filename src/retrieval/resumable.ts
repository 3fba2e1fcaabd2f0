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

interface Entry<S extends Float32Array | Float64Array> {
  docs: Uint32Array;
  scores: S;
}

type ScoreArray = Float32Array | Float64Array;
type ScoreCtor<S extends ScoreArray> = { new (n: number): S; readonly BYTES_PER_ELEMENT: number };

/**
 * The journal of finished queries: opened (a journal of another fingerprint is started over, a torn tail cut off),
 * appended to query by query, closed. Scores are float32 (retrievers' ranked lists) or float64 (re-scored pairs,
 * written at full precision); the width is part of the header, so one kind is never read as the other.
 */
export class QueryJournal<S extends ScoreArray = Float32Array> {
  readonly done = new Map<number, Entry<S>>();
  private readonly fd: number;

  constructor(readonly path: string, fingerprint: string, readonly queries: number, private readonly Scores: ScoreCtor<S> = Float32Array as unknown as ScoreCtor<S>) {
    const width = Scores.BYTES_PER_ELEMENT === 8 ? 'f64 ' : '';
    const header = Buffer.from(`${MAGIC}${width}${fingerprint.replace(/\s+/g, ' ')}\n`, 'utf8');
    this.read(header);
    if (this.done.size > 0) this.fd = openSync(path, 'a');
    else {
      this.fd = openSync(path, 'w');
      writeSync(this.fd, header);
    }
  }

  private read(header: Buffer): void {
    if (!existsSync(this.path)) return;
    const buf = readFileSync(this.path);
    if (buf.length < header.length || !buf.subarray(0, header.length).equals(header)) return;
    const w = this.Scores.BYTES_PER_ELEMENT;
    let at = header.length;
    while (at + 8 <= buf.length) {
      const q = buf.readUInt32LE(at);
      const n = buf.readUInt32LE(at + 4);
      const end = at + 8 + n * (4 + w);
      if (end > buf.length || q >= this.queries) break;
      const docs = new Uint32Array(n);
      const scores = new this.Scores(n);
      new Uint8Array(docs.buffer).set(buf.subarray(at + 8, at + 8 + n * 4));
      new Uint8Array(scores.buffer).set(buf.subarray(at + 8 + n * 4, end));
      this.done.set(q, { docs, scores });
      at = end;
    }
    if (at < buf.length) {
      const fd = openSync(this.path, 'r+');
      ftruncateSync(fd, at);
      closeSync(fd);
    }
  }

  /** Record query q's final list (a query already recorded is kept as it was). */
  append(q: number, docs: Uint32Array, scores: S): void {
    if (this.done.has(q)) return;
    const w = this.Scores.BYTES_PER_ELEMENT;
    const rec = Buffer.alloc(8 + docs.length * (4 + w));
    rec.writeUInt32LE(q, 0);
    rec.writeUInt32LE(docs.length, 4);
    Buffer.from(docs.buffer, docs.byteOffset, docs.byteLength).copy(rec, 8);
    Buffer.from(scores.buffer, scores.byteOffset, scores.byteLength).copy(rec, 8 + docs.length * 4);
    writeSync(this.fd, rec);
    this.done.set(q, { docs: docs.slice(), scores: scores.slice() as S });
  }

  /** Queries not recorded yet, in order. */
  todo(): number[] {
    const out: number[] = [];
    for (let q = 0; q < this.queries; q++) if (!this.done.has(q)) out.push(q);
    return out;
  }

  /** fsync and close; then the lists of every query (all must be recorded). */
  close(): { offsets: Uint32Array; docs: Uint32Array; scores: S } {
    fsyncSync(this.fd);
    closeSync(this.fd);
    const n = this.queries;
    const offsets = new Uint32Array(n + 1);
    for (let q = 0; q < n; q++) offsets[q + 1] = offsets[q] + this.done.get(q)!.docs.length;
    const docs = new Uint32Array(offsets[n]);
    const scores = new this.Scores(offsets[n]);
    for (let q = 0; q < n; q++) {
      const e = this.done.get(q)!;
      docs.set(e.docs, offsets[q]);
      scores.set(e.scores, offsets[q]);
    }
    return { offsets, docs, scores };
  }

  /** Close without reading back (an error on the way). */
  abandon(): void {
    closeSync(this.fd);
  }
}

/**
 * `retriever.search(req)` with a journal at `journalPath`: queries already in the journal are not searched
 * again. The caller writes its run atomically from the result, then calls removeJournal.
 */
export async function searchResumable(retriever: Retriever, req: SearchRequest, journalPath: string, opts: ResumableOptions): Promise<RankedLists> {
  const journal = new QueryJournal(journalPath, opts.fingerprint, req.queries.length);
  if (journal.done.size > 0) opts.onResume?.(journal.done.size);
  const append = (q: number, docs: Uint32Array, scores: Float32Array) => {
    if (journal.done.has(q)) return;
    journal.append(q, docs, scores);
    opts.onJournal?.(journal.done.size);
  };
  try {
    const todo = journal.todo();
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
    }
  } catch (e) {
    journal.abandon();
    throw e;
  }
  return journal.close();
}

/** Remove a journal after its run file has been written. */
export function removeJournal(journalPath: string): void {
  rmSync(journalPath, { force: true });
}
