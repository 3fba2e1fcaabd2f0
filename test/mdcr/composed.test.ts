// MDCR through the retrievers' candidate mode in a run: composed models whose retriever scores fixed lists
// (navigation's and re-ranking's ranking phase) get MDCR numbers; with BM25 as their ranking phase they score
// every pair as BM25 does (the data file's papers as the pool), so their evaluate.py numbers equal BM25's; the
// Profiler, which ranks a pool, is left out. Each model's scores are a cell of the one cache: a second run reads
// them back (mdcr/cells/<model>.json beside the scores file) instead of scoring again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { parseConfig } from '../../src/experiments/config.ts';
import { runExperiment } from '../../src/experiments/run.ts';
import { seedCorpusStage } from '../helpers/corpus-fixture.ts';

const CONFIG = `name: mdcr-composed
seed: 7
corpus: {synthetic: {articles: 6000}}
k: 100
models:
  bm25: {}
  nav: {kind: navigation, first: bm25, kd: [20], kc: [30]}
  rr: {kind: rerank, first: bm25, depth: 10, scorer: {bm25: 2}}
  prof: {kind: profiler, base: bm25}
protocols:
  field: {queries: 4, pool: 1100, repeats: 1, fields: [Medicine, Biology]}
  mdcr: {}
`;

test('MDCR in a run: navigation and rerank score the pairs (equal to BM25 with BM25 as their ranking phase); the Profiler is left out; scores are cached', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-mdcr-composed-'));
  try {
    const cfg = parseConfig(CONFIG, 'x.yaml', { work: join(dir, 'work'), results: join(dir, 'results') });
    await seedCorpusStage(cfg, cfg.work, { bm25: true });
    const log: string[] = [];
    const out = await runExperiment(cfg, { log: (l) => log.push(l), threads: 1 });
    out.store.close();
    const r = out.results.mdcr!.results;
    assert.deepEqual(Object.keys(r).sort(), ['bm25', 'nav', 'rr']);
    assert.ok(log.some((l) => /\[mdcr\] prof: left out \(its retriever ranks a pool/.test(l)), log.join('\n'));
    for (const m of ['nav', 'rr']) {
      assert.deepEqual(r[m].all.avg, r.bm25.all.avg, `${m}: evaluate.py AVG equals BM25's`);
      assert.deepEqual(r[m].types, r.bm25.types);
    }
    const nav = readFileSync(join(dir, 'results/mdcr/scores/nav.json'), 'utf8');
    assert.equal(nav, readFileSync(join(dir, 'results/mdcr/scores/bm25.json'), 'utf8'), 'navigation with BM25 ranking: BM25\'s scores');
    const stamps = () => ['bm25', 'nav', 'rr'].flatMap((m) => [`mdcr/cells/${m}.json`, `mdcr/scores/${m}.json`]).map((f) => `${f}@${statSync(join(dir, 'results', f)).mtimeMs}`);
    const before = stamps();
    const again = await runExperiment(cfg, { log: () => {}, threads: 1 });
    again.store.close();
    assert.deepEqual(stamps(), before, 'read back, not re-scored');
    assert.deepEqual(again.results.mdcr, out.results.mdcr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
