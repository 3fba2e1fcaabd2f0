/**
 * Scores every query–candidate pair of an MDCR benchmark (paper §4.3, Tables 3–4) from the benchmark JSON and its
 * data jsonl alone — no corpus store — so the official takelab files and `citebench mdcr build` output work alike.
 *
 *  - BM25: an in-memory index over the data file's papers (title + abstract, the project's Lucene-exact
 *    analysis). Collection statistics (N, df, avgdl) are those of the whole data file — "BM25 over the fixed
 *    candidate set": every query's candidates are scored under the same statistics, not under per-query pools.
 *  - Dense: the data file's papers encoded in memory; a pair scores −squared L2 distance (or the inner product)
 *    computed in float64 as the dense retriever's exact search does, and for multi-vector models (ASPIRE) the
 *    best sentence pair.
 * Scores are float32 values; the scores JSON lists keys `<qid>_<cid>` in byte order, so the same input gives
 * the same bytes.
 */
import { readFileSync } from 'node:fs';
import { InMemoryTexts, type ArticleText } from '../corpus/article.ts';
import { CitebenchError, InputError } from '../util/errors.ts';
import type { RankedLists } from './retriever.ts';
import { buildIndex } from './bm25/index.ts';
import { Bm25Retriever } from './bm25/retriever.ts';
import type { Bm25Params } from './bm25/search.ts';
import type { EncodedBatch } from './dense/encoder.ts';
import type { Distance } from './dense/models.ts';
import type { EmbeddingStore, VectorSet } from './dense/store.ts';
import type { VectorFile } from './dense/import/vector-file.ts';
import { sortedFind } from '../util/sorted.ts';

export interface MdcrData {
  /** Paper ids in file order; position = index into `texts`. */
  ids: string[];
  texts: InMemoryTexts;
  indexOf: Map<string, number>;
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
  return { ids, texts: new InMemoryTexts(items), indexOf, ...(conflicts ? { conflicts } : {}) };
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
  pairs.candidates.forEach((c, q) => {
    if (r.offsets[q + 1] - r.offsets[q] !== c.length) throw new Error(`bm25 scored ${r.offsets[q + 1] - r.offsets[q]} of ${c.length} candidates`);
  });
  return r;
}

/** What dense scoring needs of an encoder (Encoder fits). */
export interface PaperEncoder {
  encode(articles: ArticleText[], onBatch?: (articles: number) => void): Promise<EncodedBatch>;
}

/** Dense scores of every pair: the data file's papers encoded once, each pair scored exactly. */
export async function scoreMdcrDense(data: MdcrData, pairs: MdcrPairs, encoder: PaperEncoder, distance: Distance, onBatch?: (articles: number) => void): Promise<RankedLists> {
  const used = new Uint8Array(data.ids.length);
  pairs.queries.forEach((q, k) => {
    used[q] = 1;
    for (const c of pairs.candidates[k]) used[c] = 1;
  });
  const which: number[] = [];
  for (let i = 0; i < used.length; i++) if (used[i]) which.push(i);
  const enc = await encoder.encode(
    which.map((i) => data.texts.text(i)),
    onBatch,
  );
  const row = new Int32Array(data.ids.length).fill(-1);
  which.forEach((i, k) => (row[i] = k));
  return scorePairs(enc, row, pairs, distance);
}

/** Where an MDCR scoring finds vectors by paper id, and what to say of a paper without one. */
export interface VectorLookup {
  /** A key for the paper's vector(s), or -1 when there is none. */
  keyOf(paperId: string): number;
  /** The vectors of sorted distinct keys, in that order. */
  load(keys: Uint32Array): VectorSet;
  /** The vectors' file (messages). */
  file: string;
  /** A candidate without a vector is an error instead of ranking last. */
  strict: boolean;
}

/**
 * Dense scores of every pair from vectors computed elsewhere (an imported store, or a vectors file keyed by the
 * data file's paper ids): no encoder runs on the data file's texts. A query without a vector is an error naming
 * it; a candidate without one scores the lowest float32 — ranked last, as an article without sentences is, and
 * every pair is still in the scores file that evaluate.py reads — and is counted (`strict`: an error naming it).
 */
export function scoreMdcrVectors(data: MdcrData, pairs: MdcrPairs, vectors: VectorLookup, distance: Distance, dataPath: string): { scores: RankedLists; lacking: { count: number; first: string[] } } {
  const used = new Uint8Array(data.ids.length); // 1: a query, 2: a candidate
  pairs.queries.forEach((q, k) => {
    used[q] |= 1;
    for (const c of pairs.candidates[k]) used[c] |= 2;
  });
  const keyOf = new Int32Array(data.ids.length).fill(-1);
  const lacking = { count: 0, first: [] as string[] };
  for (let i = 0; i < used.length; i++) {
    if (!used[i]) continue;
    keyOf[i] = vectors.keyOf(data.ids[i]);
    if (keyOf[i] >= 0) continue;
    const why = `no vector for paper ${data.ids[i]} of ${dataPath}`;
    if (used[i] & 1) throw new CitebenchError(`${vectors.file}: ${why}, an MDCR query; every query needs one: add it to the file`);
    if (vectors.strict) throw new CitebenchError(`${vectors.file}: ${why}, an MDCR candidate (strict)`);
    if (lacking.count++ < 5) lacking.first.push(data.ids[i]);
  }
  const distinct = Uint32Array.from(new Set(Array.from(keyOf).filter((x) => x >= 0))).sort();
  const set = vectors.load(distinct);
  // A paper without a vector gets an empty row range: scorePairs gives its pairs the lowest float32.
  const offsets = new Uint32Array(distinct.length + 2);
  offsets.set(set.offsets);
  offsets[distinct.length + 1] = set.offsets[distinct.length];
  const row = Int32Array.from(keyOf, (x) => (x < 0 ? distinct.length : sortedFind(distinct, x)));
  return { scores: scorePairs({ dim: set.dim, offsets, vectors: set.vectors }, row, pairs, distance), lacking };
}

/** Vectors of an embedding store, looked up by paper id through the corpus (`indexOf`). */
export function storeLookup(store: EmbeddingStore, indexOf: (paperId: string) => number, file: string, strict: boolean): VectorLookup {
  const present = store.presentMask();
  return {
    keyOf: (id) => {
      const x = indexOf(id);
      return x >= 0 && present[x] ? x : -1;
    },
    load: (keys) => store.load(keys),
    file, strict,
  };
}

/** Vectors of a file (import/vector-file.ts) by its own paper ids: no corpus store needed. */
export function fileLookup(f: VectorFile, strict: boolean): VectorLookup {
  const rowOf = new Map<string, number>();
  for (let r = 0; r < f.rows; r++) {
    const id = f.id(r);
    if (rowOf.has(id)) throw new CitebenchError(`${f.where(r)}: paper ${id} occurs twice (first at ${f.where(rowOf.get(id)!)}); each paper id may have one vector`);
    rowOf.set(id, r);
  }
  return {
    keyOf: (id) => rowOf.get(id) ?? -1,
    load: (keys) => {
      const vectors = new Float32Array(keys.length * f.dim);
      keys.forEach((r, k) => f.read(r, vectors, k * f.dim));
      return { dim: f.dim, offsets: Uint32Array.from({ length: keys.length + 1 }, (_, k) => k), vectors };
    },
    file: f.path, strict,
  };
}

/** Exact pair scores from encoded vectors (`row[paper]` = its position in `enc`); max over sentence pairs. */
export function scorePairs(enc: EncodedBatch, row: Int32Array, pairs: MdcrPairs, distance: Distance): RankedLists {
  const d = enc.dim;
  const v = enc.vectors;
  const off = enc.offsets;
  const total = pairs.candidates.reduce((s, c) => s + c.length, 0);
  const offsets = new Uint32Array(pairs.queries.length + 1);
  const docs = new Uint32Array(total);
  const scores = new Float32Array(total);
  let n = 0;
  pairs.queries.forEach((q, k) => {
    const qr = row[q];
    for (const c of pairs.candidates[k]) {
      const cr = row[c];
      let best = -Infinity;
      for (let a = off[qr]; a < off[qr + 1]; a++) {
        for (let b = off[cr]; b < off[cr + 1]; b++) {
          let s = 0;
          if (distance === 'l2') {
            for (let j = 0; j < d; j++) {
              const t = v[a * d + j] - v[b * d + j];
              s += t * t;
            }
            s = 0 - s; // +0, not −0, for identical vectors
          } else for (let j = 0; j < d; j++) s += v[a * d + j] * v[b * d + j];
          if (s > best) best = s;
        }
      }
      // An article without vectors (no sentence) cannot match: the lowest float32.
      docs[n] = c;
      scores[n++] = best === -Infinity ? -3.4028234663852886e38 : best;
    }
    offsets[k + 1] = n;
  });
  return { offsets, docs, scores };
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
