/**
 * Reader of S2ORC as the Semantic Scholar Datasets API distributes it since 2023: three bulk datasets of gzip'd
 * JSONL shards, one folder each under a root —
 *   papers/     {corpusid, title, year, s2fieldsofstudy: [{category, source: "external" | "s2-fos-model"}], …}
 *   abstracts/  {corpusid, abstract, openaccessinfo, …}
 *   citations/  {citingcorpusid, citedcorpusid, isinfluential, contexts, intents, …}
 * joined by corpusid into the articles the v2020 reader yields (s2orc-reader.ts), so the same store build takes
 * either. The join is on disk: each dataset is read once, front to back, into external sorts (util/external-sort.ts)
 * keyed by corpusid — papers and abstracts as records, citations as (citing, cited) and (cited, citing) pairs —
 * and the sorted streams are merged; memory is bounded by the sort runs, not by the record count.
 *
 * The field level uses MAG's 19 fields: those are the `external` entries of s2fieldsofstudy (the `s2-fos-model`
 * entries are a classifier's guesses over a larger set). Categories beyond MAG's 19 are left out and counted per
 * record ('field-beyond-mag'). Articles come out in corpusid order; a paper's id is its corpusid in decimal, as
 * paper_id was in v2020.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Article } from './article.ts';
import { fieldBit } from './fields.ts';
import { describe, listShards, parseObject, readArticles, readShardLines, type ReadOptions } from './s2orc-reader.ts';
import type { ValidationReport } from './validation.ts';
import { PairSorter, RecordSorter } from '../util/external-sort.ts';
import { Progress } from '../util/progress.ts';
import { CitebenchError } from '../util/errors.ts';

export const DATASETS = ['papers', 'abstracts', 'citations'] as const;

/** True when `path` is a folder holding the bulk datasets (a papers/ sub-folder) rather than v2020 shards. */
export function isS2Datasets(path: string): boolean {
  return existsSync(join(path, 'papers')) && statSync(join(path, 'papers')).isDirectory();
}

/**
 * The articles of either input form: v2020 metadata shards (a file or folder), or a folder of the bulk datasets
 * (sorted on disk under `scratch`, which the caller removes).
 */
export function readCorpusInput(path: string, opts: S2DatasetsOptions): AsyncGenerator<Article & { file: string; line: number }> {
  return isS2Datasets(path) ? readS2Datasets(path, opts) : readArticles(path, opts);
}

export interface S2DatasetsOptions extends ReadOptions {
  /** Folder for the sort runs (created; the caller removes it). */
  scratch: string;
  /** Memory per sort run (default 256 MiB; four sorts, used one dataset at a time). */
  runBytes?: number;
  progress?: boolean;
  /** Filled while reading: rows of each dataset and sort runs spilled. */
  stats?: S2DatasetsStats;
}

export interface S2DatasetsStats {
  papers: number;
  abstracts: number;
  citations: number;
  runs: number;
}

const NO_YEAR = 0xffff;

export async function* readS2Datasets(root: string, opts: S2DatasetsOptions): AsyncGenerator<Article & { file: string; line: number }> {
  const shards = DATASETS.map((d) => {
    if (!existsSync(join(root, d))) {
      throw new CitebenchError(`${root}: no ${d}/ folder; the Semantic Scholar bulk input needs papers/, abstracts/ and citations/ (see docs/corpus.md, "Today's Semantic Scholar bulk datasets")`);
    }
    return listShards(join(root, d), { anyGzip: true });
  });
  const { report } = opts;
  mkdirSync(opts.scratch, { recursive: true });
  const runBytes = opts.runBytes ?? 256 << 20;
  const papers = new RecordSorter(opts.scratch, 'papers', runBytes);
  const abstracts = new RecordSorter(opts.scratch, 'abstracts', runBytes);
  const out = new PairSorter(opts.scratch, 'cites-out', runBytes);
  const inb = new PairSorter(opts.scratch, 'cites-in', runBytes);
  const stats = opts.stats ?? { papers: 0, abstracts: 0, citations: 0, runs: 0 };
  try {
    // ---- read each dataset once, into the sorts -------------------------------------------------------------
    const paperFiles = shards[0];
    await eachObject('papers', paperFiles, opts, (r, file, line, f) => {
      report.recordsRead++;
      const id = corpusId(r, 'corpusid', file, line, report, true);
      if (id === undefined || id === null) return;
      const title = r.title ?? null;
      if (title !== null && typeof title !== 'string') return badType(report, file, line, 'title', 'a string or null', title);
      const year = r.year ?? null;
      if (year !== null && !(typeof year === 'number' && Number.isInteger(year) && year >= 0 && year < NO_YEAR)) {
        return badType(report, file, line, 'year', 'an integer year or null', year);
      }
      const fields = magFields(r.s2fieldsofstudy, file, line, report);
      if (fields === undefined) return;
      const t = Buffer.from(title ?? '', 'utf8');
      const p = Buffer.allocUnsafe(12 + t.length);
      p.writeUInt16LE(f, 0);
      p.writeUInt32LE(line, 2);
      p.writeUInt16LE(year ?? NO_YEAR, 6);
      p.writeUInt32LE(fields, 8);
      t.copy(p, 12);
      papers.add(id, p);
      stats.papers++;
    });
    await eachObject('abstracts', shards[1], opts, (r, file, line) => {
      const id = corpusId(r, 'corpusid', file, line, report, true);
      if (id === undefined || id === null) return;
      const a = r.abstract ?? null;
      if (a !== null && typeof a !== 'string') return badType(report, file, line, 'abstract', 'a string or null', a);
      if (a === null) return;
      abstracts.add(id, Buffer.from(a, 'utf8'));
      stats.abstracts++;
    });
    let unresolved = 0;
    let unresolvedExample: { file: string; line: number; field: string; message: string } | undefined;
    await eachObject('citations', shards[2], opts, (r, file, line) => {
      const citing = corpusId(r, 'citingcorpusid', file, line, report, false);
      const cited = corpusId(r, 'citedcorpusid', file, line, report, false);
      if (citing === null || cited === null) {
        // A reference Semantic Scholar did not match to a paper: no edge of the corpus.
        unresolved++;
        unresolvedExample ??= { file, line, field: citing === null ? 'citingcorpusid' : 'citedcorpusid', message: 'citation to a paper without a corpusid' };
        return;
      }
      if (citing === undefined || cited === undefined) return;
      out.add(citing, cited);
      inb.add(cited, citing);
      stats.citations++;
    });
    report.addMany('unresolved-citation', unresolved, unresolvedExample);

    // ---- merge-join by corpusid -----------------------------------------------------------------------------
    const absIt = abstracts.sorted();
    const outIt = out.sorted();
    const inIt = inb.sorted();
    let abs = absIt.next();
    let o = outIt.next();
    let i = inIt.next();
    let unmatched = 0;
    let prev = -1;
    stats.runs = papers.runs + abstracts.runs + out.runs + inb.runs;
    for (const { key, payload } of papers.sorted()) {
      const file = paperFiles[payload.readUInt16LE(0)];
      const line = payload.readUInt32LE(2);
      if (key === prev) {
        report.add('duplicate-id', file, line, 'corpusid', `duplicate corpusid ${key}: this record is skipped, the first one kept`);
        continue;
      }
      prev = key;
      while (!abs.done && abs.value.key < key) {
        unmatched++;
        abs = absIt.next();
      }
      let abstract = '';
      if (!abs.done && abs.value.key === key) {
        abstract = abs.value.payload.toString('utf8');
        // Further abstracts of the same corpusid are ignored (the first in input order wins).
        while (!abs.done && abs.value.key === key) abs = absIt.next();
      }
      // Citations of ids that are not papers are skipped here; the build counts those of papers that point outside.
      while (!o.done && o.value[0] < key) o = outIt.next();
      const outbound: string[] = [];
      while (!o.done && o.value[0] === key) {
        outbound.push(String(o.value[1]));
        o = outIt.next();
      }
      while (!i.done && i.value[0] < key) i = inIt.next();
      const inbound: string[] = [];
      while (!i.done && i.value[0] === key) {
        inbound.push(String(i.value[1]));
        i = inIt.next();
      }
      const year = payload.readUInt16LE(6);
      yield {
        id: String(key), title: payload.toString('utf8', 12), abstract, year: year === NO_YEAR ? undefined : year,
        fields: payload.readUInt32LE(8), outbound, inbound, file, line,
      };
    }
    while (!abs.done) {
      unmatched++;
      abs = absIt.next();
    }
    report.addMany('unmatched-abstract', unmatched);
  } finally {
    for (const s of [papers, abstracts, out, inb]) s.dispose();
  }
}

async function eachObject(
  dataset: string,
  files: string[],
  opts: S2DatasetsOptions,
  onRecord: (r: Record<string, unknown>, file: string, line: number, fileNo: number) => void,
): Promise<void> {
  const p = new Progress({ label: `read ${dataset}`, unit: 'rows', enabled: opts.progress });
  for (let f = 0; f < files.length; f++) {
    opts.onShard?.(files[f], f, files.length);
    for await (const raw of readShardLines(files[f], opts.report, { allowTruncated: opts.allowTruncated })) {
      p.tick();
      const r = parseObject(raw, opts.report);
      if (r) onRecord(r, raw.file, raw.line, f);
    }
  }
  p.finish();
}

/**
 * A corpusid (number or decimal string, as the datasets write them) below 2^32. `required`: missing or null is
 * a 'missing-field' problem (undefined); otherwise null is returned for null. Bad values are reported (undefined).
 */
function corpusId(r: Record<string, unknown>, field: string, file: string, line: number, report: ValidationReport, required: boolean): number | null | undefined {
  const v = r[field];
  if (v === undefined || (v === null && required)) {
    report.add('missing-field', file, line, field, `required field '${field}' is missing or null`);
    return undefined;
  }
  if (v === null) return null;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^(0|[1-9][0-9]{0,9})$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) {
    badType(report, file, line, field, 'a corpus id (an integer below 2^32, or its decimal string)', v);
    return undefined;
  }
  return n;
}

function badType(report: ValidationReport, file: string, line: number, field: string, want: string, got: unknown): undefined {
  report.add('bad-type', file, line, field, `expected ${want}, got ${describe(got)}`);
  return undefined;
}

/** The MAG field bits of s2fieldsofstudy's `external` entries; categories beyond MAG's 19 are counted. */
function magFields(v: unknown, file: string, line: number, report: ValidationReport): number | undefined {
  if (v === undefined || v === null) return 0;
  if (!Array.isArray(v)) return badType(report, file, line, 's2fieldsofstudy', 'a list of {category, source} or null', v);
  let mask = 0;
  const beyond = new Set<string>();
  for (const e of v) {
    if (typeof e !== 'object' || e === null || typeof (e as { category?: unknown }).category !== 'string') {
      report.add('bad-type', file, line, 's2fieldsofstudy', `entry ${JSON.stringify(e)} is not a {category, source} object; ignored`);
      continue;
    }
    const { category, source } = e as { category: string; source?: unknown };
    const bit = fieldBit(category);
    if (bit === 0) beyond.add(category);
    else if (source === 'external') mask |= bit;
  }
  if (beyond.size) {
    report.add('field-beyond-mag', file, line, 's2fieldsofstudy', `categories beyond MAG's 19 left out: ${[...beyond].sort().join(', ')}`);
  }
  return mask;
}
