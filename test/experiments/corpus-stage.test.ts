// The corpus stage hands the index stage a store whose citation graph is still on disk: at S2ORC's 16 M articles
// the graph is 3.5 GB that the index build (its own peak ~12 GB) does not need, and the graph loads on first use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { parseConfig } from '../../src/experiments/config.ts';
import { prepareCorpus } from '../../src/experiments/corpus-stage.ts';

test('prepareCorpus: counts the citations from the store\'s meta, without loading the citation graph', { timeout: 120_000 }, async () => {
  const work = mkdtempSync(join(tmpdir(), 'cb-corpus-stage-'));
  try {
    const cfg = parseConfig(`work: ${work}\nresults: ${join(work, 'results')}\ncorpus: {synthetic: {articles: 400}}\nmodels: {bm25: {}}\nprotocols: {dataset: {queries: 5, pools: [50], repeats: 1}}\n`, 'x.yaml');
    const { store, info } = await prepareCorpus(cfg, () => {});
    const loaded = () => ['outOff_', 'outDst_', 'inOff_', 'inSrc_'].filter((k) => (store as unknown as Record<string, unknown>)[k] !== undefined);
    assert.deepEqual(loaded(), [], 'no part of the citation graph is in memory after the corpus stage');
    assert.ok(info.citations > 0);
    assert.equal(info.citations, store.outTargets.length, 'the count is the graph\'s');
    assert.deepEqual(loaded(), ['outDst_'], 'the graph loads on first use');
    store.close();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
