/**
 * configs/pipelines.yaml's line-up at a small scale, end to end through the one path: BM25 (tuned), a BERT encoder
 * in SPECTER2's place, their reciprocal-rank fusion, and BM25's top candidates re-ranked by an XLM-R cross-encoder
 * (in bge-reranker-v2-m3's place) and by a bare Qwen3ForCausalLM with the Qwen3-Reranker recipe — random-weight
 * folders the project's makers built (test/dense/fixtures) — on a synthetic corpus, under the dataset and field
 * levels and MDCR; then the report. Every model gets its cells and MDCR results; timings.json holds each computed
 * cell's cost by stage (first stage, fusion, re-scoring) with the pairs re-scored; the report's Cost table and
 * quality-vs-time figure show all five, and the figure passes the print check at a column's width.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/experiments/config.ts';
import { runExperiment } from '../../src/experiments/run.ts';
import { writeReport } from '../../src/report/write-report.ts';
import { readTimings, costChart } from '../../src/report/costs.ts';
import { readResults } from '../../src/report/results.ts';
import { figureRender } from '../../src/report/figures.ts';
import { printCheck } from '../../src/report/print-check.ts';

const FIX = new URL('../dense/fixtures/', import.meta.url).pathname;
const REPO = new URL('../../', import.meta.url).pathname;

test('pipelines.yaml at small scale: BM25, an encoder, their RRF and two rerankers through dataset, field and MDCR; costs by stage in timings.json and the report', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'cb-pipelines-'));
  try {
    // Folder names that say the weights are random (the report's weights column reads the folder).
    cpSync(join(FIX, 'st/mean-normalize-prompts'), join(tmp, 'bert-random'), { recursive: true });
    cpSync(join(FIX, 'rerankers/xlmr-st-identity'), join(tmp, 'xlmr-reranker-random'), { recursive: true });
    copyFileSync(join(FIX, 'tokenizers/xlmr-unigram/tokenizer.json'), join(tmp, 'xlmr-reranker-random/tokenizer.json'));
    cpSync(join(FIX, 'llm-rerankers/qwen3-reranker-bare'), join(tmp, 'qwen3-reranker-random'), { recursive: true });
    // The shipped config, its corpus, sizes and folders swapped for small ones; its models as they are.
    const shipped = readFileSync(join(REPO, 'configs/pipelines.yaml'), 'utf8');
    const text = shipped
      .replace(/^corpus:\n  store: .*$/m, 'corpus: {synthetic: {articles: 2500, seed: 5}}')
      .replace(/^k: 500$/m, 'k: 40')
      .replace(/^validation:\n  queries: 3800$/m, 'validation: {queries: 4}')
      .replace('bm25: { tune: true }', 'bm25: { tune: { k1: [0.9, 1.2], b: [0.4] } }')
      .replace('specter2: {}', `specter2: {model: ${JSON.stringify(join(tmp, 'bert-random'))}}`)
      .replace('reranker: bge-reranker-v2-m3', `reranker: ${JSON.stringify(join(tmp, 'xlmr-reranker-random'))}`)
      .replace('reranker: qwen3-reranker-0.6b', `reranker: {model: ${JSON.stringify(join(tmp, 'qwen3-reranker-random'))}, maxLength: 160}`)
      .replaceAll('depth: 100', 'depth: 8')
      .replace(/^protocols:[\s\S]*$/m, 'protocols:\n  dataset: {queries: 5, pools: [400, 800], repeats: 1}\n  field: {queries: 3, pool: 300, repeats: 1, fields: [Medicine, Biology]}\n  mdcr: {}\n');
    assert.notEqual(text, shipped);
    const cfg = parseConfig(text, 'pipelines-small.yaml', { work: join(tmp, 'work'), results: join(tmp, 'res') });
    const names = cfg.models.map((m) => m.name);
    assert.deepEqual(names, ['bm25', 'specter2', 'bm25-specter2-rrf', 'bm25-bge-reranker', 'bm25-qwen3-reranker']);
    const out = await runExperiment(cfg, { log: () => {}, threads: 1 });
    out.store.close();
    const r = readResults(join(tmp, 'res'));
    assert.deepEqual(r.skipped, []);
    for (const m of names) {
      const cells = r.cells.filter((c) => c.model === m);
      assert.ok(cells.some((c) => c.protocol === 'dataset') && cells.some((c) => c.protocol === 'field'), `${m}: dataset and field cells`);
      assert.ok(r.mdcr?.results[m], `${m}: MDCR scored`);
    }
    const settings = Object.fromEntries(r.models.map((m) => [m.name, m.settings as Record<string, unknown>]));
    assert.match(String(settings['bm25-bge-reranker'].rerankerForm), /^sequence classification \(XLMRobertaForSequenceClassification/);
    assert.match(String(settings['bm25-qwen3-reranker'].rerankerForm), /Qwen3-Reranker/);

    // Each computed cell's cost, by stage: the fusion's and the rerankers' stages apart, with the pairs re-scored.
    const t = readTimings(join(tmp, 'res'))!;
    const at = (m: string) => r.cells.filter((c) => c.model === m && c.protocol === 'dataset').map((c) => t.cells![c.file]);
    for (const m of names) assert.ok(at(m).every((c) => c && c.queries === 5 && Object.values(c.seconds).every((s) => s >= 0)), m);
    assert.deepEqual(Object.keys(at('bm25')[0].seconds), ['first stage']);
    assert.deepEqual(Object.keys(at('bm25-specter2-rrf')[0].seconds).sort(), ['first stage', 'fusion']);
    for (const m of ['bm25-bge-reranker', 'bm25-qwen3-reranker']) {
      const c = at(m)[0];
      assert.deepEqual(Object.keys(c.seconds).sort(), ['first stage', 're-scoring']);
      assert.equal(c.pairs, 5 * 8, `${m}: the top 8 of 5 queries re-scored`);
    }
    // MDCR's scores cells have their cost too.
    assert.ok(t.cells!['mdcr/cells/bm25-qwen3-reranker.json']?.pairs > 0);

    const rep = await writeReport(join(tmp, 'res'), { out: join(tmp, 'rep'), pdf: false });
    const html = readFileSync(rep.html, 'utf8');
    const cost = html.slice(html.indexOf('id="cost"'), html.indexOf('</table>', html.indexOf('id="cost"')));
    for (const m of names) assert.ok(cost.includes(`>${m}<`), `${m} in the Cost table`);
    assert.match(cost, /re-scoring ms\/q/);
    const chart = costChart(r, t)!;
    const rendered = await figureRender(chart, { width: 3.3 });
    assert.deepEqual((await printCheck(rendered.spec, rendered.inches)).problems, []);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
