// BEIR-layout tasks (src/corpus/beir.ts) on test/fixtures/beir-search (real Semantic Scholar search queries and
// papers, graded labels 0/1/2). The store holds corpus then query documents; the pool is the corpus alone, so
// BM25 over the store must equal real Lucene 8.7 over an index of the corpus documents only; the numbers of the
// written run and qrels files under `citebench eval` (trec_eval semantics) equal the in-memory evaluation; the
// graded labels reach nDCG; bad files give one line naming the file, line and field.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { BEIR_QUERY_PREFIX, beirTopics, buildBeirStore } from '../../src/corpus/beir.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { buildIndex } from '../../src/retrieval/bm25/index.ts';
import { Bm25Retriever } from '../../src/retrieval/bm25/retriever.ts';
import { articleText } from '../../src/retrieval/bm25/analyzer.ts';
import { evaluateRankedLists } from '../../src/eval/index.ts';
import { parseMeasure } from '../../src/eval/registry.ts';
import { trecEvalText } from '../../src/eval/trec-eval.ts';
import { writeQrels, writeRun } from '../../src/eval/trec-write.ts';
import { InputError, CitebenchError } from '../../src/util/errors.ts';
import { luceneSearch, oracleUnavailable } from '../bm25/lucene-oracle.ts';

const FIXTURE = new URL('../fixtures/beir-search', import.meta.url).pathname;
const jsonl = (f: string) => readFileSync(join(FIXTURE, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const corpus = jsonl('corpus.jsonl') as { _id: string; title: string; text: string }[];
const queries = jsonl('queries.jsonl') as { _id: string; text: string }[];
const judged = readFileSync(join(FIXTURE, 'qrels/test.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));

let tmp = '';
let store: CorpusStore;

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'cb-beir-'));
  await buildBeirStore(FIXTURE, join(tmp, 'store'));
  store = CorpusStore.open(join(tmp, 'store'));
});

after(() => {
  store?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** Store order (id-key.ts): the corpus's decimal ids byte-wise, then the `query:` ids (not decimal) byte-wise. */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const corpusOrder = [...corpus].sort((a, b) => byBytes(a._id, b._id));
const queryOrder = [...queries].sort((a, b) => byBytes(BEIR_QUERY_PREFIX + a._id, BEIR_QUERY_PREFIX + b._id));

test('store: corpus documents (title, text) and query documents in id order; topics: every judged query, the corpus as pool, labels as given', () => {
  assert.ok(corpus.every((d) => /^[0-9]+$/.test(d._id)), 'the fixture\'s corpus ids are decimal');
  assert.equal(store.size, corpus.length + queries.length);
  corpusOrder.forEach((d, i) => {
    assert.equal(store.id(i), d._id);
    assert.deepEqual(store.text(i), { title: d.title, abstract: d.text });
  });
  queryOrder.forEach((q, i) => {
    assert.equal(store.id(corpus.length + i), BEIR_QUERY_PREFIX + q._id);
    assert.deepEqual(store.text(corpus.length + i), { title: q.text, abstract: '' });
  });
  const t = beirTopics(store, FIXTURE, 'test');
  assert.deepEqual(Array.from(t.pool), corpus.map((_, i) => i));
  assert.deepEqual(t.queryIds, queryOrder.map((q) => q._id).filter((id) => judged.some((j) => j[0] === id)));
  assert.equal(t.judgements, judged.length);
  const got = new Set<string>();
  t.queryIds.forEach((qid, k) => {
    for (let i = t.qrels.offsets[k]; i < t.qrels.offsets[k + 1]; i++) got.add(`${qid}\t${store.id(t.qrels.docs[i])}\t${t.qrels.labels[i]}`);
  });
  assert.deepEqual([...got].sort(), judged.map((j) => j.join('\t')).sort());
  assert.ok(judged.some((j) => j[2] === '2') && judged.some((j) => j[2] === '0'), 'the fixture has graded and zero labels');
});

test('BM25 over the pool equals Lucene over an index of the corpus documents alone (every matching document, same scores)', { skip: oracleUnavailable() }, async () => {
  const t = beirTopics(store, FIXTURE, 'test');
  const ix = await buildIndex(store);
  const bm25 = new Bm25Retriever(ix, store, { params: { k1: 0.9, b: 0.4 }, tieKey: store.idOrder });
  const K = corpus.length; // whole lists: no tie at a cut-off
  const run = await bm25.search({ queries: t.queries, pool: t.pool, k: K, excludeSelf: true });
  const lucene = luceneSearch(corpus.map((d) => articleText({ title: d.title, abstract: d.text })), Array.from(t.queries, (q) => articleText(store.text(q))), K, 0.9, 0.4);
  let compared = 0;
  t.queries.forEach((_, q) => {
    const ours = new Map<number, number>();
    for (let i = run.offsets[q]; i < run.offsets[q + 1]; i++) ours.set(run.docs[i], run.scores[i]);
    // Lucene numbers the documents in corpus.jsonl order; the store by id.
    const theirs = new Map(lucene[q].map((h) => [store.indexOf(corpus[h.doc]._id), h.score]));
    assert.deepEqual([...ours.keys()].sort((a, b) => a - b), [...theirs.keys()].sort((a, b) => a - b), `query ${t.queryIds[q]}: the same matching documents`);
    for (const [d, s] of theirs) assert.equal(ours.get(d), s, `query ${t.queryIds[q]} doc ${store.id(d)}: score`), compared++;
  });
  assert.ok(compared > 1000, `compared ${compared} scores`);
});

test('the written run and qrels files give, under citebench eval (trec_eval -c), the in-memory numbers; grades reach nDCG', async () => {
  const t = beirTopics(store, FIXTURE, 'test');
  const bm25 = new Bm25Retriever(await buildIndex(store), store, { tieKey: store.idOrder });
  const run = await bm25.search({ queries: t.queries, pool: t.pool, k: 100 });
  const runFile = join(tmp, 'bm25.trec');
  const qrelsFile = join(tmp, 'test.qrels');
  writeRun(runFile, { qids: t.queryIds, docnos: (d) => store.id(d), run, tag: 'bm25' });
  writeQrels(qrelsFile, t.queryIds, (d) => store.id(d), t.qrels);
  assert.match(readFileSync(qrelsFile, 'utf8'), / 2\n/, 'label 2 is written');
  const specs = ['map', 'ndcg', 'ndcg_cut.10', 'recall.100', 'P.10'];
  const measures = specs.flatMap(parseMeasure);
  const mem = evaluateRankedLists(run, t.qrels, measures, { docOrder: store.idOrder, options: { missing: 'zero' } });
  const text = trecEvalText(qrelsFile, runFile, specs, { missing: 'zero', perQuery: true });
  const lines = new Map(text.trim().split('\n').map((l) => l.split('\t').map((x) => x.trim())).map(([m, q, v]) => [`${m} ${q}`, v]));
  measures.forEach((m, j) => {
    t.queryIds.forEach((qid, q) => assert.equal(lines.get(`${m.name} ${qid}`), mem.perQuery[j][q].toFixed(4), `${m.name} ${qid}`));
    assert.equal(lines.get(`${m.name} all`), mem.summary[j].toFixed(4), `${m.name} all`);
  });
  // The document labelled 2 beside one labelled 1 (the fixture's label-2 query has no other relevant document,
  // and with one relevant document nDCG does not depend on its gain), ranked label 1 first: graded gains give
  // another nDCG than binary labels.
  const two = t.qrels.labels.indexOf(2);
  const oneLabel = t.qrels.labels.indexOf(1);
  assert.ok(two >= 0 && oneLabel >= 0);
  const one = { offsets: Uint32Array.of(0, 2), docs: Uint32Array.of(t.qrels.docs[oneLabel], t.qrels.docs[two]), labels: Int32Array.of(1, 2) };
  const worstFirst = { offsets: one.offsets, docs: one.docs, scores: Float32Array.of(2, 1) };
  const ndcg = parseMeasure('ndcg');
  const graded = evaluateRankedLists(worstFirst, one, ndcg, { docOrder: store.idOrder }).summary[0];
  const flat = evaluateRankedLists(worstFirst, { ...one, labels: one.labels.map((l) => (l > 0 ? 1 : 0)) }, ndcg, { docOrder: store.idOrder }).summary[0];
  assert.ok(graded < flat, `graded nDCG ${graded} vs binary ${flat}`);
});

/** A copy of the fixture with one file replaced. */
function broken(file: string, edit: (text: string) => string): string {
  const dir = mkdtempSync(join(tmp, 'bad-'));
  cpSync(FIXTURE, dir, { recursive: true });
  writeFileSync(join(dir, file), edit(readFileSync(join(dir, file), 'utf8')));
  return dir;
}

test('bad input: one line naming the file, line and field', async () => {
  const storeErr = async (dir: string, re: RegExp) => {
    await assert.rejects(buildBeirStore(dir, join(dir, 'store')), (e: Error) => e instanceof InputError && re.test(e.message) && !e.message.includes('\n'), re.source);
  };
  await storeErr(broken('corpus.jsonl', (s) => s.replace(/"text": "[^"]*"/, '"text": 7')), /corpus\.jsonl:1 \[text\]: expected a string, got 7/);
  await storeErr(broken('queries.jsonl', (s) => s.replace(/"_id": "[^"]*"/, '"_id": ""')), /queries\.jsonl:1 \[_id\]: expected a non-empty string id/);
  await storeErr(broken('corpus.jsonl', (s) => s + s.split('\n')[0] + '\n'), /corpus\.jsonl:311 \[paper_id\]: duplicate paper_id 26653830/);
  await storeErr(broken('corpus.jsonl', (s) => 'not json\n' + s), /corpus\.jsonl:1: invalid JSON/);
  await storeErr(broken('queries.jsonl', (s) => s.replace(/"_id": "[^"]*"/, '"_id": "a b"')), /queries\.jsonl:1 \[_id\]: id "a b" has whitespace or a character outside latin1/);
  await storeErr(broken('corpus.jsonl', (s) => s.replace(/"_id": "[^"]*"/, '"_id": "doc→1"')), /corpus\.jsonl:1 \[_id\]: id "doc→1" has whitespace/);
  const topicsErr = (dir: string, re: RegExp) =>
    assert.throws(() => beirTopics(store, dir, 'test'), (e: Error) => e instanceof InputError && re.test(e.message), re.source);
  topicsErr(broken('qrels/test.tsv', (s) => s.replace('query-id\t', 'qid\t')), /test\.tsv:1: expected the header 'query-id\\tcorpus-id\\tscore'/);
  topicsErr(broken('qrels/test.tsv', (s) => s.replace('\t26653830\t', '\tnope\t')), /test\.tsv:2 \[corpus-id\]: document 'nope' is not in corpus\.jsonl/);
  topicsErr(broken('qrels/test.tsv', (s) => s.replace('7278244041409283\t26653830\t1', 'q9\t26653830\t1')), /test\.tsv:2 \[query-id\]: query 'q9' is not in queries\.jsonl/);
  topicsErr(broken('qrels/test.tsv', (s) => s.replace('\t26653830\t1', '\t26653830\t0.5')), /test\.tsv:2 \[score\]: expected an integer relevance label, got '0\.5'/);
  topicsErr(broken('qrels/test.tsv', (s) => s + '7278244041409283\t26653830\t1\n'), /test\.tsv:\d+: query '7278244041409283' judges document '26653830' twice/);
  assert.throws(() => beirTopics(store, FIXTURE, 'dev'), (e: Error) => e instanceof CitebenchError && /no qrels for split 'dev' \(splits here: test\)/.test(e.message));
});
