/**
 * The compiled search kernel (native/bm25-kernel.cc via kernel.ts) against the TypeScript loop it replaces:
 * identical lists and bit-identical scores on the real texts of the Lucene parity corpus and on synthetic
 * corners (tf ≥ 255, pools, ties, excluded documents, accurate lengths); and a missing kernel is a one-line
 * notice, after which the TypeScript search gives the same lists.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { InMemoryTexts } from '../../src/corpus/article.ts';
import { EnglishAnalyzer, articleText, queryTermIds } from '../../src/retrieval/bm25/analyzer.ts';
import { buildIndex } from '../../src/retrieval/bm25/index.ts';
import { termIdMap, type Bm25Index } from '../../src/retrieval/bm25/index-format.ts';
import { PoolStats } from '../../src/retrieval/bm25/pool-stats.ts';
import { QueryScorer } from '../../src/retrieval/bm25/query-scorer.ts';
import { slicePool } from '../../src/retrieval/bm25/pool-slice.ts';
import type { PreparedQuery, ScoringArrays, TopK } from '../../src/retrieval/bm25/scoring-arrays.ts';
import { bm25Kernel } from '../../src/retrieval/bm25/kernel.ts';
import { sharedDataMissing, sharedDocuments, sharedQueries } from './shared-texts.ts';
import { REPO } from '../helpers/shared.ts';

const kernel = process.env.CITEBENCH_BM25_ADDON === 'off' ? null : bm25Kernel();
const noKernel = kernel ? undefined : 'the compiled BM25 kernel is off (CITEBENCH_BM25_ADDON=off) or not built here (npm run build:kernel)';

function bits(t: TopK) {
  return { docs: [...t.docs], scores: [...new Uint32Array(t.scores.buffer, t.scores.byteOffset, t.scores.length)] };
}

/**
 * Every query through both kernels with the same settings: the lists must be identical, scores bit for bit —
 * one query at a time, and in the compiled kernel's groups (searchMany), cut into runs of 1, 3, 8 and 11
 * queries so that groups are full, partial and split.
 */
function compare(a: ScoringArrays, queries: PreparedQuery[], k: number, what: string, tableMin?: number, block?: number, exclude?: (q: number) => number): number {
  const native = new QueryScorer(a, tableMin, block, kernel);
  const ts = new QueryScorer(a, tableMin, block, null);
  const ex = (i: number) => (exclude ? exclude(i) : -1);
  const want = queries.map((q, i) => bits(ts.search(q, k, ex(i))));
  let ranks = 0;
  queries.forEach((q, i) => {
    const got = native.search(q, k, ex(i));
    assert.deepEqual(bits(got), want[i], `${what}, query ${i}`);
    ranks += got.docs.length;
  });
  const runs = [1, 3, 8, 11];
  for (let from = 0, r = 0; from < queries.length; from += runs[r++ % runs.length]) {
    const to = Math.min(queries.length, from + runs[r % runs.length]);
    const got = native.searchMany(queries.slice(from, to).map((q, j) => ({ q, exclude: ex(from + j) })), k);
    got.forEach((top, j) => assert.deepEqual(bits(top), want[from + j], `${what}, query ${from + j} in a group of ${to - from}`));
  }
  return ranks;
}

test('kernel and TypeScript search give identical lists on the Lucene parity corpus', { skip: noKernel ?? sharedDataMissing() }, async () => {
  const docs = sharedDocuments();
  const ix = await buildIndex(new InMemoryTexts(docs), { chunkDocs: 700 });
  const an = new EnglishAnalyzer();
  const vocab = termIdMap(ix.terms);
  const texts = sharedQueries().map(articleText);
  const reverse = Uint32Array.from({ length: ix.docCount }, (_, d) => ix.docCount - 1 - d);
  const pool = Uint32Array.from({ length: Math.floor(ix.docCount / 3) }, (_, i) => i * 3);
  let ranks = 0;
  for (const accurate of [false, true]) {
    for (const [name, p] of [['whole corpus', undefined], ['pool of a third', pool]] as const) {
      const stats = new PoolStats(ix, { k1: 0.9, b: 0.4, accurate }, p);
      const queries = texts.map((t) => stats.prepare(queryTermIds(an, vocab, t)));
      const what = `${accurate ? 'accurate' : 'lossy'}, ${name}`;
      for (const [tableMin, block] of [[undefined, undefined], [Infinity, 1 << 16], [0, 333]]) {
        ranks += compare(stats.arrays(reverse), queries, 100, `${what}, tables ${tableMin}, blocks ${block}`, tableMin, block, (q) => q * 5);
      }
      ranks += compare(slicePool(stats.arrays(null)), queries, 1000, `${what}, sliced`);
    }
  }
  assert.ok(ranks > 200_000, `compared ${ranks} ranks`);
});

test('kernel and TypeScript search agree on tf ≥ 255, ties, pools and k beyond the matches', { skip: noKernel }, async () => {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'zeta', 'kappa', 'sigma'];
  const texts = Array.from({ length: 5000 }, (_, d) => ({ title: words[d % 8], abstract: Array.from({ length: d % 53 }, (_, i) => words[(d * 13 + i * i * 7) % 8]).join(' ') }));
  texts[11] = { title: 'omega', abstract: Array(300).fill('omega').join(' ') }; // tf ≥ 255: stored beside the postings
  texts[4000] = { title: 'zeta zeta', abstract: Array(280).fill('zeta').join(' ') + ' omega' };
  const ix: Bm25Index = await buildIndex(new InMemoryTexts(texts));
  assert.ok(ix.tfBigPos.length >= 2);
  const an = new EnglishAnalyzer();
  const vocab = termIdMap(ix.terms);
  const tieKey = Uint32Array.from({ length: ix.docCount }, (_, d) => (d * 7919) % 13); // many equal keys
  for (const accurate of [false, true]) {
    for (const pool of [undefined, Uint32Array.from({ length: 3000 }, (_, i) => i + 1500)]) {
      const stats = new PoolStats(ix, { k1: 1.2, b: 0.75, accurate }, pool);
      const queries = Array.from({ length: 30 }, (_, q) => stats.prepare(queryTermIds(an, vocab, `${texts[q * 17].abstract} omega zeta`)));
      for (const k of [0, 1, 10, 6000]) {
        for (const key of [null, tieKey]) compare(stats.arrays(key), queries, k, `accurate ${accurate}, pool ${pool?.length}, k ${k}`, 0, 777, (q) => q * 17);
      }
    }
  }
});

test('grouped search: a query naming a term twice, and one without terms, score as they do alone', { skip: noKernel }, async () => {
  const texts = Array.from({ length: 900 }, (_, d) => ({ title: `t${d % 7} common`, abstract: Array.from({ length: d % 29 }, (_, i) => `w${(d + i * 3) % 17}`).join(' ') }));
  const ix = await buildIndex(new InMemoryTexts(texts));
  const stats = new PoolStats(ix, { k1: 0.9, b: 0.4, accurate: false });
  const vocab = termIdMap(ix.terms);
  const an = new EnglishAnalyzer();
  const plain = stats.prepare(queryTermIds(an, vocab, 'common w3 w5 t2'));
  // PoolStats.prepare gives distinct terms; a hand-made query may repeat one (added twice, in order).
  const twice: PreparedQuery = {
    terms: Uint32Array.from([...plain.terms.slice(0, 2), plain.terms[1], ...plain.terms.slice(2)]),
    weights: Float32Array.from([...plain.weights.slice(0, 2), 0.375, ...plain.weights.slice(2)]),
  };
  const empty: PreparedQuery = { terms: new Uint32Array(0), weights: new Float32Array(0) };
  const queries = Array.from({ length: 15 }, (_, i) => [plain, twice, empty][i % 3]); // groups of 8 and 11 hold all three
  assert.ok(compare(stats.arrays(null), queries, 50, 'repeated and empty queries', undefined, 100) > 0);
});

test('a posting whose stored frequency is missing (damaged index) is an error, alone and in a group', { skip: noKernel }, async () => {
  const texts = Array.from({ length: 300 }, (_, d) => ({ title: 'omega', abstract: d === 7 ? Array(300).fill('omega').join(' ') : `alpha w${d % 9}` }));
  const ix = await buildIndex(new InMemoryTexts(texts));
  assert.equal(ix.tfBigPos.length, 1);
  const damaged = { ...ix, tfBigPos: new Float64Array(0), tfBigVal: new Uint32Array(0) };
  const an = new EnglishAnalyzer();
  const vocab = termIdMap(ix.terms);
  for (const accurate of [false, true]) {
    const stats = new PoolStats(damaged, { k1: 0.9, b: 0.4, accurate });
    const q = stats.prepare(queryTermIds(an, vocab, 'omega alpha'));
    const native = new QueryScorer(stats.arrays(null), 0, 64, kernel);
    const message = /bm25 index: a posting lacks its stored frequency \(damaged index files\): rebuild the index/;
    assert.throws(() => native.search(q, 10, -1), message);
    assert.throws(() => native.searchMany(Array.from({ length: 12 }, () => ({ q, exclude: -1 })), 10), message);
  }
});

function child(addon: string) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(REPO, 'test/bm25/fixtures/kernel-child.ts')], {
    cwd: REPO,
    env: { ...process.env, CITEBENCH_BM25_ADDON: addon, CITEBENCH_BM25_NOTICE_SHOWN: '' },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, `child with CITEBENCH_BM25_ADDON=${addon} failed: ${r.stderr}`);
  return { lists: JSON.parse(r.stdout), stderr: r.stderr };
}

test('a missing kernel is a one-line notice, then TypeScript search gives the same lists', async () => {
  const missing = child(join(REPO, 'build', 'no-such-kernel.node'));
  const lines = missing.stderr.split('\n').filter((l) => l.trim());
  assert.equal(lines.length, 1, `one notice line for the process and its worker threads, got:\n${missing.stderr}`);
  assert.match(lines[0], /^notice: the compiled BM25 kernel not built \(.*no-such-kernel\.node\); searching with the slower TypeScript kernel/);
  const off = child('off');
  assert.equal(off.stderr, '', 'CITEBENCH_BM25_ADDON=off is quiet');
  assert.deepEqual(missing.lists, off.lists);
  assert.deepEqual(missing.lists[0], missing.lists[1], 'one thread and two worker threads agree');
  if (!noKernel) {
    const built = child('');
    assert.equal(built.stderr, '');
    assert.deepEqual(built.lists, off.lists, 'the kernel gives the TypeScript lists');
  }
});
