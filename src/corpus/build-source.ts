/**
 * What the store build reads: S2ORC v2020 metadata shards, the Semantic Scholar bulk datasets (papers/,
 * abstracts/, citations/), or OpenAlex works — told apart by their layout, or by the first record — as one
 * interface: a list of units read one after the other (a shard file each; the bulk datasets, joined on disk, are
 * one unit), which a killed build resumes after the last one it finished.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Article, Exclusion } from './article.ts';
import { DATASETS, isS2Datasets, readS2Datasets } from './s2-datasets.ts';
import { listShards, parseRecord, readShardLines } from './s2orc-reader.ts';
import {
  OPENALEX_DEFAULTS, canonicalExclusions, countExclusion, isOpenAlexLayout, looksLikeWork, manifestName, openAlexFiles, parseWork,
  readRelease, type OpenAlexExclusions, type OpenAlexOptions,
} from './openalex.ts';
import type { FieldScheme } from './fields.ts';
import type { ValidationReport } from './validation.ts';
import { CitebenchError } from '../util/errors.ts';

export type InputFormat = 'v2020' | 'bulk' | 'openalex';
export const INPUT_FORMATS: readonly InputFormat[] = ['v2020', 'bulk', 'openalex'];

export type SourceRecord = Article & { file: string; line: number };

export interface SourceUnit {
  /** A file, or the input folder for the bulk datasets. */
  path: string;
  /** Bytes and modification times of the unit's files: a changed input is read again, not resumed. */
  fingerprint: string;
}

/** What the store's meta says the corpus is. */
export interface SourceInfo {
  name: string;
  format: InputFormat | 'records';
  fieldScheme: FieldScheme;
  /** OpenAlex: the snapshot's date, and where it was read. */
  release?: string;
  releaseFrom?: 'manifest' | 'partitions';
  /** Written by `citebench synth` (its synth.json beside the input): the store is generated data, never a finding. */
  synthetic?: { articles: number; seed: number; generator: string };
  /** OpenAlex: how works were read (options) and what was left out. */
  openalex?: { conceptThreshold: number; types: readonly string[] | 'all'; keepParatext: boolean; keepRetracted: boolean; excluded: OpenAlexExclusions };
}

export interface ReadContext {
  report: ValidationReport;
  allowTruncated?: boolean;
  /** Folder for the bulk datasets' sort runs (removed by the caller). */
  scratch: string;
  sortRunBytes?: number;
  progress?: boolean;
}

export interface CorpusSource {
  format: InputFormat;
  units: SourceUnit[];
  read(unit: number, ctx: ReadContext): AsyncIterable<SourceRecord>;
  info(): SourceInfo;
  /** The input's bytes, gzip'd and plain (the build's disk need is a multiple of them). */
  inputBytes(): { gz: number; plain: number };
  /** What the source counts beside the report, saved with a checkpoint and restored on resume. */
  state?(): unknown;
  restore?(state: unknown): void;
  /**
   * Count a work left out by option (the merge step calls it, once per work, for the newest record of a work that
   * is Article.excluded): only sources whose records can be excluded have it.
   */
  countExclusion?(x: Exclusion, report: ValidationReport, file: string, line: number): void;
  /**
   * How to open this source again in a worker thread, where its units are files read independently (v2020 shards,
   * OpenAlex works files); absent where they are not (the bulk datasets' one joined unit, records of another reader).
   */
  spec?: SourceSpec;
}

export interface SourceSpec {
  input: string;
  format: InputFormat;
  openalex: Partial<OpenAlexOptions>;
}

const SOURCE_NAMES: Record<InputFormat, string> = {
  v2020: 'S2ORC metadata (v2020-07-05 schema)',
  bulk: 'Semantic Scholar Datasets (papers, abstracts, citations)',
  openalex: 'OpenAlex works',
};

/** The form of the input at `path`: the bulk datasets' folders, an OpenAlex snapshot layout, else the first record. */
function detectFormat(path: string): InputFormat {
  if (!existsSync(path)) throw new CitebenchError(`${path}: no such file or directory`);
  if (statSync(path).isDirectory() && isS2Datasets(path)) return 'bulk';
  if (isOpenAlexLayout(path)) return 'openalex';
  const first = listShards(path, { anyGzip: true })[0];
  return looksLikeWork(firstLine(first)) ? 'openalex' : 'v2020';
}

/** The first line of a data file (its first 1 MiB, decompressed when gzip'd). */
function firstLine(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(1 << 20);
    const n = readSync(fd, buf, 0, buf.length, 0);
    let text: string;
    if (file.endsWith('.gz')) {
      try {
        text = gunzipSync(buf.subarray(0, n), { finishFlush: 2 /* Z_SYNC_FLUSH: a prefix of the stream */ }).toString('utf8');
      } catch {
        return '';
      }
    } else text = buf.toString('utf8', 0, n);
    return text.split('\n', 1)[0];
  } finally {
    closeSync(fd);
  }
}

function fingerprint(files: string[]): string {
  return files.map((f) => {
    const s = statSync(f);
    return `${s.size}@${Math.floor(s.mtimeMs)}`;
  }).join(',');
}

/** The input files' sizes on disk, gzipped and plain apart. */
function inputSizes(files: string[]): { gz: number; plain: number } {
  let gz = 0;
  let plain = 0;
  for (const f of files) {
    if (f.endsWith('.gz')) gz += statSync(f).size;
    else plain += statSync(f).size;
  }
  return { gz, plain };
}

export function openSource(path: string, format: InputFormat | 'auto' = 'auto', openalex: Partial<OpenAlexOptions> = {}): CorpusSource {
  const f = format === 'auto' ? detectFormat(path) : format;
  if (f === 'openalex') return { ...openAlexSource(path, { ...OPENALEX_DEFAULTS, ...openalex }), spec: { input: path, format: f, openalex } };
  if (Object.keys(openalex).some((k) => openalex[k as keyof OpenAlexOptions] !== undefined)) {
    throw new CitebenchError(`${path}: the OpenAlex options (fields, concept threshold, types, paratext, retracted) apply to OpenAlex works; this input is ${SOURCE_NAMES[f]}`);
  }
  if (f === 'bulk') {
    const files = DATASETS.flatMap((d) => (existsSync(join(path, d)) ? listShards(join(path, d), { anyGzip: true }) : []));
    return {
      format: f,
      units: [{ path, fingerprint: fingerprint(files) }],
      read: (_u, ctx) => readS2Datasets(path, { report: ctx.report, allowTruncated: ctx.allowTruncated, scratch: ctx.scratch, runBytes: ctx.sortRunBytes, progress: ctx.progress }),
      info: () => ({ name: SOURCE_NAMES.bulk, format: f, fieldScheme: 'mag', ...synthesized(path) }),
      inputBytes: () => inputSizes(files),
    };
  }
  const shards = listShards(path);
  return {
    format: f,
    spec: { input: path, format: f, openalex: {} },
    units: shards.map((s) => ({ path: s, fingerprint: fingerprint([s]) })),
    read: (u, ctx) => readV2020(shards[u], ctx),
    info: () => ({ name: SOURCE_NAMES.v2020, format: f, fieldScheme: 'mag', ...synthesized(path) }),
    inputBytes: () => inputSizes(shards),
  };
}

async function* readV2020(file: string, ctx: ReadContext): AsyncGenerator<SourceRecord> {
  for await (const raw of readShardLines(file, ctx.report, { allowTruncated: ctx.allowTruncated })) {
    ctx.report.recordsRead++;
    const a = parseRecord(raw, ctx.report);
    if (a) yield Object.assign(a, { file: raw.file, line: raw.line });
  }
}

/** The generator's record when `path` is a folder `citebench synth` wrote (its synth.json), else undefined. */
function synthMarker(path: string): SourceInfo['synthetic'] {
  const file = join(path, 'synth.json');
  if (!existsSync(file) || !statSync(path).isDirectory()) return undefined;
  try {
    const m = JSON.parse(readFileSync(file, 'utf8')) as { generator?: unknown; version?: unknown; articles?: unknown; seed?: unknown };
    if (m.generator !== 'citebench-synth' || typeof m.articles !== 'number' || typeof m.seed !== 'number') return undefined;
    return { articles: m.articles, seed: m.seed, generator: `citebench synth v${m.version}` };
  } catch {
    return undefined; // not the generator's file: the input is taken as data
  }
}

/** `{ synthetic }` for a source's info when `path` is a folder `citebench synth` wrote, else nothing. */
function synthesized(path: string): Pick<SourceInfo, 'synthetic'> {
  const synthetic = synthMarker(path);
  return synthetic ? { synthetic } : {};
}

function openAlexSource(path: string, opts: OpenAlexOptions): CorpusSource {
  if (!(opts.conceptThreshold >= 0 && opts.conceptThreshold <= 1)) throw new CitebenchError(`concept threshold must be in 0–1, got ${opts.conceptThreshold}`);
  const files = openAlexFiles(path);
  const release = readRelease(path, files);
  const synthetic = synthesized(path);
  let excluded: OpenAlexExclusions = { types: {}, paratext: 0, retracted: 0 };
  return {
    format: 'openalex',
    units: files.map((f) => ({ path: f, fingerprint: fingerprint([f]) })),
    async *read(u, ctx) {
      const { report } = ctx;
      if (u === 0) {
        for (const m of release.missing) report.add('manifest-file-missing', join(path, m), undefined, undefined, 'listed in the snapshot manifest, not in the input');
      }
      const file = files[u];
      let lines = 0;
      for await (const raw of readShardLines(file, report, { allowTruncated: ctx.allowTruncated })) {
        lines++;
        report.recordsRead++;
        const a = parseWork(raw, report, opts);
        if (a) yield Object.assign(a, { file: raw.file, line: raw.line });
      }
      const want = release.records.get(manifestName(path, file));
      if (want !== undefined && want !== lines) {
        report.add('manifest-count-mismatch', file, undefined, undefined, `${lines} records read, the manifest says ${want} (a download cut short, or a file of another snapshot)`);
      }
    },
    info: () => ({
      name: SOURCE_NAMES.openalex, format: 'openalex', fieldScheme: opts.fields,
      ...synthetic,
      ...(release.release ? { release: release.release, releaseFrom: release.from } : {}),
      // Sorted (types kept and left out): the same works and options give the same meta in any file layout.
      openalex: {
        conceptThreshold: opts.conceptThreshold, types: opts.types === 'all' ? 'all' : [...new Set(opts.types)].sort(),
        keepParatext: opts.keepParatext, keepRetracted: opts.keepRetracted, excluded: canonicalExclusions(excluded),
      },
    }),
    inputBytes: () => inputSizes(files),
    // The exclusions are counted by the merge step (after the newest record of each work is known), on the main
    // thread: workers' copies count none, and a checkpoint after the merge carries them.
    state: () => excluded,
    restore: (s) => {
      if (s) excluded = structuredClone(s as OpenAlexExclusions);
    },
    countExclusion: (x, report, file, line) => countExclusion(x, excluded, report, file, line),
  };
}

/** A source of records made by another reader (a BEIR task): one unit, never resumed. */
export function recordsSource(input: string, records: AsyncIterable<SourceRecord>): CorpusSource {
  return {
    format: 'v2020',
    units: [{ path: input, fingerprint: `records:${Date.now()}:${Math.random()}` }],
    read: () => records,
    info: () => ({ name: 'records', format: 'records', fieldScheme: 'mag' }),
    inputBytes: () => ({ gz: 0, plain: 0 }),
  };
}
