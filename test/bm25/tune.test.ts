import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InMemoryTexts } from '../../src/corpus/article.ts';
import { buildIndex } from '../../src/retrieval/bm25/index.ts';
import { tuneBm25, evalObjective } from '../../src/retrieval/bm25/tune.ts';
import type { RankedLists } from '../../src/retrieval/retriever.ts';

const texts = [
  { title: 'alpha beta', abstract: 'gamma delta alpha' },
  { title: 'alpha', abstract: 'alpha alpha alpha alpha alpha alpha alpha alpha zeta zeta zeta zeta zeta zeta' },
  { title: 'beta gamma', abstract: 'delta' },
  { title: 'omega', abstract: 'sigma kappa alpha' },
  { title: 'alpha beta gamma', abstract: '' },
];

test('grid search evaluates every (k1, b) and keeps the best (first on ties)', async () => {
  const index = await buildIndex(new InMemoryTexts(texts));
  const seen: [number, number][] = [];
  // A pluggable objective: here, the score of the first result of query 0 (depends on k1 and b).
  const score = (run: RankedLists) => run.scores[run.offsets[0]];
  const r = await tuneBm25({
    index, texts: new InMemoryTexts(texts), request: { queries: Uint32Array.of(0), k: 3 },
    k1: [0.5, 1.2, 2], b: [0, 0.75], score, onPoint: (p) => seen.push([p.k1, p.b]),
  });
  assert.deepEqual(seen, [[0.5, 0], [0.5, 0.75], [1.2, 0], [1.2, 0.75], [2, 0], [2, 0.75]]);
  const max = Math.max(...r.grid.map((p) => p.score));
  assert.equal(r.best.score, max);
  assert.equal(r.best, r.grid.find((p) => p.score === max));
  await assert.rejects(tuneBm25({ index, texts: new InMemoryTexts(texts), request: { queries: Uint32Array.of(0), k: 3 }, k1: [1], b: [1.5], score }), /b in \[0, 1\]/);
});

test('evalObjective scores a run with the eval module (trec_eval semantics)', async () => {
  // Query 0 with relevant documents 4 and 2: a run ranking 4 first then 3 then 2 has AP (1/1 + 2/3) / 2.
  const qrels = { offsets: Uint32Array.of(0, 2), docs: Uint32Array.of(4, 2), labels: Int32Array.of(1, 1) };
  const run = { offsets: Uint32Array.of(0, 3), docs: Uint32Array.of(4, 3, 2), scores: Float32Array.of(3, 2, 1) };
  assert.ok(Math.abs(evalObjective(qrels, 'map')(run) - (1 + 2 / 3) / 2) < 1e-12);
  assert.equal(evalObjective(qrels, 'P.1')(run), 1);
  assert.throws(() => evalObjective(qrels, 'P.1,5'), /exactly one measure/);
});
