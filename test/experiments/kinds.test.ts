// The model-kind registry: a kind is one file (test/experiments/fixtures/toy-kind.ts) plus its registration.
// Nothing else in the tree knows the toy kind; here it is read from YAML (its own keys checked, errors with
// file:line:key), priced by the dry run, tuned by the one tuner, built and searched by `citebench run`'s runner
// into cells, scores MDCR's candidate lists, and is reported — results.json, the tuning record, Tables 1–4.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { parseConfig, parseModelsOnly } from '../../src/experiments/config.ts';
import { anyNeeds, kindNamed, kindNames, needs, registerKind, tunedVariants, unregisterKind } from '../../src/experiments/kinds/index.ts';
import { dryRun, runExperiment } from '../../src/experiments/run.ts';
import { regressionRows } from '../../src/report/regressions.ts';
import { InputError } from '../../src/util/errors.ts';
import { toy } from './fixtures/toy-kind.ts';

const CONFIG = `name: toy
seed: 3
corpus: {synthetic: {articles: 6000}}
k: 100
validation: {queries: 6}
models:
  near: {kind: toy, step: 5}
  tuned: {kind: toy, tune: {step: [25, 1, 5]}}
protocols:
  dataset: {queries: 6, pools: [800], repeats: 1}
  field: {queries: 4, pool: 1100, repeats: 1, fields: [Medicine, Biology]}
  mdcr: {}
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
    assert.deepEqual(out.results.models.map((m) => [m.name, m.kind, m.summary]), [['near', 'toy', 'toy, step 5'], ['tuned', 'toy', `toy, step ${out.results.tuning[0].chosen.step}`]]);
    // tuned by the one tuner: its record kind-neutral, its choice the best of the grid (the first of equals)
    const t = out.results.tuning[0];
    assert.deepEqual([t.model, t.params, t.grid.map((g) => g.params.step)], ['tuned', { step: [25, 1, 5] }, [25, 1, 5]]);
    const best = Math.max(...t.grid.map((g) => g.score));
    assert.deepEqual(t.chosen, t.grid.find((g) => g.score === best)!.params);
    assert.ok(regressionRows(out.results)['tuning/tuned/chosen'], 'a regression row for its choice');
    // cells of both protocols, and MDCR scored with its candidate lists (scores file, evaluate.py's numbers)
    assert.equal(out.results.cells.filter((c) => c.protocol === 'dataset' && c.split === 'test').length, 2);
    assert.ok(out.results.cells.some((c) => c.protocol === 'field' && c.model === 'near'));
    const m = out.results.mdcr!;
    assert.deepEqual(Object.keys(m.results), ['near', 'tuned']);
    assert.ok(existsSync(join(dir, 'results', m.files.scores_near)));
    assert.ok(m.results.near.all.avg.map > 0 && Object.keys(m.results.near.types).length > 0);
    assert.deepEqual(m.chosenModels.sort(), ['near', 'tuned'], 'a first-stage kind gives model-based negatives');
    for (const table of ['Table 1', 'Table 2', 'Table 3', 'Table 4']) assert.match(out.report, new RegExp(`## ${table} `));
    assert.match(out.report, /\| near \|/);
    assert.match(out.report, /Tuning: tuned step \d+ — best map of 3 grid points/);
    assert.match(out.report, /Models: near \(toy, step 5\)/);
  } finally {
    unregisterKind('toy');
    rmSync(dir, { recursive: true, force: true });
  }
  assert.ok(!kindNames().includes('toy'));
  assert.throws(() => unregisterKind('bm25'), /built in/);
  assert.throws(() => parseConfig(CONFIG, 'toy.yaml'), /\[models\.near\.kind\]: must be bm25, dense, embeddings, fusion, navigation, profiler or rerank, got 'toy'/);
});

test('registry: tuned variants, needs and name-implied kinds are asked of the entries', () => {
  const { models } = parseModelsOnly(`models:
  bm25: { k1: 1.2 }
  lengths: { kind: bm25, accurate: true }
  tuned: { kind: bm25, tune: true }
  specter: {}
  fused: { kind: fusion, inputs: [bm25, lengths], method: rrf }
  lengths-tuned: { kind: bm25, accurate: true, tune: true }
`, 'x.yaml');
  // bm25 gets one (its grid's, its lengths kept); a tuned one, a fusion without a tunedVariant, an existing name: none.
  const v = tunedVariants(models);
  assert.deepEqual(v.map((m) => m.name), ['bm25-tuned']);
  assert.deepEqual(v[0], { kind: 'bm25', name: 'bm25-tuned', k1: 1.2, b: 0.4, accurate: false, tune: { k1: [0.6, 0.9, 1.2, 1.5], b: [0.3, 0.4, 0.6, 0.75], measure: 'map' } });
  assert.deepEqual(models.map((m) => [needs(m, 'bm25Index'), needs(m, 'encode')]), [[true, false], [true, false], [true, false], [false, true], [false, false], [true, false]]);
  assert.equal(anyNeeds(models.slice(3, 5), 'bm25Index'), false);
  assert.equal(anyNeeds(models, 'no-such-resource'), false);
  assert.equal(kindNamed('bm25'), 'bm25');
  assert.equal(kindNamed('specter'), undefined);
});

