/**
 * Builds a compact corpus store (store-format.ts) from S2ORC v2020 shards, the Semantic Scholar bulk datasets or
 * OpenAlex works (build-source.ts). The store is a function of the corpus alone: its articles are in ascending
 * order of their ids' keys (id-key.ts: byte-wise order of the ids, for the decimal and `W…` ids every source
 * uses), whatever the order of the files and of the lines in them, so the same records through any reader give
 * the same store and, with the same seed, the same queries, pools and runs. Steps, each on disk:
 *   read   every record validated once (prefilter rules 1–3 decided here) and put into an external sort by id;
 *   merge  the sorted records, duplicates dropped (the lowest rank, then the first file and line, is kept; a work
 *          whose kept record is left out by option is dropped with it): the per-record columns, and every
 *          citation id into a sort by the cited id's key;
 *   join   citation ids → indices, merged against the articles' keys (build-graph.ts);
 *   graph  counts over the distinct edges, prefilter rule 4, the kept articles' columns and citation CSRs;
 *   texts  the sorted records merged again: ids and texts of the kept articles.
 * Memory does not grow with the input beyond 8 bytes per record (two counters of the graph step); no map of ids is
 * held. The temporary folder keeps a checkpoint (build-checkpoint.ts): a killed build resumes after the last input
 * file it finished, or at the start of the step it was in, and writes the same bytes. The store is written into
 * the temporary folder and renamed into place, so a killed build never leaves a half store behind.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Article, Exclusion } from './article.ts';
import { compareRecords, RecordView } from './build-records.ts';
import { readThreads, readUnitsInWorkers } from './build-read.ts';
import { readUnit } from './build-read-unit.ts';
import { openSource, recordsSource, type CorpusSource, type InputFormat, type SourceInfo, type SourceRecord } from './build-source.ts';
import { buildKey, hasCheckpoint, readCheckpoint, writeCheckpoint, type Checkpoint } from './build-checkpoint.ts';
import { buildGraph, joinCitations, KeepSet, WORK, type JoinContext } from './build-graph.ts';
import { SLOW_KEY, compareBytes } from './id-key.ts';
import type { OpenAlexOptions } from './openalex.ts';
import { ValidationReport } from './validation.ts';
import { canonicalPrefilter, EmptyCorpusError, formatPrefilterReport, type PrefilterConfig, type PrefilterReport } from './prefilter.ts';
import { FILES, STORE_FORMAT, STORE_VERSION } from './store-format.ts';
import { BufferedWriter } from '../util/buffered-file.ts';
import { writeFileAtomic } from '../util/atomic.ts';
import { KeyValueSorter, PairSorter, RecordSorter } from '../util/external-sort.ts';
import { Progress } from '../util/progress.ts';
import { CitebenchError, InputError } from '../util/errors.ts';
import { requireFreeSpace, type FreeBytes } from '../util/disk.ts';

export interface BuildOptions {
  /** The S2ORC shards, bulk datasets or OpenAlex works; with `records`, only the name of the source in messages. */
  input: string;
  /** Records made by another reader (a BEIR task, corpus/beir.ts) instead of reading `input`. */
  records?: AsyncIterable<Article & { file: string; line: number }>;
  out: string;
  /** null = keep every valid article (no prefilter). */
  prefilter: PrefilterConfig | null;
  /** The input's form (default: told by its layout or first record). */
  format?: InputFormat | 'auto';
  /** OpenAlex works: field scheme, concept threshold, types, paratext and retracted works. */
  openalex?: Partial<OpenAlexOptions>;
  strict?: boolean;
  /** A truncated or corrupt shard: skip the rest of it (counted as 'corrupt-file') instead of failing. */
  allowTruncated?: boolean;
  progress?: boolean;
  log?: (line: string) => void;
  /**
   * Worker threads reading the input files (default: one per core, at most 8; 1 reads on the main thread). The
   * store does not depend on it. Each holds one sort run (sortRunBytes) besides what it parses.
   */
  threads?: number;
  /** Memory per external-sort run (default 256 MiB). */
  sortRunBytes?: number;
  /** Free-space probe (tests replace it). */
  freeBytes?: FreeBytes;
  /** Called after each checkpoint is written: the step just finished, and the input files read so far. */
  onCheckpoint?: (phase: string, unitsDone: number) => void;
}

/**
 * Disk the build holds at its peak (temporary files and the new store, next to the output) per input byte. The
 * peak is while the sorted records are merged the second time: their sort runs (every accepted record's id,
 * citation keys and, for records passing rules 1–3, texts) beside the store's texts. Measured on 200 k-record
 * synthetic corpora (bench/corpus/disk-peak.sh), per byte of gzip'd input: v2020 .jsonl.gz shards 2.20×
 * (default profile) and 2.36× (s2orc-raw); the same records in the bulk form 3.83× and 4.00× (its own sorts come
 * first); OpenAlex works (synth --profile openalex) 0.71×: a work carries much the records here do not. gzip level
 * 1 packs these records 2.4–2.7×, so a plain .jsonl byte weighs 1/2.4 of that. An old store at the output is not
 * counted: it is replaced only at the end.
 */
export const BUILD_DISK_PER_INPUT_BYTE = { v2020: 2.5, bulk: 4.2, openalex: 0.8, plainFactor: 1 / 2.4 };

/** Bytes the build of `input` will need on the output's volume (an estimate with a small margin). */
export function buildDiskNeed(input: string, source: CorpusSource = openSource(input)): number {
  const { gz, plain } = source.inputBytes();
  const perByte = BUILD_DISK_PER_INPUT_BYTE[source.format];
  return (gz + plain * BUILD_DISK_PER_INPUT_BYTE.plainFactor) * perByte;
}

export interface BuildSummary {
  articles: number;
  citations: number;
  validation: ValidationReport;
  prefilter: PrefilterReport | null;
  source: SourceInfo;
}

const NO_FILTER: PrefilterConfig = {
  requireYear: false, requireTitle: false, minAbstractChars: 0, minCitations: 0, citationDirection: 'inbound',
  citationScope: 'corpus',
};

/** Bump with any change to what a step writes, so a checkpoint of an older build is not resumed. */
const BUILD_VERSION = 3;

export async function buildCorpusStore(opts: BuildOptions): Promise<BuildSummary> {
  const log = opts.log ?? (() => {});
  const cfg = canonicalPrefilter(opts.prefilter ?? NO_FILTER);
  const source = opts.records ? recordsSource(opts.input, opts.records) : openSource(opts.input, opts.format, opts.openalex);
  const tmp = `${opts.out}.tmp-build`;
  const storeDir = join(tmp, 'store');
  const runBytes = opts.sortRunBytes ?? 256 << 20;
  const key = buildKey({
    BUILD_VERSION, STORE_VERSION, cfg, strict: !!opts.strict, allowTruncated: !!opts.allowTruncated, format: source.format,
    openalex: source.info().openalex ?? null, units: source.units,
  });
  let ck = readCheckpoint(tmp, key);
  if (ck) {
    log(`resuming the build in ${tmp} (${ck.phase === 'read' ? `${ck.unitsDone} of ${source.units.length} input files read` : `after the ${ck.phase} step`})`);
  } else {
    if (hasCheckpoint(tmp)) log(`not resuming the build in ${tmp}: it was for other options or input files (or an older citebench); starting afresh`);
    rmSync(tmp, { recursive: true, force: true });
    requireFreeSpace(dirname(resolve(opts.out)), buildDiskNeed(opts.input, source), `corpus build: the store and its temporary files from ${opts.input}`, opts.freeBytes);
    mkdirSync(tmp, { recursive: true });
    ck = {
      format: 'citebench-build-checkpoint', version: 1, key, phase: 'read', unitsDone: 0, files: unitFiles(source), recordRuns: [],
      report: new ValidationReport().toJSON(),
    };
  }
  const report = ValidationReport.fromJSON(ck.report, opts.strict ?? false);
  source.restore?.(ck.sourceState);
  const save = (c: Checkpoint) => {
    ck = { ...c, report: report.toJSON(), sourceState: source.state?.() };
    writeCheckpoint(tmp, ck);
    opts.onCheckpoint?.(ck.phase, ck.unitsDone);
  };
  let t0 = performance.now();
  const lap = () => {
    const t = performance.now();
    const s = ((t - t0) / 1000).toFixed(1);
    t0 = t;
    return `${s} s`;
  };
  const records = new RecordSorter(tmp, 'rec', runBytes, compareRecords, ck.recordRuns.map((f) => join(tmp, f)));
  try {
    // ---- read: every record, into the sort by id ---------------------------------------------------------------
    if (ck.phase === 'read') {
      const files = [...ck.files];
      await readInput(source, records, { report, cfg, files, from: ck.unitsDone, tmp, opts }, (u) => {
        save({ ...ck!, unitsDone: u + 1, files, recordRuns: records.runFiles.map((f) => basename(f)) });
      });
      log(`read: ${report.recordsRead} records in ${source.units.length} input file${source.units.length === 1 ? '' : 's'}, sorted by id on disk (${records.runs} runs) (${lap()})`);
    }
    const ctx: JoinContext = {
      tmp, n: ck.accepted ?? 0, files: ck.files, report, runBytes, progress: opts.progress,
      citeFields: citeFields(source),
    };

    // ---- merge: the store's order, duplicates dropped; columns and citation entries --------------------------------
    if (ck.phase === 'read') {
      const cites = new KeyValueSorter(tmp, 'cite', runBytes);
      ctx.n = mergeRecords(tmp, records, cites, report, source, ck.files, opts.progress);
      report.recordsAccepted = ctx.n;
      save({ ...ck, phase: 'merged', accepted: ctx.n, citationRuns: cites.runFiles.map((f) => basename(f)) });
      log(`merge: ${ctx.n} articles in id order, ${cites.count} citation ids (${lap()})`);
    }

    // ---- join: citation ids → indices ---------------------------------------------------------------------------
    if (ck.phase === 'merged') {
      const cites = new KeyValueSorter(tmp, 'cite', runBytes, ck.citationRuns!.map((f) => join(tmp, f)));
      const edges = joinCitations(ctx, cites);
      cites.dispose();
      save({ ...ck, phase: 'joined', edgeRuns: edges.runFiles.map((f) => basename(f)) });
      log(`join: ${edges.count} in-corpus citation entries resolved (${lap()})`);
    }

    // ---- graph: counts, prefilter rule 4, columns and CSRs of the kept articles ---------------------------------------
    let keep: KeepSet;
    if (ck.phase === 'joined') {
      rmSync(storeDir, { recursive: true, force: true });
      mkdirSync(storeDir, { recursive: true });
      const edges = new PairSorter(tmp, 'edge', runBytes, ck.edgeRuns!.map((f) => join(tmp, f)));
      const g = buildGraph({ ...ctx, storeDir, cfg }, edges);
      if (opts.prefilter) log(formatPrefilterReport(g.prefilter));
      if (g.kept === 0) throw new EmptyCorpusError(opts.input, report, opts.prefilter ? g.prefilter : null);
      writeFileAtomic(join(tmp, WORK.keep), g.keep.bits);
      edges.dispose();
      for (const f of Object.values(WORK)) if (f !== WORK.keep) rmSync(join(tmp, f), { force: true });
      save({ ...ck, phase: 'graph', graph: { kept: g.kept, citations: g.citations, prefilter: g.prefilter } });
      log(`graph: ${g.kept} articles kept, ${g.citations} citations between them (${lap()})`);
      keep = g.keep;
    } else {
      const bits = readFileSync(join(tmp, WORK.keep));
      keep = new KeepSet(ctx.n, new Uint32Array(bits.buffer, bits.byteOffset, bits.byteLength / 4).slice());
      keep.seal();
    }

    // ---- texts: ids and texts of the kept articles ---------------------------------------------------------------------
    const { kept, citations, prefilter } = ck.graph!;
    writeTextsAndIds(storeDir, records, keep, kept);
    records.dispose();
    log(`texts: ids and texts of the ${kept} kept articles (${lap()})`);
    const meta = {
      format: STORE_FORMAT,
      version: STORE_VERSION,
      articles: kept,
      citations,
      input: { records: report.recordsRead, accepted: ctx.n },
      source: source.info(),
      prefilter: opts.prefilter ? prefilter : null,
      validation: report.toJSON(),
    };
    writeFileAtomic(join(storeDir, FILES.meta), JSON.stringify(meta, null, 1) + '\n');
    rmSync(opts.out, { recursive: true, force: true });
    renameSync(storeDir, opts.out);
    rmSync(tmp, { recursive: true, force: true });
    return { articles: kept, citations, validation: report, prefilter: opts.prefilter ? (prefilter as PrefilterReport) : null, source: source.info() };
  } catch (e) {
    // Bad input or options: what was done is of no use (the input or the options must change). Anything else (a
    // full disk, a crash) leaves the checkpoint to resume from.
    if (e instanceof InputError || e instanceof EmptyCorpusError || opts.records) rmSync(tmp, { recursive: true, force: true });
    else if (existsSync(tmp)) log(`the build stopped; its work so far is in ${tmp}: the same command resumes it`);
    throw e;
  }
}

/** Only the checks: read, merge and join without writing a store (`citebench corpus validate`). */
export async function validateCorpus(input: string, opts: { scratch: string; strict?: boolean; allowTruncated?: boolean; format?: InputFormat | 'auto'; openalex?: Partial<OpenAlexOptions> }): Promise<ValidationReport> {
  const source = openSource(input, opts.format, opts.openalex);
  const report = new ValidationReport(opts.strict ?? false);
  const tmp = join(opts.scratch, 'validate');
  mkdirSync(tmp, { recursive: true });
  const records = new RecordSorter(tmp, 'rec', 256 << 20, compareRecords);
  const files = unitFiles(source);
  await readInput(source, records, { report, cfg: NO_FILTER, files, from: 0, tmp, opts }, () => {});
  const cites = new KeyValueSorter(tmp, 'cite');
  const n = mergeRecords(tmp, records, cites, report, source, files, false);
  report.recordsAccepted = n;
  records.dispose();
  joinCitations({ tmp, n, files, report, runBytes: 256 << 20, citeFields: citeFields(source) }, cites).dispose();
  cites.dispose();
  return report;
}

/** The files records name by number, known before reading where each unit is a file: its number is its index. */
function unitFiles(source: CorpusSource): string[] {
  return source.spec ? source.units.map((u) => u.path) : [];
}

/** The fields citation ids come from, outbound and inbound, for messages. */
function citeFields(source: CorpusSource): [string, string] {
  if (source.format === 'openalex') return ['referenced_works', 'referenced_works'];
  if (source.format === 'bulk') return ['citedcorpusid', 'citingcorpusid'];
  return ['outbound_citations', 'inbound_citations'];
}

/**
 * The read step: every unit from `from` on into the record sort (by worker threads where the source's units are
 * files and more than one is left: build-read.ts), `afterUnit` once each is done (and spilled).
 */
async function readInput(
  source: CorpusSource,
  records: RecordSorter,
  c: { report: ValidationReport; cfg: PrefilterConfig; files: string[]; from: number; tmp: string; opts: Pick<BuildOptions, 'allowTruncated' | 'sortRunBytes' | 'progress' | 'records' | 'threads' | 'strict'> },
  afterUnit: (u: number) => void,
): Promise<void> {
  const { report, files, opts } = c;
  const p = new Progress({ label: 'read', unit: 'records', enabled: opts.progress });
  const unitOpts = { cfg: c.cfg, allowTruncated: opts.allowTruncated, sortRunBytes: opts.sortRunBytes, scratch: join(c.tmp, 'sort'), progress: opts.progress };
  // Files named by number in the records: a unit's own file is its index (the same whatever thread reads it).
  const fileNo = new Map(files.map((f, i) => [f, i]));
  const number = (file: string): number => {
    let f = fileNo.get(file);
    if (f === undefined) {
      fileNo.set(file, (f = files.length));
      files.push(file);
    }
    return f;
  };
  const threads = readThreads(source, source.units.length - c.from, opts.threads);
  if (threads > 1) {
    const job = { spec: source.spec!, tmp: c.tmp, strict: !!opts.strict, maxExamples: report.maxExamples, opts: { cfg: c.cfg, allowTruncated: opts.allowTruncated, sortRunBytes: opts.sortRunBytes } };
    await readUnitsInWorkers(source, c.from, threads, job, (n) => p.tick(n), (u, runs, unitReport) => {
      records.adopt(runs);
      report.absorb(unitReport);
      afterUnit(u);
    });
  } else {
    for (let u = c.from; u < source.units.length; u++) {
      await readUnit(source, u, records, report, unitOpts, number, () => {
        p.tick();
        if (opts.records) report.recordsRead++;
      });
      afterUnit(u);
    }
  }
  p.finish();
}

/**
 * The sorted records without duplicates (the first of each id: the sort puts the one to keep first), with their
 * keys; `onDuplicate` hears of the others. A work whose first record is left out by option (OpenAlex: its newest
 * version's type, paratext, retracted) is not yielded: `onExcluded` hears of that record, `onDuplicate` of the rest.
 */
function* unique(records: RecordSorter, onDuplicate?: (v: RecordView) => void, onExcluded?: (v: RecordView, x: Exclusion) => void): Generator<[number, RecordView]> {
  const v = new RecordView();
  const out: [number, RecordView] = [0, v];
  let prevKey = -1;
  let prevId: Buffer | undefined;
  for (const { key, payload } of records.sorted()) {
    v.set(payload);
    if (key === prevKey && (key !== SLOW_KEY || compareBytes(v.id, prevId!) === 0)) {
      onDuplicate?.(v);
      continue;
    }
    prevKey = key;
    if (key === SLOW_KEY) prevId = Buffer.from(v.id);
    const x = v.excluded;
    if (x) {
      onExcluded?.(v, x);
      continue;
    }
    out[0] = key;
    yield out;
  }
}

/** The merge step: per-record columns in the store's order and every citation id into `cites`; returns the count. */
function mergeRecords(tmp: string, records: RecordSorter, cites: KeyValueSorter, report: ValidationReport, source: CorpusSource, files: string[], progress?: boolean): number {
  const w = (name: string) => new BufferedWriter(join(tmp, name));
  const names = [WORK.keys, WORK.year, WORK.fields, WORK.flags, WORK.recordOut, WORK.recordIn, WORK.where, WORK.slowIds, WORK.slowCites];
  const [keys, year, fields, flags, recOut, recIn, where, slowIds, slowCites] = names.map(w);
  const idField = source.format === 'openalex' ? 'id' : source.format === 'bulk' ? 'corpusid' : 'paper_id';
  const kept = source.format === 'openalex' ? 'the one updated last decides' : 'the first one kept';
  const key8 = Buffer.alloc(8);
  const p = new Progress({ label: 'merge', unit: 'records', total: records.count || undefined, enabled: progress });
  let n = 0;
  const duplicate = (d: RecordView) => report.add('duplicate-id', files[d.fileNo] ?? '?', d.line, idField, `duplicate ${idField} ${d.idString()}: this record is skipped, ${kept}`);
  const excluded = (d: RecordView, x: Exclusion) => source.countExclusion!(x, report, files[d.fileNo] ?? '?', d.line);
  for (const [k, v] of unique(records, duplicate, excluded)) {
    p.tick();
    if (n >= 2 ** 31 - 1) throw new CitebenchError('more than 2^31 - 1 accepted records: not supported');
    key8.writeDoubleLE(k, 0);
    keys.writeBytes(key8);
    year.u16(v.year);
    fields.u32(v.fields);
    flags.u8(v.flags);
    recOut.u32(v.recordOut);
    recIn.u32(v.recordIn);
    where.u32(v.fileNo);
    where.u32(v.line);
    if (k === SLOW_KEY) {
      const id = v.id;
      slowIds.u32(n);
      slowIds.u16(id.length);
      slowIds.writeBytes(id);
    }
    const citing = n;
    v.forEachCitation((outbound, key, slow) => {
      if (slow === undefined) cites.add(key, citing * 2 + (outbound ? 1 : 0));
      else {
        const b = Buffer.from(slow, 'utf8');
        slowCites.u32(citing);
        slowCites.u8(outbound ? 1 : 0);
        slowCites.u16(b.length);
        slowCites.writeBytes(b);
      }
    });
    n++;
  }
  p.finish();
  for (const f of [keys, year, fields, flags, recOut, recIn, where, slowIds, slowCites]) f.close();
  cites.spill();
  return n;
}

/**
 * The texts step: the sorted records merged again (the same order and duplicates as the merge step), the kept
 * ones' ids and texts written; then the ids' byte order (the identity for fast ids, id-key.ts).
 */
function writeTextsAndIds(storeDir: string, records: RecordSorter, keep: KeepSet, kept: number): void {
  const ids = new BufferedWriter(join(storeDir, FILES.ids));
  const idOff = new BufferedWriter(join(storeDir, FILES.idsOff));
  const text = new BufferedWriter(join(storeDir, FILES.text));
  const textOff = new BufferedWriter(join(storeDir, FILES.textOff));
  const f8 = Buffer.alloc(8);
  const off = (w: BufferedWriter, v: number) => {
    f8.writeDoubleLE(v, 0);
    w.writeBytes(f8);
  };
  idOff.u32(0);
  off(textOff, 0);
  let i = 0;
  let inOrder = true;
  let prev: Buffer | undefined;
  for (const [, v] of unique(records)) {
    if (keep.has(i++)) {
      const id = v.id;
      if (prev && compareBytes(prev, id) >= 0) inOrder = false;
      prev = Buffer.from(id);
      ids.writeBytes(id);
      if (ids.position > 0xffffffff) throw new CitebenchError('ids exceed 4 GiB: not supported');
      idOff.u32(ids.position);
      const [title, abstract] = v.texts();
      text.writeBytes(title);
      off(textOff, text.position);
      text.writeBytes(abstract);
      off(textOff, text.position);
    }
  }
  for (const w of [ids, idOff, text, textOff]) w.close();
  const { order, sorted } = inOrder ? { order: identity(kept), sorted: identity(kept) } : idOrdering(storeDir, kept);
  writeFileAtomic(join(storeDir, FILES.idOrder), order);
  writeFileAtomic(join(storeDir, FILES.idSorted), sorted);
}

function identity(m: number): Uint32Array {
  const a = new Uint32Array(m);
  for (let i = 0; i < m; i++) a[i] = i;
  return a;
}

/** Byte-wise order of the ids where the store's order is not it (ids beyond the fast form): `order[i]` = rank of id i, `sorted[r]` = index with rank r. */
function idOrdering(storeDir: string, m: number): { order: Uint32Array; sorted: Uint32Array } {
  const ids = readFileSync(join(storeDir, FILES.ids));
  const offB = readFileSync(join(storeDir, FILES.idsOff));
  const off = new Uint32Array(offB.buffer, offB.byteOffset, m + 1);
  const idx = Array.from({ length: m }, (_, i) => i);
  idx.sort((a, b) => compareBytes(ids.subarray(off[a], off[a + 1]), ids.subarray(off[b], off[b + 1])));
  const sorted = Uint32Array.from(idx);
  const order = new Uint32Array(m);
  for (let r = 0; r < m; r++) order[sorted[r]] = r;
  return { order, sorted };
}
