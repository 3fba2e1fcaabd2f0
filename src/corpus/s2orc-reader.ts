/**
 * Streaming reader of S2ORC metadata shards (`*.jsonl` or `*.jsonl.gz`, a file or a directory of them),
 * in the exact schema of S2ORC v2020-07-05 `metadata/*.jsonl`. Memory stays flat whatever the file size:
 * bytes are split into lines as they arrive and each line is decoded (strict UTF-8), parsed and validated alone.
 * Problems are counted in a ValidationReport with file, line and field; bad records are skipped, never thrown
 * (unless the report is strict).
 */
import { createReadStream, readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import type { Article } from './article.ts';
import { fieldBit } from './fields.ts';
import { ValidationReport } from './validation.ts';
import { CitebenchError, InputError } from '../util/errors.ts';

/**
 * The shard files under `path` (a file, or a directory scanned non-recursively), sorted by name. `anyGzip`
 * also takes `*.gz` (the Semantic Scholar Datasets API's file names do not always say jsonl).
 */
export function listShards(path: string, opts: { anyGzip?: boolean } = {}): string[] {
  if (!existsSync(path)) throw new CitebenchError(`${path}: no such file or directory`);
  if (statSync(path).isFile()) return [path];
  const files = readdirSync(path)
    .filter((n) => n.endsWith('.jsonl') || n.endsWith('.jsonl.gz') || (opts.anyGzip && n.endsWith('.gz')))
    .sort()
    .map((n) => join(path, n));
  if (files.length === 0) throw new CitebenchError(`${path}: no *.jsonl or *.jsonl.gz shards in this directory`);
  return files;
}

export interface RawLine {
  file: string;
  /** 1-based line number. */
  line: number;
  bytes: Uint8Array;
}

/**
 * Lines of one shard as raw bytes. A corrupt or truncated gzip stream, or an I/O error, is an InputError naming
 * the file, the line and the byte offsets where reading stopped: a shard silently cut short would shrink the
 * corpus and change every citation count. With `allowTruncated` it is instead a counted 'corrupt-file' problem
 * and the rest of the file is skipped; an incomplete last line of a truncated stream is never yielded.
 */
export async function* readShardLines(file: string, report: ValidationReport, opts: { allowTruncated?: boolean } = {}): AsyncGenerator<RawLine> {
  const raw = createReadStream(file, { highWaterMark: 1 << 20 });
  const gunzip = file.endsWith('.gz') ? createGunzip({ chunkSize: 1 << 20 }) : undefined;
  const stream: Readable = gunzip ? raw.pipe(gunzip) : raw;
  // A failing read stream does not end the gunzip it pipes into: forward the error.
  if (gunzip) raw.on('error', (e) => gunzip.destroy(e));
  let carry: Buffer | null = null;
  let line = 0;
  let bytes = 0; // decompressed bytes read so far
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      let buf: Buffer = carry ? Buffer.concat([carry, chunk]) : chunk;
      let start = 0;
      for (;;) {
        const nl = buf.indexOf(10, start);
        if (nl < 0) break;
        line++;
        let end = nl;
        if (end > start && buf[end - 1] === 13) end--; // CRLF
        if (end > start) yield { file, line, bytes: buf.subarray(start, end) };
        start = nl + 1;
      }
      carry = start < buf.length ? Buffer.from(buf.subarray(start)) : null;
    }
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    // zlib gives no exact position: the damage lies between the compressed input it had accepted and what was
    // read from the file (whole 1 MiB reads). A failed checksum ('incorrect data check') is only seen at the end.
    const from = gunzip ? gunzip.bytesWritten : bytes;
    const to = raw.bytesRead;
    const kind = gunzip ? 'compressed ' : '';
    const span = from === to ? `at ${kind}byte ${from}` : `in ${kind}bytes ${from}–${to}`;
    const where = gunzip ? `${span} of ${fileSize(file)}, after decompressed byte ${bytes}` : span;
    const why =
      err.code === 'Z_BUF_ERROR'
        ? `gzip stream is truncated (${where})`
        : err.code === 'Z_DATA_ERROR'
          ? `corrupt gzip data, zlib: ${err.message} (${where})`
          : `read error: ${err.code ?? err.message} (${where})`;
    if (!opts.allowTruncated) throw new InputError(file, line + 1, undefined, `${why}; --allow-truncated skips the rest of the file (counted)`);
    report.add('corrupt-file', file, line + 1, undefined, `${why}; rest of file skipped`);
    return;
  }
  if (carry && carry.length) {
    line++;
    yield { file, line, bytes: carry };
  }
}

function fileSize(file: string): number | string {
  try {
    return statSync(file).size;
  } catch {
    return '?';
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

const REQUIRED_FIELDS = ['paper_id', 'title', 'abstract', 'year', 'mag_field_of_study', 'outbound_citations', 'inbound_citations'] as const;

/** Decode one line as a JSON object; undefined (with the problem reported) when it is not one. */
export function parseObject(raw: RawLine, report: ValidationReport): Record<string, unknown> | undefined {
  const { file, line } = raw;
  let text: string;
  try {
    text = utf8.decode(raw.bytes);
  } catch {
    report.add('invalid-utf8', file, line, undefined, 'line is not valid UTF-8');
    return undefined;
  }
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (e) {
    report.add('invalid-json', file, line, undefined, `invalid JSON: ${(e as Error).message}`);
    return undefined;
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    report.add('not-an-object', file, line, undefined, 'a record must be a JSON object');
    return undefined;
  }
  return obj as Record<string, unknown>;
}

/** Parse and validate one line; undefined (with the problem reported) when the record must be skipped. */
export function parseRecord(raw: RawLine, report: ValidationReport): Article | undefined {
  const { file, line } = raw;
  const r = parseObject(raw, report);
  if (!r) return undefined;
  for (const f of REQUIRED_FIELDS) {
    if (!(f in r)) {
      report.add('missing-field', file, line, f, `required field '${f}' is missing`);
      return undefined;
    }
  }
  const bad = (field: string, want: string) => {
    report.add('bad-type', file, line, field, `expected ${want}, got ${describe(r[field])}`);
    return undefined;
  };
  const id = r.paper_id;
  if (typeof id !== 'string') return bad('paper_id', 'a string');
  if (id.length === 0) {
    report.add('empty-id', file, line, 'paper_id', 'paper_id is empty');
    return undefined;
  }
  const title = r.title;
  if (title !== null && typeof title !== 'string') return bad('title', 'a string or null');
  const abstract = r.abstract;
  if (abstract !== null && typeof abstract !== 'string') return bad('abstract', 'a string or null');
  const year = r.year;
  if (year !== null && !(typeof year === 'number' && Number.isInteger(year) && year >= 0 && year < 65535)) {
    return bad('year', 'an integer year or null');
  }
  const mag = r.mag_field_of_study;
  if (mag !== null && !Array.isArray(mag)) return bad('mag_field_of_study', 'a list of field names or null');
  let fields = 0;
  if (mag) {
    for (const f of mag) {
      const bit = typeof f === 'string' ? fieldBit(f) : 0;
      if (bit === 0) report.add('unknown-field-of-study', file, line, 'mag_field_of_study', `unknown MAG field ${JSON.stringify(f)} ignored`);
      fields |= bit;
    }
  }
  const outbound = citationList(r, 'outbound_citations', raw, report);
  if (!outbound) return undefined;
  const inbound = citationList(r, 'inbound_citations', raw, report);
  if (!inbound) return undefined;
  return { id, title: title ?? '', abstract: abstract ?? '', year: year ?? undefined, fields, outbound, inbound };
}

function citationList(r: Record<string, unknown>, field: string, raw: RawLine, report: ValidationReport): string[] | undefined {
  const v = r[field];
  if (!Array.isArray(v)) {
    report.add('bad-type', raw.file, raw.line, field, `expected a list of paper ids, got ${describe(v)}`);
    return undefined;
  }
  for (const x of v) {
    if (typeof x !== 'string' || x.length === 0) {
      report.add('bad-citation-id', raw.file, raw.line, field, `citation id ${JSON.stringify(x)} is not a non-empty string; dropped`);
      return v.filter((y): y is string => typeof y === 'string' && y.length > 0);
    }
  }
  return v as string[];
}

export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`;
  return `${typeof v} ${JSON.stringify(v)}`;
}

export interface ReadOptions {
  report: ValidationReport;
  /** A truncated or corrupt shard is a counted skip of the rest of that file instead of an error. */
  allowTruncated?: boolean;
  /** Called once per shard before its first record (progress, logging). */
  onShard?: (file: string, i: number, n: number) => void;
}

/**
 * Every valid article of the shards under `path`, in file then line order. Duplicate ids are NOT checked
 * here (that needs corpus-wide state: see store-build.ts).
 */
export async function* readArticles(path: string, opts: ReadOptions): AsyncGenerator<Article & { file: string; line: number }> {
  const shards = listShards(path);
  for (let i = 0; i < shards.length; i++) {
    opts.onShard?.(shards[i], i, shards.length);
    for await (const raw of readShardLines(shards[i], opts.report, { allowTruncated: opts.allowTruncated })) {
      opts.report.recordsRead++;
      const a = parseRecord(raw, opts.report);
      if (a) yield Object.assign(a, { file: raw.file, line: raw.line });
    }
  }
}
