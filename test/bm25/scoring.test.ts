import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryTexts, type ArticleText } from '../../src/corpus/article.ts';
import { EnglishAnalyzer, queryTermIds } from '../../src/retrieval/bm25/analyzer.ts';
import { buildIndex } from '../../src/retrieval/bm25/index.ts';
import { loadIndex, saveIndex, termIdMap, postingTf, type Bm25Index } from '../../src/retrieval/bm25/index-format.ts';
import { PoolStats, type Bm25Params } from '../../src/retrieval/bm25/pool-stats.ts';
import { QueryScorer } from '../../src/retrieval/bm25/query-scorer.ts';
import { slicePool } from '../../src/retrieval/bm25/pool-slice.ts';
import { searchBatch, indexCopyBytes, processCopiesFit, SearchProcesses, startSearchProcesses } from '../../src/retrieval/bm25/parallel.ts';
import type { ChildProcess } from 'node:child_process';
import { Bm25Retriever } from '../../src/retrieval/bm25/retriever.ts';
import { byte4ToInt, intToByte4 } from '../../src/retrieval/bm25/norms.ts';
import { writeRun } from '../../src/eval/trec-write.ts';
import { readFileSync } from 'node:fs';

// Words the analyzer leaves as they are (no stop word, Porter-stable), so the test can count terms by hand.
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'zeta', 'kappa', 'sigma'];

function doc(counts: Record<string, number>): ArticleText {
  const toks: string[] = [];
  for (const [w, c] of Object.entries(counts)) for (let i = 0; i < c; i++) toks.push(w);
  return { title: toks.slice(0, 2).join(' '), abstract: toks.slice(2).join(' ') };
}

/** Deterministic pseudo-random generator (mulberry32). */
function rng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomCorpus(n: number, seed: number): ArticleText[] {
  const r = rng(seed);
  const vocab = Array.from({ length: 60 }, (_, i) => `w${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}x`);
  const out: ArticleText[] = [];
  for (let d = 0; d < n; d++) {
    const len = 1 + Math.floor(r() * r() * 200); // lengths from 1 to ~200: both exact and lossy norm ranges
    const toks: string[] = [];
    for (let i = 0; i < len; i++) toks.push(vocab[Math.floor(vocab.length * r() * r())]); // skewed frequencies
    out.push({ title: toks[0], abstract: toks.slice(1).join(' ') });
  }
  out[7] = { title: 'the and of', abstract: '' }; // a document without any term
  return out;
}

function searchTexts(ix: Bm25Index, params: Bm25Params, queries: string[], k: number, pool?: Uint32Array, tieKey?: Uint32Array) {
  const stats = new PoolStats(ix, params, pool);
  const scorer = new QueryScorer(stats.arrays(tieKey ?? null));
  const an = new EnglishAnalyzer();
  const vocab = termIdMap(ix.terms);
  return queries.map((q) => scorer.search(stats.prepare(queryTermIds(an, vocab, q)), k));
}

test('SmallFloat norms: exact below 24, 4 significant bits above (rounded down)', async () => {
  const expect: [number, number][] = [[0, 0], [1, 1], [23, 23], [24, 24], [100, 96], [150, 144], [300, 280], [500, 472], [1000, 984]];
  for (const [len, dec] of expect) assert.equal(byte4ToInt(intToByte4(len)), dec, `length ${len}`);
  for (let len = 0; len < 5000; len++) {
    const dec = byte4ToInt(intToByte4(len));
    assert.ok(dec <= len && dec >= len * 0.87, `length ${len} decodes to ${dec}`);
  }
});

for (const accurate of [false, true]) {
  test(`hand-made corpus: scores equal the BM25 formula computed independently (${accurate ? 'accurate' : 'lossy'} lengths)`, async () => {
    const docs = [
      doc({ alpha: 1, beta: 2 }), // length 3
      doc({ alpha: 3, gamma: 58 }), // length 61: lossy = 60
      doc({ beta: 60, delta: 40 }), // length 100: lossy = 96
      doc({ alpha: 1, omega: 149 }), // length 150: lossy = 144
      doc({ zeta: 5, kappa: 5, sigma: 290 }), // length 300: lossy = 280
      doc({ gamma: 1 }),
    ];
    const lossy: Record<number, number> = { 3: 3, 61: 60, 100: 96, 150: 144, 300: 280, 1: 1 };
    const lens = [3, 61, 100, 150, 300, 1];
    const ix = await buildIndex(new InMemoryTexts(docs));
    assert.deepEqual([...ix.lengths], lens);
    const k1 = 1.2;
    const b = 0.75;
    const params = { k1, b, accurate };
    const query = 'alpha alpha beta gamma sigma unknownword';
    const [got] = searchTexts(ix, params, [query], 10);
    // Independent computation in double precision from the definitions.
    const N = docs.length;
    const avgdl = lens.reduce((s, x) => s + x, 0) / N;
    const tf = (d: number, w: string) => (docs[d].title + ' ' + docs[d].abstract).split(' ').filter((x) => x === w).length;
    const qCounts: Record<string, number> = { alpha: 2, beta: 1, gamma: 1, sigma: 1 };
    const expected = docs.map((_, d) => {
      const dl = accurate ? lens[d] : lossy[lens[d]];
      let s = 0;
      for (const [w, c] of Object.entries(qCounts)) {
        const f = tf(d, w);
        if (f === 0) continue;
        const df = docs.filter((_, e) => tf(e, w) > 0).length;
        const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
        s += c * idf * (f / (f + k1 * (1 - b + (b * dl) / avgdl)));
      }
      return s;
    });
    const order = expected.map((s, d) => [s, d]).filter((x) => x[0] > 0).sort((x, y) => y[0] - x[0]);
    assert.deepEqual([...got.docs], order.map((x) => x[1]));
    for (let r = 0; r < order.length; r++) {
      const rel = Math.abs(got.scores[r] - order[r][0]) / order[r][0];
      assert.ok(rel < 1e-6, `doc ${order[r][1]}: ${got.scores[r]} vs ${order[r][0]}`);
    }
    // The two length modes really differ where lengths are ≥ 24.
    const [other] = searchTexts(ix, { ...params, accurate: !accurate }, [query], 10);
    assert.notDeepEqual([...other.scores], [...got.scores]);
  });
}

for (const accurate of [false, true]) {
  test(`pool search equals an index built on the pool alone (${accurate ? 'accurate' : 'lossy'})`, async () => {
    const corpus = randomCorpus(600, 11);
    const r = rng(5);
    const poolList: number[] = [];
    for (let d = 0; d < corpus.length; d++) if (r() < 0.35 || d === 7) poolList.push(d);
    const pool = Uint32Array.from(poolList);
    const full = await buildIndex(new InMemoryTexts(corpus), { chunkDocs: 128 });
    const alone = await buildIndex(new InMemoryTexts(poolList.map((d) => corpus[d])));
    const queries = Array.from({ length: 40 }, (_, i) => corpus[(i * 37) % corpus.length].title + ' ' + corpus[(i * 53 + 1) % corpus.length].abstract.split(' ').slice(0, 30).join(' '));
    const params = { k1: 0.9, b: 0.4, accurate };
    const statsFull = new PoolStats(full, params, pool);
    const statsAlone = new PoolStats(alone, params);
    assert.equal(statsFull.N, statsAlone.N);
    assert.equal(statsFull.avgdl, statsAlone.avgdl);
    const a = searchTexts(full, params, queries, 50, pool);
    // Same tie order: the pool-alone index breaks ties by the original corpus index.
    const b = searchTexts(alone, params, queries, 50, undefined, pool);
    let compared = 0;
    for (let q = 0; q < queries.length; q++) {
      assert.deepEqual([...a[q].docs], [...b[q].docs].map((d) => pool[d]), `query ${q} docs`);
      assert.deepEqual([...a[q].scores], [...b[q].scores], `query ${q} scores (bit-identical)`);
      for (const d of a[q].docs) assert.ok(poolList.includes(d));
      compared += a[q].docs.length;
    }
    assert.ok(compared > 1000);
    // And the pool's statistics differ from the whole corpus's (otherwise the test proves nothing).
    const whole = searchTexts(full, params, queries, 50);
    assert.notDeepEqual(whole.map((x) => [...x.scores]), a.map((x) => [...x.scores]));
  });
}

test('ties are broken like trec_eval: equal scores ranked by docno descending (tie key = idOrder)', async () => {
  const ids = ['p9', 'p10', 'p2', 'p11', 'p1', 'p3'];
  const texts = ids.map(() => ({ title: 'alpha beta', abstract: '' }));
  texts[4] = { title: 'alpha alpha beta', abstract: '' };
  const ix = await buildIndex(new InMemoryTexts(texts));
  const sorted = [...ids].sort();
  const idOrder = Uint32Array.from(ids, (id) => sorted.indexOf(id)); // byte order rank, like CorpusStore.idOrder
  const [all] = searchTexts(ix, { k1: 0.9, b: 0.4, accurate: false }, ['alpha'], 10, undefined, idOrder);
  assert.deepEqual([...all.docs].map((d) => ids[d]), ['p1', 'p9', 'p3', 'p2', 'p11', 'p10']);
  // At the cut-off, the tie group keeps its highest docnos.
  const [top3] = searchTexts(ix, { k1: 0.9, b: 0.4, accurate: false }, ['alpha'], 3, undefined, idOrder);
  assert.deepEqual([...top3.docs].map((d) => ids[d]), ['p1', 'p9', 'p3']);
  // The eval module's TREC writer orders the run the same way trec_eval will read it.
  const dir = mkdtempSync(join(tmpdir(), 'bm25-ties-'));
  try {
    writeRun(join(dir, 'run'), {
      qids: ['q'], docnos: (d) => ids[d], tag: 't',
      run: { offsets: Uint32Array.of(0, all.docs.length), docs: all.docs, scores: all.scores },
    });
    const written = readFileSync(join(dir, 'run'), 'utf8').trim().split('\n').map((l) => l.split(' ')[2]);
    assert.deepEqual(written, [...all.docs].map((d) => ids[d]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('query article excluded; candidates ranked with the pool statistics', async () => {
  const corpus = randomCorpus(300, 3);
  const ix = await buildIndex(new InMemoryTexts(corpus));
  const ret = new Bm25Retriever(ix, new InMemoryTexts(corpus));
  const queries = Uint32Array.of(0, 1, 2, 50);
  const res = await ret.search({ queries, k: 20 });
  for (let q = 0; q < queries.length; q++) {
    const list = res.docs.subarray(res.offsets[q], res.offsets[q + 1]);
    assert.equal(list.length, 20);
    assert.ok(!list.includes(queries[q]), `query ${queries[q]} excluded from its own list`);
  }
  const withSelf = await ret.search({ queries, k: 300, excludeSelf: false });
  assert.ok(withSelf.docs.subarray(withSelf.offsets[0], withSelf.offsets[1]).includes(0), 'kept when excludeSelf is false');
  // Candidates: exactly those documents, scored as in the full search (whole-corpus statistics).
  const cands = [Uint32Array.of(5, 9, 7, 0, 120), Uint32Array.of(3), Uint32Array.of(8, 9), Uint32Array.of(1, 2, 3)];
  const full = await ret.search({ queries, k: 300, excludeSelf: false });
  const cres = await ret.search({ queries, k: 10, candidates: cands });
  for (let q = 0; q < queries.length; q++) {
    const docs = [...cres.docs.subarray(cres.offsets[q], cres.offsets[q + 1])];
    const expect = [...cands[q]].filter((d) => d !== queries[q]);
    assert.deepEqual([...docs].sort((a, b) => a - b), expect.sort((a, b) => a - b));
    for (let i = cres.offsets[q]; i < cres.offsets[q + 1]; i++) {
      const d = cres.docs[i];
      const at = full.docs.subarray(full.offsets[q], full.offsets[q + 1]).indexOf(d);
      const fullScore = at >= 0 ? full.scores[full.offsets[q] + at] : 0;
      assert.equal(cres.scores[i], fullScore, `query ${q} candidate ${d}`);
    }
  }
});

test('worker-thread and child-process search equal single-thread search', async () => {
  const corpus = randomCorpus(2000, 9);
  const ix = await buildIndex(new InMemoryTexts(corpus));
  const stats = new PoolStats(ix, { k1: 0.9, b: 0.4, accurate: false }, Uint32Array.from({ length: 1500 }, (_, i) => i + 300));
  const an = new EnglishAnalyzer();
  const vocab = termIdMap(ix.terms);
  const queries = Array.from({ length: 100 }, (_, i) => stats.prepare(queryTermIds(an, vocab, corpus[i * 13].abstract)));
  const exclude = Int32Array.from({ length: 100 }, (_, i) => i * 13);
  const one = await searchBatch(stats.arrays(null), { queries, k: 100, exclude, threads: 1 });
  const two = await searchBatch(stats.arrays(null), { queries, k: 100, exclude, threads: 2 });
  assert.deepEqual(two, one);
  // Child processes loading the saved index give the same lists too.
  const dir = mkdtempSync(join(tmpdir(), 'bm25-procs-'));
  try {
    saveIndex(ix, join(dir, 'index'));
    const modes: string[] = [];
    const procs = await searchBatch(stats.arrays(null), { queries, k: 100, exclude, threads: 2, indexDir: join(dir, 'index'), onMode: (m) => modes.push(m) });
    assert.deepEqual(procs, one);
    // Two copies of the index (this process, which searches too, + 1 child) beyond the memory budget: worker
    // threads share one.
    const bytes = indexCopyBytes(stats.arrays(null));
    assert.equal(bytes, ix.offsets.byteLength + ix.docs.byteLength + ix.tfNorms.byteLength + ix.tfBigPos.byteLength + ix.tfBigVal.byteLength);
    assert.ok(processCopiesFit(bytes, 2, 3 * bytes) && !processCopiesFit(bytes, 2, 3 * bytes - 1));
    const fits = await searchBatch(stats.arrays(null), { queries, k: 100, exclude, threads: 2, indexDir: join(dir, 'index'), memoryBudget: 2 * bytes, onMode: (m) => modes.push(m) });
    assert.deepEqual(fits, one);
    const tight = await searchBatch(stats.arrays(null), { queries, k: 100, exclude, threads: 2, indexDir: join(dir, 'index'), memoryBudget: 2 * bytes - 1, onMode: (m) => modes.push(m) });
    assert.deepEqual(tight, one);
    assert.deepEqual(modes, ['processes', 'processes', 'threads']);
    // Processes started ahead (bm25 search starts them before reading its inputs): the next process-mode
    // search of that index takes them and ends the ones it does not need; a search in another mode ends them all.
    const exited = (c: ChildProcess) => new Promise<void>((res, rej) => {
      if (c.exitCode !== null || c.signalCode !== null) return res();
      const timer = setTimeout(() => rej(new Error(`process ${c.pid} was not ended`)), 20_000);
      c.once('exit', () => (clearTimeout(timer), res()));
    });
    const ahead = startSearchProcesses(join(dir, 'index'), 3);
    assert.deepEqual(await searchBatch(stats.arrays(null), { queries, k: 100, exclude, threads: 2, indexDir: join(dir, 'index') }), one);
    assert.deepEqual(ahead.map((c) => c.listenerCount('message') > 0), [true, false, false], 'the search took the first process started ahead');
    await Promise.all(ahead.map(exited));
    for (const opts of [{ threads: 1 }, { threads: 2, memoryBudget: 2 * bytes - 1 }]) {
      const idle = startSearchProcesses(join(dir, 'index'), 1);
      assert.deepEqual(await searchBatch(stats.arrays(null), { queries, k: 100, exclude, indexDir: join(dir, 'index'), ...opts }), one);
      await exited(idle[0]); // ended, not left holding the index
      assert.equal(idle[0].listenerCount('message'), 0, JSON.stringify(opts));
    }
    // Queries prepared one by one as their batches are handed out: the same lists, each query prepared once; a
    // query that cannot be prepared (the 70th) stops the searchers and rejects.
    for (const opts of [{ threads: 1 }, { threads: 2 }, { threads: 2, indexDir: join(dir, 'index') }]) {
      const prepared = new Array<number>(100).fill(0);
      const lazy = await searchBatch(stats.arrays(null), { queries: (q) => (prepared[q]++, queries[q]), queryCount: 100, k: 100, exclude, ...opts });
      assert.deepEqual(lazy, one, JSON.stringify(opts));
      assert.deepEqual(prepared, new Array<number>(100).fill(1));
      await assert.rejects(
        searchBatch(stats.arrays(null), { queries: (q) => { if (q === 70) throw new Error('bad query text'); return queries[q]; }, queryCount: 100, k: 100, ...opts }),
        /bad query text/,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.ok(one.offsets[100] > 9000, `only ${one.offsets[100]} results`);
});

test('index save/load round trip, resumable chunked build, tf ≥ 255', async () => {
  const corpus = randomCorpus(500, 21);
  corpus[3] = { title: 'zeta', abstract: Array(300).fill('omega').join(' ') }; // tf 300 needs the escape
  const dir = mkdtempSync(join(tmpdir(), 'bm25-index-'));
  try {
    const ix = await buildIndex(new InMemoryTexts(corpus), { chunkDocs: 100 });
    const omega = termIdMap(ix.terms).get('omega')!;
    const p = ix.docs.subarray(ix.offsets[omega], ix.offsets[omega + 1]).indexOf(3) + ix.offsets[omega];
    assert.equal(postingTf(ix, p), 300);
    saveIndex(ix, join(dir, 'index'));
    const back = loadIndex(join(dir, 'index'));
    assert.deepEqual(back.terms, ix.terms);
    for (const key of ['offsets', 'docs', 'tfNorms', 'tfBigPos', 'tfBigVal', 'lengths'] as const) {
      assert.deepEqual([...back[key]], [...ix[key]], key);
    }
    assert.ok(back.docs.buffer instanceof SharedArrayBuffer);
    const qs = [corpus[3].abstract.slice(0, 50), corpus[10].abstract];
    assert.deepEqual(searchTexts(back, { k1: 0.9, b: 0.4, accurate: false }, qs, 20), searchTexts(ix, { k1: 0.9, b: 0.4, accurate: false }, qs, 20));
    // Resumable build: chunk files on disk; the chunks a kill lost are rebuilt, the finished prefix reused.
    const work = join(dir, 'work');
    const failing = new InMemoryTexts(corpus);
    const texts = failing.texts.bind(failing);
    failing.texts = function* (from?: number, to?: number) {
      if ((from ?? 0) >= 400) throw new Error('killed while analysing chunk 4');
      yield* texts(from, to);
    };
    await assert.rejects(buildIndex(failing, { chunkDocs: 100, workDir: work }), /killed/);
    assert.ok(existsSync(join(work, 'chunk-00003.json')) && !existsSync(join(work, 'chunk-00004.json')));
    let reads = 0;
    const counting = new InMemoryTexts(corpus);
    const orig = counting.texts.bind(counting);
    counting.texts = function* (from?: number, to?: number) {
      for (const t of orig(from, to)) {
        reads++;
        yield t;
      }
    };
    const resumed = await buildIndex(counting, { chunkDocs: 100, workDir: work });
    assert.equal(reads, 100, 'only the lost chunk was re-analysed');
    assert.deepEqual(resumed, ix);
    assert.ok(!existsSync(work), 'the chunk files are deleted once merged');
    // Worker threads (chunks built in parallel, merged in chunk order) give the identical index.
    assert.deepEqual(await buildIndex(new InMemoryTexts(corpus), { chunkDocs: 60, threads: 2 }), await buildIndex(new InMemoryTexts(corpus), { chunkDocs: 60 }));
    const work2 = join(dir, 'work2');
    const par = await buildIndex(new InMemoryTexts(corpus), { chunkDocs: 100, workDir: work2, threads: 3 });
    assert.deepEqual(par, ix);
    assert.ok(!existsSync(work2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('lossy scoring: tables, accumulator blocks and candidates give the same floats as the plain path', async () => {
  const corpus = randomCorpus(3000, 17);
  corpus[5] = { title: 'wax', abstract: Array(40).fill('wax').join(' ') }; // tf above the table range
  const ix = await buildIndex(new InMemoryTexts(corpus));
  const an = new EnglishAnalyzer();
  const vocab = termIdMap(ix.terms);
  for (const pool of [undefined, Uint32Array.from({ length: 1000 }, (_, i) => i * 3)]) {
    const stats = new PoolStats(ix, { k1: 1.1, b: 0.6, accurate: false }, pool);
    const direct = new QueryScorer(stats.arrays(null), Infinity);
    const tabled = new QueryScorer(stats.arrays(null), 0);
    const blocked = new QueryScorer(stats.arrays(null), 0, 100); // 30 accumulator blocks
    const tinyBlocks = new QueryScorer(stats.arrays(null), Infinity, 7);
    for (let q = 0; q < 50; q++) {
      const pq = stats.prepare(queryTermIds(an, vocab, corpus[q * 7].abstract + ' wax'));
      const expect = direct.search(pq, 200, q * 7);
      assert.deepEqual(tabled.search(pq, 200, q * 7), expect, `query ${q}`);
      assert.deepEqual(blocked.search(pq, 200, q * 7), expect, `query ${q}, blocks of 100`);
      assert.deepEqual(tinyBlocks.search(pq, 200, q * 7), expect, `query ${q}, blocks of 7`);
      const cands = Uint32Array.from({ length: 40 }, (_, i) => (i * 71 + q) % 3000);
      assert.deepEqual(blocked.search(pq, 30, q * 7, cands), direct.search(pq, 30, q * 7, cands), `query ${q}, candidates`);
    }
  }
});

test('fixed candidates (looked up in their terms\' postings) are ranked as the full sweep ranks them, in both length modes', async () => {
  const corpus = randomCorpus(2000, 41);
  corpus[9] = { title: 'wax', abstract: Array(300).fill('wax').join(' ') }; // tf ≥ 255: stored beside the postings
  const ix = await buildIndex(new InMemoryTexts(corpus));
  const an = new EnglishAnalyzer();
  const vocab = termIdMap(ix.terms);
  const r = rng(8);
  for (const accurate of [false, true]) {
    for (const pool of [undefined, Uint32Array.from({ length: 700 }, (_, i) => i * 2 + 1)]) {
      const stats = new PoolStats(ix, { k1: 1.2, b: 0.75, accurate }, pool);
      const scorer = new QueryScorer(stats.arrays(null));
      for (let q = 0; q < 30; q++) {
        const pq = stats.prepare(queryTermIds(an, vocab, corpus[q * 13].abstract + (q % 2 ? ' wax' : '')));
        // Candidates inside and outside the pool, repeated, the excluded query article and the tf ≥ 255 one.
        const cands = Uint32Array.from([9, q * 13, q * 13, ...Array.from({ length: 60 }, () => Math.floor(r() * 2000))]);
        const got = scorer.search(pq, 40, q * 13, cands);
        // Expected: the whole corpus swept without a pool (member null) under the same statistics, every
        // document ranked, filtered to the candidates; those no term reached follow with score 0, higher index first.
        const full = new QueryScorer({ ...stats.arrays(null), member: null }).search(pq, 2000, q * 13);
        const want = new Set([...cands].filter((d) => d !== q * 13));
        const ranked = [...full.docs].map((d, i) => [d, full.scores[i]] as const).filter(([d]) => want.has(d));
        const zero = [...want].filter((d) => !ranked.some(([x]) => x === d)).sort((a, b) => b - a).map((d) => [d, 0] as const);
        const expect = [...ranked, ...zero].slice(0, 40);
        assert.deepEqual([...got.docs], expect.map(([d]) => d), `accurate ${accurate}, pool ${!!pool}, query ${q}: documents`);
        assert.deepEqual([...got.scores], expect.map(([, sc]) => Math.fround(sc)), `accurate ${accurate}, pool ${!!pool}, query ${q}: scores`);
      }
    }
  }
});

const withTieKey = (stats: PoolStats, tieKey: Uint32Array) => stats.arrays(tieKey);

test('a small pool searched over its own postings (slicePool) gives the whole-index sweep\'s lists, bit for bit', async () => {
  const corpus = randomCorpus(3000, 23);
  corpus[6] = { title: 'wax', abstract: Array(300).fill('wax').join(' ') }; // tf ≥ 255: stored beside the postings
  corpus[12] = { title: 'wax wax', abstract: Array(280).fill('wax').join(' ') };
  const ix = await buildIndex(new InMemoryTexts(corpus));
  const an = new EnglishAnalyzer();
  const vocab = termIdMap(ix.terms);
  const r = rng(5);
  const tieKey = Uint32Array.from({ length: 3000 }, () => Math.floor(r() * 50)); // many equal keys: ties matter
  const dir = mkdtempSync(join(tmpdir(), 'bm25-slice-'));
  const processes = new SearchProcesses(join(dir, 'index'));
  try {
    saveIndex(ix, join(dir, 'index'));
    for (const accurate of [false, true]) {
      for (const size of [40, 400, 1400]) {
        const pool = Uint32Array.from(new Set([6, 12, ...Array.from({ length: size }, () => Math.floor(r() * 3000))])).sort();
        const stats = new PoolStats(ix, { k1: 0.9, b: 0.4, accurate }, pool);
        const whole = stats.arrays(tieKey);
        const sliced = slicePool(whole);
        assert.notEqual(sliced, whole, 'pools under half the index are sliced');
        assert.equal(sliced.member, null);
        let inPool = 0;
        for (const d of whole.docs) inPool += whole.member![d];
        assert.equal(sliced.docs.length, inPool, 'exactly the member postings');
        assert.ok(sliced.tfBigPos.length >= 2, 'the tf ≥ 255 postings came along');
        assert.equal(sliced.docCount, pool.length, 'the pool numbered as an index of its own');
        assert.deepEqual([...sliced.poolDocs!], [...pool]);
        // Allocated from the members' tokens, or from a count of the postings where they are not given.
        const counted_ = slicePool({ ...whole, member: Uint8Array.from(whole.member!), poolTokens: undefined });
        for (const k of ['offsets', 'docs', 'tfNorms', 'tfBigPos', 'tfBigVal', 'poolDocs'] as const) assert.deepEqual(counted_[k], sliced[k], k);
        assert.throws(() => slicePool({ ...whole, member: Uint8Array.from(whole.member!), poolTokens: inPool - 1 }), /exceed its .* tokens \(damaged index files\)/);
        // Document frequencies read off the slice equal those counted over the whole index's postings.
        const counted = new PoolStats(ix, { k1: 0.9, b: 0.4, accurate }, pool);
        for (let t = 0; t < ix.terms.length; t++) assert.equal(stats.df(t), counted.df(t), `df of ${ix.terms[t]}`);
        const a = new QueryScorer(whole);
        const b = new QueryScorer(sliced);
        const queries = Array.from({ length: 40 }, (_, i) => stats.prepare(queryTermIds(an, vocab, corpus[i * 31].abstract + (i % 3 ? ' wax' : ''))));
        const exclude = Int32Array.from({ length: 40 }, (_, i) => (i % 2 ? pool[i % pool.length] : i * 31));
        const plain = queries.map((q, i) => a.search(q, 100, exclude[i]));
        queries.forEach((q, i) => assert.deepEqual(b.search(q, 100, exclude[i]), plain[i], `accurate ${accurate}, pool ${pool.length}, query ${i}`));
        // searchBatch slices on its own (one thread, worker threads, child processes that load the index).
        const want = { offsets: new Uint32Array(41), docs: Uint32Array.from(plain.flatMap((p) => [...p.docs])), scores: Float32Array.from(plain.flatMap((p) => [...p.scores])) };
        plain.forEach((p, i) => (want.offsets[i + 1] = want.offsets[i] + p.docs.length));
        for (const opts of [{ threads: 1 }, { threads: 2 }, { threads: 2, indexDir: join(dir, 'index') }, { threads: 2, processes }])
          assert.deepEqual(await searchBatch(whole, { queries, k: 100, exclude, ...opts }), want, `searchBatch ${JSON.stringify({ ...opts, processes: !!opts.processes })}, pool ${pool.length}`);
      }
    }
    assert.equal(processes.started, 2, 'the persistent processes loaded the index once for all six pools');
    const bigStats = new PoolStats(ix, { k1: 0.9, b: 0.4, accurate: false }, Uint32Array.from({ length: 1600 }, (_, i) => i));
    const big = bigStats.arrays(null);
    assert.equal(slicePool(big), big, 'a pool of half the index or more keeps the whole-index postings');
    // The same processes on an unsliced pool with another tie key (none), then after one of them died.
    const queries = Array.from({ length: 30 }, (_, i) => bigStats.prepare(queryTermIds(an, vocab, corpus[i * 7].abstract)));
    const want = await searchBatch(big, { queries, k: 50, threads: 1 });
    assert.deepEqual(await searchBatch(big, { queries, k: 50, threads: 2, processes }), want);
    (processes as unknown as { procs: { kill(): void }[] }).procs[0].kill();
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(await searchBatch(withTieKey(bigStats, tieKey), { queries, k: 50, threads: 2, processes }), await searchBatch(withTieKey(bigStats, tieKey), { queries, k: 50, threads: 1 }));
    assert.equal(processes.started, 3, 'a dead process is replaced, the live one kept');
  } finally {
    processes.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
