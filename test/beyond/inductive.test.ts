/**
 * The inductive setting (Goyal et al. 2026 §3.1) as invariants on sampled cells: at both protocols, no query in
 * its cell's pool, every pool member (cited ones included) published strictly before the query year, every query
 * citing at least one such article; the transductive streams are untouched by the option. End to end, `citebench
 * run` with `setting: [transductive, inductive]` writes both settings' cells, and no inductive run lists a query
 * or an article of the query year or later; the report shows both and the paired tests against BM25.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { CorpusStore } from '../../src/corpus/store.ts';
import { citedBy, sampleQueries, samplePool } from '../../src/sampling/pools.ts';
import { parseConfig } from '../../src/experiments/config.ts';
import { planGroups, groupPath } from '../../src/experiments/plan.ts';
import { runExperiment } from '../../src/experiments/run.ts';
import { readResults } from '../../src/report/results.ts';
import { seedCorpusStage } from '../helpers/corpus-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'cb-inductive-'));
let store: CorpusStore;
const YEAR = 2019;

test('setup: a small prefiltered synthetic store', async () => {
  // The corpus stage's store of 6,000 synthetic articles (seed 7, the paper's prefilter), built once per test run.
  await seedCorpusStage(parseConfig('corpus: {synthetic: {articles: 6000, seed: 7}}\nmodels: {bm25: {}}\nprotocols: {dataset: {}}\n', 'x.yaml'), dir);
  store = CorpusStore.open(join(dir, 'store'));
});

function checkInductive(queries: Uint32Array, members: Uint32Array, what: string) {
  const q = new Set(queries);
  for (const m of members) {
    assert.ok(!q.has(m), `${what}: query ${store.id(m)} in its pool`);
    assert.ok(store.years[m] !== 0 && store.years[m] < YEAR, `${what}: pool article of ${store.years[m]}`);
  }
  const inPool = new Set(members);
  for (const x of queries) {
    const before = [...store.outbound(x)].filter((c) => store.years[c] !== 0 && store.years[c] < YEAR);
    assert.ok(before.length >= 1, `${what}: query ${store.id(x)} cites nothing earlier`);
    for (const c of before) assert.ok(inPool.has(c), `${what}: earlier cited article missing from the pool`);
  }
}

test('sampled cells: disjoint, strictly earlier, at the dataset and the field level', () => {
  let sameYearCitations = 0;
  for (const seed of [1, 2, 3]) {
    const qd = sampleQueries(store, { count: 30, seed, queryYear: YEAR, inductive: true });
    for (const x of qd) for (const c of store.outbound(x)) if (store.years[c] >= YEAR) sameYearCitations++;
    for (const repeat of [1, 2]) checkInductive(qd, samplePool(store, qd, { size: 1500, repeat, seed, queryYear: YEAR, inductive: true }).members, `dataset seed ${seed} r${repeat}`);
    for (const field of ['Medicine', 'Biology'] as const) {
      const qf = sampleQueries(store, { count: 4, seed, queryYear: YEAR, field, inductive: true });
      const p = samplePool(store, qf, { size: 900, repeat: 1, seed, queryYear: YEAR, field, inductive: true });
      checkInductive(qf, p.members, `field ${field} seed ${seed}`);
    }
  }
  // The synthetic corpus has same-year citations: the transductive pool holds them, the inductive one may not.
  assert.ok(sameYearCitations > 0, 'queries cite articles of their own year (else "< 2019" would not differ from "≤ 2019")');
  const qd = sampleQueries(store, { count: 30, seed: 1, queryYear: YEAR });
  const t = samplePool(store, qd, { size: 1500, repeat: 1, seed: 1, queryYear: YEAR });
  assert.ok([...t.members].some((m) => store.years[m] === YEAR), 'transductive pools keep the query year');
  assert.deepEqual(samplePool(store, qd, { size: 1500, repeat: 1, seed: 1, queryYear: YEAR, inductive: false }).members, t.members, 'inductive: false is the old stream');
  assert.deepEqual([...citedBy(store, qd)].filter((c) => !t.members.includes(c)), [], 'transductive pool: every cited article');
});

test('plan: inductive groups beside the transductive ones, in folders of their own; MDCR only transductive', () => {
  const cfg = parseConfig(`corpus: {synthetic: {articles: 100}}\nsetting: [transductive, inductive]\nmodels: {bm25: {}}\nprotocols: {dataset: {queries: 2, pools: [10], repeats: 1}, field: {queries: 2, pool: 10, repeats: 1, fields: [Biology]}, mdcr: {}}\n`, 'x.yaml');
  assert.deepEqual(planGroups(cfg).map(groupPath), ['dataset/10-r1', 'field/Bio/r1', 'field-val/Bio/r1', 'dataset-inductive/10-r1', 'field-inductive/Bio/r1']);
  const plain = parseConfig(`corpus: {synthetic: {articles: 100}}\nmodels: {bm25: {}}\nprotocols: {dataset: {queries: 2, pools: [10], repeats: 1}}\n`, 'x.yaml');
  assert.equal(plain.settings, undefined, 'no setting key: the config (and its hash) as before');
  assert.throws(() => parseConfig(`corpus: {synthetic: {articles: 100}}\nsetting: sideways\nmodels: {bm25: {}}\nprotocols: {dataset: {}}\n`, 'x.yaml'), /x\.yaml:2 \[setting\]: must be transductive or inductive/);
  assert.throws(() => parseConfig(`corpus: {synthetic: {articles: 100}}\nmodels: {nav: {kind: navigation, first: bm25}, bm25: {}}\nprotocols: {dataset: {}}\n`, 'x.yaml'), /'bm25' is not a model configured above nav/);
  assert.throws(() => parseConfig(`corpus: {synthetic: {articles: 100}}\nmodels: {bm25: {}, nav: {kind: navigation, first: bm25, T: 2, kd: [10, 20], kc: 5, ka: 1}}\nprotocols: {dataset: {}}\n`, 'x.yaml'), /unknown key 'ka'/);
  const nav = parseConfig(`corpus: {synthetic: {articles: 100}}\nmodels: {bm25: {}, nav: {kind: navigation, first: bm25, kd: [10, 20], kc: 5}}\nprotocols: {dataset: {}}\n`, 'x.yaml').models[1];
  assert.deepEqual(nav, { kind: 'navigation', name: 'nav', first: 'bm25', kd: [10, 20], kc: [5, 5], scorer: [{ model: 'bm25', weight: 1 }] });
});

test('citebench run with both settings: inductive runs list no query and nothing of the query year; both settings reported', async () => {
  const cfgText = `name: ind\nseed: 7\ncorpus: {synthetic: {articles: 6000, seed: 7}}\nk: 300\nmeasures: [MAP, MRR, F1@20, R@1000]\nvalidation: {queries: 8}\nsetting: [transductive, inductive]\n` +
    `models:\n  bm25: {}\n  nav: {kind: navigation, first: bm25, kd: 50, kc: 100}\n  prof: {kind: profiler, base: bm25, tune: {beta: [0, 0.5]}}\n` +
    `protocols:\n  dataset: {queries: 10, pools: [900], repeats: 2}\n  field: {queries: 3, pool: 700, repeats: 1, fields: [Medicine]}\n`;
  const cfg = parseConfig(cfgText, 'ind.yaml', { work: join(dir, 'work'), results: join(dir, 'res') });
  await seedCorpusStage(cfg, cfg.work, { bm25: true });
  const out = await runExperiment(cfg, { log: () => {}, threads: 1 });
  const res = readResults(out.resultsDir);
  const ind = res.cells.filter((c) => c.setting === 'inductive');
  assert.equal(ind.length, 3 * (2 + 1), 'three models × (2 dataset repeats + 1 field)');
  assert.equal(res.cells.filter((c) => !c.setting).length, 9);
  for (const c of ind) {
    const queries = new Set(readFileSync(join(out.resultsDir, c.files.qrels), 'utf8').trim().split('\n').map((l) => l.split(/\s+/)[0]));
    for (const line of readFileSync(join(out.resultsDir, c.files.run), 'utf8').trim().split('\n')) {
      const [qid, , docno] = line.split(/\s+/);
      assert.ok(queries.has(qid));
      const d = out.store.indexOf(docno);
      assert.ok(!queries.has(docno), `${c.model} ${c.file}: query ${docno} retrieved`);
      assert.ok(out.store.years[d] !== 0 && out.store.years[d] < YEAR, `${c.model} ${c.file}: ${docno} of ${out.store.years[d]}`);
    }
  }
  assert.ok(existsSync(join(out.resultsDir, 'runs', 'nav', 'dataset-inductive')));
  assert.ok(readdirSync(join(out.resultsDir, 'runs', 'prof')).includes('field-inductive'));
  const rows = res.significance!.rows;
  assert.deepEqual([...new Set(rows.map((r) => `${r.setting}/${r.model}`))].sort(), ['inductive/nav', 'inductive/prof', 'transductive/nav', 'transductive/prof']);
  assert.ok(out.report.includes('## Table 1 — Dataset level (§3.1) — inductive setting'));
  assert.ok(out.report.includes('## Paired significance against bm25 (dataset level)'));
  const prof = res.models.find((m) => m.name === 'prof')!;
  assert.equal(prof.settings.tuned, true);
  assert.match(res.tuning.find((t) => t.model === 'prof')!.topics!, /^dataset-val\/[^/]+-r1$/, 'β tuned on the validation split of the first setting');
  out.store.close();
  // A rerun (a resumed run, a cluster task) reuses the β tuning from the work folder: same choice, no grid search.
  const lines: string[] = [];
  const again = await runExperiment(cfg, { log: (l) => lines.push(l), threads: 1 });
  assert.ok(lines.some((l) => /^\[tune\] prof: beta=(0|0\.5) \(map [0-9.]+ on 8 validation queries, dataset-val\/.*; 2 of 2 points from the cache\)$/.test(l)), lines.join('\n'));
  assert.ok(!lines.some((l) => /\[tune\] prof .*: 8 queries over/.test(l)), 'no grid point searched the second time');
  assert.ok(readFileSync(join(out.resultsDir, 'results.json')).equals(readFileSync(join(again.resultsDir, 'results.json'))));
  again.store.close();
  // Another grid is another key: tuned afresh.
  const other = parseConfig(cfgText.replace('beta: [0, 0.5]', 'beta: [0, 0.25]'), 'ind.yaml', { work: join(dir, 'work'), results: join(dir, 'res2') });
  const lines2: string[] = [];
  (await runExperiment(other, { log: (l) => lines2.push(l), threads: 1 })).store.close();
  assert.ok(lines2.some((l) => /^\[tune\] prof: beta=.* on 8 validation queries, dataset-val\/[^;]*; 1 of 2 points from the cache\)$/.test(l)), lines2.join('\n'));
});
