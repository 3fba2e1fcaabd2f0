/**
 * TREC qrels (`qid iter docno rel`) and run (`qid Q0 docno rank score tag`) files: streaming byte parsers that
 * map qids and docnos to integer ids (StringTable), with errors naming file, line and field. Parsing follows
 * trec_eval 9.0.8: whitespace-separated fields, blank lines and `#` comment lines skipped, fields after the run
 * tag ignored, the run tag of the last line kept, the rank column ignored. Unlike trec_eval (atof/atol), numbers
 * must be well-formed: a bad score is an error, not 0 (trec-numbers.ts), and so is one beyond float32's range
 * where scores are float32 (it would rank as infinity). Both files are read by the compiled
 * reader (native/trec-reader.cc) where it is built, which does what the TypeScript readers here do and leaves
 * every line it would not read the same way to them. Parsed entries become the evaluator's CSR in trec-csr.ts;
 * trec-write.ts writes runs and qrels.
 */
import { closeSync, readSync } from 'node:fs';
import { InputError } from '../util/errors.ts';
import { StringTable, fnv1a, latin1 } from './string-table.ts';
import { parseDecimal, parseInteger } from './trec-numbers.ts';
import { loadAddon } from '../util/native-addon.ts';
import { CHUNK, MAX_TOKENS, SPACE, estimateLines, forEachLine, openInput, tokEnd, tokStart, tokenize } from './line-scan.ts';

/** The id spaces shared by one qrels file and the runs evaluated against it. */
export interface TrecTables {
  queries: StringTable;
  docs: StringTable;
}

export function newTrecTables(): TrecTables {
  return { queries: new StringTable(), docs: new StringTable() };
}

/** Parsed lines before grouping by query: parallel arrays, one entry per line. */
export interface TrecEntries {
  file: string;
  count: number;
  /**
   * Query of each run of consecutive lines with the same qid: lines segStart[k] .. segStart[k+1]-1 (or to the
   * end) belong to query segQuery[k]. Runs list a query's lines together, so this is far smaller than a
   * query id per line.
   */
  segQuery: Uint32Array;
  segStart: Uint32Array;
  doc: Uint32Array;
  /** Qrels: labels; run: scores (float32-rounded when read with float32). */
  value: Int32Array | Float32Array | Float64Array;
  /** Qrels only: line number per entry. */
  line?: Uint32Array;
  /** Run tag of the last line (runs only). */
  runId?: string;
  /** Runs only: the run's docno ids. */
  docnos?: RunDocnos;
}

/**
 * The docnos of one run. A docno found in the qrels keeps its qrels id (so judging is an integer lookup);
 * any other gets a fresh id from `base` = number of qrels docnos up, with its bytes kept here, without a
 * global hash table: a run's 1.9 M docnos would make that table large and every lookup a cache miss.
 * A docno not in qrels that occurs in several queries gets one fresh id per occurrence; that is harmless,
 * since such docs are only ever compared by bytes (ties, duplicates) and judged non-relevant.
 */
class RunDocnos {
  readonly base: number;
  private arena = new Uint8Array(1 << 16);
  private used = 0;
  private starts = new Uint32Array(1025);
  private count = 0;

  constructor(readonly qrelsDocs: StringTable) {
    this.base = qrelsDocs.size;
  }

  get size(): number {
    return this.base + this.count;
  }

  /** Bytes and docnos stored so far. */
  get usedBytes(): number {
    return this.used;
  }

  get added(): number {
    return this.count;
  }

  /** Take over the fresh docnos the compiled reader collected: docno j is bytes[starts[j], starts[j + 1]). */
  adopt(bytes: Uint8Array, starts: Uint32Array, count: number): void {
    this.arena = bytes;
    this.used = starts[count];
    this.starts = starts;
    this.count = count;
  }

  /** Grow the stores once to the expected final size (avoids repeated doubling copies on big runs). */
  reserve(docnos: number, bytes: number): void {
    if (bytes > this.arena.length) {
      const bigger = new Uint8Array(bytes);
      bigger.set(this.arena.subarray(0, this.used));
      this.arena = bigger;
    }
    if (docnos + 2 > this.starts.length) {
      const s = new Uint32Array(docnos + 2);
      s.set(this.starts.subarray(0, this.count + 1));
      this.starts = s;
    }
  }

  /** A fresh id for buf[start, end). */
  add(buf: Uint8Array, start: number, end: number): number {
    const len = end - start;
    if (this.used + len > this.arena.length) {
      const bigger = new Uint8Array(Math.max(Math.ceil(this.arena.length * 1.5), this.used + len));
      bigger.set(this.arena.subarray(0, this.used));
      this.arena = bigger;
    }
    const a = this.arena;
    for (let i = 0, o = this.used; i < len; i++) a[o + i] = buf[start + i];
    if (this.count + 2 > this.starts.length) {
      const s = new Uint32Array(Math.ceil(this.starts.length * 1.5));
      s.set(this.starts);
      this.starts = s;
    }
    this.starts[this.count] = this.used;
    this.used += len;
    this.starts[this.count + 1] = this.used;
    return this.base + this.count++;
  }

  /** strcmp sign of the docnos of a and b. */
  compare(a: number, b: number): number {
    const qa = this.qrelsDocs.bytes();
    const ba = a < this.base ? qa : this.arena;
    const bb = b < this.base ? qa : this.arena;
    let sa = a < this.base ? this.qrelsDocs.start(a) : this.starts[a - this.base];
    const ea = a < this.base ? this.qrelsDocs.end(a) : this.starts[a - this.base + 1];
    let sb = b < this.base ? this.qrelsDocs.start(b) : this.starts[b - this.base];
    const eb = b < this.base ? this.qrelsDocs.end(b) : this.starts[b - this.base + 1];
    for (; sa < ea && sb < eb; sa++, sb++) if (ba[sa] !== bb[sb]) return ba[sa] - bb[sb];
    return ea - sa - (eb - sb);
  }

  /** fnv1a of a fresh id's bytes (ids ≥ base). */
  hash(id: number): number {
    return fnv1a(this.arena, this.starts[id - this.base], this.starts[id - this.base + 1]);
  }

  get(id: number): string {
    if (id < this.base) return this.qrelsDocs.get(id);
    return latin1(this.arena, this.starts[id - this.base], this.starts[id - this.base + 1]);
  }
}

class Entries {
  count = 0;
  query: Uint32Array;
  doc: Uint32Array;
  line: Uint32Array;
  value: Int32Array | Float32Array | Float64Array;
  constructor(
    capacity: number,
    private readonly makeValue: (n: number) => Int32Array | Float32Array | Float64Array,
  ) {
    this.query = new Uint32Array(capacity);
    this.doc = new Uint32Array(capacity);
    this.line = new Uint32Array(capacity);
    this.value = makeValue(capacity);
  }
  push(q: number, d: number, v: number, line: number): void {
    if (this.count === this.query.length) this.grow();
    const i = this.count++;
    this.query[i] = q;
    this.doc[i] = d;
    this.value[i] = v;
    this.line[i] = line;
  }
  private grow(): void {
    const cap = Math.max(1024, Math.ceil(this.query.length * 1.5));
    const q = new Uint32Array(cap);
    q.set(this.query);
    this.query = q;
    const d = new Uint32Array(cap);
    d.set(this.doc);
    this.doc = d;
    const l = new Uint32Array(cap);
    l.set(this.line);
    this.line = l;
    const v = this.makeValue(cap);
    v.set(this.value as never);
    this.value = v;
  }
  finish(file: string, runId?: string, docnos?: RunDocnos): TrecEntries {
    const n = this.count;
    return {
      file,
      count: n,
      docnos,
      ...segmentsOf(this.query.subarray(0, n)),
      doc: this.doc.subarray(0, n),
      value: this.value.subarray(0, n),
      line: this.line.subarray(0, n),
      runId,
    };
  }
}

const QRELS_FIELDS = ['qid', 'iter', 'docno', 'relevance'];
const RUN_FIELDS = ['qid', 'Q0', 'docno', 'rank', 'score', 'tag'];

/**
 * Read a qrels file: `qid iter docno rel` per line (rel an integer; negative = judged pool but unjudged). Into
 * empty tables the compiled reader reads it where it is built (see readRun); otherwise, and for every error, the
 * TypeScript reader below.
 */
export function readQrels(path: string, tables: TrecTables, opts: { typescript?: boolean } = {}): TrecEntries {
  return (opts.typescript ? undefined : readQrelsCompiled(path, tables)) ?? readQrelsTypeScript(path, tables);
}

function readQrelsTypeScript(path: string, tables: TrecTables): TrecEntries {
  const entries = new Entries(Math.min(estimateLines(path), 1 << 20), (n) => new Int32Array(n));
  forEachLine(path, (buf, s, e, line) => {
    const n = tokenize(buf, s, e, 5);
    if (n === 0 || buf[tokStart[0]] === 35 /* # */) return;
    if (n < 4) {
      throw new InputError(path, line, QRELS_FIELDS[n], `missing field '${QRELS_FIELDS[n]}' (a qrels line is 'qid iter docno relevance')`);
    }
    if (n > 4) throw new InputError(path, line, undefined, `too many fields (a qrels line is 'qid iter docno relevance')`);
    const rel = parseInteger(buf, tokStart[3], tokEnd[3]);
    if (rel === undefined) {
      throw new InputError(path, line, 'relevance', `'${latin1(buf, tokStart[3], tokEnd[3])}' is not an integer relevance label`);
    }
    const q = tables.queries.intern(buf, tokStart[0], tokEnd[0]);
    const d = tables.docs.intern(buf, tokStart[2], tokEnd[2]);
    entries.push(q, d, rel, line);
  });
  if (entries.count === 0) throw new InputError(path, undefined, undefined, 'no qrels lines');
  return entries.finish(path);
}

/**
 * The parsed lines of one run file so far, and the per-line loop. The loop is its own method, called once per
 * chunk: V8 then optimizes it as a whole function with the feedback of complete calls, instead of compiling the
 * middle of readRun's loop on the fly and dropping back to unoptimized code (where every number is a heap
 * allocation) each time the chunk handling around it runs for the first time.
 */
class RunLines {
  count = 0;
  line = 0;
  cap: number;
  doc: Uint32Array;
  value: Float32Array | Float64Array;
  segQuery = new Uint32Array(1024);
  segStart = new Uint32Array(1024);
  segCount = 0;
  lastQ = -1;
  prevQidLen = -1;
  readonly prevQid = new Uint8Array(256);
  tagBytes = new Uint8Array(0);
  readonly docnos: RunDocnos;
  private readonly ts = new Int32Array(MAX_TOKENS);
  private readonly te = new Int32Array(MAX_TOKENS);

  constructor(
    private readonly path: string,
    private readonly tables: TrecTables,
    private readonly float64: boolean,
  ) {
    this.cap = estimateLines(path);
    this.doc = new Uint32Array(this.cap);
    this.value = float64 ? new Float64Array(this.cap) : new Float32Array(this.cap);
    this.docnos = new RunDocnos(tables.docs);
  }

  /** Parse the complete lines u8[0, limit) (limit: just after a newline). */
  parse(u8: Uint8Array, limit: number): void {
    const { path, tables, float64, ts, te, prevQid, docnos } = this;
    const qrelsDocs = tables.docs;
    const space = SPACE;
    let { count, line, cap, doc, value, segQuery, segStart, segCount, lastQ, prevQidLen, tagBytes } = this;
    let i = 0;
    while (i < limit) {
      line++;
      let k = 0;
      while (k < MAX_TOKENS) {
        let c = u8[i];
        while (c !== 10 && (c === 32 || space[c] === 1)) c = u8[++i];
        if (c === 10) break;
        ts[k] = i;
        // Bytes above 32 are never C whitespace: one comparison for nearly every byte of a token.
        while (c > 32 || space[c] === 0) c = u8[++i];
        te[k] = i;
        k++;
      }
      while (u8[i] !== 10) i++;
      i++;
      if (k === 0 || u8[ts[0]] === 35 /* # */) continue;
      if (k < 6) throw new InputError(path, line, RUN_FIELDS[k], `missing field '${RUN_FIELDS[k]}' (a run line is 'qid Q0 docno rank score tag')`);
      const score = parseDecimal(u8, ts[4], te[4]);
      if (!Number.isFinite(score)) {
        const text = latin1(u8, ts[4], te[4]);
        throw new InputError(path, line, 'score', Number.isNaN(score) ? `'${text}' is not a number` : `'${text}' is not a finite number`);
      }
      if (!float64 && !Number.isFinite(Math.fround(score))) {
        const text = latin1(u8, ts[4], te[4]);
        throw new InputError(path, line, 'score', `'${text}' is beyond float32's range (trec_eval 9.0.8 reads scores as float32; --trec-eval-10 reads doubles)`);
      }
      // Runs list a query's docs together: reuse the previous qid's id while its bytes repeat.
      const qs = ts[0];
      const qLen = te[0] - qs;
      let same = qLen === prevQidLen;
      for (let j = 0; same && j < qLen; j++) same = prevQid[j] === u8[qs + j];
      if (!same) {
        lastQ = tables.queries.intern(u8, qs, te[0]);
        if (qLen <= prevQid.length) {
          for (let j = 0; j < qLen; j++) prevQid[j] = u8[qs + j];
          prevQidLen = qLen;
        } else prevQidLen = -1;
      }
      // fnv1a (string-table.ts) inlined: this is the hottest call of the parser.
      let h = 0x811c9dc5;
      for (let j = ts[2]; j < te[2]; j++) h = Math.imul(h ^ u8[j], 0x01000193);
      h ^= h >>> 16;
      h = Math.imul(h, 0x85ebca6b);
      h ^= h >>> 13;
      let d = qrelsDocs.findHashed(u8, ts[2], te[2], h);
      if (d < 0) d = docnos.add(u8, ts[2], te[2]);
      if (count === cap) {
        cap = Math.ceil(cap * 1.5) + 1024;
        const grown = new Uint32Array(cap);
        grown.set(doc);
        doc = grown;
        const v = float64 ? new Float64Array(cap) : new Float32Array(cap);
        v.set(value);
        value = v;
      }
      if (segCount === 0 || segQuery[segCount - 1] !== lastQ) {
        if (segCount === segQuery.length) {
          const sq = new Uint32Array(segCount * 2);
          sq.set(segQuery);
          segQuery = sq;
          const ss = new Uint32Array(segCount * 2);
          ss.set(segStart);
          segStart = ss;
        }
        segQuery[segCount] = lastQ;
        segStart[segCount++] = count;
      }
      doc[count] = d;
      value[count] = score;
      count++;
      // trec_eval keeps the run tag of the last line; copy its bytes only when they change.
      const tl = te[5] - ts[5];
      let sameTag = tl === tagBytes.length;
      for (let j = 0; sameTag && j < tl; j++) sameTag = tagBytes[j] === u8[ts[5] + j];
      if (!sameTag) tagBytes = u8.slice(ts[5], te[5]);
    }
    this.count = count;
    this.line = line;
    this.cap = cap;
    this.doc = doc;
    this.value = value;
    this.segQuery = segQuery;
    this.segStart = segStart;
    this.segCount = segCount;
    this.lastQ = lastQ;
    this.prevQidLen = prevQidLen;
    this.tagBytes = tagBytes;
  }
}

/**
 * Read a run file: `qid Q0 docno rank score tag [ignored…]`. Scores become float32 (trec_eval 9.0.8) unless
 * float64 is asked for (trec_eval 10). Read the qrels first: docnos are judged against them (see RunDocnos).
 * The compiled reader (native/trec-reader.cc) reads it where it is built, the same loop in C++; the
 * TypeScript one below reads it otherwise, with CITEBENCH_TREC_READER=off or `typescript`, and wherever the
 * compiled one stops at a line it leaves to it (an error, whose message comes from here).
 */
export function readRun(path: string, tables: TrecTables, opts: { float64?: boolean; typescript?: boolean } = {}): TrecEntries {
  const float64 = opts.float64 ?? false;
  return (opts.typescript ? undefined : readRunCompiled(path, tables, float64)) ?? readRunTypeScript(path, tables, float64);
}

interface TrecReader {
  scanQrels(
    path: string,
    linesEstimate: number,
  ): number | [number, ArrayBuffer, ArrayBuffer, ArrayBuffer, ArrayBuffer, ArrayBuffer, ArrayBuffer, ArrayBuffer, ArrayBuffer, ArrayBuffer, ArrayBuffer, ArrayBuffer, number, number];
  scanRun(
    path: string,
    float64: boolean,
    arena: Uint8Array,
    starts: Uint32Array,
    hashes: Int32Array,
    slots: Int32Array,
    filter: Int32Array,
    filterMask: number,
    qrelsDocs: number,
    linesEstimate: number,
  ): number | [number, ArrayBuffer, ArrayBuffer, ArrayBuffer, ArrayBuffer, ArrayBuffer, ArrayBuffer, ArrayBuffer, number, ArrayBuffer];
}

function compiledReader(): TrecReader | null {
  return loadAddon<TrecReader>('citebench_trec_reader', process.env.CITEBENCH_TREC_READER === 'off' ? 'off' : undefined).addon;
}

/** Query ids of the compiled reader's segments, interned in order of first appearance as the TypeScript readers do. */
function segmentQueries(tables: TrecTables, segQidEnd: ArrayBuffer, segQid: ArrayBuffer): Uint32Array {
  const qidEnds = new Uint32Array(segQidEnd);
  const qids = new Uint8Array(segQid);
  const segQuery = new Uint32Array(qidEnds.length);
  for (let k = 0; k < qidEnds.length; k++) segQuery[k] = tables.queries.intern(qids, k === 0 ? 0 : qidEnds[k - 1], qidEnds[k]);
  return segQuery;
}

/** The qrels read by the compiled reader; undefined where it is not built, the tables are not empty, or it left the file to TypeScript. */
export function readQrelsCompiled(path: string, tables: TrecTables): TrecEntries | undefined {
  const reader = compiledReader();
  if (!reader || tables.docs.size !== 0) return undefined;
  const r = reader.scanQrels(path, Math.min(estimateLines(path), 1 << 20));
  if (typeof r === 'number' || r[0] === 0) return undefined;
  const [count, doc, label, line, segStart, segQidEnd, segQid, arena, starts, hashes, slots, filter, filterMask, docCount] = r;
  tables.docs.adopt({
    arena: new Uint8Array(arena),
    starts: new Uint32Array(starts),
    hashes: new Int32Array(hashes),
    slots: new Int32Array(slots),
    filter: new Int32Array(filter),
    filterMask,
    count: docCount,
  });
  return {
    file: path,
    count,
    segQuery: segmentQueries(tables, segQidEnd, segQid),
    segStart: new Uint32Array(segStart),
    doc: new Uint32Array(doc),
    value: new Int32Array(label),
    line: new Uint32Array(line),
  };
}

/** The run read by the compiled reader; undefined where it is not built or left the file to TypeScript. */
export function readRunCompiled(path: string, tables: TrecTables, float64: boolean): TrecEntries | undefined {
  const reader = compiledReader();
  if (!reader) return undefined;
  const t = tables.docs.lookupArrays();
  const r = reader.scanRun(path, float64, t.arena, t.starts, t.hashes, t.slots, t.filter, t.filterMask, tables.docs.size, estimateLines(path));
  if (typeof r === 'number' || r[0] === 0) return undefined;
  const [count, doc, value, segStart, segQidEnd, segQid, freshBytes, freshStarts, freshCount, tag] = r;
  const segQuery = segmentQueries(tables, segQidEnd, segQid);
  const docnos = new RunDocnos(tables.docs);
  docnos.adopt(new Uint8Array(freshBytes), new Uint32Array(freshStarts), freshCount);
  const tagBytes = new Uint8Array(tag);
  return {
    file: path,
    count,
    segQuery,
    segStart: new Uint32Array(segStart),
    doc: new Uint32Array(doc),
    value: float64 ? new Float64Array(value) : new Float32Array(value),
    runId: latin1(tagBytes, 0, tagBytes.length),
    docnos,
  };
}

/**
 * The TypeScript reader: one tight loop over the bytes (this is the hot path for million-line runs), no per-line
 * strings, closures or line-number arrays; an error found after parsing re-reads the file for its line number.
 */
function readRunTypeScript(path: string, tables: TrecTables, float64: boolean): TrecEntries {
  const lines = new RunLines(path, tables, float64);
  let firstChunk = true;
  const fd = openInput(path);
  try {
    let buf = Buffer.allocUnsafe(CHUNK);
    let have = 0;
    for (;;) {
      if (have + 1 >= buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, have);
        buf = bigger;
      }
      const n = readSync(fd, buf, have, buf.length - have - 1, null);
      let end = have + n;
      if (n === 0) {
        if (end === 0) break;
        if (buf[end - 1] !== 10) buf[end++] = 10; // a last line without newline
      }
      const u8 = new Uint8Array(buf.buffer, buf.byteOffset, end);
      let limit = end; // complete lines only; the rest waits for the next chunk
      while (limit > 0 && u8[limit - 1] !== 10) limit--;
      lines.parse(u8, limit);
      if (firstChunk && lines.count > 0) {
        // Size the docno store from the first chunk's share of fresh docnos, with 5% slack.
        firstChunk = false;
        const scale = (lines.cap / lines.count) * 1.05;
        lines.docnos.reserve(Math.ceil(lines.docnos.added * scale), Math.ceil(lines.docnos.usedBytes * scale));
      }
      buf.copy(buf, 0, limit, end);
      have = end - limit;
      if (n === 0) break;
    }
  } finally {
    closeSync(fd);
  }
  const { count, segQuery, segStart, segCount, tagBytes, docnos } = lines;
  if (count === 0) throw new InputError(path, undefined, undefined, 'no run lines');
  return {
    file: path,
    count,
    segQuery: segQuery.slice(0, segCount),
    segStart: segStart.slice(0, segCount),
    doc: lines.doc.subarray(0, count),
    value: lines.value.subarray(0, count),
    runId: latin1(tagBytes, 0, tagBytes.length),
    docnos,
  };
}

/** Segments (see TrecEntries) of a per-line query array. */
function segmentsOf(query: Uint32Array): { segQuery: Uint32Array; segStart: Uint32Array } {
  const q: number[] = [];
  const st: number[] = [];
  for (let i = 0; i < query.length; i++) {
    if (i === 0 || query[i] !== query[i - 1]) {
      q.push(query[i]);
      st.push(i);
    }
  }
  return { segQuery: Uint32Array.from(q), segStart: Uint32Array.from(st) };
}
