/**
 * Navigation and re-ranking score their candidates with the request's pool statistics (BM25's N, df, avgdl of
 * the pool, as the first stage does): a pool is searched as if indexed alone. So a D_0 paper keeps its
 * first-stage score when the scorer is the first stage, re-ranking by the first stage changes nothing, and under
 * the inductive setting no article of the query year (never in an inductive pool) moves a score.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InMemoryTexts } from '../../src/corpus/article.ts';
import { buildIndex } from '../../src/retrieval/bm25/index.ts';
import { Bm25Retriever } from '../../src/retrieval/bm25/retriever.ts';
import { NavigationRetriever } from '../../src/retrieval/navigation.ts';
import { RerankRetriever } from '../../src/retrieval/rerank.ts';
import type { RankedLists } from '../../src/retrieval/retriever.ts';
import { randomGraph, textsOf } from './graph.ts';

const N = 400;
const texts = textsOf(N, 11);
const { graph } = randomGraph(N, 6, 13);
const QUERY_YEAR = 2019;
// Years rise with the index (2000 … 2019); the queries are four articles of the query year.
const queries = Uint32Array.from([N - 1, N - 3, N - 6, N - 10]);
assert.ok([...queries].every((q) => graph.years[q] === QUERY_YEAR));
// An inductive pool: part of the articles published before the query year (never a query).
const pool = Uint32Array.from({ length: N }, (_, i) => i).filter((i) => graph.years[i] < QUERY_YEAR && i % 3 !== 1);
const tieKey = Uint32Array.from({ length: N }, (_, i) => (i * 7919) % N);
const PARAMS = { k1: 1.2, b: 0.75 };

function perQuery(r: RankedLists): Map<number, number>[] {
  return Array.from({ length: r.offsets.length - 1 }, (_, q) => {
    const m = new Map<number, number>();
    for (let p = r.offsets[q]; p < r.offsets[q + 1]; p++) m.set(r.docs[p], r.scores[p]);
    return m;
  });
}

test('navigation with the first stage as scorer: every D_0 paper keeps its first-stage score', async () => {
  const bm25 = new Bm25Retriever(await buildIndex(texts), texts, { params: PARAMS, tieKey });
  const kd = 20;
  const nav = new NavigationRetriever({ name: 'nav', first: bm25, scorer: [{ retriever: bm25, weight: 1 }], kd: [kd], kc: [40], graph, tieKey });
  const first = await bm25.search({ queries, pool, k: kd });
  const navigated = perQuery(await nav.search({ queries, pool, k: 1000 }));
  // What the old scorer computed: the same candidates under whole-corpus statistics.
  const firstLists = Array.from(queries, (_, q) => first.docs.slice(first.offsets[q], first.offsets[q + 1]));
  const wholeCorpus = perQuery(await bm25.search({ queries, candidates: firstLists, k: 1000, excludeSelf: false }));
  let differs = 0;
  queries.forEach((_, q) => {
    assert.equal(first.offsets[q + 1] - first.offsets[q], kd);
    for (let p = first.offsets[q]; p < first.offsets[q + 1]; p++) {
      const d = first.docs[p];
      assert.equal(navigated[q].get(d), first.scores[p], `query ${queries[q]}, D_0 paper ${d}`);
      if (wholeCorpus[q].get(d) !== first.scores[p]) differs++;
    }
  });
  assert.ok(differs > 0, 'whole-corpus statistics would give other scores (the test can tell them apart)');
});

test('re-ranking by the first stage itself returns the first stage, list and scores', async () => {
  const bm25 = new Bm25Retriever(await buildIndex(texts), texts, { params: PARAMS, tieKey });
  const rr = new RerankRetriever({ name: 'rr', first: bm25, scorer: [{ retriever: bm25, weight: 1 }], depth: 30, tieKey });
  const first = await bm25.search({ queries, pool, k: 30 });
  const again = await rr.search({ queries, pool, k: 30 });
  assert.deepEqual([...again.offsets], [...first.offsets]);
  assert.deepEqual([...again.docs], [...first.docs]);
  assert.deepEqual([...again.scores], [...first.scores]);
});

test('inductive setting: articles of the query year (outside the pool) change no navigation or rerank score', async () => {
  // The same corpus, except that every article of the query year other than the queries has another text.
  const items = Array.from({ length: N }, (_, i) => texts.text(i));
  const changed = new InMemoryTexts(items.map((t, i) => (graph.years[i] === QUERY_YEAR && !queries.includes(i) ? { title: 'neural neural citation', abstract: 'neural citation graph retrieval neural neural model model' } : t)));
  const wholeSums: number[] = [];
  const runs: RankedLists[][] = [];
  for (const t of [texts, changed]) {
    const bm25 = new Bm25Retriever(await buildIndex(t), t, { params: PARAMS, tieKey });
    const nav = new NavigationRetriever({ name: 'nav', first: bm25, scorer: [{ retriever: bm25, weight: 1 }], kd: [15], kc: [30], graph, tieKey });
    const rr = new RerankRetriever({ name: 'rr', first: bm25, scorer: [{ retriever: bm25, weight: 1 }], depth: 25, tieKey });
    const req = { queries, pool, k: 1000, setting: 'inductive' as const };
    runs.push([await nav.search(req), await rr.search(req)]);
    // Sensitivity: whole-corpus statistics of the same candidates do see the change.
    const cands = Array.from(queries, () => pool);
    const whole = await bm25.search({ queries, candidates: cands, k: 1000 });
    wholeSums.push(whole.scores.reduce((s, x) => s + x, 0));
  }
  assert.ok(pool.every((d) => graph.years[d] < QUERY_YEAR), 'an inductive pool holds no article of the query year');
  for (const m of [0, 1]) {
    assert.deepEqual([...runs[1][m].offsets], [...runs[0][m].offsets]);
    assert.deepEqual([...runs[1][m].docs], [...runs[0][m].docs]);
    assert.deepEqual([...runs[1][m].scores], [...runs[0][m].scores]);
  }
  assert.notEqual(wholeSums[1], wholeSums[0], 'whole-corpus statistics would see the query-year articles (the test can tell)');
});
