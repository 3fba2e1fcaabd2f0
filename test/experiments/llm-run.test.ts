/**
 * configs/llm.yaml's line-up at a small scale, end to end through the one path: BM25, a BERT encoder (SciNCL's and
 * SPECTER2's architecture), a Qwen3-Embedding-shaped and an EmbeddingGemma-shaped folder (random weights, saved by
 * sentence-transformers itself: test/dense/fixtures/st and decoder-st) on a synthetic corpus, under the dataset
 * and field levels and MDCR; then the report. Every cell is computed, and the report names each model's
 * architecture, pooling and modules, dimension, and prompts — and says the weights are random (no finding here).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/experiments/config.ts';
import { runExperiment } from '../../src/experiments/run.ts';
import { writeReport } from '../../src/report/write-report.ts';

const FIX = new URL('../dense/fixtures/', import.meta.url).pathname;

test('llm.yaml\'s models at small scale: BM25, BERT, Qwen3- and EmbeddingGemma-shaped folders through dataset, field and MDCR, and a report that names what each model is', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'cb-llm-run-'));
  try {
    // Folder names that say the weights are random (the report's weights column reads the folder).
    const folders = { 'bert-random': 'st/mean-normalize-prompts', 'qwen3-random': 'decoder-st/qwen3-lasttoken-left', 'gemma-random': 'decoder-st/gemma-dense-prompts' };
    for (const [to, from] of Object.entries(folders)) cpSync(join(FIX, from), join(tmp, to), { recursive: true });
    const cfg = parseConfig(
      `name: llm-small\nseed: 3\ncorpus: {synthetic: {articles: 2500, seed: 3}}\nk: 50\nmeasures: [MAP, nDCG]\nvalidation: {queries: 4}\n` +
        `models:\n  bm25: {}\n  bert: {model: ${JSON.stringify(join(tmp, 'bert-random'))}}\n  qwen3: {model: ${JSON.stringify(join(tmp, 'qwen3-random'))}, prompts: {query: "Instruct: cite\\nQuery:"}}\n` +
        `  gemma: {model: ${JSON.stringify(join(tmp, 'gemma-random'))}}\n` +
        `protocols:\n  dataset: {queries: 6, pools: [500], repeats: 1}\n  field: {queries: 3, pool: 300, repeats: 1, fields: [Medicine, Biology]}\n  mdcr: {}\n`,
      'llm-small.yaml', { work: join(tmp, 'work'), results: join(tmp, 'res') },
    );
    const out = await runExperiment(cfg, { log: () => {}, threads: 1 });
    try {
      for (const m of ['bm25', 'bert', 'qwen3', 'gemma']) {
        const cells = out.results.cells.filter((c) => c.model === m);
        assert.ok(cells.some((c) => c.protocol === 'dataset') && cells.some((c) => c.protocol === 'field'), `${m}: dataset and field cells`);
      }
      const settings = Object.fromEntries(out.results.models.map((m) => [m.name, m]));
      assert.equal(settings.qwen3!.settings.architecture, 'qwen3');
      assert.equal(settings.gemma!.settings.architecture, 'gemma3_text');
      assert.equal(settings.gemma!.settings.dim, 48);
      assert.deepEqual(settings.qwen3!.settings.prompts, { query: 'Instruct: cite\nQuery:', document: '' });
    } finally {
      out.store.close();
    }
    const rep = await writeReport(join(tmp, 'res'), { out: join(tmp, 'rep'), pdf: false });
    const html = readFileSync(rep.html, 'utf8');
    assert.match(html, /qwen3, lasttoken pooling → Normalize, dim 32, cosine, prompts query &quot;Instruct: cite\\nQuery:&quot; \/ document none/);
    assert.match(html, /gemma3_text, mean pooling → Dense 48→96 → Dense 96→48 → Normalize, dim 48, cosine, prompts query &quot;task: search result \| query: &quot; \/ document &quot;title: none \| text: &quot;/);
    assert.match(html, /bert, mean pooling → Normalize, dim 16, cosine, prompts query &quot;query: &quot; \/ document &quot;passage: &quot;/);
    assert.match(html, /gemma \(dense, <b>random weights<\/b>/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
