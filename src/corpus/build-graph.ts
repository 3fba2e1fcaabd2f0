/**
 * The citation steps of the store build, all on disk, with memory that grows by 8 bytes per input record (two
 * counters) whatever the number of citations:
 *   join   citation ids → article indices: the citation entries, sorted by the cited id's key, are merged with
 *          the articles' keys (already in that order: the store's order); the resolved edges go to a pair sort.
 *          Ids that are not fast ids (id-key.ts) are looked up in a map of the few articles that have them.
 *   graph  the edges, sorted and deduplicated, are read twice: once for the inbound counts, the fields of the
 *          citing records (the paper's field-cited sets count citers the prefilter removes) and the outbound
 *          counts; then, once the prefilter has decided, for the kept articles' CSR, written straight to the
 *          store's files, and the reverse CSR through one more pair sort.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { idOfKey } from './id-key.ts';
import { applyPrefilter, type PrefilterConfig, type PrefilterReport } from './prefilter.ts';
import type { ValidationReport } from './validation.ts';
import { FILES } from './store-format.ts';
import { BufferedReader, BufferedWriter } from '../util/buffered-file.ts';
import { KeyValueSorter, PairSorter } from '../util/external-sort.ts';
import { InputError } from '../util/errors.ts';
import { Progress } from '../util/progress.ts';

/** Per-record files the merge step writes into the temporary folder, in the store's order of input records. */
export const WORK = {
  keys: 'keys.f64', year: 'year.u16', fields: 'fields.u32', flags: 'flags.u8', recordOut: 'recout.u32',
  recordIn: 'recin.u32', where: 'where.u32x2', slowIds: 'slowids.bin', slowCites: 'slowcites.bin', outDegree: 'outdeg.u32', keep: 'keep.bits',
} as const;

/** A column file read front to back, one value per record, skipping ahead to any later record. */
class Column {
  private readonly r: BufferedReader;
  private at = 0;
  constructor(
    path: string,
    private readonly width: 1 | 2 | 4 | 8,
  ) {
    this.r = new BufferedReader(path, 1 << 20);
  }
  /** The value of record i (i never decreasing). */
  get(i: number): number {
    const w = this.width;
    while (this.at < i) {
      this.r.ensure(w);
      this.r.pos += w;
      this.at++;
    }
    this.r.ensure(w);
    const b = this.r.buf;
    const p = this.r.pos;
    const v = w === 1 ? b[p] : w === 2 ? b.readUInt16LE(p) : w === 4 ? b.readUInt32LE(p) : b.readDoubleLE(p);
    this.r.pos += w;
    this.at++;
    return v;
  }
  close(): void {
    this.r.close();
  }
}

/** File and line of record i, for a message (the `where` file: u32 file number, u32 line per record). */
function whereOf(tmp: string, i: number, files: string[]): { file: string; line: number } {
  const fd = openSync(join(tmp, WORK.where), 'r');
  try {
    const b = Buffer.alloc(8);
    readSync(fd, b, 0, 8, i * 8);
    return { file: files[b.readUInt32LE(0)] ?? '?', line: b.readUInt32LE(4) };
  } finally {
    closeSync(fd);
  }
}

export interface JoinContext {
  tmp: string;
  /** Accepted input records. */
  n: number;
  files: string[];
  report: ValidationReport;
  /** The field names a citation came from (outbound, inbound), for messages. */
  citeFields: [string, string];
  runBytes: number;
  progress?: boolean;
}

/** Resolve every citation entry; the edges (citing, cited) go to the returned pair sort. */
export function joinCitations(ctx: JoinContext, cites: KeyValueSorter): PairSorter {
  const { tmp, n, report } = ctx;
  const edges = new PairSorter(tmp, 'edge', ctx.runBytes);
  let unknown = 0;
  let self = 0;
  let example: { citing: number; outbound: boolean; id: string } | undefined;
  const miss = (citing: number, outbound: boolean, id: string) => {
    if (report.strict) {
      const w = whereOf(tmp, citing, ctx.files);
      throw new InputError(w.file, w.line, ctx.citeFields[outbound ? 0 : 1], `citation to ${id}, which is not in the corpus (without --strict such citations are counted and ignored)`);
    }
    unknown++;
    example ??= { citing, outbound, id };
  };
  const edge = (citing: number, outbound: boolean, j: number) => {
    if (j === citing) self++;
    else if (outbound) edges.add(citing, j);
    else edges.add(j, citing);
  };
  const keys = new Column(join(tmp, WORK.keys), 8);
  const p = new Progress({ label: 'resolve citations', unit: 'citations', total: cites.count || undefined, enabled: ctx.progress });
  try {
    let idx = 0;
    let cur = n > 0 ? keys.get(0) : Infinity;
    for (const [key, v] of cites.sorted()) {
      p.tick();
      while (cur < key) cur = ++idx < n ? keys.get(idx) : Infinity;
      const citing = v >>> 1;
      const outbound = (v & 1) === 1;
      if (cur === key) edge(citing, outbound, idx);
      else miss(citing, outbound, idOfKey(key));
    }
  } finally {
    keys.close();
    p.finish();
  }
  // Ids that are not fast ids: few (none in S2ORC or OpenAlex), looked up in a map of the articles that have them.
  const slow = new Map<string, number>();
  const ids = new BufferedReader(join(tmp, WORK.slowIds));
  try {
    while (!ids.done) {
      const i = ids.u32();
      const len = ids.u16();
      ids.ensure(len);
      slow.set(ids.buf.toString('utf8', ids.pos, ids.pos + len), i);
      ids.pos += len;
    }
  } finally {
    ids.close();
  }
  const sc = new BufferedReader(join(tmp, WORK.slowCites));
  try {
    while (!sc.done) {
      const citing = sc.u32();
      sc.ensure(1);
      const outbound = sc.buf[sc.pos++] === 1;
      const len = sc.u16();
      sc.ensure(len);
      const id = sc.buf.toString('utf8', sc.pos, sc.pos + len);
      sc.pos += len;
      const j = slow.get(id);
      if (j === undefined) miss(citing, outbound, id);
      else edge(citing, outbound, j);
    }
  } finally {
    sc.close();
  }
  const ex = example && whereOf(tmp, example.citing, ctx.files);
  report.addMany('unknown-citation', unknown, ex && { ...ex, field: ctx.citeFields[example!.outbound ? 0 : 1], message: `citation to ${example!.id}, which is not in the corpus` });
  report.addMany('self-citation', self);
  edges.spill();
  return edges;
}

export interface GraphResult {
  kept: number;
  citations: number;
  prefilter: PrefilterReport;
}

/** Which input records the prefilter keeps, with their new indices (rank among the kept). */
export class KeepSet {
  readonly bits: Uint32Array;
  private readonly before: Uint32Array;
  constructor(n: number, bits?: Uint32Array) {
    this.bits = bits ?? new Uint32Array(Math.ceil(n / 32));
    this.before = new Uint32Array(this.bits.length + 1);
  }
  /** Count the kept records: call once every bit is set. */
  seal(): number {
    for (let w = 0; w < this.bits.length; w++) this.before[w + 1] = this.before[w] + popcount(this.bits[w]);
    return this.before[this.bits.length];
  }
  has(i: number): boolean {
    return (this.bits[i >>> 5] & (1 << (i & 31))) !== 0;
  }
  /** The kept index of kept record i. */
  rank(i: number): number {
    return this.before[i >>> 5] + popcount(this.bits[i >>> 5] & ((1 << (i & 31)) - 1));
  }
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

const CHUNK = 1 << 20;

/**
 * Counts over the distinct edges, the prefilter, and the kept articles' columns and citation CSRs in `storeDir`.
 * Returns the verdicts (also written to the temporary folder for the texts step).
 */
export function buildGraph(ctx: JoinContext & { storeDir: string; cfg: PrefilterConfig }, edges: PairSorter): GraphResult & { keep: KeepSet } {
  const { tmp, n, cfg } = ctx;
  const record = cfg.citationScope === 'record';
  // ---- distinct edges: inbound counts, fields of citers, outbound counts ------------------------------------
  const inDeg = new Uint32Array(n);
  const citedBy = new Uint32Array(n);
  const fields = new Column(join(tmp, WORK.fields), 4);
  const outDeg = new BufferedWriter(join(tmp, WORK.outDegree));
  let row = -1;
  let rowFields = 0;
  let rowCount = 0;
  let written = 0;
  let prev = -1;
  const endRow = () => {
    if (row < 0) return;
    while (written < row) (outDeg.u32(0), written++);
    outDeg.u32(rowCount);
    written++;
  };
  for (const [i, j] of edges.sorted()) {
    if (i !== row) {
      endRow();
      row = i;
      rowFields = fields.get(i);
      rowCount = 0;
      prev = -1;
    }
    if (j === prev) continue;
    prev = j;
    rowCount++;
    inDeg[j]++;
    citedBy[j] |= rowFields;
  }
  endRow();
  while (written < n) (outDeg.u32(0), written++);
  outDeg.close();
  fields.close();

  // ---- the prefilter, a chunk of records at a time ------------------------------------------------------------
  const keep = new KeepSet(n);
  const flagsIn = new BufferedReader(join(tmp, WORK.flags));
  const outIn = new BufferedReader(join(tmp, record ? WORK.recordOut : WORK.outDegree));
  const recIn = record ? new BufferedReader(join(tmp, WORK.recordIn)) : undefined;
  let pf: PrefilterReport | undefined;
  for (let start = 0; start < n || (start === 0 && !pf); start += CHUNK) {
    const len = Math.min(CHUNK, n - start);
    const flags = readChunk(flagsIn, len, 1) as Uint8Array;
    const outs = readChunk(outIn, len, 4) as Uint32Array;
    const ins = recIn ? (readChunk(recIn, len, 4) as Uint32Array) : inDeg.subarray(start, start + len);
    const part = applyPrefilter(cfg, flags, ins, outs);
    for (let k = 0; k < len; k++) if (part.keep[k]) keep.bits[(start + k) >>> 5] |= 1 << ((start + k) & 31);
    pf = pf ? addReports(pf, part.report) : part.report;
    if (len === 0) break;
  }
  flagsIn.close();
  outIn.close();
  recIn?.close();
  const m = keep.seal();

  // ---- the kept articles' columns -------------------------------------------------------------------------------
  const col = (name: string) => new BufferedWriter(join(ctx.storeDir, name));
  const [yearW, fieldsW, citedW, inboundW] = [col(FILES.year), col(FILES.fields), col(FILES.citedByFields), col(FILES.inputInbound)];
  const yearR = new Column(join(tmp, WORK.year), 2);
  const fieldsR = new Column(join(tmp, WORK.fields), 4);
  const recInR = record ? new Column(join(tmp, WORK.recordIn), 4) : undefined;
  for (let i = 0; i < n; i++) {
    if (!keep.has(i)) continue;
    yearW.u16(yearR.get(i));
    fieldsW.u32(fieldsR.get(i));
    citedW.u32(citedBy[i]);
    // The inbound count as rule 4 counts it (its scope): MDCR's most_cited ranks by it.
    inboundW.u32(recInR ? recInR.get(i) : inDeg[i]);
  }
  for (const w of [yearW, fieldsW, citedW, inboundW]) w.close();
  for (const r of [yearR, fieldsR, recInR]) r?.close();

  // ---- the kept articles' citations, both directions --------------------------------------------------------------
  const outOff = col(FILES.outOff);
  const outDst = col(FILES.outDst);
  const reverse = new PairSorter(tmp, 'reverse', ctx.runBytes);
  let edgesOut = 0;
  let next = 0; // the next input record whose start offset is due
  const startsUpTo = (i: number) => {
    for (; next <= i && next < n; next++) if (keep.has(next)) outOff.u32(edgesOut);
  };
  prev = -1;
  row = -1;
  for (const [i, j] of edges.sorted()) {
    if (i !== row) {
      row = i;
      prev = -1;
      startsUpTo(i);
    }
    if (j === prev) continue;
    prev = j;
    if (!keep.has(i) || !keep.has(j)) continue;
    if (edgesOut === 0xffffffff) throw new Error('more than 2^32 - 1 citations between kept articles: not supported');
    outDst.u32(keep.rank(j));
    reverse.add(keep.rank(j), keep.rank(i));
    edgesOut++;
  }
  startsUpTo(n - 1);
  outOff.u32(edgesOut);
  outOff.close();
  outDst.close();
  const inOff = col(FILES.inOff);
  const inSrc = col(FILES.inSrc);
  let k = 0;
  let edgesIn = 0;
  for (const [target, source] of reverse.sorted()) {
    for (; k <= target; k++) inOff.u32(edgesIn);
    inSrc.u32(source);
    edgesIn++;
  }
  for (; k <= m; k++) inOff.u32(edgesIn);
  inOff.close();
  inSrc.close();
  reverse.dispose();
  return { kept: m, citations: edgesOut, prefilter: pf!, keep };
}

function readChunk(r: BufferedReader, len: number, width: 1 | 4): Uint8Array | Uint32Array {
  const bytes = len * width;
  const out = new Uint8Array(bytes);
  let got = 0;
  while (got < bytes) {
    const step = Math.min(bytes - got, 1 << 20);
    r.ensure(step);
    out.set(r.buf.subarray(r.pos, r.pos + step), got);
    r.pos += step;
    got += step;
  }
  return width === 1 ? out : new Uint32Array(out.buffer, 0, len);
}

function addReports(a: PrefilterReport, b: PrefilterReport): PrefilterReport {
  const sum = <T extends Record<string, number>>(x: T, y: T) => Object.fromEntries(Object.keys(x).map((k) => [k, x[k] + y[k]])) as T;
  return { config: a.config, input: a.input + b.input, kept: a.kept + b.kept, removed: a.removed + b.removed, failing: sum(a.failing, b.failing), removedBy: sum(a.removedBy, b.removedBy) };
}

