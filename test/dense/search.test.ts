import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exactSearch } from '../../src/retrieval/dense/search.ts';
import { exactSearchMulti } from '../../src/retrieval/dense/multi-vector.ts';
import { kthLargest } from '../../src/util/select.ts';
import type { PoolHits } from '../../src/retrieval/dense/hits.ts';

/** Deterministic pseudo-random floats (LCG), so failures reproduce. */
function rand(n: number, seed: number, scale = 1): Float32Array {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = ((s / 2 ** 32) * 2 - 1) * scale;
  }
  return out;
}

/** The reference: every pair scored in float64, ordered by (float32 score desc, position asc). */
function brute(
  qv: Float32Array,
  qOff: Uint32Array,
  pv: Float32Array,
  pOff: Uint32Array,
  d: number,
  k: number,
  l2: boolean,
  exclude?: Int32Array,
  tie?: (p: number) => number,
): { pos: number[]; score: number[] }[] {
  const nq = qOff.length - 1;
  const np = pOff.length - 1;
  const out = [];
  for (let q = 0; q < nq; q++) {
    const cand: { p: number; s: number }[] = [];
    for (let p = 0; p < np; p++) {
      if (exclude && exclude[q] === p) continue;
      let best = -Infinity;
      for (let r = qOff[q]; r < qOff[q + 1]; r++)
        for (let c = pOff[p]; c < pOff[p + 1]; c++) {
          let a = 0;
          for (let j = 0; j < d; j++) {
            const x = qv[r * d + j];
            const y = pv[c * d + j];
            a += l2 ? -(x - y) * (x - y) : x * y;
          }
          best = Math.max(best, a);
        }
      cand.push({ p, s: Math.fround(best) });
    }
    cand.sort((a, b) => b.s - a.s || (tie ? tie(a.p) - tie(b.p) : a.p - b.p));
    const top = cand.slice(0, k);
    out.push({ pos: top.map((c) => c.p), score: top.map((c) => c.s) });
  }
  return out;
}

function asLists(h: PoolHits) {
  const out = [];
  for (let q = 0; q + 1 < h.offsets.length; q++) {
    out.push({
      pos: Array.from(h.positions.subarray(h.offsets[q], h.offsets[q + 1])),
      score: Array.from(h.scores.subarray(h.offsets[q], h.offsets[q + 1])),
    });
  }
  return out;
}

const ident = (n: number) => Uint32Array.from({ length: n + 1 }, (_, i) => i);

test('kthLargest finds the m-th largest value', () => {
  const a = rand(1001, 7);
  const sorted = Array.from(a).sort((x, y) => y - x);
  for (const m of [1, 2, 500, 1000, 1001]) assert.equal(kthLargest(Float32Array.from(a), m), sorted[m - 1]);
});

for (const distance of ['l2', 'ip'] as const) {
  test(`exact search (${distance}) equals a float64 brute force, over several pool blocks`, async () => {
    const d = 24;
    const np = 700;
    const nq = 13;
    const pool = rand(np * d, 1);
    const queries = rand(nq * d, 2);
    for (const selection of ['js', 'ort'] as const) {
      for (const k of [1, 10, 150]) {
        const hits = await exactSearch(queries, pool, d, { k, distance, poolBlock: 256, queryBlock: 5, selection });
        assert.deepEqual(asLists(hits), brute(queries, ident(nq), pool, ident(np), d, k, distance === 'l2'));
      }
    }
  });
}

test('exact search on worker threads (shared pool, one session each) equals the single-session search', async () => {
  const d = 32;
  const np = 900;
  const nq = 40;
  const pool = new Float32Array(new SharedArrayBuffer(np * d * 4));
  pool.set(rand(np * d, 11));
  const queries = rand(nq * d, 12);
  const exclude = Int32Array.from({ length: nq }, (_, q) => (q * 7) % np);
  for (const distance of ['l2', 'ip'] as const) {
    let progress = 0;
    const par = await exactSearch(queries, pool, d, { k: 60, distance, exclude, queryBlock: 8, poolBlock: 300, threads: 2, onProgress: (n) => (progress = n) });
    const sharedQueries = new Float32Array(new SharedArrayBuffer(queries.byteLength));
    sharedQueries.set(queries); // shared memory on the single-session path too (tensors are built from copies)
    const one = await exactSearch(sharedQueries, pool, d, { k: 60, distance, exclude, queryBlock: 8, poolBlock: 300, threads: 1 });
    assert.deepEqual(asLists(par), asLists(one));
    assert.deepEqual(asLists(par), brute(queries, ident(nq), pool, ident(np), d, 60, distance === 'l2', exclude));
    assert.equal(progress, nq);
  }
});

test("scores 'float32' (faiss's semantics): float32 Gemm scores, same lists as exact on data without near-ties", async () => {
  const d = 24;
  const np = 700;
  const nq = 13;
  const pool = rand(np * d, 1);
  const queries = rand(nq * d, 2);
  for (const distance of ['l2', 'ip'] as const) {
    for (const threads of [1, 2]) {
      const fast = asLists(await exactSearch(queries, pool, d, { k: 50, distance, scores: 'float32', poolBlock: 256, queryBlock: 5, threads }));
      const exact = brute(queries, ident(nq), pool, ident(np), d, 50, distance === 'l2');
      for (let q = 0; q < nq; q++) {
        assert.deepEqual(fast[q].pos, exact[q].pos);
        for (let j = 0; j < 50; j++) assert.ok(Math.abs(fast[q].score[j] - exact[q].score[j]) < 1e-5, `${fast[q].score[j]} vs ${exact[q].score[j]}`);
        assert.ok(fast[q].score.some((x, j) => x !== exact[q].score[j]) || distance === 'ip', 'float32 scores are the Gemm values, not re-scored');
      }
    }
  }
});

test('exact search: excludeSelf drops exactly the query article; ties go to the lower position', async () => {
  const d = 8;
  // Small-integer vectors: many exactly equal scores, plus exact duplicates of some pool rows.
  const base = rand(60 * d, 3, 3).map(Math.round);
  const pool = new Float32Array(120 * d);
  pool.set(base, 0);
  pool.set(base, 60 * d); // rows 60..119 duplicate rows 0..59
  const nq = 6;
  const queries = new Float32Array(nq * d);
  const exclude = new Int32Array(nq);
  for (let q = 0; q < nq; q++) {
    const row = q * 17; // the query is pool article row q*17
    queries.set(pool.subarray(row * d, (row + 1) * d), q * d);
    exclude[q] = row;
  }
  for (const distance of ['l2', 'ip'] as const) {
    for (const k of [5, 40, 119]) {
      const hits = await exactSearch(queries, pool, d, { k, distance, exclude, poolBlock: 50, selection: k === 40 ? 'ort' : 'js' });
      const want = brute(queries, ident(nq), pool, ident(120), d, k, distance === 'l2', exclude);
      assert.deepEqual(asLists(hits), want);
      for (let q = 0; q < nq; q++) assert.ok(!want[q].pos.includes(exclude[q]));
    }
  }
  // A tie order other than the position (e.g. paper id descending): equal scores follow it.
  const tieRank = Uint32Array.from({ length: 120 }, (_, p) => (p * 37) % 120);
  for (const distance of ['l2', 'ip'] as const) {
    const hits = await exactSearch(queries, pool, d, { k: 30, distance, exclude, tieRank, poolBlock: 50 });
    assert.deepEqual(asLists(hits), brute(queries, ident(nq), pool, ident(120), d, 30, distance === 'l2', exclude, (p) => tieRank[p]));
  }
  // With L2 the duplicate of the query (distance 0) ranks first once the query itself is excluded.
  const h = await exactSearch(queries, pool, d, { k: 3, distance: 'l2', exclude });
  assert.equal(h.positions[h.offsets[0]], 60);
  assert.equal(h.scores[h.offsets[0]], 0);
});

test('exact search returns all pool articles when k exceeds the pool', async () => {
  const d = 4;
  const pool = rand(9 * d, 5);
  const q = rand(2 * d, 6);
  const hits = await exactSearch(q, pool, d, { k: 500, distance: 'l2' });
  assert.deepEqual(Array.from(hits.offsets), [0, 9, 18]);
  assert.deepEqual(asLists(hits), brute(q, ident(2), pool, ident(9), d, 500, true));
});

test('multi-vector (ASPIRE) search: best sentence pair per article, equal to brute force', async () => {
  const d = 16;
  const na = 90;
  // Articles with 1..5 sentences.
  const pOff = new Uint32Array(na + 1);
  for (let a = 0; a < na; a++) pOff[a + 1] = pOff[a] + 1 + ((a * 7) % 5);
  const pv = rand(pOff[na] * d, 11);
  const nq = 7;
  const qOff = new Uint32Array(nq + 1);
  for (let q = 0; q < nq; q++) qOff[q + 1] = qOff[q] + 1 + ((q * 3) % 4);
  const qv = rand(qOff[nq] * d, 12);
  const exclude = Int32Array.from({ length: nq }, (_, q) => (q % 2 ? q * 5 : -1));
  for (const distance of ['l2', 'ip'] as const) {
    for (const k of [1, 20, 89]) {
      const hits = await exactSearchMulti({ offsets: qOff, vectors: qv }, { offsets: pOff, vectors: pv }, d, {
        k,
        distance,
        exclude,
        poolBlock: 40,
        queryBlock: 6,
      });
      assert.deepEqual(asLists(hits), brute(qv, qOff, pv, pOff, d, k, distance === 'l2', exclude));
    }
  }
  // Max aggregation, checked directly: an article holding a copy of a query sentence is that query's best match.
  const pv2 = Float32Array.from(pv);
  pv2.set(qv.subarray(qOff[3] * d, (qOff[3] + 1) * d), (pOff[50] + 1) * d - d); // a sentence of article 50
  const h = await exactSearchMulti({ offsets: qOff, vectors: qv }, { offsets: pOff, vectors: pv2 }, d, { k: 1, distance: 'l2' });
  assert.equal(h.positions[h.offsets[3]], 50);
  assert.equal(h.scores[h.offsets[3]], 0);
});
