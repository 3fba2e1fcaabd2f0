/**
 * Leakage: a query's own citations never flow into the profiles it is scored against. Removing every query's
 * outbound citations from the graph must leave every Profiler list unchanged (sparse and dense, both settings);
 * under the inductive setting no article of the query year or later shapes a profile either. The test has
 * teeth: profiles that do take the queries in (citing sets built without them excluded) change the lists.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildIndex } from '../../src/retrieval/bm25/index.ts';
import { SparseProfiler, buildSparseProfiles } from '../../src/retrieval/profiler/sparse.ts';
import { DenseProfiler } from '../../src/retrieval/profiler/dense.ts';
import { citingSets, profileScopes } from '../../src/retrieval/profiler/citing.ts';
import type { RankedLists } from '../../src/retrieval/retriever.ts';
import { graphOf, randomGraph, textsOf } from './graph.ts';
import { fakeStore } from './fake-encoder.ts';

const N = 400;
const texts = textsOf(N, 11);
const { graph, edges } = randomGraph(N, 8, 4);
// Queries: late articles (the graph's last year); the pool: everything else from 20 on (transductive-like).
const queries = Uint32Array.from([N - 1, N - 3, N - 5, N - 8, N - 13]);
const pool = Uint32Array.from({ length: N }, (_, i) => i).filter((i) => i >= 20 && !queries.includes(i));
const isQuery = (i: number) => queries.includes(i);
// The same graph without the queries' references.
const cut = graphOf(N, edges.filter(([from]) => !isQuery(from)), [...graph.years]);
const same = (a: RankedLists, b: RankedLists) => {
  assert.deepEqual([...a.offsets], [...b.offsets]);
  assert.deepEqual([...a.docs], [...b.docs]);
  assert.deepEqual([...a.scores], [...b.scores]);
};

test('the queries cite pool articles (else the test would prove nothing)', () => {
  let n = 0;
  for (const q of queries) for (let e = graph.outOffsets[q]; e < graph.outOffsets[q + 1]; e++) if (pool.includes(graph.outTargets[e])) n++;
  assert.ok(n >= 20, `${n} query → pool citations`);
});

test('citing sets: never a query; inductive: only articles published before the query year', () => {
  const year = graph.years[queries[0]];
  for (const before of [null, year]) {
    const c = citingSets(graph, pool, queries, before);
    for (const j of c.sources) {
      assert.ok(!isQuery(j), `query ${j} in a profile`);
      if (before !== null) assert.ok(graph.years[j] > 0 && graph.years[j] < year, `article ${j} of ${graph.years[j]} in an inductive profile`);
    }
  }
  const scopes = profileScopes(graph, { queries, setting: 'inductive' });
  assert.deepEqual(scopes.map((s) => s.before), [...new Set([...queries].map((q) => graph.years[q]))].sort());
  assert.deepEqual(profileScopes(graph, { queries, setting: 'transductive' }).map((s) => s.before), [null]);
});

for (const setting of ['transductive', 'inductive'] as const) {
  test(`sparse Profiler (${setting}): lists identical with the queries' citations removed from the graph`, async () => {
    const ix = await buildIndex(texts);
    const opts = { name: 'p', k1: 0.9, b: 0.4, beta: 1 };
    const a = await new SparseProfiler(ix, texts, graph, opts).search({ queries, pool, k: 100, setting });
    const b = await new SparseProfiler(ix, texts, cut, opts).search({ queries, pool, k: 100, setting });
    same(a, b);
    // Teeth: with the queries let into the citing sets, the profiles of their cited articles change.
    const before = setting === 'inductive' ? graph.years[queries[0]] + 1 : null;
    const leaky = buildSparseProfiles(ix, pool, citingSets(graph, pool, new Uint32Array(0), before), opts);
    const clean = buildSparseProfiles(ix, pool, citingSets(graph, pool, queries, before), opts);
    assert.notDeepEqual([...leaky.fwdWeights], [...clean.fwdWeights], 'queries in the citing sets would change the profiles');
  });

  test(`dense Profiler (${setting}): lists identical with the queries' citations removed from the graph`, async () => {
    const { store, encoder } = await fakeStore(texts);
    const mk = (g: typeof graph) => new DenseProfiler({ name: 'd', store, beta: 1, graph: g, encoder, texts, threads: 1 });
    same(await mk(graph).search({ queries, pool, k: 50, setting }), await mk(cut).search({ queries, pool, k: 50, setting }));
  });
}
