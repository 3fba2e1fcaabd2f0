/**
 * Profiler (Goyal et al. 2026 §3.2) vectors equal a brute-force computation: sparse profiles from the analyser's
 * term counts, dense profiles from the stored vectors, both with the citing articles the setting allows; the
 * sparse Profiler's BM25 scores equal a float64 BM25 over those profiles, and β = 0 is BM25 (exact lengths)
 * score for score.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { articleText, EnglishAnalyzer } from '../../src/retrieval/bm25/analyzer.ts';
import { buildIndex } from '../../src/retrieval/bm25/index.ts';
import { Bm25Retriever } from '../../src/retrieval/bm25/retriever.ts';
import { buildSparseProfiles, keepTopTerms, SparseProfiler } from '../../src/retrieval/profiler/sparse.ts';
import { DenseProfiler } from '../../src/retrieval/profiler/dense.ts';
import { citingSets } from '../../src/retrieval/profiler/citing.ts';
import { randomGraph, textsOf } from './graph.ts';
import { DIM, fakeStore, fakeVector } from './fake-encoder.ts';

const N = 300;
const texts = textsOf(N, 5);
const { graph } = randomGraph(N, 6, 9);
const analyzer = new EnglishAnalyzer();
const tf = (i: number) => {
  const m = new Map<string, number>();
  analyzer.forEachTerm(articleText(texts.text(i)), (t) => m.set(t, (m.get(t) ?? 0) + 1));
  return m;
};
// Pool: every third article from 30 on; queries: the last articles (years 2019 under this graph's years).
const pool = Uint32Array.from({ length: N }, (_, i) => i).filter((i) => i >= 30 && i % 3 !== 1);
const queries = Uint32Array.from([N - 1, N - 2, N - 4, 200]);

/** Allowed citing articles by brute force: cites i, not a query, (inductive) published before `before`. */
function allowedCiting(i: number, before: number | null): number[] {
  const out: number[] = [];
  for (let j = 0; j < N; j++) {
    let cites = false;
    for (let e = graph.outOffsets[j]; e < graph.outOffsets[j + 1]; e++) if (graph.outTargets[e] === i) cites = true;
    if (cites && !queries.includes(j) && (before === null || graph.years[j] < before)) out.push(j);
  }
  return out;
}

function bruteProfile(i: number, beta: number, before: number | null): Map<string, number> {
  const p = new Map(tf(i));
  const c = allowedCiting(i, before);
  for (const j of c) for (const [t, n] of tf(j)) p.set(t, (p.get(t) ?? 0) + (beta * n) / c.length);
  return p;
}

test('sparse profiles equal the brute force: own tf + β · mean tf of the allowed citing articles', async () => {
  const ix = await buildIndex(texts);
  for (const before of [null, 2012]) {
    for (const beta of [0, 0.35, 1]) {
      const P = buildSparseProfiles(ix, pool, citingSets(graph, pool, queries, before), { k1: 0.9, b: 0.4, beta });
      let withCiting = 0;
      pool.forEach((d, p) => {
        const want = bruteProfile(d, beta, before);
        const got = new Map<string, number>();
        for (let e = P.fwdOffsets[p]; e < P.fwdOffsets[p + 1]; e++) got.set(ix.terms[P.fwdTerms[e]], P.fwdWeights[e]);
        if (beta > 0 && allowedCiting(d, before).length) withCiting++;
        // Terms whose only contribution is β = 0 · citing tf are not in the profile.
        const nonzero = [...want].filter(([, w]) => w > 0);
        assert.deepEqual([...got.keys()].sort(), nonzero.map(([t]) => t).sort(), `terms of ${d}`);
        for (const [t, w] of nonzero) assert.ok(Math.abs(got.get(t)! - w) <= 1e-6 * w, `${d} ${t}: ${got.get(t)} vs ${w}`);
        const len = nonzero.reduce((s, [, w]) => s + w, 0);
        assert.ok(Math.abs(P.lengths[p] - len) <= 1e-6 * len);
      });
      if (beta > 0) assert.ok(withCiting > 50, 'the test graph gives many profiles citing articles');
    }
  }
});

test('sparse profiles with topTerms: the citing part kept for the top terms by mean citing tf only', async () => {
  const ix = await buildIndex(texts);
  const id = new Map(ix.terms.map((t, i) => [t, i]));
  const beta = 0.7;
  const top = 3;
  const P = buildSparseProfiles(ix, pool, citingSets(graph, pool, queries, null), { k1: 0.9, b: 0.4, beta, topTerms: top });
  const full = buildSparseProfiles(ix, pool, citingSets(graph, pool, queries, null), { k1: 0.9, b: 0.4, beta });
  assert.ok(P.fwdTerms.length < full.fwdTerms.length, 'smaller profiles');
  pool.forEach((d, p) => {
    const c = allowedCiting(d, null);
    const mean = new Map<string, number>();
    for (const j of c) for (const [t, n] of tf(j)) mean.set(t, (mean.get(t) ?? 0) + n / c.length);
    const kept = [...mean].sort((a, b) => b[1] - a[1] || id.get(a[0])! - id.get(b[0])!).slice(0, top);
    const want = new Map(tf(d));
    for (const [t, m] of kept) want.set(t, (want.get(t) ?? 0) + beta * m);
    const got = new Map<string, number>();
    for (let e = P.fwdOffsets[p]; e < P.fwdOffsets[p + 1]; e++) got.set(ix.terms[P.fwdTerms[e]], P.fwdWeights[e]);
    assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort(), `terms of ${d}`);
    for (const [t, w] of want) assert.ok(Math.abs(got.get(t)! - w) <= 1e-6 * w, `${d} ${t}`);
  });
});

test('sparse Profiler scores equal a float64 BM25 over the brute-force profiles', async () => {
  const ix = await buildIndex(texts);
  const k1 = 0.9;
  const b = 0.4;
  const beta = 0.5;
  const prof = new SparseProfiler(ix, texts, graph, { name: 'p', k1, b, beta });
  const r = await prof.search({ queries, pool, k: pool.length, setting: 'transductive' });
  const profiles = [...pool].map((d) => bruteProfile(d, beta, null));
  const lens = profiles.map((p) => [...p.values()].reduce((s, w) => s + w, 0));
  const Nd = lens.filter((l) => l > 0).length;
  const avgdl = lens.reduce((s, l) => s + l, 0) / Nd;
  queries.forEach((q, qi) => {
    const qtf = tf(q);
    const scores = profiles.map((p, i) => {
      let s = 0;
      for (const [t, n] of qtf) {
        const w = p.get(t);
        if (!w) continue;
        const df = profiles.filter((x) => (x.get(t) ?? 0) > 0).length;
        const idf = Math.log(1 + (Nd - df + 0.5) / (df + 0.5));
        s += (n * idf * w) / (w + k1 * (1 - b + (b * lens[i]) / avgdl));
      }
      return s;
    });
    const got = new Map<number, number>();
    for (let p = r.offsets[qi]; p < r.offsets[qi + 1]; p++) got.set(r.docs[p], r.scores[p]);
    pool.forEach((d, i) => {
      if (d === q || scores[i] === 0) return assert.ok(!got.has(d), `${d} unmatched or the query: not listed`);
      assert.ok(Math.abs(got.get(d)! - scores[i]) <= 1e-4 * scores[i], `q ${q} d ${d}: ${got.get(d)} vs ${scores[i]}`);
    });
  });
});

test('β = 0: the sparse Profiler is BM25 with exact lengths, score for score', async () => {
  const ix = await buildIndex(texts);
  const tieKey = Uint32Array.from({ length: N }, (_, i) => (i * 7919) % N);
  const bm25 = new Bm25Retriever(ix, texts, { params: { k1: 1.2, b: 0.75, accurate: true }, tieKey });
  const prof = new SparseProfiler(ix, texts, graph, { name: 'p0', k1: 1.2, b: 0.75, beta: 0, tieKey });
  for (const setting of ['transductive', 'inductive'] as const) {
    const a = await bm25.search({ queries, pool, k: 50 });
    const p = await prof.search({ queries, pool, k: 50, setting });
    assert.deepEqual([...p.offsets], [...a.offsets]);
    assert.deepEqual([...p.docs], [...a.docs]);
    assert.deepEqual([...p.scores], [...a.scores]);
  }
  assert.notEqual(prof.fingerprint, new SparseProfiler(ix, texts, graph, { name: 'p0', k1: 1.2, b: 0.75, beta: 0.1, tieKey }).fingerprint, 'β is in the fingerprint');
});

test('dense profiles equal the brute force v_i + β · mean v_j, and rank by cosine', async () => {
  const { store, encoder } = await fakeStore(texts);
  const beta = 0.4;
  const prof = new DenseProfiler({ name: 'dp', store, beta, graph, encoder, texts, threads: 1 });
  for (const before of [null, 2012]) {
    const v = await prof.profileVectors(pool, queries, before);
    pool.forEach((d, p) => {
      const want = Float64Array.from(fakeVector(texts.text(d)));
      const c = allowedCiting(d, before);
      for (const j of c) fakeVector(texts.text(j)).forEach((x, k) => (want[k] += (beta * x) / c.length));
      for (let k = 0; k < DIM; k++) assert.ok(Math.abs(v[p * DIM + k] - want[k]) <= 1e-5, `${d}[${k}]: ${v[p * DIM + k]} vs ${want[k]}`);
    });
  }
  const r = await prof.search({ queries, pool, k: 5, setting: 'transductive' });
  const v = await prof.profileVectors(pool, queries, null);
  const cos = (a: Float32Array, p: number) => {
    let d = 0, na = 0, nb = 0;
    for (let k = 0; k < DIM; k++) {
      d += a[k] * v[p * DIM + k];
      na += a[k] ** 2;
      nb += v[p * DIM + k] ** 2;
    }
    return d / Math.sqrt(na * nb);
  };
  queries.forEach((q, qi) => {
    const qv = fakeVector(texts.text(q));
    const want = [...pool.keys()].filter((p) => pool[p] !== q).sort((x, y) => cos(qv, y) - cos(qv, x)).slice(0, 5).map((p) => pool[p]);
    assert.deepEqual([...r.docs.subarray(r.offsets[qi], r.offsets[qi + 1])], want);
  });
});

test('keepTopTerms keeps exactly what sorting by (weight desc, term asc) keeps, ties at the cut included', () => {
  let seed = 1; const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let trial = 0; trial < 3000; trial++) {
    const V = 50 + Math.floor(rnd() * 400);
    const n = Math.floor(rnd() * V);
    const terms = new Uint32Array([...Array(V).keys()].sort(() => rnd() - 0.5).slice(0, n));
    const w = new Float64Array(V);
    const levels = 1 + Math.floor(rnd() * 6);
    for (const t of terms) w[t] = rnd() < 0.1 ? 0 : Math.floor(rnd() * levels) / 7;
    const top = Math.floor(rnd() * (n + 3));
    const want = Float64Array.from(w);
    const c = Array.from(terms).filter((t) => want[t] > 0).sort((a, b) => want[b] - want[a] || a - b);
    for (let k = top; k < c.length; k++) want[c[k]] = 0;
    keepTopTerms(terms, w, top, new Float64Array(V));
    assert.deepEqual(w, want, `trial ${trial}`);
  }
});
