/**
 * Scores every query–candidate pair of an MDCR benchmark (paper §4.3, Tables 3–4) from the benchmark JSON and its
 * data jsonl alone — no corpus store — so the official takelab files and `citebench mdcr build` output work alike.
 *
 *  - BM25: an in-memory index over the data file's papers (title + abstract, the project's Lucene-exact
 *    analysis). Collection statistics (N, df, avgdl) are those of the whole data file — "BM25 over the fixed
 *    candidate set": every query's candidates are scored under the same statistics, not under per-query pools.
 *  - Dense: the data file's papers encoded into an embedding store (cached by the file's SHA-256 and the model's
 *    fingerprint) and scored by the dense retriever's candidate mode: −squared L2 distance (or the inner product)
 *    in float64, and for multi-vector models (ASPIRE) the best sentence pair.
 * Scores are float32 values; the scores JSON lists keys `<qid>_<cid>` in byte order, so the same input gives
 * the same bytes.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryTexts, type ArticleText } from '../corpus/article.ts';
import { CitebenchError, InputError } from '../util/errors.ts';
import type { RankedLists } from './retriever.ts';
import { buildIndex } from './bm25/index.ts';
import { Bm25Retriever } from './bm25/retriever.ts';
import type { Bm25Params } from './bm25/search.ts';
import type { Encoder } from './dense/encoder.ts';
import type { Distance } from './dense/models.ts';
import { DenseRetriever } from './dense/retriever.ts';
import { encodeRoles, openModelStores } from './dense/role-stores.ts';
import { sortedUnique } from '../util/sorted.ts';
import { importEmbeddings, importFingerprint } from './dense/import/import.ts';

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
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new InputError(path, undefined, undefined, `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
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
  return { ids, texts: new InMemoryTexts(items), indexOf, sha256: createHash('sha256').update(text).digest('hex'), ...(conflicts ? { conflicts } : {}) };
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

/** BM25 scores of every pair, collection statistics of the whole data file. */
export async function scoreMdcrBm25(data: MdcrData, pairs: MdcrPairs, params: Partial<Bm25Params> = {}): Promise<RankedLists> {
  const ix = await buildIndex(data.texts, { chunkDocs: 1 << 20 });
  const bm25 = new Bm25Retriever(ix, data.texts, { params });
  const k = Math.max(1, ...pairs.candidates.map((c) => c.length));
  const r = await bm25.search({ queries: pairs.queries, candidates: pairs.candidates, k, excludeSelf: false });
  checkAllScored('bm25', r, pairs);
  return r;
}

/**
 * Dense scores of every pair through the dense retriever's candidate mode (DenseRetriever, exact float64 scores,
 * the best sentence pair for multi-vector models): the data file's papers are encoded into an embedding store —
 * under `cacheDir`, keyed by the data file's SHA-256 and the model's fingerprint, so a second scoring reads the
 * vectors back; without one, in a scratch folder removed afterwards.
 */
export async function scoreMdcrDense(data: MdcrData, pairs: MdcrPairs, encoder: Encoder, distance: Distance, opts: { cacheDir?: string; threads?: number; progress?: boolean } = {}): Promise<RankedLists> {
  const used = new Uint8Array(data.ids.length);
  pairs.queries.forEach((q, k) => {
    used[q] = 1;
    for (const c of pairs.candidates[k]) used[c] = 1;
  });
  const which: number[] = [];
  for (let i = 0; i < used.length; i++) if (used[i]) which.push(i);
  const model = encoder.model;
  const dir = opts.cacheDir ? join(opts.cacheDir, `${data.sha256.slice(0, 16)}-${model.fingerprint.slice(0, 16)}`) : mkdtempSync(join(tmpdir(), 'citebench-mdcr-'));
  try {
    // One chunk: the used papers are encoded in one call, in data-file order, whatever the file's size (per role
    // for a model whose query prompt differs from its document prompt: the queries as queries, the candidates
    // as documents).
    const stores = openModelStores(dir, model, { corpusSize: data.ids.length, corpusKey: data.sha256, chunkSize: data.ids.length });
    const queries = sortedUnique(pairs.queries);
    const candidates = sortedUnique(pairs.candidates.flatMap((c) => Array.from(c)));
    await encodeRoles(stores, encoder, data.texts, stores.query === stores.document ? Uint32Array.from(which) : queries, stores.query === stores.document ? new Uint32Array(0) : candidates, { progress: opts.progress });
    const dense = new DenseRetriever({ name: model.name, store: stores.document, queryStore: stores.query, distance, threads: opts.threads });
    const k = Math.max(1, ...pairs.candidates.map((c) => c.length));
    const r = await dense.search({ queries: pairs.queries, candidates: pairs.candidates, k, excludeSelf: false });
    checkAllScored('dense', r, pairs);
    // An article without vectors (no sentence) cannot match: the lowest float32, a finite score for the file.
    for (let i = 0; i < r.scores.length; i++) if (r.scores[i] === -Infinity) r.scores[i] = -3.4028234663852886e38;
    return r;
  } finally {
    if (!opts.cacheDir) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Dense scores of every pair from vectors computed elsewhere, keyed by the data file's paper ids (no corpus store):
 * the file is imported (import/) into an embedding store whose "corpus" is the data file — under `cacheDir`,
 * keyed by the import's identity and the data file's SHA-256, else a scratch folder removed afterwards — and
 * scored by the dense retriever's candidate mode. A query without a vector is an error naming it; a candidate
 * without one ranks last (the lowest float32) and is counted (`strict`: an error naming it).
 */
export async function scoreMdcrImported(
  data: MdcrData, pairs: MdcrPairs, file: string,
  opts: { ids?: string; distance: Distance; strict: boolean; cacheDir?: string; threads?: number },
): Promise<{ scores: RankedLists; unscored: number }> {
  const corpus = { size: data.ids.length, indexOf: (id: string) => data.indexOf.get(id) ?? -1 };
  const dir = opts.cacheDir ? join(opts.cacheDir, `${data.sha256.slice(0, 16)}-${importFingerprint(file, opts.ids).slice(0, 16)}`) : mkdtempSync(join(tmpdir(), 'citebench-mdcr-'));
  try {
    const { store } = await importEmbeddings(file, corpus, { ids: opts.ids, dir, corpusKey: data.sha256, distance: opts.distance });
    const dense = new DenseRetriever({ name: 'imported', store, distance: opts.distance, threads: opts.threads, imported: { file, strict: opts.strict, paperId: (i) => data.ids[i] } });
    const k = Math.max(1, ...pairs.candidates.map((c) => c.length));
    const r = await dense.search({ queries: pairs.queries, candidates: pairs.candidates, k, excludeSelf: false });
    checkAllScored('dense', r, pairs);
    for (let i = 0; i < r.scores.length; i++) if (r.scores[i] === -Infinity) r.scores[i] = -3.4028234663852886e38;
    return { scores: r, unscored: dense.lastSkipped };
  } finally {
    if (!opts.cacheDir) rmSync(dir, { recursive: true, force: true });
  }
}

function checkAllScored(what: string, r: RankedLists, pairs: MdcrPairs): void {
  pairs.candidates.forEach((c, q) => {
    if (r.offsets[q + 1] - r.offsets[q] !== c.length) throw new Error(`${what} scored ${r.offsets[q + 1] - r.offsets[q]} of ${c.length} candidates`);
  });
}

/** The official scores JSON `{ "<qid>_<cid>": score }`, keys in byte order, float32 values written exactly. */
export function mdcrScoresText(data: MdcrData, pairs: MdcrPairs, r: RankedLists): string {
  const entries: [Buffer, string][] = [];
  pairs.queries.forEach((q, k) => {
    for (let i = r.offsets[k]; i < r.offsets[k + 1]; i++) {
      const key = `${data.ids[q]}_${data.ids[r.docs[i]]}`;
      const s = r.scores[i];
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
