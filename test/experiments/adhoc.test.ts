// compareRetrievers (the notebook's ad-hoc comparison): retrievers built in a cell, on one pool group of a
// config, through experiment(): the same topics, pool and qrels as the run's cell of that group (equal means
// for the same BM25), frames back, a significance hook called with the cells, cells read back from a cache.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { parseConfig } from '../../src/experiments/config.ts';
import { runExperiment } from '../../src/experiments/run.ts';
import { compareRetrievers } from '../../src/experiments/adhoc.ts';
import { buildIndex } from '../../src/retrieval/bm25/index.ts';
import { Bm25Retriever } from '../../src/retrieval/bm25/retriever.ts';

const CONFIG = `name: adhoc
seed: 5
corpus: {synthetic: {articles: 2000}}
k: 50
measures: [MAP, R@30]
models:
  bm25: {}
protocols:
  dataset: {queries: 6, pools: [400], repeats: 1}
`;

test('compareRetrievers: a run\'s group, retrievers of the cell, frames and the run\'s significance tests', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-adhoc-'));
  try {
    const cfg = parseConfig(CONFIG, 'x.yaml', { work: join(dir, 'work'), results: join(dir, 'results') });
    const run = await runExperiment(cfg, { log: () => {}, threads: 1 });
    const store = run.store;
    const index = await buildIndex(store);
    const bm25 = new Bm25Retriever(index, store, { tieKey: store.idOrder });
    const other = new Bm25Retriever(index, store, { tieKey: store.idOrder, params: { k1: 2, b: 0.9 } });
    const r = await compareRetrievers({
      cfg, store, retrievers: [{ name: 'bm25', retriever: bm25 }, { name: 'bm25-k2', retriever: other }], cacheDir: join(dir, 'adhoc'),
    });
    const cell = run.results.cells.find((c) => c.model === 'bm25' && c.protocol === 'dataset')!;
    assert.deepEqual(r.cells[0].means, cell.means, 'same topics, pool and qrels as the run\'s cell');
    assert.deepEqual(r.means.columnNames(), ['model', 'MAP', 'R@30']);
    assert.equal(r.means.numRows(), 2);
    assert.equal(r.perQuery.numRows(), 12);
    // One row per measure for the other retriever against the baseline (the first), its mean difference the
    // difference of the two cells' means, p-values from the run's tests.
    const sig = r.significance.objects() as { baseline: string; model: string; measure: string; queries: number; meanDiff: number; pT: number; pHolm: number }[];
    assert.deepEqual(sig.map((x) => `${x.baseline}→${x.model} ${x.measure}`), ['bm25→bm25-k2 MAP', 'bm25→bm25-k2 R@30']);
    for (const x of sig) {
      assert.equal(x.queries, 6);
      assert.ok(Math.abs(x.meanDiff - (r.cells[1].means[x.measure] - r.cells[0].means[x.measure])) < 1e-12, `${x.measure}: mean difference`);
      assert.ok(x.pT >= 0 && x.pT <= 1 && x.pHolm >= x.pT, `${x.measure}: p-values`);
    }
    const flipped = await compareRetrievers({ cfg, store, retrievers: [{ name: 'bm25', retriever: bm25 }, { name: 'bm25-k2', retriever: other }], baseline: 'bm25-k2', cacheDir: join(dir, 'adhoc') });
    assert.deepEqual((flipped.significance.objects() as { model: string }[]).map((x) => x.model), ['bm25', 'bm25'], 'the named baseline');
    const again = await compareRetrievers({ cfg, store, retrievers: [{ name: 'bm25', retriever: bm25 }], cacheDir: join(dir, 'adhoc') });
    assert.deepEqual(again.cells[0], r.cells[0], 'read back from the cache');
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
