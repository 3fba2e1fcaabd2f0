// The model-kind registry: a kind is one entry. A toy kind registered here — nothing else in the tree knows it —
// is read from YAML (its own keys checked, errors with file:line:key), priced by the dry run, built and searched
// by `citebench run`'s runner into cells and results.json, with the summary its entry gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { parseConfig } from '../../src/experiments/config.ts';
import { kindNames, registerKind, unregisterKind, type KindEntry } from '../../src/experiments/kinds/index.ts';
import { dryRun, runExperiment } from '../../src/experiments/run.ts';
import type { RankedLists, Retriever, SearchRequest } from '../../src/retrieval/retriever.ts';
import { InputError } from '../../src/util/errors.ts';

interface ToyConfig { kind: 'toy'; name: string; step: number }

/** Ranks the pool by distance of corpus index to the query's, in steps: a retriever with one parameter. */
class ToyRetriever implements Retriever {
  constructor(readonly name: string, private readonly step: number) {}
  get fingerprint() {
    return JSON.stringify({ toy: 1, step: this.step });
  }
  async search(req: SearchRequest): Promise<RankedLists> {
    const offsets = new Uint32Array(req.queries.length + 1);
    const docs: number[] = [];
    const scores: number[] = [];
    req.queries.forEach((q, i) => {
      const pool = req.candidates?.[i] ?? req.pool!;
      const ranked = [...pool].filter((d) => d !== q).map((d) => ({ d, s: -Math.floor(Math.abs(d - q) / this.step) })).sort((a, b) => b.s - a.s || a.d - b.d).slice(0, req.k);
      for (const r of ranked) (docs.push(r.d), scores.push(r.s));
      offsets[i + 1] = docs.length;
    });
    return { offsets, docs: Uint32Array.from(docs), scores: Float32Array.from(scores) };
  }
}

export const toy: KindEntry<ToyConfig> = {
  kind: 'toy',
  about: 'a test kind',
  parse(r, p, name) {
    r.checkKeys(p, ['kind', 'step']);
    return { kind: 'toy', name, step: r.num([...p, 'step'], 1, (n) => Number.isInteger(n) && n >= 1, 'a positive integer') };
  },
  describe: (c) => `, step ${c.step}`,
  async build(c) {
    return { name: c.name, kind: 'toy', weights: 'lexical', settings: { step: c.step }, summary: `toy, step ${c.step}`, retriever: new ToyRetriever(c.name, c.step), release: async () => {} };
  },
  cost: { perQuery: (_c, _env, pool) => pool * 1e-6, assumption: () => 'toy costs are made up' },
};

const CONFIG = `name: toy
seed: 3
corpus: {synthetic: {articles: 1500}}
k: 20
validation: {queries: 4}
models:
  near: {kind: toy, step: 5}
protocols:
  dataset: {queries: 4, pools: [300], repeats: 1}
`;

test('registry: a toy kind registered in a test is read, priced, run and reported through its entry alone', async () => {
  registerKind(toy);
  const dir = mkdtempSync(join(tmpdir(), 'cb-kinds-'));
  try {
    assert.ok(kindNames().includes('toy'));
    assert.throws(() => registerKind(toy), /registered already/);
    assert.throws(() => parseConfig(CONFIG.replace('step: 5', 'step: 0'), 'toy.yaml'), (e: unknown) => e instanceof InputError && /^toy\.yaml:7 \[models\.near\.step\]: must be a positive integer/.test(e.message));
    assert.throws(() => parseConfig(CONFIG.replace('step: 5', 'stride: 5'), 'toy.yaml'), /\[models\.near\.stride\]: unknown key 'stride'/);
    const cfg = parseConfig(CONFIG, 'toy.yaml', { work: join(dir, 'work'), results: join(dir, 'results') });
    assert.deepEqual(cfg.models[0] as unknown, { kind: 'toy', name: 'near', step: 5 });
    const plan = dryRun(cfg, { memoryBytes: 2 ** 34 });
    assert.match(plan, /models: near \(toy, step 5\)/);
    assert.match(plan, /\n {2}near: toy costs are made up/);
    assert.doesNotMatch(plan, /BM25 index/, 'no kind of this config needs the BM25 index');
    const out = await runExperiment(cfg, { log: () => {}, threads: 1 });
    out.store.close();
    assert.deepEqual(out.results.models, [{ name: 'near', kind: 'toy', weights: 'lexical', settings: { step: 5 }, summary: 'toy, step 5' }]);
    assert.equal(out.results.cells.length, 1);
    assert.ok(out.results.cells[0].means.MAP >= 0);
    assert.match(out.report, /Models: near \(toy, step 5\)/);
  } finally {
    unregisterKind('toy');
    rmSync(dir, { recursive: true, force: true });
  }
  assert.ok(!kindNames().includes('toy'));
  assert.throws(() => unregisterKind('bm25'), /built in/);
  assert.throws(() => parseConfig(CONFIG, 'toy.yaml'), /\[models\.near\.kind\]: must be bm25, dense, embeddings, navigation, profiler or rerank, got 'toy'/);
});
