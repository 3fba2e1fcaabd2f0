/**
 * BM25 over each pool's own index (bm25Index: pools) gives the lists the corpus index gives: same documents,
 * same scores bit for bit, same ties — for small and large pools, fixed candidates inside and outside the pool,
 * lossy and exact lengths, with and without a tie key, on one thread and on two (child processes reading a store).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryTexts, SubsetTexts, type ArticleText } from '../../src/corpus/article.ts';
import { buildIndex } from '../../src/retrieval/bm25/index.ts';
import { Bm25Retriever } from '../../src/retrieval/bm25/retriever.ts';
import { PoolIndexes, poolWithCandidates } from '../../src/retrieval/bm25/pool-index.ts';
import { SLICE_BELOW } from '../../src/retrieval/bm25/pool-slice.ts';
import type { RankedLists } from '../../src/eval/types.ts';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { PAPER_PREFILTER } from '../../src/corpus/prefilter.ts';
import { synthesize, SYNTH_DEFAULTS } from '../../src/corpus/synth.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { Rng } from '../../src/util/rng.ts';

/** A seeded generator of floats in [0, 1). */
function rng(seed: number) {
  const g = new Rng(seed);
  return () => g.next();
}

/** Texts over a Zipf-like vocabulary: repeated terms, a 300-fold term (tf ≥ 255), empty and identical documents (ties). */
function texts(n: number, seed: number): ArticleText[] {
  const r = rng(seed);
  const words = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}x`);
  const out: ArticleText[] = [];
  for (let d = 0; d < n; d++) {
    if (d % 97 === 5) { out.push({ title: '', abstract: '' }); continue; }
    if (d % 89 === 7 && d > 10) { out.push(out[d - 3]); continue; }
    const len = 3 + Math.floor(r() * 40);
    const ws: string[] = [];
    for (let i = 0; i < len; i++) ws.push(words[Math.floor(words.length * r() ** 3)]);
    if (d === 11) for (let i = 0; i < 300; i++) ws.push(words[3]);
    out.push({ title: ws.slice(0, 4).join(' '), abstract: ws.slice(4).join(' ') });
  }
  return out;
}

function sample(n: number, size: number, r: () => number): Uint32Array {
  const s = new Set<number>();
  while (s.size < size) s.add(Math.floor(r() * n));
  return Uint32Array.from(s).sort();
}

function assertSame(a: RankedLists, b: RankedLists, what: string) {
  assert.deepEqual(a.offsets, b.offsets, `${what}: list lengths`);
  assert.deepEqual(a.docs, b.docs, `${what}: documents`);
  assert.deepEqual(new Uint32Array(a.scores.buffer, a.scores.byteOffset, a.scores.length), new Uint32Array(b.scores.buffer, b.scores.byteOffset, b.scores.length), `${what}: scores (bits)`);
}

test('each pool\'s own index gives the corpus index\'s lists: pools, candidates, lengths, tie keys, threads', async () => {
  const N = 3000;
  const src = new InMemoryTexts(texts(N, 7));
  const corpus = await buildIndex(src, { chunkDocs: 700 });
  const r = rng(11);
  const tieKey = Uint32Array.from({ length: N }, () => Math.floor(r() * 1e9));
  const small = sample(N, 400, r);
  const large = sample(N, Math.ceil(SLICE_BELOW * N) + 300, r);
  const queries = sample(N, 60, r);
  const pools = new PoolIndexes(src);
  // Worker threads start per search: two of the combinations run on them.
  const combos = [[false, undefined, 1], [false, tieKey, 1], [true, undefined, 1], [true, tieKey, 1], [false, tieKey, 2], [true, undefined, 2]] as const;
  for (const [accurate, key, threads] of combos) {
    const opts = { params: { k1: 1.2, b: 0.75, accurate }, tieKey: key, threads };
    const whole = new Bm25Retriever(corpus, src, opts);
    const own = new Bm25Retriever(pools, src, opts);
    const what = `accurate ${accurate}, tie key ${!!key}, threads ${threads}`;
    for (const [name, pool] of [['small pool', small], ['large pool', large], ['no pool', undefined]] as const) {
      const req = { queries, pool, k: 50 };
      assertSame(await own.search(req), await whole.search(req), `${what}, ${name}`);
    }
    // Fixed candidates (MDCR, re-ranking): some outside the pool, a repeat, the query itself.
    const candidates = Array.from(queries, (q, i) => {
      const c = Array.from(small.subarray(i, i + 30));
      c.push(q, (q * 7 + 13) % N, c[0]);
      return Uint32Array.from(c);
    });
    for (const excludeSelf of [true, false]) {
      const req = { queries, pool: small, candidates, k: 40, excludeSelf };
      assertSame(await own.search(req), await whole.search(req), `${what}, candidates, excludeSelf ${excludeSelf}`);
    }
  }
  // One index per distinct document set, kept while the same pool is searched: small, large, all, small ∪ candidates.
  assert.ok(pools.builds >= 4, `${pools.builds} builds`);
  const before = pools.builds;
  await new Bm25Retriever(pools, src).search({ queries, pool: Uint32Array.from(large), k: 5 });
  await new Bm25Retriever(pools, src).search({ queries, pool: large, k: 5 });
  assert.equal(pools.builds, before + 1, 'the same pool (an equal copy) is indexed once');
});

test('poolWithCandidates: the pool itself when every candidate is in it, else the sorted union', () => {
  const pool = Uint32Array.of(2, 5, 9);
  assert.equal(poolWithCandidates(pool, [Uint32Array.of(5, 2)]), pool);
  assert.deepEqual(poolWithCandidates(pool, [Uint32Array.of(7, 5), Uint32Array.of(1, 7)]), Uint32Array.of(1, 2, 5, 7, 9));
});

test('pool indexes built by child processes from a store equal the in-thread build; a sparse Profiler is refused', async () => {
  const root = mkdtempSync(join(tmpdir(), 'cb-poolix-'));
  try {
    await synthesize({ ...SYNTH_DEFAULTS, articles: 2500, seed: 3, shardSize: 2500 }, join(root, 'shards'));
    await buildCorpusStore({ input: join(root, 'shards'), out: join(root, 'store'), prefilter: PAPER_PREFILTER });
    const store = CorpusStore.open(join(root, 'store'));
    const r = rng(5);
    const pool = sample(store.size, Math.floor(store.size / 3), r);
    const queries = sample(store.size, 40, r);
    const corpus = await buildIndex(store);
    const onThreads = new PoolIndexes(store, { threads: 2, storeDir: join(root, 'store'), scratchDir: root });
    const inThread = new PoolIndexes(store);
    const opts = { tieKey: store.idOrder, threads: 2 };
    const want = await new Bm25Retriever(corpus, store, opts).search({ queries, pool, k: 100 });
    assertSame(await new Bm25Retriever(onThreads, store, opts).search({ queries, pool, k: 100 }), want, 'processes');
    assertSame(await new Bm25Retriever(inThread, store, opts).search({ queries, pool, k: 100 }), want, 'one thread');
    // The fingerprint names the texts, not a pool: the same for both, and another for the corpus index.
    assert.equal(new Bm25Retriever(onThreads, store).fingerprint, new Bm25Retriever(inThread, store).fingerprint);
    assert.notEqual(new Bm25Retriever(onThreads, store).fingerprint, new Bm25Retriever(corpus, store).fingerprint);
    assert.throws(() => new Bm25Retriever(onThreads, store).termIndex, /sparse Profiler needs the corpus's BM25 index/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a pool\'s texts read in dense stretches by the sequential scan and sparse ones one by one are the same texts', () => {
  const src = new InMemoryTexts(texts(500, 3));
  for (const docs of [Uint32Array.of(1, 2, 4, 5, 9, 10, 11), Uint32Array.of(0, 90, 91, 400, 499), Uint32Array.of(7)]) {
    const view = new SubsetTexts(src, docs);
    for (const [from, to] of [[0, docs.length], [1, docs.length - 1], [2, 2]]) {
      const got = [...view.texts(from, to)];
      assert.deepEqual(got, Array.from(docs.subarray(from, to), (d, i) => ({ index: from + i, ...src.text(d) })), `${docs} [${from}, ${to})`);
    }
  }
});
