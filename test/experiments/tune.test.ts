// The one tuner (experiments/tune.ts): any retriever that exposes tunable parameters is evaluated at every grid
// point by experiment() on one topic set; the best is the highest mean and, among equal means, the first point in
// grid order — whichever way the grid is sorted — and a point that leaves a query with no results counts that
// query 0 (trec_eval -c), so it can lose to a point that ranks every query a little worse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { tune } from '../../src/experiments/tune.ts';
import type { TopicSet } from '../../src/experiments/topic-sets.ts';
import type { RankedLists, Retriever, SearchRequest } from '../../src/retrieval/retriever.ts';
import { bestOf, gridPoints } from '../../src/util/best.ts';

/**
 * A toy tunable retriever: at `beta` in `good` it ranks the relevant articles first, otherwise last; at `beta`
 * equal to `empty` it returns nothing for query 1 (and a perfect list for every other query).
 */
class Toy implements Retriever {
  readonly name = 'toy';
  constructor(private readonly beta: number, private readonly good: number[], private readonly relevant: Set<number>, private readonly empty?: number) {}
  get fingerprint() {
    return `toy-${this.beta}`;
  }
  get tunable() {
    return { beta: this.beta };
  }
  withParams(p: Readonly<Record<string, number>>): Toy {
    return new Toy(p.beta ?? this.beta, this.good, this.relevant, this.empty);
  }
  async search(req: SearchRequest): Promise<RankedLists> {
    const offsets = new Uint32Array(req.queries.length + 1);
    const docs: number[] = [];
    const scores: number[] = [];
    req.queries.forEach((_q, i) => {
      const perfect = this.beta === this.empty;
      if (!(perfect && i === 1)) {
        const good = perfect || this.good.includes(this.beta);
        const ranked = [...req.pool!].map((d, r) => ({ d, s: (this.relevant.has(d) === good ? 100 : 0) - r }));
        ranked.sort((a, b) => b.s - a.s);
        for (const x of ranked.slice(0, req.k)) (docs.push(x.d), scores.push(x.s));
      }
      offsets[i + 1] = docs.length;
    });
    return { offsets, docs: Uint32Array.from(docs), scores: Float32Array.from(scores) };
  }
}

const docs = { id: (i: number) => `d${String(i).padStart(2, '0')}`, idOrder: Uint32Array.from({ length: 20 }, (_, i) => i) };
const rel = new Set([15, 17]);
const split: TopicSet = {
  id: 'dataset-val/10-r1', docs, topics: Uint32Array.of(0, 1), pool: Uint32Array.from({ length: 10 }, (_, i) => i + 10), setting: 'transductive',
  qrels: { offsets: Uint32Array.of(0, 2, 4), docs: Uint32Array.of(15, 17, 15, 17), labels: Int32Array.of(1, 1, 1, 1) },
};

test('grid points: the first parameter varies slowest, each in the order given', () => {
  assert.deepEqual(gridPoints({ k1: [1.2, 0.9], b: [0.75, 0.4] }), [{ k1: 1.2, b: 0.75 }, { k1: 1.2, b: 0.4 }, { k1: 0.9, b: 0.75 }, { k1: 0.9, b: 0.4 }]);
  assert.deepEqual(gridPoints({}), [{}]);
  assert.deepEqual(bestOf([{ k1: 1, score: 0.5 }, { k1: 2, score: 0.7 }, { k1: 3, score: 0.7 }]), { k1: 2, score: 0.7 });
});

test('tuner: the highest mean wins; equal means go to the first grid point in the order given', async () => {
  const r = await tune({ model: 'toy', retriever: new Toy(0, [0.4, 0.2], rel), spec: { grid: { beta: [0.8, 0.4, 0.6, 0.2] }, measure: 'map' }, split, k: 10 });
  assert.deepEqual(r.grid.map((g) => g.params.beta), [0.8, 0.4, 0.6, 0.2], 'the grid in the order given');
  assert.equal(r.grid[1].score, 1);
  assert.equal(r.grid[1].score, r.grid[3].score, '0.4 and 0.2 tie');
  assert.ok(r.grid[0].score < 1);
  assert.deepEqual(r.chosen, { beta: 0.4 }, 'the first of the tied points in grid order (not the smaller β)');
  assert.deepEqual(r.params, { beta: [0.8, 0.4, 0.6, 0.2] });
  assert.equal(r.topics, split.id);
  assert.equal(r.queries, 2);
  assert.equal(r.poolSize, 10);
});

test('tuner: a point that leaves a query empty counts it 0 (trec_eval -c), never averages over fewer queries', async () => {
  // β 0.5 ranks query 0 perfectly and returns nothing for query 1; β 0.3 ranks both imperfectly but not badly.
  const r = await tune({ model: 'toy', retriever: new Toy(0, [], rel, 0.5), spec: { grid: { beta: [0.5, 0.3] }, measure: 'map' }, split, k: 10 });
  const [empty, worse] = r.grid;
  assert.equal(empty.score, (1 + 0) / 2, 'query 1 counts 0: the mean over both queries');
  // Relevant 15 and 17 ranked last of the 10 (ranks 9 and 10): AP = (1/9 + 2/10) / 2 for each query.
  const ap = (1 / 9 + 2 / 10) / 2;
  assert.ok(Math.abs(worse.score - ap) < 1e-12, `${worse.score} vs ${ap}`);
  assert.deepEqual(r.chosen, { beta: 0.5 });
  // Where the rule decides: averaged over the queries with results only (trec_eval without -c), β 0.5 would score 1
  // and tie with a perfect β 0.3, winning as the first point; counted over every query it scores 0.5 and loses.
  const r2 = await tune({ model: 'toy', retriever: new Toy(0, [0.3], rel, 0.5), spec: { grid: { beta: [0.5, 0.3] }, measure: 'map' }, split, k: 10 });
  assert.equal(r2.grid[1].score, 1);
  assert.deepEqual(r2.chosen, { beta: 0.3 }, 'a complete list beats a perfect one that leaves a query out');
});

test('tuner: an unknown parameter is one line naming the model and what it can tune', async () => {
  await assert.rejects(tune({ model: 'toy', retriever: new Toy(0, [], rel), spec: { grid: { k1: [1] }, measure: 'map' }, split, k: 10 }), /models\.toy\.tune: k1 is not a parameter this model can tune \(it has beta\)/);
  const fixed: Retriever = { name: 'x', fingerprint: 'x', search: async () => ({ offsets: new Uint32Array(3), docs: new Uint32Array(), scores: new Float32Array() }) };
  await assert.rejects(tune({ model: 'x', retriever: fixed, spec: { grid: { beta: [1] }, measure: 'map' }, split, k: 10 }), /it has none/);
});

test('tuner cache: every grid point is a record of the one cache; a second tuning computes nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-tune-'));
  try {
    let searched = 0;
    class Counting extends Toy {
      override withParams(p: Readonly<Record<string, number>>): Toy {
        const inner = super.withParams(p);
        return Object.assign(Object.create(Object.getPrototypeOf(inner)), inner, { search: async (q: SearchRequest) => (searched++, inner.search(q)) });
      }
    }
    const run = () => tune({ model: 'toy', retriever: new Counting(0, [0.4], rel), spec: { grid: { beta: [0.8, 0.4] }, measure: 'map' }, split, k: 10, cache: { dir, keyParts: { test: 1 } } });
    const first = await run();
    assert.equal(searched, 2);
    const folder = join(dir, 'tuning', 'toy', 'dataset-val', '10-r1');
    assert.deepEqual(readdirSync(folder).sort(), ['beta=0.4.json', 'beta=0.8.json']);
    rmSync(join(folder, 'beta=0.4.json'));
    const second = await run();
    assert.equal(searched, 3, 'only the missing point is computed again');
    assert.deepEqual(second, first);
    assert.ok(!existsSync(join(dir, 'runs')), 'tuning points write no run files');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
