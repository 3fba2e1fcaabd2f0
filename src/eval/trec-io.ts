/**
 * TREC qrels (`qid iter docno rel`) and run (`qid Q0 docno rank score tag`) files: streaming byte parsers that
 * map qids and docnos to integer ids (StringTable) and build the evaluator's CSR, with errors naming file,
 * line and field; and writers. Parsing follows trec_eval 9.0.8: whitespace-separated fields, blank lines and
 * `#` comment lines skipped, fields after the run tag ignored, the run tag of the last line kept, the rank
 * column ignored. Unlike trec_eval (atof/atol), numbers must be well-formed: a bad score is an error, not 0.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { InputError } from '../util/errors.ts';
import { writeFileAtomic } from '../util/atomic.ts';
import { StringTable } from './string-table.ts';
import type { QrelsCsr, RunCsr } from './types.ts';

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
  query: Uint32Array;
  doc: Uint32Array;
  /** Qrels: labels; run: scores (float32-rounded when read with float32). */
  value: Int32Array | Float32Array | Float64Array;
  line: Uint32Array;
  /** Run tag of the last line (runs only). */
  runId?: string;
}

const CHUNK = 1 << 22;
const MAX_TOKENS = 6;
const tokStart = new Int32Array(MAX_TOKENS);
const tokEnd = new Int32Array(MAX_TOKENS);

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** Split buf[s, e) into at most `max` whitespace-separated tokens (into tokStart/tokEnd). */
function tokenize(buf: Uint8Array, s: number, e: number, max: number): number {
  let n = 0;
  let i = s;
  while (n < max) {
    while (i < e && isSpace(buf[i])) i++;
    if (i >= e) break;
    tokStart[n] = i;
    while (i < e && !isSpace(buf[i])) i++;
    tokEnd[n] = i;
    n++;
  }
  return n;
}

/** Call fn for every line of the file (without its newline), reading in chunks. */
function forEachLine(path: string, fn: (buf: Buffer, start: number, end: number, line: number) => void): void {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw new InputError(path, undefined, undefined, `cannot open: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    let buf = Buffer.allocUnsafe(CHUNK);
    let have = 0;
    let line = 0;
    for (;;) {
      if (have === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, have);
        buf = bigger;
      }
      const n = readSync(fd, buf, have, buf.length - have, null);
      const end = have + n;
      const view = buf.subarray(0, end);
      let s = 0;
      let nl: number;
      while ((nl = view.indexOf(10, s)) !== -1) {
        fn(view, s, nl, ++line);
        s = nl + 1;
      }
      if (n === 0) {
        if (s < end) fn(view, s, end, ++line);
        return;
      }
      buf.copy(buf, 0, s, end);
      have = end - s;
    }
  } finally {
    closeSync(fd);
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
  finish(file: string, runId?: string): TrecEntries {
    const n = this.count;
    return {
      file,
      count: n,
      query: this.query.subarray(0, n),
      doc: this.doc.subarray(0, n),
      value: this.value.subarray(0, n),
      line: this.line.subarray(0, n),
      runId,
    };
  }
}

function estimateLines(path: string): number {
  try {
    const fd = openSync(path, 'r');
    try {
      const { size } = fstatSync(fd);
      return Math.min(Math.ceil(size / 24) + 16, 1 << 27);
    } finally {
      closeSync(fd);
    }
  } catch {
    return 1024;
  }
}


const QRELS_FIELDS = ['qid', 'iter', 'docno', 'relevance'];
const RUN_FIELDS = ['qid', 'Q0', 'docno', 'rank', 'score', 'tag'];

/** Read a qrels file: `qid iter docno rel` per line (rel an integer; negative = judged pool but unjudged). */
export function readQrels(path: string, tables: TrecTables): TrecEntries {
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
      throw new InputError(path, line, 'relevance', `'${buf.latin1Slice(tokStart[3], tokEnd[3])}' is not an integer relevance label`);
    }
    const q = tables.queries.intern(buf, tokStart[0], tokEnd[0]);
    const d = tables.docs.intern(buf, tokStart[2], tokEnd[2]);
    entries.push(q, d, rel, line);
  });
  if (entries.count === 0) throw new InputError(path, undefined, undefined, 'no qrels lines');
  return entries.finish(path);
}

/**
 * Read a run file: `qid Q0 docno rank score tag [ignored…]`. Scores become float32 (trec_eval 9.0.8) unless
 * float64 is asked for (trec_eval 10).
 */
export function readRun(path: string, tables: TrecTables, opts: { float64?: boolean } = {}): TrecEntries {
  const float64 = opts.float64 ?? false;
  const entries = new Entries(estimateLines(path), (n) => (float64 ? new Float64Array(n) : new Float32Array(n)));
  let lastQ = -1;
  const prevQid = Buffer.allocUnsafe(256);
  let prevQidLen = -1;
  let tagBytes: Buffer = Buffer.alloc(0);
  forEachLine(path, (buf, s, e, line) => {
    const n = tokenize(buf, s, e, MAX_TOKENS);
    if (n === 0 || buf[tokStart[0]] === 35 /* # */) return;
    if (n < 6) {
      throw new InputError(path, line, RUN_FIELDS[n], `missing field '${RUN_FIELDS[n]}' (a run line is 'qid Q0 docno rank score tag')`);
    }
    const score = parseDecimal(buf, tokStart[4], tokEnd[4]);
    if (!Number.isFinite(score)) {
      const text = buf.latin1Slice(tokStart[4], tokEnd[4]);
      throw new InputError(path, line, 'score', Number.isNaN(score) ? `'${text}' is not a number` : `'${text}' is not a finite number`);
    }
    // Runs list a query's docs together: reuse the previous qid id while the bytes repeat.
    const qLen = tokEnd[0] - tokStart[0];
    let q: number;
    if (qLen === prevQidLen && qLen <= prevQid.length && buf.compare(prevQid, 0, qLen, tokStart[0], tokEnd[0]) === 0) {
      q = lastQ;
    } else {
      q = tables.queries.intern(buf, tokStart[0], tokEnd[0]);
      if (qLen <= prevQid.length) {
        buf.copy(prevQid, 0, tokStart[0], tokEnd[0]);
        prevQidLen = qLen;
      } else prevQidLen = -1;
      lastQ = q;
    }
    const d = tables.docs.intern(buf, tokStart[2], tokEnd[2]);
    entries.push(q, d, score, line);
    // The run tag of the last line is kept (trec_eval); copy its bytes only when they change.
    const ts = tokStart[5];
    const te = tokEnd[5];
    if (te - ts !== tagBytes.length || buf.compare(tagBytes, 0, tagBytes.length, ts, te) !== 0) {
      tagBytes = Buffer.from(buf.subarray(ts, te));
    }
  });
  if (entries.count === 0) throw new InputError(path, undefined, undefined, 'no run lines');
  return entries.finish(path, tagBytes.latin1Slice(0, tagBytes.length));
}

/** Group qrels entries by query (positions 0..numQueries-1); a doc judged twice for a query is an error. */
export function qrelsToCsr(e: TrecEntries, numQueries: number, tables: TrecTables): QrelsCsr {
  const { offsets, perm } = groupByQuery(e, numQueries);
  const docs = new Uint32Array(e.count);
  const labels = new Int32Array(e.count);
  for (let i = 0; i < e.count; i++) {
    docs[i] = e.doc[perm[i]];
    labels[i] = e.value[perm[i]];
  }
  checkDuplicates(e, offsets, perm, docs, tables, 'judged');
  return { offsets, docs, labels };
}

/** Group run entries by query; a doc retrieved twice for a query is an error. */
export function runToCsr(e: TrecEntries, numQueries: number, tables: TrecTables): RunCsr {
  const { offsets, perm } = groupByQuery(e, numQueries);
  const docs = new Uint32Array(e.count);
  const scores = e.value instanceof Float64Array ? new Float64Array(e.count) : new Float32Array(e.count);
  for (let i = 0; i < e.count; i++) {
    docs[i] = e.doc[perm[i]];
    scores[i] = e.value[perm[i]];
  }
  checkDuplicates(e, offsets, perm, docs, tables, 'retrieved');
  return { offsets, docs, scores };
}

/** Stable counting sort of entries by query: offsets and the entry permutation. */
function groupByQuery(e: TrecEntries, numQueries: number): { offsets: Uint32Array; perm: Uint32Array } {
  const offsets = new Uint32Array(numQueries + 1);
  for (let i = 0; i < e.count; i++) offsets[e.query[i] + 1]++;
  for (let q = 0; q < numQueries; q++) offsets[q + 1] += offsets[q];
  const fill = offsets.slice(0, numQueries);
  const perm = new Uint32Array(e.count);
  for (let i = 0; i < e.count; i++) perm[fill[e.query[i]]++] = i;
  return { offsets, perm };
}

function checkDuplicates(
  e: TrecEntries,
  offsets: Uint32Array,
  perm: Uint32Array,
  docs: Uint32Array,
  tables: TrecTables,
  verb: string,
): void {
  const stamp = new Int32Array(tables.docs.size);
  const first = new Uint32Array(tables.docs.size);
  for (let q = 0; q + 1 < offsets.length; q++) {
    for (let i = offsets[q]; i < offsets[q + 1]; i++) {
      const d = docs[i];
      if (stamp[d] === q + 1) {
        throw new InputError(
          e.file,
          e.line[perm[i]],
          'docno',
          `query '${tables.queries.get(q)}' has docno '${tables.docs.get(d)}' ${verb} twice (first at line ${first[d]})`,
        );
      }
      stamp[d] = q + 1;
      first[d] = e.line[perm[i]];
    }
  }
}

/** Optional sign and digits; undefined if malformed. */
function parseInteger(buf: Uint8Array, s: number, e: number): number | undefined {
  let i = s;
  let neg = false;
  if (buf[i] === 45 || buf[i] === 43) {
    neg = buf[i] === 45;
    i++;
  }
  if (i >= e || e - i > 9) return undefined;
  let v = 0;
  for (; i < e; i++) {
    const c = buf[i] - 48;
    if (c < 0 || c > 9) return undefined;
    v = v * 10 + c;
  }
  return neg ? -v : v;
}

const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];
const TWO53 = 9007199254740992;

/**
 * A decimal number `[+-]digits[.digits][e[+-]digits]` (or `.5`, `5.`), correctly rounded to a double.
 * NaN for anything else ("abc", "nan", "inf", "0x1"); ±Infinity when it overflows.
 * Fast path (Clinger): an exact integer mantissa and a power of ten ≤ 22 give a correctly rounded quotient.
 */
export function parseDecimal(buf: Uint8Array, s: number, e: number): number {
  let i = s;
  let neg = false;
  if (i < e && (buf[i] === 45 || buf[i] === 43)) {
    neg = buf[i] === 45;
    i++;
  }
  const body = i;
  let mant = 0;
  let exact = true;
  let digits = 0;
  let fracDigits = 0;
  while (i < e) {
    const c = buf[i] - 48;
    if (c < 0 || c > 9) break;
    mant = mant * 10 + c;
    digits++;
    i++;
  }
  if (i < e && buf[i] === 46) {
    i++;
    while (i < e) {
      const c = buf[i] - 48;
      if (c < 0 || c > 9) break;
      mant = mant * 10 + c;
      digits++;
      fracDigits++;
      i++;
    }
  }
  if (digits === 0) return NaN;
  if (mant >= TWO53) exact = false;
  let exp = 0;
  if (i < e && (buf[i] === 101 || buf[i] === 69)) {
    i++;
    let eneg = false;
    if (i < e && (buf[i] === 45 || buf[i] === 43)) {
      eneg = buf[i] === 45;
      i++;
    }
    const start = i;
    while (i < e) {
      const c = buf[i] - 48;
      if (c < 0 || c > 9) break;
      if (exp < 100000) exp = exp * 10 + c;
      i++;
    }
    if (i === start) return NaN;
    if (eneg) exp = -exp;
  }
  if (i !== e) return NaN;
  const p = exp - fracDigits;
  let v: number;
  if (exact && p >= -22 && p <= 22) v = p < 0 ? mant / POW10[-p] : mant * POW10[p];
  else v = Number(Buffer.from(buf.buffer, buf.byteOffset + body, e - body).latin1Slice());
  return neg ? -v : v;
}

/** One ranked list per query for writing. */
export interface RunToWrite {
  qids: string[];
  docnos: (doc: number) => string;
  run: RunCsr;
  tag: string;
}

/**
 * Write a TREC run: per query (in the given query order) docs best first — by score descending, ties by docno
 * descending, as trec_eval will rank them — with ranks 1..n. Float32 scores are written with the fewest digits
 * that read back to the same float32.
 */
export function writeRun(path: string, r: RunToWrite): void {
  const parts: string[] = [];
  const { offsets, docs, scores } = r.run;
  const f32 = scores instanceof Float32Array;
  for (let q = 0; q < r.qids.length; q++) {
    const idx: number[] = [];
    for (let i = offsets[q]; i < offsets[q + 1]; i++) idx.push(i);
    const names = new Map<number, string>();
    for (const i of idx) names.set(i, r.docnos(docs[i]));
    idx.sort((a, b) => scores[b] - scores[a] || (names.get(b)! < names.get(a)! ? -1 : names.get(b)! > names.get(a)! ? 1 : 0));
    let rank = 1;
    for (const i of idx) parts.push(`${r.qids[q]} Q0 ${names.get(i)} ${rank++} ${f32 ? float32Text(scores[i]) : String(scores[i])} ${r.tag}\n`);
  }
  writeFileAtomic(path, Buffer.from(parts.join(''), 'latin1'));
}

/** Write qrels lines `qid 0 docno label`, queries in the given order, docs as stored. */
export function writeQrels(path: string, qids: string[], docnos: (doc: number) => string, qrels: QrelsCsr): void {
  const parts: string[] = [];
  for (let q = 0; q < qids.length; q++) {
    for (let i = qrels.offsets[q]; i < qrels.offsets[q + 1]; i++) parts.push(`${qids[q]} 0 ${docnos(qrels.docs[i])} ${qrels.labels[i]}\n`);
  }
  writeFileAtomic(path, Buffer.from(parts.join(''), 'latin1'));
}

/** Shortest decimal text that reads back (via a double) to the same float32. */
export function float32Text(x: number): string {
  for (let p = 1; p <= 9; p++) {
    const t = x.toPrecision(p);
    if (Math.fround(Number(t)) === x) return String(Number(t));
  }
  return String(x);
}
