/**
 * Reader of OpenAlex works (docs.openalex.org, "Work object"; "Snapshot data format"): the snapshot's `works`
 * folder (`updated_date=YYYY-MM-DD/part_NNN.gz`, gzip JSON Lines, with a `manifest`), some of its partitions, or
 * JSON Lines files of works as the API returns them (gzip'd or plain). Each work becomes an article as a v2020
 * record does:
 *   id        the short id `W…` of `id` (https://openalex.org/W…), 1–13 digits
 *   title     `title`, else `display_name` (both null: empty)
 *   year      `publication_year`
 *   abstract  rebuilt from `abstract_inverted_index`: each word at each of its positions, joined by single spaces
 *             in position order (positions missing, or held by several words, are counted)
 *   citations `referenced_works`, short ids (resolved within the input by the build; the rest counted)
 *   fields    'concepts' (default): the level-0 concepts — MAG's 19 fields, by MAG's ids — scored at least
 *             `conceptThreshold`; 'topics': the field of `primary_topic` (26 fields, fields.ts)
 *   citedBy   `cited_by_count`: the inbound count of the prefilter's record scope, and so of MDCR's most_cited
 * Among records of one work (a snapshot synced twice without --delete holds moved works twice) the one with the
 * latest `updated_date` decides, before any filter: when its type is not among `types`, or it is paratext or
 * retracted (unless kept), the work is left out and counted, whatever its older records say.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import type { Article, Exclusion } from './article.ts';
import { MAG_ROOT_CONCEPT_IDS, TOPIC_FIELDS, TOPIC_FIELD_FIRST_ID, fieldBit, type FieldScheme } from './fields.ts';
import { describe, parseObject, type RawLine } from './s2orc-reader.ts';
import type { ValidationReport } from './validation.ts';
import { CitebenchError } from '../util/errors.ts';

export interface OpenAlexOptions {
  fields: FieldScheme;
  /**
   * Lowest score of a level-0 concept that makes it one of the work's fields. 0.3 is OpenAlex's own: "Concepts with
   * a score of at least 0.3 are assigned to the work"; every ancestor of an assigned concept is attached as well,
   * with a lower score (0 for some), and those are not the classifier's assignments.
   */
  conceptThreshold: number;
  /** Work types kept (`type`), or 'all'. */
  types: readonly string[] | 'all';
  keepParatext: boolean;
  keepRetracted: boolean;
}

/**
 * The types kept by default: the research papers S2ORC holds — journal and conference articles (OpenAlex's
 * `article`), preprints and reviews; not book chapters, datasets, editorials, letters, errata or paratext.
 */
export const OPENALEX_DEFAULT_TYPES = ['article', 'preprint', 'review'] as const;

export const OPENALEX_DEFAULTS: OpenAlexOptions = {
  fields: 'mag', conceptThreshold: 0.3, types: OPENALEX_DEFAULT_TYPES, keepParatext: false, keepRetracted: false,
};

/** MAG's level-0 concept ids → field names (fields.ts holds the one table). */
const MAG_ROOT_CONCEPTS: Record<string, string> = Object.fromEntries(Object.entries(MAG_ROOT_CONCEPT_IDS).map(([name, id]) => [id, name]));

const WORK_ID = /^(?:https:\/\/openalex\.org\/)?(W[1-9][0-9]{0,12})$/;
const PARTITION = /^updated_date=(\d{4}-\d{2}-\d{2})$/;
const DATA_FILE = /\.jsonl(?:\.gz)?$|\.gz$/;
/** Positions of an abstract's words beyond this are refused (a corrupt index, not an abstract). */
const MAX_POSITION = 1_000_000;

/** The works folder under `path`: `path` itself, or its `works/` (a snapshot's data folder was given). */
function worksFolder(path: string): string {
  const w = join(path, 'works');
  return existsSync(w) && statSync(w).isDirectory() && hasPartitions(w) ? w : path;
}

function hasPartitions(dir: string): boolean {
  return readdirSync(dir).some((n) => PARTITION.test(n) && statSync(join(dir, n)).isDirectory());
}

/** True when `path` is laid out as an OpenAlex snapshot (partitions, or a works folder holding them). */
export function isOpenAlexLayout(path: string): boolean {
  if (!existsSync(path) || !statSync(path).isDirectory()) return false;
  return hasPartitions(worksFolder(path));
}

/** True when the first line of `file` is an OpenAlex work (JSON Lines from the API, not in the snapshot layout). */
export function looksLikeWork(firstLine: string): boolean {
  try {
    const o = JSON.parse(firstLine);
    return typeof o === 'object' && o !== null && typeof o.id === 'string' && /^https:\/\/openalex\.org\/W\d/.test(o.id);
  } catch {
    return false;
  }
}

/** The data files of an OpenAlex input, in path order (partition date, then part). */
export function openAlexFiles(path: string): string[] {
  if (!existsSync(path)) throw new CitebenchError(`${path}: no such file or directory`);
  if (statSync(path).isFile()) return [path];
  const dir = worksFolder(path);
  const partitions = hasPartitions(dir);
  const out: string[] = [];
  // A snapshot's works folder: the partitions' files (beside them only the manifest); else the folder's own files.
  for (const n of readdirSync(dir).sort()) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) {
      if (PARTITION.test(n)) for (const f of readdirSync(p).sort()) if (DATA_FILE.test(f)) out.push(join(p, f));
    } else if (!partitions && DATA_FILE.test(n)) out.push(p);
  }
  if (out.length === 0) throw new CitebenchError(`${path}: no OpenAlex works files (updated_date=…/*.gz partitions, or *.jsonl / *.jsonl.gz / *.gz files)`);
  return out;
}

export interface OpenAlexRelease {
  /** The newest `updated_date` partition: the snapshot's date. */
  release?: string;
  /** Where the date was read: the snapshot's manifest, or the partition folders when it has none. */
  from?: 'manifest' | 'partitions';
  /** Records per file the manifest promises (by path relative to the works folder). */
  records: Map<string, number>;
  /** Files the manifest lists that the input does not hold. */
  missing: string[];
}

/**
 * The snapshot's manifest (`works/manifest`, Redshift format: {entries: [{url, meta: {record_count}}]}; or a
 * `manifest.json` with entries beside the works folder), matched to the files present.
 */
export function readRelease(path: string, files: string[]): OpenAlexRelease {
  const dir = existsSync(path) && statSync(path).isDirectory() ? worksFolder(path) : dirname(path);
  const present = new Set(files.map((f) => relative(dir, f)));
  const out: OpenAlexRelease = { records: new Map(), missing: [] };
  const manifest = [join(dir, 'manifest'), join(dir, 'manifest.json'), join(dirname(dir), 'manifest.json')].find((p) => existsSync(p) && statSync(p).isFile());
  let dates: string[] = [];
  if (manifest) {
    let m: { entries?: { url?: unknown; meta?: { record_count?: unknown } }[] };
    try {
      m = JSON.parse(readFileSync(manifest, 'utf8'));
    } catch (e) {
      throw new CitebenchError(`${manifest}: not a readable manifest (${(e as Error).message})`);
    }
    for (const e of Array.isArray(m.entries) ? m.entries : []) {
      if (typeof e?.url !== 'string') continue;
      const at = e.url.lastIndexOf('/works/');
      if (at < 0) continue; // another entity's file in a combined manifest
      const rel = e.url.slice(at + '/works/'.length);
      const date = PARTITION.exec(rel.split('/')[0] ?? '')?.[1];
      if (date) dates.push(date);
      if (!present.has(rel)) {
        if (present.size && statSync(dir).isDirectory()) out.missing.push(rel);
        continue;
      }
      const n = e.meta?.record_count;
      if (typeof n === 'number' && Number.isInteger(n)) out.records.set(rel, n);
    }
    if (dates.length) out.from = 'manifest';
  }
  if (!dates.length) {
    dates = files.map((f) => PARTITION.exec(basename(dirname(f)))?.[1]).filter((d): d is string => !!d);
    if (dates.length) out.from = 'partitions';
  }
  if (dates.length) out.release = dates.sort()[dates.length - 1];
  return out;
}

/** The path of `file` relative to the works folder, as the manifest names it. */
export function manifestName(path: string, file: string): string {
  const dir = existsSync(path) && statSync(path).isDirectory() ? worksFolder(path) : dirname(path);
  return relative(dir, file);
}

/** What was left out, by reason and type (the store's meta lists it beside the validation report). */
export interface OpenAlexExclusions {
  types: Record<string, number>;
  paratext: number;
  retracted: number;
}

/** `e` with its types in code-point order: the same works give the same meta whatever order they came in. */
export function canonicalExclusions(e: OpenAlexExclusions): OpenAlexExclusions {
  const types: Record<string, number> = {};
  for (const t of Object.keys(e.types).sort()) types[t] = e.types[t];
  return { types, paratext: e.paratext, retracted: e.retracted };
}

/** Count a work left out (its newest record excluded) in `excluded` and the report. */
export function countExclusion(x: Exclusion, excluded: OpenAlexExclusions, report: ValidationReport, file: string, line: number): void {
  if (x.reason === 'type') {
    excluded.types[x.type] = (excluded.types[x.type] ?? 0) + 1;
    report.add('excluded-type', file, line, 'type', `type '${x.type}' left out`);
  } else {
    excluded[x.reason]++;
    report.add(`excluded-${x.reason}`, file, line, `is_${x.reason}`, `${x.reason} work left out`);
  }
}

/**
 * One line → an article, or undefined (the problem counted in `report`). A work an option leaves out comes back as
 * a record with `excluded` set and nothing else but its id and rank: the build keeps the newest record of each
 * work first and only then applies the exclusion (store-build.ts), so an older version of another type never
 * stands in for a work whose newest version is left out.
 */
export function parseWork(raw: RawLine, report: ValidationReport, opts: OpenAlexOptions): Article | undefined {
  const { file, line } = raw;
  const r = parseObject(raw, report);
  if (!r) return undefined;
  const bad = (field: string, want: string, got: unknown = r[field]) => {
    report.add('bad-type', file, line, field, `expected ${want}, got ${describe(got)}`);
    return undefined;
  };
  const required = ['id', 'publication_year', 'abstract_inverted_index', 'referenced_works', 'cited_by_count', opts.fields === 'topics' ? 'primary_topic' : 'concepts'];
  if (opts.types !== 'all') required.push('type');
  for (const f of required) {
    if (!(f in r)) {
      report.add('missing-field', file, line, f, `required field '${f}' is missing`);
      return undefined;
    }
  }
  if (typeof r.id !== 'string') return bad('id', 'a string');
  const m = WORK_ID.exec(r.id);
  if (!m) {
    report.add('bad-id', file, line, 'id', `${JSON.stringify(r.id.length > 60 ? r.id.slice(0, 60) + '…' : r.id)} is not an OpenAlex work id (https://openalex.org/W and 1–13 digits)`);
    return undefined;
  }
  const id = m[1];
  const updated = typeof r.updated_date === 'string' ? Date.parse(r.updated_date) : NaN;
  // The latest update first; a record without a date after every dated one.
  const rank = Number.isFinite(updated) ? -updated : 0;
  // Exclusions first: a work left out by option is not checked further.
  const leftOut = (excluded: Exclusion): Article => ({ id, title: '', abstract: '', year: undefined, fields: 0, outbound: [], inbound: [], rank, excluded });
  if (opts.types !== 'all') {
    const type = typeof r.type === 'string' ? r.type : r.type === null ? '(none)' : undefined;
    if (type === undefined) return bad('type', 'a string or null');
    if (!opts.types.includes(type)) return leftOut({ reason: 'type', type });
  }
  for (const [flag, reason, keep] of [['is_paratext', 'paratext', opts.keepParatext], ['is_retracted', 'retracted', opts.keepRetracted]] as const) {
    const v = r[flag];
    if (v !== undefined && v !== null && typeof v !== 'boolean') return bad(flag, 'a boolean');
    if (v === true && !keep) return leftOut({ reason });
  }
  const t = r.title ?? null;
  if (t !== null && typeof t !== 'string') return bad('title', 'a string or null');
  let title: string | null = t;
  if (title === null) {
    const dn = r.display_name ?? null;
    if (dn !== null && typeof dn !== 'string') return bad('display_name', 'a string or null');
    title = dn;
  }
  const year = r.publication_year;
  if (year !== null && !(typeof year === 'number' && Number.isInteger(year) && year >= 0 && year < 65535)) return bad('publication_year', 'an integer year or null');
  const cited = r.cited_by_count;
  if (!(typeof cited === 'number' && Number.isInteger(cited) && cited >= 0 && cited <= 0xffffffff)) return bad('cited_by_count', 'a non-negative integer');
  const abstract = rebuildAbstract(r.abstract_inverted_index, raw, report);
  if (abstract === undefined) return undefined;
  const refs = r.referenced_works;
  if (!Array.isArray(refs)) return bad('referenced_works', 'a list of work ids');
  const outbound: string[] = [];
  let badRefs = 0;
  let firstBad: unknown;
  for (const x of refs) {
    const w = typeof x === 'string' ? WORK_ID.exec(x) : null;
    if (w) outbound.push(w[1]);
    else if (badRefs++ === 0) firstBad = x;
  }
  // One count per bad entry; the example names the first.
  if (badRefs > 0) {
    report.add('bad-citation-id', file, line, 'referenced_works', `${describe(firstBad)} is not a work id; dropped${badRefs > 1 ? ` (with ${badRefs - 1} more bad entr${badRefs === 2 ? 'y' : 'ies'} of this list)` : ''}`);
    report.addMany('bad-citation-id', badRefs - 1);
  }
  const fields = opts.fields === 'topics' ? topicField(r.primary_topic, raw, report) : conceptFields(r.concepts, opts.conceptThreshold, raw, report);
  if (fields === undefined) return undefined;
  return { id, title: title ?? '', abstract, year: year ?? undefined, fields, outbound, inbound: [], citedBy: cited, rank };
}

/**
 * The abstract's text from its inverted index: every word at every position it lists, in position order (words
 * sharing a position in the index's key order), joined by single spaces. Undefined (a 'bad-type' problem) when
 * the index is not an object of lists of non-negative integer positions.
 */
function rebuildAbstract(inv: unknown, raw: RawLine, report: ValidationReport): string | undefined {
  if (inv === null) return '';
  const fail = (msg: string) => {
    report.add('bad-type', raw.file, raw.line, 'abstract_inverted_index', msg);
    return undefined;
  };
  if (typeof inv !== 'object' || Array.isArray(inv)) return fail(`expected an object of word → positions or null, got ${describe(inv)}`);
  const words = Object.keys(inv);
  let count = 0;
  let max = -1;
  for (const w of words) {
    const ps = (inv as Record<string, unknown>)[w];
    if (!Array.isArray(ps)) return fail(`positions of ${JSON.stringify(w.slice(0, 40))}: expected a list, got ${describe(ps)}`);
    for (const p of ps) {
      if (!(typeof p === 'number' && Number.isInteger(p) && p >= 0 && p <= MAX_POSITION)) {
        return fail(`position ${describe(p)} of ${JSON.stringify(w.slice(0, 40))} is not an integer in 0–${MAX_POSITION}`);
      }
      if (p > max) max = p;
      count++;
    }
  }
  if (count === 0) return '';
  // The usual index: positions 0..n-1, each once — placed directly.
  if (max + 1 === count) {
    const slots = new Array<string | undefined>(count);
    let clash = false;
    for (const w of words) {
      for (const p of (inv as Record<string, number[]>)[w]) {
        if (slots[p] !== undefined) clash = true;
        slots[p] = w;
      }
    }
    if (!clash) return slots.join(' ');
  }
  const pos: number[] = [];
  const word: string[] = [];
  for (const w of words) {
    for (const p of (inv as Record<string, number[]>)[w]) {
      pos.push(p);
      word.push(w);
    }
  }
  const order = pos.map((_, i) => i).sort((a, b) => pos[a] - pos[b] || a - b);
  let distinct = 0;
  for (let k = 0; k < order.length; k++) if (k === 0 || pos[order[k]] !== pos[order[k - 1]]) distinct++;
  if (distinct < count) report.add('abstract-duplicate-position', raw.file, raw.line, 'abstract_inverted_index', `${count - distinct} words share a position with another; all kept`);
  if (distinct < max + 1) report.add('abstract-gap', raw.file, raw.line, 'abstract_inverted_index', `${max + 1 - distinct} of positions 0–${max} hold no word`);
  return order.map((i) => word[i]).join(' ');
}

function conceptFields(v: unknown, threshold: number, raw: RawLine, report: ValidationReport): number | undefined {
  if (v === null) return 0;
  if (!Array.isArray(v)) {
    report.add('bad-type', raw.file, raw.line, 'concepts', `expected a list of concepts or null, got ${describe(v)}`);
    return undefined;
  }
  let mask = 0;
  for (const c of v) {
    const o = c as { id?: unknown; level?: unknown; score?: unknown };
    if (typeof o !== 'object' || o === null || typeof o.id !== 'string' || typeof o.score !== 'number') {
      report.add('bad-type', raw.file, raw.line, 'concepts', `entry ${describe(c)} is not a {id, level, score} concept`);
      return undefined;
    }
    const cid = o.id as string;
    const short = cid.slice(cid.lastIndexOf('/') + 1);
    const name = MAG_ROOT_CONCEPTS[short];
    if (name === undefined) {
      if (o.level === 0) report.add('unknown-field-of-study', raw.file, raw.line, 'concepts', `level-0 concept ${short} is not one of MAG's 19 fields; ignored`);
      continue;
    }
    if ((o.score as number) >= threshold) mask |= fieldBit(name);
  }
  return mask;
}

function topicField(v: unknown, raw: RawLine, report: ValidationReport): number | undefined {
  if (v === null) return 0;
  const f = (v as { field?: { id?: unknown } } | undefined)?.field;
  const id = typeof f?.id === 'number' ? f.id : typeof f?.id === 'string' ? Number(f.id.slice(f.id.lastIndexOf('/') + 1)) : NaN;
  if (typeof v !== 'object' || !Number.isInteger(id)) {
    report.add('bad-type', raw.file, raw.line, 'primary_topic', `expected a topic with field {id, display_name} or null, got ${describe(f ?? v)}`);
    return undefined;
  }
  const bit = id - TOPIC_FIELD_FIRST_ID;
  if (bit < 0 || bit >= TOPIC_FIELDS.length) {
    report.add('unknown-field-of-study', raw.file, raw.line, 'primary_topic', `field ${id} is not one of the 26 topic fields (${TOPIC_FIELD_FIRST_ID}–${TOPIC_FIELD_FIRST_ID + TOPIC_FIELDS.length - 1}); ignored`);
    return 0;
  }
  return 1 << bit;
}
