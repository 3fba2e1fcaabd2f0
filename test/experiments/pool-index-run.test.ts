// `bm25Index: pools` (an index of each pool's own texts, for stores whose index does not fit in memory) runs
// every protocol to the files `bm25Index: corpus` gives: the same run files, qrels, MDCR benchmark and scores and
// the same numbers in every cell (only the cells' keys differ: the retriever's fingerprint names its index) — for
// BM25 fixed, tuned and with exact lengths, navigation on it, dataset pools under and over half the corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { parseConfig } from '../../src/experiments/config.ts';
import { runExperiment } from '../../src/experiments/run.ts';
import { InputError } from '../../src/util/errors.ts';
import { tree } from '../helpers/files.ts';

const CONFIG = (index: string) => `name: pools
seed: 3
corpus: {synthetic: {articles: 5000}}
${index}
k: 60
measures: [MAP, nDCG, R@30]
validation: {queries: 10}
models:
  bm25: {k1: 0.9, b: 0.4}
  bm25-tuned: {kind: bm25, tune: {k1: [0.9, 1.2], b: [0.75]}}
  bm25-exact: {kind: bm25, accurate: true}
  nav: {kind: navigation, first: bm25}
protocols:
  dataset: {queries: 10, pools: [700, 3000], repeats: 1}
  field: {queries: 4, pool: 900, repeats: 1, fields: [Medicine, Biology, Computer Science]}
  mdcr: {}
`;

test('bm25Index: pools gives the runs, MDCR files and cell numbers of bm25Index: corpus', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'cb-poolrun-'));
  try {
    const results: Record<string, string> = {};
    const logs: Record<string, string[]> = {};
    for (const mode of ['pools', 'corpus']) {
      const cfg = parseConfig(CONFIG(`bm25Index: ${mode}`), 'x.yaml');
      cfg.work = join(tmp, 'work');
      cfg.results = results[mode] = join(tmp, `results-${mode}`);
      logs[mode] = [];
      await runExperiment(cfg, { log: (l) => logs[mode].push(l), threads: 2 });
      if (mode === 'pools') assert.ok(!existsSync(join(cfg.work, 'bm25-index')), 'no corpus index is built');
    }
    assert.ok(logs.pools.some((l) => /BM25: an index of each pool's own texts/.test(l)), 'the run says which index it uses');
    assert.ok(logs.pools.some((l) => /BM25 index of a pool of 3000 articles/.test(l)), 'and builds the pools\' indexes');
    assert.ok(!logs.pools.some((l) => /BM25 index of \d+ articles$/.test(l)), 'never the corpus index');
    const corpusFiles = tree(results.corpus);
    const poolsFiles = tree(results.pools);
    const a = [...corpusFiles.keys()];
    assert.deepEqual([...poolsFiles.keys()], a);
    let compared = 0;
    for (const f of a) {
      const x = corpusFiles.get(f)!;
      const y = poolsFiles.get(f)!;
      if (/^(runs|qrels)\/|^mdcr\/(mdcr_|scores\/)/.test(f)) {
        assert.ok(x.equals(y), `${f} differs`);
        compared++;
      } else if (/^(cells|mdcr\/cells)\/.*\.json$/.test(f)) {
        // Every number of the cell; its key names the index (and so differs), through the model's fingerprint only.
        const strip = (b: Buffer) => JSON.stringify(JSON.parse(b.toString()), (k, v) => (k === 'key' || k === 'inputs' ? undefined : v));
        assert.equal(strip(y), strip(x), `${f}: numbers`);
        const [cx, cy] = [x, y].map((b) => JSON.parse(b.toString()) as { key: string; inputs: Record<string, string> });
        assert.notEqual(cy.key, cx.key, `${f}: key`);
        assert.deepEqual(Object.keys(cx.inputs).filter((n) => cx.inputs[n] !== cy.inputs[n]), ['model'], `${f}: the inputs that differ`);
        compared++;
      }
    }
    assert.ok(compared > 40, `${compared} files compared`);
    assert.ok(a.some((f) => f.startsWith('runs/nav/')) && a.some((f) => f.startsWith('mdcr/scores/bm25-exact')), 'navigation and MDCR ran');
    const tuning = (d: string) => JSON.parse(readFileSync(join(d, 'results.json'), 'utf8')).tuning;
    assert.deepEqual(tuning(results.pools), tuning(results.corpus), 'the same tuning grid and choice');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('bm25Index: a sparse Profiler needs the corpus index; other values are refused', () => {
  const base = 'corpus: {synthetic: {articles: 100}}\nmodels:\n  bm25: {}\n  prof: {kind: profiler, base: bm25}\nprotocols:\n  dataset: {queries: 5}\n';
  assert.throws(() => parseConfig(`${base}bm25Index: pools\n`, 'x.yaml'), (e: unknown) => e instanceof InputError && /x\.yaml:7 \[bm25Index\]: pools: the sparse Profiler 'prof'/.test(e.message));
  assert.throws(() => parseConfig(`${base}bm25Index: disk\n`, 'x.yaml'), /\[bm25Index\]: must be corpus or pools, got 'disk'/);
  assert.equal(parseConfig(base, 'x.yaml').bm25Index, undefined, 'corpus (the default) leaves the config as it was');
});
