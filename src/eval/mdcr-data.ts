/**
 * MDCR's published files as data (takelab's mdcr_{val,test}.json benchmark, mdcr_{val,test}_data.jsonl papers,
 * and the scores file evaluate.py reads): the papers of a data file, every query–candidate pair a benchmark asks
 * to score, and the scores file written from ranked lists. Read by `citebench mdcr score` (no corpus store) and
 * the run's MDCR stage alike; evaluated by mdcr.ts.
 */
import { sha256 } from '../util/identity.ts';
import { readTextFile } from '../util/json.ts';
import { InMemoryTexts, type ArticleText } from '../corpus/article.ts';
import { CitebenchError, InputError } from '../util/errors.ts';
import type { RankedLists } from './types.ts';

export interface MdcrData {
  /** Paper ids in file order; position = index into `texts`. */
  ids: string[];
  texts: InMemoryTexts;
  indexOf: Map<string, number>;
  /** SHA-256 of the file's bytes (hex): the key of its cached vectors. */
  sha256: string;
  /** Lines repeating an earlier paper id with other texts (the first kept); `firstLine` = the first such line. */
  conflicts?: { count: number; firstLine: number; paperId: string };
}

/**
 * Read an MDCR data jsonl in the published schema (takelab's mdcr_{val,test}_data.jsonl, read by SciRepEval's
 * MDCR task as `key="paper_id"`, fields `title` and `abstract`): one object per line; paper_id a string or a
 * number; title and abstract strings, null or absent (= empty); other fields ignored. A paper id repeated with
 * other texts keeps its first line, as SciRepEval's reader does, and is counted in `conflicts` (never silent).
 */
export function readMdcrData(path: string): MdcrData {
  const text = readTextFile(path);
  const ids: string[] = [];
  const items: ArticleText[] = [];
  const indexOf = new Map<string, number>();
  let conflicts: MdcrData['conflicts'];
  const lines = text.split('\n');
  for (let l = 0; l < lines.length; l++) {
    const line = lines[l].trim();
    if (line === '') continue;
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(line);
    } catch (e) {
      throw new InputError(path, l + 1, undefined, `malformed JSON: ${(e as Error).message.split('\n')[0]}`);
    }
    if (typeof rec !== 'object' || rec === null || Array.isArray(rec)) throw new InputError(path, l + 1, undefined, 'expected a JSON object');
    const id = rec.paper_id;
    if (typeof id !== 'string' && typeof id !== 'number') throw new InputError(path, l + 1, 'paper_id', `expected a string, got ${JSON.stringify(id)}`);
    const str = (k: 'title' | 'abstract') => {
      const v = rec[k];
      if (v === null || v === undefined) return '';
      if (typeof v !== 'string') throw new InputError(path, l + 1, k, `expected a string or null, got ${typeof v}`);
      return v;
    };
    const item = { title: str('title'), abstract: str('abstract') };
    const sid = String(id);
    const had = indexOf.get(sid);
    if (had !== undefined) {
      // A repeated paper is harmless when identical; with other texts the first is used, and counted.
      if (items[had].title !== item.title || items[had].abstract !== item.abstract) {
        if (conflicts) conflicts.count++;
        else conflicts = { count: 1, firstLine: l + 1, paperId: sid };
      }
      continue;
    }
    indexOf.set(sid, ids.length);
    ids.push(sid);
    items.push(item);
  }
  if (ids.length === 0) throw new InputError(path, undefined, undefined, 'no papers');
  return { ids, texts: new InMemoryTexts(items), indexOf, sha256: sha256().update(text).hex(), ...(conflicts ? { conflicts } : {}) };
}

/** The one-line warning for a data file whose ids repeat with other texts, or undefined. */
export function mdcrDataWarning(path: string, data: MdcrData): string | undefined {
  const c = data.conflicts;
  if (!c) return undefined;
  return `warning: ${path}: ${c.count} line(s) repeat a paper id with other texts (first: line ${c.firstLine}, paper ${c.paperId}); each id's first line is used, as SciRepEval's reader does`;
}

/** Each distinct query with every candidate it has in any field and list (data-file positions). */
export interface MdcrPairs {
  queries: Uint32Array;
  candidates: Uint32Array[];
}

export function mdcrPairs(benchmark: unknown, data: MdcrData, paths: { benchmark?: string; data?: string } = {}): MdcrPairs {
  const bPath = paths.benchmark ?? 'benchmark';
  const dPath = paths.data ?? 'data';
  if (!isObject(benchmark)) throw new InputError(bPath, undefined, undefined, 'expected a JSON object { field: { query_id: { type: [ids] } } }');
  const byQuery = new Map<number, Set<number>>();
  const pos = (id: unknown, where: string) => {
    if (typeof id !== 'string' && typeof id !== 'number') throw new InputError(bPath, undefined, where, `candidate id ${JSON.stringify(id)} is not a string`);
    const i = data.indexOf.get(String(id));
    if (i === undefined) throw new InputError(bPath, undefined, where, `paper ${id} is not in ${dPath}`);
    return i;
  };
  for (const [field, queries] of Object.entries(benchmark)) {
    if (!isObject(queries)) throw new InputError(bPath, undefined, field, 'expected an object of queries');
    for (const [qid, lists] of Object.entries(queries)) {
      const where = `${field} / ${qid}`;
      if (!isObject(lists)) throw new InputError(bPath, undefined, where, 'expected an object of candidate lists');
      const q = pos(qid, where);
      let set = byQuery.get(q);
      if (!set) byQuery.set(q, (set = new Set()));
      for (const [type, list] of Object.entries(lists)) {
        if (!Array.isArray(list)) throw new InputError(bPath, undefined, `${where} / ${type}`, 'expected an array of candidate ids');
        for (const c of list) set.add(pos(c, `${where} / ${type}`));
      }
    }
  }
  const queries = Uint32Array.from(byQuery.keys()).sort();
  return { queries, candidates: Array.from(queries, (q) => Uint32Array.from(byQuery.get(q)!).sort()) };
}

/** The lowest float32: an MDCR pair its model cannot score (no vector) gets it, a finite number for the file. */
const FLOAT32_LOWEST = -3.4028234663852886e38;

/** A pair's score as the scores file holds it: −∞ (a model that cannot match it) becomes the lowest float32. */
export function mdcrScore(x: number): number {
  return x === -Infinity ? FLOAT32_LOWEST : x;
}

/**
 * The official scores JSON `{ "<qid>_<cid>": score }` of ranked lists (`qids[q]`'s list; docs named by `docId`),
 * keys in byte order, float32 values written exactly (mdcrScore), so the same lists give the same bytes.
 */
export function mdcrScoresText(qids: readonly string[], docId: (d: number) => string, r: RankedLists): string {
  const entries: [Buffer, string][] = [];
  qids.forEach((qid, k) => {
    for (let i = r.offsets[k]; i < r.offsets[k + 1]; i++) {
      const key = `${qid}_${docId(r.docs[i])}`;
      const s = mdcrScore(r.scores[i]);
      if (!Number.isFinite(s)) throw new CitebenchError(`score of ${key} is ${s}`);
      entries.push([Buffer.from(key, 'utf8'), `${JSON.stringify(key)}:${JSON.stringify(s)}`]);
    }
  });
  entries.sort((a, b) => Buffer.compare(a[0], b[0]));
  return '{' + entries.map((e) => e[1]).join(',\n') + '}\n';
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}
