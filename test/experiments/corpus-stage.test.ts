// The corpus stage hands the index stage a store whose citation graph is still on disk: at S2ORC's 16 M articles
// the graph is 3.5 GB that the index build (its own peak ~12 GB) does not need, and the graph loads on first use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { parseConfig } from '../../src/experiments/config.ts';
import { prepareCorpus } from '../../src/experiments/corpus-stage.ts';
import { prepareBm25Index } from '../../src/experiments/kinds/bm25.ts';
import { SYNTH_DEFAULTS, SYNTH_VERSION } from '../../src/corpus/synth.ts';
import { PAPER_PREFILTER } from '../../src/corpus/prefilter.ts';
import { STORE_VERSION } from '../../src/corpus/store-format.ts';

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

test('corpus and BM25 index stamps: an older citebench\'s stamp is never reused; a changed input rebuilds with one line saying why', { timeout: 120_000 }, async () => {
  const work = mkdtempSync(join(tmpdir(), 'cb-corpus-stamp-'));
  const config = (seed: number) => parseConfig(`work: ${work}\nresults: ${join(work, 'results')}\ncorpus: {synthetic: {articles: 400, seed: ${seed}}}\nmodels: {bm25: {}}\nprotocols: {dataset: {queries: 5, pools: [50], repeats: 1}}\n`, 'x.yaml');
  try {
    const cfg = config(1);
    const prep = async (c = cfg) => {
      const lines: string[] = [];
      const { store, info } = await prepareCorpus(c, (l) => lines.push(l));
      await prepareBm25Index(c, store, info, (l) => lines.push(l));
      store.close();
      return lines;
    };
    await prep();
    assert.deepEqual(await prep(), [`corpus store: up to date (${join(work, 'store')})`, `BM25 index: up to date (${join(work, 'bm25-index')})`]);
    // The stamps today's citebench wrote before util/identity.ts: the settings as a JSON string.
    const legacy = JSON.stringify({ articles: 400, seed: 1, synth: { version: SYNTH_VERSION, ...SYNTH_DEFAULTS }, prefilter: PAPER_PREFILTER, storeVersion: STORE_VERSION });
    writeFileSync(join(work, 'store.config.json'), legacy);
    writeFileSync(join(work, 'bm25-index.config.json'), legacy);
    // A key an older citebench wrote (a non-canonical JSON string) is not trusted: both are made again, saying why.
    const again = await prep();
    assert.equal(again[0], 'corpus store: made again, written by an older citebench (its key names no inputs)');
    assert.ok(again.includes('BM25 index: made again, written by an older citebench (its key names no inputs)'), again.join(' | '));
    assert.deepEqual(await prep(), [`corpus store: up to date (${join(work, 'store')})`, `BM25 index: up to date (${join(work, 'bm25-index')})`]);
    const other = await prep(config(2));
    assert.equal(other[0], 'corpus store: made again, synthetic changed');
    assert.ok(other.includes('BM25 index: made again, corpus changed'), other.join(' | '));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
