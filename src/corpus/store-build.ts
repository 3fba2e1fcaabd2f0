/**
 * Builds a compact corpus store (store-format.ts) from S2ORC shards in one streaming pass plus spools:
 *   1. read + validate every record: ids (duplicates dropped), years, fields, prefilter text rules; the texts
 *      of articles that pass rules 1–3 go to a temporary file, the citation id lists to a spool (citations.ts);
 *   2. read the spool back and resolve citation ids to indices (u32 pairs spooled to a file while each row is
 *      counted, then filled into CSR: no edge list in memory), dedupe, apply the citation rule, renumber the
 *      kept articles and write every column.
 * Memory is O(articles + in-corpus edges), never O(JSON): per input record about 40 bytes of typed columns
 * (id bytes and offset, year, fields, flags, the id hash), per resolved citation 4 bytes. The store is written into a temporary sibling
 * directory and renamed into place, so a killed build never leaves a half store behind.
 */
import { existsSync, mkdirSync, rmSync, renameSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { IdIndex } from './id-index.ts';
import type { Article } from './article.ts';
import { DATASETS, isS2Datasets, readCorpusInput, type S2DatasetsStats } from './s2-datasets.ts';
import { listShards } from './s2orc-reader.ts';
import { CitationSpool, resolveCitations } from './citations.ts';
import { ValidationReport } from './validation.ts';
import {
  EmptyCorpusError, applyPrefilter, formatPrefilterReport, textRuleFlags, type PrefilterConfig, type PrefilterReport,
} from './prefilter.ts';
import { FILES, STORE_FORMAT, STORE_VERSION } from './store-format.ts';
import { Growable } from '../util/growable.ts';
import { BufferedReader, BufferedWriter } from '../util/buffered-file.ts';
import { writeFileAtomic } from '../util/atomic.ts';
import { Progress } from '../util/progress.ts';
import { CitebenchError } from '../util/errors.ts';
import { requireFreeSpace, type FreeBytes } from '../util/disk.ts';

export interface BuildOptions {
  /** The S2ORC shards or bulk datasets; with `records`, only the name of the source in messages. */
  input: string;
  /** Records made by another reader (a BEIR task, corpus/beir.ts) instead of reading `input`. */
  records?: AsyncIterable<Article & { file: string; line: number }>;
  out: string;
  /** null = keep every valid article (no prefilter). */
  prefilter: PrefilterConfig | null;
  strict?: boolean;
  /** A truncated or corrupt shard: skip the rest of it (counted as 'corrupt-file') instead of failing. */
  allowTruncated?: boolean;
  progress?: boolean;
  log?: (line: string) => void;
  /** Semantic Scholar bulk input: memory per external-sort run (default 256 MiB). */
  sortRunBytes?: number;
  /** Free-space probe (tests replace it). */
  freeBytes?: FreeBytes;
}

/**
 * Disk the build holds at its peak (temporary files and the new store, next to the output) per input byte. The
 * peak is in pass 2: the text spool (1.33× default-profile .jsonl.gz shards), the resolved edge pairs (0.43×)
 * and the citation spool's unread chunks. Measured on 200 k-record synthetic corpora with chunks as small a
 * share of the spool as 256 MiB chunks are at S2ORC's size: 1.76× (default) and 1.69× (s2orc-raw) for v2020
 * .jsonl.gz shards, down from 2.43× and 2.05× when the spool held whole id strings, was kept whole, and the
 * kept texts were copied rather than compacted in place. The same records in the bulk form (its sort runs, in
 * pass 1): 3.63× and 3.72× (were 3.85× and 4.24×). gzip level 1 packs these records 2.4–2.7×, so a plain .jsonl byte
 * weighs 1/2.4 of that. An old store at the output is not counted: it is replaced only at the end.
 */
export const BUILD_DISK_PER_INPUT_BYTE = { v2020: 1.9, bulk: 4.0, plainFactor: 1 / 2.4 };

/** Bytes the build of `input` will need on the output's volume (an estimate with a small margin). */
export function buildDiskNeed(input: string): number {
  const bulk = isS2Datasets(input);
  const files = bulk ? DATASETS.flatMap((d) => (existsSync(join(input, d)) ? listShards(join(input, d), { anyGzip: true }) : [])) : listShards(input);
  const perByte = bulk ? BUILD_DISK_PER_INPUT_BYTE.bulk : BUILD_DISK_PER_INPUT_BYTE.v2020;
  return files.reduce((t, f) => t + statSync(f).size * perByte * (f.endsWith('.gz') ? 1 : BUILD_DISK_PER_INPUT_BYTE.plainFactor), 0);
}

export interface BuildSummary {
  articles: number;
  citations: number;
  validation: ValidationReport;
  prefilter: PrefilterReport | null;
}

const NO_FILTER: PrefilterConfig = {
  requireYear: false, requireTitle: false, minAbstractChars: 0, minCitations: 0, citationDirection: 'inbound',
  citationScope: 'corpus',
};

export async function buildCorpusStore(opts: BuildOptions): Promise<BuildSummary> {
  const log = opts.log ?? (() => {});
  const cfg = opts.prefilter ?? NO_FILTER;
  const report = new ValidationReport(opts.strict ?? false);
  const tmp = `${opts.out}.tmp-build`;
  let t0 = performance.now();
  const lap = () => {
    const t = performance.now();
    const s = ((t - t0) / 1000).toFixed(1);
    t0 = t;
    return `${s} s`;
  };
  rmSync(tmp, { recursive: true, force: true });
  requireFreeSpace(dirname(resolve(opts.out)), buildDiskNeed(opts.input), `corpus build: the store and its temporary files from ${opts.input}`, opts.freeBytes);
  mkdirSync(tmp, { recursive: true });
  try {
    // ---- pass 1: ids, attributes, texts -------------------------------------------------------------
    // Per input record only typed columns (no object per record): the id bytes in one growable buffer, and the
    // texts of records passing rules 1–3 in a temporary file, each length-prefixed so no offsets are kept.
    const record = cfg.citationScope === 'record';
    // Released once citations are resolved: the largest per-record structure is not held while the CSR is filled.
    let idIndex: IdIndex | null = new IdIndex(1 << 20);
    const idBytes = new Growable(Uint8Array, 1 << 20);
    const idOff = new Growable(Uint32Array);
    idOff.push(0);
    const years = new Growable(Uint16Array);
    const fields = new Growable(Uint32Array);
    const flags = new Growable(Uint8Array);
    const columns = [idBytes, idOff, years, fields, flags];
    // Distinct ids in the record's own lists: only the 'record' scope needs them.
    const recordOut = record ? new Growable(Uint32Array) : undefined;
    const recordIn = record ? new Growable(Uint32Array) : undefined;
    const rawText = new BufferedWriter(join(tmp, 'text.raw'));
    const spool = new CitationSpool(join(tmp, 'citations.spool'));
    let n = 0;
    const p1 = new Progress({ label: 'pass 1/2 read', unit: 'records', enabled: opts.progress });
    // The input: v2020 metadata shards, or the bulk datasets (papers/, abstracts/, citations/) joined on disk.
    const bulk: S2DatasetsStats | undefined = !opts.records && isS2Datasets(opts.input) ? { papers: 0, abstracts: 0, citations: 0, runs: 0 } : undefined;
    const source = opts.records ?? readCorpusInput(opts.input, {
      report, allowTruncated: opts.allowTruncated, scratch: join(tmp, 'sort'), runBytes: opts.sortRunBytes, progress: opts.progress, stats: bulk,
    });
    for await (const a of source) {
      p1.tick();
      if (opts.records) report.recordsRead++;
      if (idIndex!.add(a.id, n) !== n) {
        report.add('duplicate-id', a.file, a.line, 'paper_id', `duplicate paper_id ${a.id}: this record is skipped, the first one kept`);
        continue;
      }
      idBytes.pushAll(Buffer.from(a.id, 'utf8'));
      if (idBytes.length > 0xffffffff) throw new CitebenchError('ids exceed 4 GiB: not supported');
      idOff.push(idBytes.length);
      years.push(a.year ?? 0);
      fields.push(a.fields);
      const f = textRuleFlags(cfg, a.title, a.abstract, a.year);
      flags.push(f);
      recordOut?.push(new Set(a.outbound).size);
      recordIn?.push(new Set(a.inbound).size);
      if (f === 0) {
        rawText.u32(Buffer.byteLength(a.title));
        rawText.write(a.title);
        rawText.u32(Buffer.byteLength(a.abstract));
        rawText.write(a.abstract);
      }
      spool.add(a.file, a.line, a.outbound, a.inbound);
      n++;
    }
    rawText.close();
    spool.close();
    p1.finish();
    report.recordsAccepted = n;
    if (bulk) {
      rmSync(join(tmp, 'sort'), { recursive: true, force: true });
      log(`bulk datasets: ${bulk.papers} papers, ${bulk.abstracts} abstracts, ${bulk.citations} citation rows joined by corpusid (${bulk.runs} sort runs on disk)`);
    }
    log(`pass 1 (the shards, read once): ${report.recordsRead} records read, ${n} accepted (${lap()})`);

    // ---- pass 2: citations -> CSR -----------------------------------------------------------------------
    // Resolved edges go to a temporary file while their rows are counted, then fill the CSR from it: memory
    // holds the row counts and the edge targets once, never a (source, target) edge list.
    const counts = new Uint32Array(n + 1);
    const edgesPath = join(tmp, 'edges.u32');
    const edgeFile = new BufferedWriter(edgesPath);
    let resolved = 0;
    resolveCitations(spool, idIndex!, report, (i, j) => {
      counts[i + 1]++;
      edgeFile.u32(i);
      edgeFile.u32(j);
      resolved++;
    }, opts.progress);
    edgeFile.close();
    spool.remove();
    // The CSR's 4 bytes per resolved entry are the peak: before it is allocated, drop the id index and the
    // columns' doubling slack (up to half of each column).
    idIndex = null;
    for (const c of columns) c.compact();
    recordOut?.compact();
    recordIn?.compact();
    let full: { offsets: Uint32Array; targets: Uint32Array } | null = fillCsr(n, counts, resolved, (put) => {
      const r = new BufferedReader(edgesPath);
      try {
        for (let e = 0; e < resolved; e++) put(r.u32(), r.u32());
      } finally {
        r.close();
      }
    });
    rmSync(edgesPath);
    log(`pass 2 (the citation spool, not the shards): ${resolved} in-corpus citation entries resolved into CSR (${lap()})`);

    const inDeg = new Uint32Array(n);
    for (let e = 0; e < full.targets.length; e++) inDeg[full.targets[e]]++;
    // Fields of every citing input record, before the prefilter removes any: the paper's field-cited sets are
    // over all of S2ORC (§3.2). `full` merges both S2ORC lists, so a citing record counts whichever lists it.
    const fieldsAll = fields.view();
    const citedByAll = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      const f = fieldsAll[i];
      if (f) for (let e = full.offsets[i]; e < full.offsets[i + 1]; e++) citedByAll[full.targets[e]] |= f;
    }

    // ---- prefilter + renumbering --------------------------------------------------------------------------
    // Inbound counts as rule 4 counts them (its scope), kept per article: MDCR's most_cited ranks by them.
    const inputIn = recordIn ? recordIn.view() : inDeg;
    const { newIndex, kept: m, report: pf } = renumber(cfg, flags.view(), inputIn, recordOut ? recordOut.view() : outDegrees(full));
    if (opts.prefilter) log(formatPrefilterReport(pf));
    if (pf.kept === 0) throw new EmptyCorpusError(opts.input, report, opts.prefilter ? pf : null);

    // Citation CSR restricted to kept articles; the input's CSR is dropped before the reverse one is made.
    const { offsets: outOff, targets: outDst } = keptCsr(full, newIndex, m);
    full = null;
    const inCsr = transposeCsr(m, outOff, outDst);

    // ---- write columns ---------------------------------------------------------------------------------------
    const allIds = idBytes.view();
    const idOffAll = idOff.view();
    const keptIdOff = new Uint32Array(m + 1);
    const year = new Uint16Array(m);
    const fieldMask = new Uint32Array(m);
    const citedBy = new Uint32Array(m);
    const inbound = new Uint32Array(m);
    const yearsAll = years.view();
    let pos = 0;
    for (let i = 0; i < n; i++) {
      const k = newIndex[i];
      if (k < 0) continue;
      pos += idOffAll[i + 1] - idOffAll[i];
      keptIdOff[k + 1] = pos;
      year[k] = yearsAll[i];
      fieldMask[k] = fieldsAll[i];
      citedBy[k] = citedByAll[i];
      inbound[k] = inputIn[i];
    }
    const keptIds = Buffer.allocUnsafe(pos);
    for (let i = 0; i < n; i++) {
      const k = newIndex[i];
      if (k >= 0) keptIds.set(allIds.subarray(idOffAll[i], idOffAll[i + 1]), keptIdOff[k]);
    }
    const { order, sorted } = idOrdering(keptIds, keptIdOff, m);

    // Texts of kept articles, copied from the temporary file in order.
    const keptTextOff = new Float64Array(2 * m + 1);
    log(`prefilter, renumbering, citation columns (${lap()})`);
    compactKeptTexts(join(tmp, 'text.raw'), flags.view(), newIndex, keptTextOff);
    renameSync(join(tmp, 'text.raw'), join(tmp, FILES.text));
    log(`texts of the kept articles compacted in the text spool (${lap()})`);

    const w = (name: string, data: ArrayBufferView) => writeFileAtomic(join(tmp, name), data);
    w(FILES.ids, keptIds);
    w(FILES.idsOff, keptIdOff);
    w(FILES.idOrder, order);
    w(FILES.idSorted, sorted);
    w(FILES.year, year);
    w(FILES.fields, fieldMask);
    w(FILES.citedByFields, citedBy);
    w(FILES.inputInbound, inbound);
    w(FILES.outOff, outOff);
    w(FILES.outDst, outDst);
    w(FILES.inOff, inCsr.offsets);
    w(FILES.inSrc, inCsr.targets);
    w(FILES.textOff, keptTextOff);
    const meta = {
      format: STORE_FORMAT,
      version: STORE_VERSION,
      articles: m,
      citations: outDst.length,
      input: { records: report.recordsRead, accepted: n },
      prefilter: opts.prefilter ? pf : null,
      validation: report.toJSON(),
    };
    writeFileAtomic(join(tmp, FILES.meta), JSON.stringify(meta, null, 1) + '\n');

    rmSync(opts.out, { recursive: true, force: true });
    renameSync(tmp, opts.out);
    return { articles: m, citations: outDst.length, validation: report, prefilter: opts.prefilter ? pf : null };
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

/** Edge list → CSR with each row's targets sorted and deduplicated. */
export function buildCsr(n: number, src: Uint32Array, dst: Uint32Array): { offsets: Uint32Array; targets: Uint32Array } {
  const counts = new Uint32Array(n + 1);
  for (let e = 0; e < src.length; e++) counts[src[e] + 1]++;
  return fillCsr(n, counts, src.length, (put) => {
    for (let e = 0; e < src.length; e++) put(src[e], dst[e]);
  });
}

/** ES2024's resizable ArrayBuffer (Node 20 has it; the ES2022 lib does not declare it). */
type ResizableArrayBufferCtor = new (bytes: number, opts: { maxByteLength: number }) => ArrayBuffer & { resize(bytes: number): void };
/** V8 refuses a larger maxByteLength ("Invalid array buffer max length"). */
const RESIZABLE_MAX_BYTES = 2 ** 32;

/**
 * CSR from counted edges, without an edge list in memory: `counts[i + 1]` holds the number of edges of row i
 * (the array becomes the offsets: it is returned as `offsets`), `total` their sum, and `replay` emits every
 * edge (source, target), e.g. from a file. Rows come out sorted and deduplicated; the result equals buildCsr's
 * on the same edges in the same order. Memory: the counts and 4 bytes per edge, nothing more — rows are filled
 * from their ends (no second cursor array), deduplicated in place, and the targets' buffer is shrunk to the
 * distinct edges (a resizable ArrayBuffer returns the rest to the system) instead of copied.
 */
export function fillCsr(
  n: number,
  counts: Uint32Array,
  total: number,
  replay: (put: (source: number, target: number) => void) => void,
  resizableMaxBytes = RESIZABLE_MAX_BYTES,
): { offsets: Uint32Array; targets: Uint32Array } {
  for (let i = 0; i < n; i++) counts[i + 1] += counts[i];
  if (counts[n] !== total) throw new Error(`fillCsr: row counts sum to ${counts[n]}, not ${total}`);
  // A resizable ArrayBuffer can hold at most 4 GiB (V8): past that (1.34 G entries at 21 M default-profile
  // records) the targets stay a view of a fixed buffer, and the slack is freed with the input CSR it belongs to.
  const resizable = total * 4 <= resizableMaxBytes;
  const buffer = resizable
    ? new (ArrayBuffer as unknown as ResizableArrayBufferCtor)(total * 4, { maxByteLength: total * 4 })
    : new ArrayBuffer(total * 4);
  const raw = new Uint32Array(buffer);
  // counts[s + 1] is row s's end; each edge is placed just below it, so afterwards counts[s + 1] is row s's start.
  replay((s, d) => {
    raw[--counts[s + 1]] = d;
  });
  // Row i spans [counts[i + 1], counts[i + 2]) (the last row ends at total); counts[i + 1] is read before it is
  // overwritten with the row's deduplicated end, so the counts become the offsets in place.
  const offsets = counts;
  let w = 0;
  for (let i = 0; i < n; i++) {
    const start = counts[i + 1];
    const end = i + 1 < n ? counts[i + 2] : total;
    const row = raw.subarray(start, end).sort();
    let prev = -1;
    for (let k = 0; k < row.length; k++) {
      if (row[k] !== prev) raw[w++] = prev = row[k];
    }
    offsets[i + 1] = w;
  }
  offsets[0] = 0;
  if (resizable) (buffer as ArrayBuffer & { resize(bytes: number): void }).resize(w * 4);
  return { offsets, targets: new Uint32Array(buffer, 0, w) };
}

/** Out-degree of every row of a CSR. */
function outDegrees(csr: { offsets: Uint32Array }): Uint32Array {
  const n = csr.offsets.length - 1;
  const deg = new Uint32Array(n);
  for (let i = 0; i < n; i++) deg[i] = csr.offsets[i + 1] - csr.offsets[i];
  return deg;
}

/** The prefilter's verdicts as a renumbering: newIndex[i] = the kept article's index, or -1. */
function renumber(cfg: PrefilterConfig, flags: Uint8Array, inDeg: Uint32Array, outDeg: Uint32Array): { newIndex: Int32Array; kept: number; report: PrefilterReport } {
  const { keep, report } = applyPrefilter(cfg, flags, inDeg, outDeg);
  const newIndex = new Int32Array(flags.length).fill(-1);
  let m = 0;
  for (let i = 0; i < flags.length; i++) if (keep[i]) newIndex[i] = m++;
  return { newIndex, kept: m, report };
}

/** The CSR restricted to kept rows and targets (newIndex is monotonic, so rows stay sorted). */
function keptCsr(full: { offsets: Uint32Array; targets: Uint32Array }, newIndex: Int32Array, m: number): { offsets: Uint32Array; targets: Uint32Array } {
  const n = newIndex.length;
  const outOff = new Uint32Array(m + 1);
  let edges = 0;
  for (let i = 0; i < n; i++) {
    const k = newIndex[i];
    if (k < 0) continue;
    for (let e = full.offsets[i]; e < full.offsets[i + 1]; e++) if (newIndex[full.targets[e]] >= 0) edges++;
    outOff[k + 1] = edges;
  }
  const outDst = new Uint32Array(edges);
  edges = 0;
  for (let i = 0; i < n; i++) {
    if (newIndex[i] < 0) continue;
    for (let e = full.offsets[i]; e < full.offsets[i + 1]; e++) {
      const t = newIndex[full.targets[e]];
      if (t >= 0) outDst[edges++] = t;
    }
  }
  return { offsets: outOff, targets: outDst };
}

/** The reverse graph of a CSR (rows of the result are sorted because sources are visited in order). */
export function transposeCsr(n: number, offsets: Uint32Array, targets: Uint32Array): { offsets: Uint32Array; targets: Uint32Array } {
  const off = new Uint32Array(n + 1);
  for (let e = 0; e < targets.length; e++) off[targets[e] + 1]++;
  for (let i = 0; i < n; i++) off[i + 1] += off[i];
  const fill = off.slice(0, n);
  const out = new Uint32Array(targets.length);
  for (let s = 0; s < n; s++) for (let e = offsets[s]; e < offsets[s + 1]; e++) out[fill[targets[e]]++] = s;
  return { offsets: off, targets: out };
}

/** Byte-wise order of the ids: `order[i]` = rank of id i, `sorted[r]` = index with rank r. */
function idOrdering(ids: Buffer, off: Uint32Array, m: number): { order: Uint32Array; sorted: Uint32Array } {
  const idx = new Uint32Array(m);
  for (let i = 0; i < m; i++) idx[i] = i;
  let ascii = true;
  for (let b = 0; b < ids.length; b++) if (ids[b] > 127) { ascii = false; break; }
  let sortedIdx: Uint32Array;
  if (ascii) {
    // For ASCII, JS string comparison is byte-wise comparison.
    const strs = new Array<string>(m);
    for (let i = 0; i < m; i++) strs[i] = ids.toString('latin1', off[i], off[i + 1]);
    sortedIdx = Uint32Array.from(Array.from(idx).sort((a, b) => (strs[a] < strs[b] ? -1 : strs[a] > strs[b] ? 1 : 0)));
  } else {
    sortedIdx = Uint32Array.from(Array.from(idx).sort((a, b) => Buffer.compare(ids.subarray(off[a], off[a + 1]), ids.subarray(off[b], off[b + 1]))));
  }
  const order = new Uint32Array(m);
  for (let r = 0; r < m; r++) order[sortedIdx[r]] = r;
  return { order, sorted: sortedIdx };
}

/**
 * The texts of kept articles, compacted in place in the length-prefixed temporary file (records with text flags
 * 0 only), which then becomes the store's text file. In place is safe: kept articles keep their order
 * (newIndex is monotonic) and lose their length prefixes, so every byte is written at or before the position
 * it was read from; at S2ORC's size this spares a second copy of the texts (~30 GB at 16 M articles).
 */
function compactKeptTexts(rawPath: string, flags: Uint8Array, newIndex: Int32Array, keptOff: Float64Array): void {
  const r = new BufferedReader(rawPath);
  const out = new BufferedWriter(rawPath, { inPlace: true });
  const part = (keep: boolean) => {
    const len = r.u32();
    r.ensure(len);
    if (keep) out.writeBytes(r.buf.subarray(r.pos, r.pos + len));
    r.pos += len;
  };
  try {
    for (let i = 0; i < newIndex.length; i++) {
      const k = newIndex[i];
      if (k >= 0) keptOff[2 * k] = out.position;
      if (flags[i] === 0) part(k >= 0);
      if (k >= 0) keptOff[2 * k + 1] = out.position;
      if (flags[i] === 0) part(k >= 0);
    }
    keptOff[2 * (keptOff.length >> 1)] = out.position;
  } finally {
    out.close();
    r.close();
  }
}
