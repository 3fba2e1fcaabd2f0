// The one tuner (experiments/tune.ts): every grid point scored by experiment() on the validation split; the best
// is the highest score and, among equal scores, the first grid point in the config's order — whichever way the
// grid is sorted (a Profiler's β grid given descending keeps its first point on a tie).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bestOf, tuneGrid, type ValidationSplit } from '../../src/experiments/tune.ts';
import type { RankedLists, Retriever, SearchRequest } from '../../src/retrieval/retriever.ts';

/** Ranks the pool with relevant articles first when `good`, last otherwise; fingerprint per parameter. */
class Fixed implements Retriever {
  constructor(readonly name: string, private readonly good: boolean, private readonly relevant: Set<number>) {}
  get fingerprint() {
    return `${this.name}-${this.good}`;
  }
  async search(req: SearchRequest): Promise<RankedLists> {
    const offsets = new Uint32Array(req.queries.length + 1);
    const docs: number[] = [];
    const scores: number[] = [];
    req.queries.forEach((_q, i) => {
      const ranked = [...req.pool!].sort((a, b) => a - b).map((d, r) => ({ d, s: (this.relevant.has(d) === this.good ? 100 : 0) - r }));
      ranked.sort((a, b) => b.s - a.s);
      for (const x of ranked.slice(0, req.k)) (docs.push(x.d), scores.push(x.s));
      offsets[i + 1] = docs.length;
    });
    return { offsets, docs: Uint32Array.from(docs), scores: Float32Array.from(scores) };
  }
}

const store = { id: (i: number) => `d${i}`, idOrder: Uint32Array.from({ length: 20 }, (_, i) => i) };
const split: ValidationSplit = {
  topics: Uint32Array.of(0), pool: Uint32Array.from({ length: 10 }, (_, i) => i + 10), setting: 'transductive',
  qrels: { offsets: Uint32Array.of(0, 2), docs: Uint32Array.of(15, 17), labels: Int32Array.of(1, 1) },
};
const rel = new Set([15, 17]);
const ctx = { store, cfg: { k: 10 } } as never;

test('tuner: the highest score wins; equal scores go to the first grid point in config order', async () => {
  const grid = [0.8, 0.4, 0.6, 0.2].map((beta) => ({ params: { beta }, retriever: new Fixed(`p${beta}`, beta === 0.4 || beta === 0.2, rel) }));
  const r = await tuneGrid(grid, 'map', split, ctx);
  assert.deepEqual(r.grid.map((g) => g.beta), [0.8, 0.4, 0.6, 0.2], 'the grid in config order');
  assert.equal(r.grid[1].score, 1);
  assert.equal(r.grid[1].score, r.grid[3].score, '0.4 and 0.2 tie');
  assert.ok(r.grid[0].score < 1);
  assert.equal(r.best.beta, 0.4, 'the first of the tied points in config order (not the smaller β)');
  assert.deepEqual(bestOf([{ k1: 1, score: 0.5 }, { k1: 2, score: 0.7 }, { k1: 3, score: 0.7 }]), { k1: 2, score: 0.7 });
  await assert.rejects(() => tuneGrid([], 'map', split, ctx), /at least one point/);
});
