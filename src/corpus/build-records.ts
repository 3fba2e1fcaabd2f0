/**
 * The store build's record as it travels through the external sort that puts articles in the store's order
 * (id-key.ts): one byte string per accepted input record, holding what the later steps need and nothing more.
 *
 *   f64 rank · u32 file number · u32 line · u16 year (0xffff: none) · u32 fields · u8 text-rule flags ·
 *   u32 outbound count · u32 inbound count (the prefilter's record scope) · u16 id length · id bytes ·
 *   u32 title length · title · u32 abstract length · abstract (texts only when the text rules all pass) ·
 *   u32 #outbound · u32 #inbound · each citation id: tag 7 + its fast key in 7 bytes, or tag 0 + u16 length + bytes
 * A work left out by option (Article.excluded) is a record too, flagged 0x80 with its exclusion in the title slot
 * and nothing else, so that the merge sees its newest record before deciding (store-build.ts).
 *
 * Records of equal keys are ordered by id bytes (slow ids share one key), then rank, file and line: the order is
 * total, so it does not depend on the order records arrived in.
 */
import type { Article, Exclusion } from './article.ts';
import { SLOW_KEY, compareBytes, idKey } from './id-key.ts';
import { InputError } from '../util/errors.ts';

const NO_YEAR = 0xffff;
const HEAD = 33; // bytes before the id
const FAST_TAG = 7;
const TWO32 = 2 ** 32;

export interface EncodedRecord {
  key: number;
  payload: Buffer;
}

/** Flag of a record whose work an option leaves out (Article.excluded): its title slot holds the exclusion as JSON. */
const EXCLUDED = 0x80;

/** The record of an accepted article: `fileNo` numbers its file, `flags` are its text-rule flags (prefilter.ts). */
export function encodeRecord(a: Article, fileNo: number, file: string, line: number, flags: number): EncodedRecord {
  const id = Buffer.from(a.id, 'utf8');
  if (id.length > 0xffff) throw new InputError(file, line, 'id', 'an id longer than 65,535 bytes');
  if (a.excluded) flags = EXCLUDED;
  const title = a.excluded ? Buffer.from(JSON.stringify(a.excluded), 'utf8') : flags === 0 ? Buffer.from(a.title, 'utf8') : EMPTY;
  const abstract = flags === 0 ? Buffer.from(a.abstract, 'utf8') : EMPTY;
  const cites: (number | Buffer)[] = [];
  let citeBytes = 0;
  for (const list of [a.outbound, a.inbound]) {
    for (const c of list) {
      const k = idKey(c);
      if (k !== SLOW_KEY) {
        cites.push(k);
        citeBytes += 8;
        continue;
      }
      const b = Buffer.from(c, 'utf8');
      if (b.length > 0xffff) throw new InputError(file, line, 'citations', 'a citation id longer than 65,535 bytes');
      cites.push(b);
      citeBytes += 3 + b.length;
    }
  }
  const p = Buffer.allocUnsafe(HEAD + id.length + 8 + title.length + abstract.length + 8 + citeBytes);
  p.writeDoubleLE(a.rank ?? 0, 0);
  p.writeUInt32LE(fileNo, 8);
  p.writeUInt32LE(line, 12);
  p.writeUInt16LE(a.year ?? NO_YEAR, 16);
  p.writeUInt32LE(a.fields >>> 0, 18);
  p[22] = flags;
  p.writeUInt32LE(new Set(a.outbound).size, 23);
  p.writeUInt32LE(a.citedBy ?? new Set(a.inbound).size, 27);
  p.writeUInt16LE(id.length, 31);
  let o = writeBytes(p, HEAD, id, false);
  o = writeBytes(p, o, title, true);
  o = writeBytes(p, o, abstract, true);
  p.writeUInt32LE(a.outbound.length, o);
  p.writeUInt32LE(a.inbound.length, o + 4);
  o += 8;
  for (const c of cites) {
    if (typeof c === 'number') {
      p[o] = FAST_TAG;
      p.writeUInt32LE(c >>> 0, o + 1);
      p.writeUIntLE(Math.floor(c / TWO32), o + 5, 3);
      o += 8;
    } else {
      p[o] = 0;
      p.writeUInt16LE(c.length, o + 1);
      c.copy(p, o + 3);
      o += 3 + c.length;
    }
  }
  return { key: idKey(a.id), payload: p };
}

const EMPTY = Buffer.alloc(0);

function writeBytes(p: Buffer, o: number, b: Buffer, withLength: boolean): number {
  if (withLength) {
    p.writeUInt32LE(b.length, o);
    o += 4;
  }
  b.copy(p, o);
  return o + b.length;
}

/** Sort order of two payloads of the same key: id bytes, then rank, file, line. */
export function compareRecords(a: Uint8Array, b: Uint8Array): number {
  const ba = Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const bb = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const byId = compareBytes(idBytes(ba), idBytes(bb));
  if (byId) return byId;
  return ba.readDoubleLE(0) - bb.readDoubleLE(0) || ba.readUInt32LE(8) - bb.readUInt32LE(8) || ba.readUInt32LE(12) - bb.readUInt32LE(12);
}

function idBytes(p: Buffer): Buffer {
  return p.subarray(HEAD, HEAD + p.readUInt16LE(31));
}

/** Read access to one payload (a view valid as long as the buffer it points into). */
export class RecordView {
  p: Buffer = EMPTY;
  private textAt = 0;

  set(p: Buffer): this {
    this.p = p;
    this.textAt = HEAD + p.readUInt16LE(31);
    return this;
  }
  get fileNo(): number {
    return this.p.readUInt32LE(8);
  }
  get line(): number {
    return this.p.readUInt32LE(12);
  }
  /** The year, or 0 when unknown (the store's convention). */
  get year(): number {
    const y = this.p.readUInt16LE(16);
    return y === NO_YEAR ? 0 : y;
  }
  get fields(): number {
    return this.p.readUInt32LE(18);
  }
  get flags(): number {
    return this.p[22];
  }
  /** Why the work of this record is left out, or undefined when it is not. */
  get excluded(): Exclusion | undefined {
    if (this.p[22] !== EXCLUDED) return undefined;
    const tl = this.p.readUInt32LE(this.textAt);
    return JSON.parse(this.p.toString('utf8', this.textAt + 4, this.textAt + 4 + tl)) as Exclusion;
  }
  get recordOut(): number {
    return this.p.readUInt32LE(23);
  }
  get recordIn(): number {
    return this.p.readUInt32LE(27);
  }
  get id(): Buffer {
    return idBytes(this.p);
  }
  idString(): string {
    return this.id.toString('utf8');
  }
  /** Title and abstract bytes (empty unless the text rules passed). */
  texts(): [Buffer, Buffer] {
    const p = this.p;
    const tl = p.readUInt32LE(this.textAt);
    const title = p.subarray(this.textAt + 4, this.textAt + 4 + tl);
    const ao = this.textAt + 4 + tl;
    const al = p.readUInt32LE(ao);
    return [title, p.subarray(ao + 4, ao + 4 + al)];
  }
  /** Every citation id: `fast` keys as numbers, other ids as strings; `outbound` false for the record's citers. */
  forEachCitation(cb: (outbound: boolean, key: number, slow: string | undefined) => void): void {
    const p = this.p;
    const tl = p.readUInt32LE(this.textAt);
    let o = this.textAt + 4 + tl;
    o += 4 + p.readUInt32LE(o);
    const nOut = p.readUInt32LE(o);
    const n = nOut + p.readUInt32LE(o + 4);
    o += 8;
    for (let k = 0; k < n; k++) {
      if (p[o] === FAST_TAG) {
        cb(k < nOut, p.readUInt32LE(o + 1) + p.readUIntLE(o + 5, 3) * TWO32, undefined);
        o += 8;
      } else {
        const len = p.readUInt16LE(o + 1);
        cb(k < nOut, SLOW_KEY, p.toString('utf8', o + 3, o + 3 + len));
        o += 3 + len;
      }
    }
  }
}
