/**
 * Parity with real Lucene 8.7 (Debian liblucene8-java): EnglishAnalyzer tokens and BM25Similarity(0.9, 0.4)
 * top-100 lists on the real texts of ../shared/data. Lucene breaks score ties by internal docid ascending;
 * here the tie key is set to the reverse document position so both engines order ties the same way, and the
 * lists must then be identical, with scores equal to 1e-4 (in practice bit-identical; counted below).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InMemoryTexts } from '../../src/corpus/article.ts';
import { EnglishAnalyzer, articleText, queryTermIds } from '../../src/retrieval/bm25/analyzer.ts';
import { buildIndex } from '../../src/retrieval/bm25/index.ts';
import { termIdMap } from '../../src/retrieval/bm25/index-format.ts';
import { PoolStats, DEFAULT_PARAMS } from '../../src/retrieval/bm25/pool-stats.ts';
import { QueryScorer } from '../../src/retrieval/bm25/query-scorer.ts';
import { luceneAnalyze, luceneSearch, oracleUnavailable } from './lucene-oracle.ts';
import { sharedDataMissing, sharedDocuments, sharedQueries } from './shared-texts.ts';

const skip = sharedDataMissing() ?? oracleUnavailable();

test('analyzer tokens equal Lucene EnglishAnalyzer on every shared text', { skip }, async () => {
  const texts = [...sharedDocuments(), ...sharedQueries()].map(articleText);
  const expected = luceneAnalyze(texts);
  const an = new EnglishAnalyzer();
  let tokens = 0;
  for (let i = 0; i < texts.length; i++) {
    assert.deepEqual(an.analyze(texts[i]), expected[i], `text ${i}: ${texts[i].slice(0, 80)}`);
    tokens += expected[i].length;
  }
  assert.ok(tokens > 300_000, `expected a substantial token stream, got ${tokens}`);
});

test('BM25 top-100 lists and scores equal Lucene (lossy norms, k1 0.9, b 0.4)', { skip }, async () => {
  const docs = sharedDocuments();
  const queries = sharedQueries();
  const K = 100;
  const expected = luceneSearch(docs.map(articleText), queries.map(articleText), K, 0.9, 0.4);
  const ix = await buildIndex(new InMemoryTexts(docs), { chunkDocs: 700 }); // several chunks: exercises the merge
  const stats = new PoolStats(ix, DEFAULT_PARAMS);
  const reverse = Uint32Array.from({ length: ix.docCount }, (_, d) => ix.docCount - 1 - d);
  // Both scoring paths of lossy mode: per-posting arithmetic and per-term (tf, norm) tables.
  // (and small accumulator blocks, as at a million documents).
  for (const [tableMin, block] of [[Infinity, 1 << 16], [0, 333]]) {
    const scorer = new QueryScorer(stats.arrays(reverse), tableMin, block);
    const an = new EnglishAnalyzer();
    const vocab = termIdMap(ix.terms);
    let compared = 0;
    let bitExact = 0;
    let maxDiff = 0;
    for (let q = 0; q < queries.length; q++) {
      const pq = stats.prepare(queryTermIds(an, vocab, articleText(queries[q])));
      const got = scorer.search(pq, K);
      const exp = expected[q];
      assert.equal(got.docs.length, exp.length, `query ${q}: list length`);
      for (let r = 0; r < exp.length; r++) {
        assert.equal(got.docs[r], exp[r].doc, `query ${q} rank ${r}: doc`);
        const diff = Math.abs(got.scores[r] - exp[r].score);
        assert.ok(diff <= 1e-4, `query ${q} rank ${r}: score ${got.scores[r]} vs Lucene ${exp[r].score}`);
        maxDiff = Math.max(maxDiff, diff);
        if (got.scores[r] === exp[r].score) bitExact++;
        compared++;
      }
    }
    assert.ok(compared > 20_000, `compared ${compared} ranks`);
    console.log(`# lucene parity (tables from ${tableMin} postings, blocks of ${block}): ${queries.length} queries, ${compared} ranks, ${bitExact} bit-identical scores, max |diff| ${maxDiff}`);
  }
});
