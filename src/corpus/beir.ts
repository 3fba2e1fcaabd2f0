/**
 * BEIR-layout retrieval tasks (SciDocs, SciFact, TREC-COVID …): a folder with corpus.jsonl ({_id, title, text}),
 * queries.jsonl ({_id, text}) and qrels/<split>.tsv (header `query-id corpus-id score`, graded labels).
 *
 * BEIR queries are texts, not corpus articles, so a task becomes one corpus store holding the corpus documents
 * (ids as given, title + text) and the query documents (id `query:<_id>`, the query text as title, no abstract),
 * in the id order of every store (id-key.ts). The candidate pool is exactly the corpus documents and the topics are the query documents. A pool is
 * searched as if indexed alone (BM25's statistics are the pool's), so BM25 over this store equals Lucene over an
 * index of the corpus documents alone; runs and qrels name queries by their BEIR ids.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Article } from './article.ts';
import { parseObject, readShardLines } from './s2orc-reader.ts';
import { buildCorpusStore, type BuildSummary } from './store-build.ts';
import type { CorpusStore } from './store.ts';
import { ValidationReport } from './validation.ts';
import { CitebenchError, InputError } from '../util/errors.ts';

/** Store ids of query documents: `query:` + the BEIR query id (a corpus id of that form is a duplicate-id error). */
export const BEIR_QUERY_PREFIX = 'query:';

export const BEIR_FILES = { corpus: 'corpus.jsonl', queries: 'queries.jsonl', qrels: (split: string) => join('qrels', `${split}.tsv`) };
const QRELS_HEADER = 'query-id\tcorpus-id\tscore';

/** Checks the folder's layout: one line naming what is missing. */
export function checkBeirFolder(dir: string, split: string): void {
  if (!existsSync(dir)) throw new CitebenchError(`${dir}: no such BEIR task folder`);
  for (const f of [BEIR_FILES.corpus, BEIR_FILES.queries]) {
    if (!existsSync(join(dir, f))) throw new CitebenchError(`${dir}: not a BEIR task folder (no ${f}; a BEIR folder holds corpus.jsonl, queries.jsonl and qrels/<split>.tsv)`);
  }
  if (!existsSync(join(dir, BEIR_FILES.qrels(split)))) {
    const have = existsSync(join(dir, 'qrels')) ? readdirSync(join(dir, 'qrels')).filter((f) => f.endsWith('.tsv')).map((f) => f.slice(0, -4)).sort() : [];
    throw new CitebenchError(`${join(dir, BEIR_FILES.qrels(split))}: no qrels for split '${split}' (splits here: ${have.join(', ') || 'none'})`);
  }
}

/** An id TREC run and qrels files can carry: fields there are separated by whitespace, and written as latin1. */
const TREC_ID = /^[\x21-\x7e\xa1-\xff]+$/;

function idOf(o: Record<string, unknown>, file: string, line: number): string {
  const v = o._id;
  const id = typeof v === 'string' ? v : typeof v === 'number' && Number.isInteger(v) ? String(v) : undefined;
  if (id === undefined || id === '') throw new InputError(file, line, '_id', `expected a non-empty string id, got ${JSON.stringify(v) ?? 'nothing'}`);
  if (!TREC_ID.test(id)) throw new InputError(file, line, '_id', `id ${JSON.stringify(id)} has whitespace or a character outside latin1: TREC run and qrels files cannot name it (rename the document or query)`);
  return id;
}

function textOf(o: Record<string, unknown>, key: string, file: string, line: number, optional: boolean): string {
  const v = o[key];
  if (typeof v === 'string') return v;
  if (optional && (v === undefined || v === null)) return '';
  throw new InputError(file, line, key, `expected a string, got ${JSON.stringify(v) ?? 'nothing'}`);
}

/** The task's documents as store records: corpus documents, then query documents (the store sorts them by id). */
async function* beirRecords(dir: string): AsyncGenerator<Article & { file: string; line: number }> {
  const report = new ValidationReport(true); // the first bad line is an InputError naming it
  const none = { year: undefined, fields: 0, outbound: [], inbound: [] };
  const corpus = join(dir, BEIR_FILES.corpus);
  for await (const raw of readShardLines(corpus, report)) {
    const o = parseObject(raw, report)!;
    yield { id: idOf(o, corpus, raw.line), title: textOf(o, 'title', corpus, raw.line, true), abstract: textOf(o, 'text', corpus, raw.line, false), ...none, file: corpus, line: raw.line };
  }
  const queries = join(dir, BEIR_FILES.queries);
  for await (const raw of readShardLines(queries, report)) {
    const o = parseObject(raw, report)!;
    yield { id: BEIR_QUERY_PREFIX + idOf(o, queries, raw.line), title: textOf(o, 'text', queries, raw.line, false), abstract: '', ...none, file: queries, line: raw.line };
  }
}

/**
 * Builds the corpus store of a BEIR task (corpus and query documents; no prefilter, no citations).
 * A duplicate id, a line that is not a JSON object or a missing text is an InputError naming file and line.
 */
export async function buildBeirStore(dir: string, out: string, opts: { log?: (line: string) => void } = {}): Promise<BuildSummary> {
  checkBeirFolder(dir, 'test');
  return buildCorpusStore({ input: dir, records: beirRecords(dir), out, prefilter: null, strict: true, log: opts.log });
}

/** The topics of one split: queries (store indices), their BEIR ids, the pool and the graded judgements. */
export interface BeirTopics {
  /** Query documents judged in the split, in store order. */
  queries: Uint32Array;
  /** Their BEIR query ids (what runs and qrels files name them by). */
  queryIds: string[];
  /** Every corpus document, sorted: the pool each query is searched over. */
  pool: Uint32Array;
  /** Per query (CSR over `queries`), its judged documents in store order and their labels (0 = judged not relevant). */
  qrels: { offsets: Uint32Array; docs: Uint32Array; labels: Int32Array };
  /** Judgement lines read. */
  judgements: number;
}

/** Reads qrels/<split>.tsv against the task's store: an unknown id, a bad score or a repeated pair names its line. */
export function beirTopics(store: CorpusStore, dir: string, split: string): BeirTopics {
  checkBeirFolder(dir, split);
  const file = join(dir, BEIR_FILES.qrels(split));
  const lines = readFileSync(file, 'utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const head = lines[0]?.replace(/\r$/, '');
  if (head !== QRELS_HEADER) throw new InputError(file, 1, undefined, `expected the header '${QRELS_HEADER.replace(/\t/g, '\\t')}' (tab-separated), got '${head ?? ''}'`);
  const byQuery = new Map<number, Map<number, number>>();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, '');
    if (line === '') continue;
    const cols = line.split('\t');
    if (cols.length !== 3) throw new InputError(file, i + 1, undefined, `expected 3 tab-separated columns (query-id, corpus-id, score), got ${cols.length}`);
    const [qid, did, score] = cols.map((c) => c.trim());
    const q = store.indexOf(BEIR_QUERY_PREFIX + qid);
    if (q < 0) throw new InputError(file, i + 1, 'query-id', `query '${qid}' is not in queries.jsonl`);
    const d = did.startsWith(BEIR_QUERY_PREFIX) ? -1 : store.indexOf(did);
    if (d < 0) throw new InputError(file, i + 1, 'corpus-id', `document '${did}' is not in corpus.jsonl`);
    if (!/^-?\d+$/.test(score)) throw new InputError(file, i + 1, 'score', `expected an integer relevance label, got '${score}'`);
    let docs = byQuery.get(q);
    if (!docs) byQuery.set(q, (docs = new Map()));
    if (docs.has(d)) throw new InputError(file, i + 1, undefined, `query '${qid}' judges document '${did}' twice`);
    docs.set(d, Number(score));
  }
  const queries = Uint32Array.from([...byQuery.keys()].sort((a, b) => a - b));
  const offsets = new Uint32Array(queries.length + 1);
  const docs: number[] = [];
  const labels: number[] = [];
  queries.forEach((q, k) => {
    for (const [d, l] of [...byQuery.get(q)!].sort((a, b) => a[0] - b[0])) docs.push(d), labels.push(l);
    offsets[k + 1] = docs.length;
  });
  const pool: number[] = [];
  for (let i = 0; i < store.size; i++) if (!store.id(i).startsWith(BEIR_QUERY_PREFIX)) pool.push(i);
  return {
    queries, queryIds: Array.from(queries, (q) => store.id(q).slice(BEIR_QUERY_PREFIX.length)), pool: Uint32Array.from(pool),
    qrels: { offsets, docs: Uint32Array.from(docs), labels: Int32Array.from(labels) }, judgements: docs.length,
  };
}
