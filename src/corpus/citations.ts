/**
 * Citation ids → corpus indices. The first pass over the shards spools every accepted record's citation id
 * lists (with its file and line) into a compact temporary file; once all ids are known, the spool is read
 * back sequentially and each id resolved, emitting (citing, cited) index pairs from both the outbound and the
 * inbound lists. No JSON is parsed twice and no id strings are kept in memory. Ids outside the corpus are
 * counted (normal for a subset of S2ORC; an error under --strict); self-citations are counted and ignored.
 *
 * Spool record: u16 file number, u32 line, u32 #outbound, u32 #inbound, then each id as one tag byte: 1–6 = a
 * canonical decimal id (numericKey) stored as a number in that many little-endian bytes, 0 = any other id, as
 * u16 length + UTF-8 — S2ORC's ids are decimals, so an id takes 5–6 bytes instead of 11–12. The spool is split
 * into chunks at record boundaries, and reading it deletes each chunk once consumed: the spool and the edge
 * list resolved from it are never both whole on disk (at 21 M records the spool is ~8 GB).
 */
import { rmSync } from 'node:fs';
import { numericKey, type IdIndex } from './id-index.ts';
import type { ValidationReport } from './validation.ts';
import { BufferedReader, BufferedWriter } from '../util/buffered-file.ts';
import { InputError } from '../util/errors.ts';
import { Progress } from '../util/progress.ts';

export class CitationSpool {
  private w: BufferedWriter;
  readonly files: string[] = [];
  private readonly fileNo = new Map<string, number>();
  /** The chunk files in order and the records each holds. */
  readonly chunks: { path: string; records: number }[] = [];
  records = 0;
  /** Citation ids spooled (an upper bound on the in-corpus edges, used to size the edge list exactly). */
  ids = 0;

  constructor(
    readonly path: string,
    private readonly chunkBytes = 256 << 20,
  ) {
    this.w = this.open();
  }

  private open(): BufferedWriter {
    const path = `${this.path}.${this.chunks.length}`;
    this.chunks.push({ path, records: 0 });
    return new BufferedWriter(path);
  }

  /** Append the next accepted record (records must be added in corpus-index order). */
  add(file: string, line: number, outbound: string[], inbound: string[]): void {
    let f = this.fileNo.get(file);
    if (f === undefined) {
      f = this.files.length;
      this.files.push(file);
      this.fileNo.set(file, f);
    }
    if (this.w.position >= this.chunkBytes) {
      this.w.close();
      this.w = this.open();
    }
    const w = this.w;
    w.u16(f);
    w.u32(line);
    w.u32(outbound.length);
    w.u32(inbound.length);
    for (const list of [outbound, inbound]) {
      for (const id of list) {
        const k = numericKey(id);
        if (k >= 0 && k < 2 ** 48) {
          const bytes = k < 2 ** 32 ? (k < 2 ** 16 ? (k < 2 ** 8 ? 1 : 2) : k < 2 ** 24 ? 3 : 4) : k < 2 ** 40 ? 5 : 6;
          w.u8(bytes);
          w.uintLE(k, bytes);
          continue;
        }
        const len = Buffer.byteLength(id);
        if (len > 0xffff) throw new InputError(file, line, 'citations', 'a citation id longer than 65,535 bytes');
        w.u8(0);
        w.u16(len);
        w.write(id);
      }
    }
    this.chunks[this.chunks.length - 1].records++;
    this.records++;
    this.ids += outbound.length + inbound.length;
  }

  close(): void {
    this.w.close();
  }

  /** Delete what is left of the spool (resolveCitations deletes the chunks it has read). */
  remove(): void {
    for (const c of this.chunks) rmSync(c.path, { force: true });
  }
}

export function resolveCitations(
  spool: CitationSpool,
  ids: IdIndex,
  report: ValidationReport,
  onEdge: (citing: number, cited: number) => void,
  progressEnabled?: boolean,
): void {
  let unknown = 0;
  let selfCites = 0;
  let example: { file: string; line: number; field: string; message: string } | undefined;
  const p = new Progress({ label: 'citations', unit: 'records', total: spool.records, enabled: progressEnabled });
  let i = 0;
  try {
    for (const chunk of spool.chunks) {
      const r = new BufferedReader(chunk.path);
      try {
        for (const end = i + chunk.records; i < end; i++) {
          p.tick();
          const file = r.u16();
          const line = r.u32();
          const nOut = r.u32();
          const nIn = r.u32();
          for (let k = 0; k < nOut + nIn; k++) {
            r.ensure(1);
            const tag = r.buf[r.pos++];
            let j: number;
            let len: number;
            if (tag > 0) {
              len = tag;
              r.ensure(len);
              j = ids.getNumeric(r.buf.readUIntLE(r.pos, len));
            } else {
              len = r.u16();
              r.ensure(len);
              j = ids.getBytes(r.buf, r.pos, r.pos + len);
            }
            const outbound = k < nOut;
            if (j < 0) {
              const field = outbound ? 'outbound_citations' : 'inbound_citations';
              const cid = tag > 0 ? String(r.buf.readUIntLE(r.pos, len)) : r.buf.toString('utf8', r.pos, r.pos + len);
              if (report.strict) {
                throw new InputError(spool.files[file], line, field, `citation to ${cid}, which is not in the corpus (without --strict such citations are counted and ignored)`);
              }
              unknown++;
              example ??= { file: spool.files[file], line, field, message: `citation to ${cid}, which is not in the corpus` };
            } else if (j === i) {
              selfCites++;
            } else if (outbound) {
              onEdge(i, j);
            } else {
              onEdge(j, i);
            }
            r.pos += len;
          }
        }
      } finally {
        r.close();
      }
      rmSync(chunk.path, { force: true });
    }
  } finally {
    p.finish();
  }
  report.addMany('unknown-citation', unknown, example);
  report.addMany('self-citation', selfCites);
}
