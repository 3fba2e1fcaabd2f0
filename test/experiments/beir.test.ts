// The BEIR protocol end to end under `citebench run` (runExperiment): BM25 and a random-weight encoder (the
// repository's safetensors checkpoint fixture, converted on first use) on test/fixtures/beir-search (real Semantic Scholar queries and papers, graded labels). Every
// cell's numbers equal `citebench eval -c` (trec_eval 9.0.8 semantics) on the run and qrels files it wrote; the
// BM25 run equals real Lucene 8.7 over the task's documents alone; results.json, report.md, the HTML report and
// the export show the task, the random-weight row marked as no finding.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { loadConfig } from '../../src/experiments/config.ts';
import { runExperiment } from '../../src/experiments/run.ts';
import { topicSetsOf } from '../../src/experiments/adhoc.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { parseMeasure } from '../../src/eval/registry.ts';
import { trecEvalText } from '../../src/eval/trec-eval.ts';
import { buildTables } from '../../src/report/report-tables.ts';
import { loadPaperNumbers } from '../../src/report/paper-numbers.ts';
import { writeReport } from '../../src/report/write-report.ts';
import type { CellRecord, ResultsIndex } from '../../src/report/results.ts';
import { tidyColumns, tidyTables } from '../../src/report/tidy.ts';
import { loadResults } from '../../src/report/frames.ts';
import { articleText } from '../../src/retrieval/bm25/analyzer.ts';
import { CitebenchError } from '../../src/util/errors.ts';
import { luceneSearch, oracleUnavailable } from '../bm25/lucene-oracle.ts';
import { REPO } from '../helpers/shared.ts';

const FIXTURE = join(REPO, 'test/fixtures/beir-search');
// A random-weight BERT with the SciBERT vocabulary, as the hub publishes a checkpoint (safetensors + vocab.txt):
// copied into the test's folder (its name says random, so the run marks its rows) before the first run.
const CHECKPOINTS = join(REPO, 'test/dense/fixtures/checkpoints');
let TINY = '';
const MEASURES = ['MAP', 'nDCG', 'nDCG@10', 'R@30'];

let tmp = '';
let r: ResultsIndex;
let dir = '';

function config(extra = '', split = 'test', models = ''): string {
  const p = join(tmp, `cfg-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(p, [
    'name: beir-e2e', 'seed: 3', 'corpus: { synthetic: { articles: 1500 } }', 'k: 100', `measures: [${MEASURES.join(', ')}]`,
    'models:', '  bm25: { k1: 0.9, b: 0.4 }', `  tiny: { model: ${TINY} }`, ...(models ? [models] : []),
    'protocols:', `  beir: { path: ${FIXTURE}, split: ${split}${extra} }`, '',
  ].join('\n'));
  return p;
}

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'cb-beir-run-'));
  TINY = join(tmp, 'tiny-random');
  cpSync(join(CHECKPOINTS, 'safetensors-f32-bertmodel'), TINY, { recursive: true });
  for (const f of ['vocab.txt', 'tokenizer_config.json']) cpSync(join(CHECKPOINTS, f), join(TINY, f));
  const cfg = loadConfig(config(), { work: join(tmp, 'work'), results: join(tmp, 'results') });
  const out = await runExperiment(cfg, { log: () => {}, threads: 1 });
  out.store.close();
  r = out.results;
  dir = out.resultsDir;
});

after(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test('one cell per model on the task; each equals citebench eval -c on the run and qrels files it wrote', () => {
  assert.deepEqual(r.beir && { ...r.beir, sha256: undefined }, { name: 'beir-search', split: 'test', documents: 310, queries: 31, judgements: 310, sha256: undefined, notRun: [] });
  const cells = r.cells.filter((c) => c.protocol === 'beir');
  assert.deepEqual(cells.map((c) => c.model), ['bm25', 'tiny']);
  for (const c of cells) {
    assert.equal(c.file, `cells/${c.model}/beir/beir-search.json`);
    assert.equal(c.files.qrels, 'qrels/beir/beir-search.qrels');
    assert.equal(c.poolMembers, 310);
    const rec = JSON.parse(readFileSync(join(dir, c.file), 'utf8')) as CellRecord;
    assert.equal(rec.queryIds.length, 31);
    const text = trecEvalText(join(dir, c.files.qrels), join(dir, c.files.run), MEASURES, { missing: 'zero', perQuery: true });
    const lines = new Map(text.trim().split('\n').map((l) => l.split('\t').map((x) => x.trim())).map(([m, q, v]) => [`${m} ${q}`, v]));
    for (const m of MEASURES) {
      const trec = parseMeasure(m)[0].name;
      rec.queryIds.forEach((q, i) => assert.equal(lines.get(`${trec} ${q}`), rec.perQuery[m][i].toFixed(4), `${c.model} ${m} ${q}`));
      assert.equal(lines.get(`${trec} all`), c.means[m].toFixed(4), `${c.model} ${m}`);
    }
  }
  // The qrels file holds the BEIR query ids and the graded labels as given.
  const qrels = readFileSync(join(dir, 'qrels/beir/beir-search.qrels'), 'utf8');
  const given = readFileSync(join(FIXTURE, 'qrels/test.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));
  assert.deepEqual(qrels.trim().split('\n').map((l) => l.split(' ')).map(([q, , d, s]) => `${q} ${d} ${s}`).sort(), given.map(([q, d, s]) => `${q} ${d} ${s}`).sort());
});

test('the BM25 run file equals Lucene over the task\'s documents alone', { skip: oracleUnavailable() }, () => {
  const jsonl = (f: string) => readFileSync(join(FIXTURE, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const corpus = jsonl('corpus.jsonl') as { _id: string; title: string; text: string }[];
  const queries = jsonl('queries.jsonl') as { _id: string; text: string }[];
  const lucene = luceneSearch(corpus.map((d) => articleText({ title: d.title, abstract: d.text })), queries.map((q) => q.text), corpus.length, 0.9, 0.4);
  const run = new Map<string, Map<string, number>>();
  for (const l of readFileSync(join(dir, 'runs/bm25/beir/beir-search.trec'), 'utf8').trim().split('\n')) {
    const [q, , d, , s] = l.split(' ');
    if (!run.has(q)) run.set(q, new Map());
    run.get(q)!.set(d, Math.fround(Number(s))); // the run prints float32 scores
  }
  let compared = 0;
  queries.forEach((q, i) => {
    const ours = run.get(q._id)!;
    const cut = Math.min(...ours.values()); // the run holds the top 100: compare what lies strictly above its last score
    for (const h of lucene[i]) {
      if (h.score <= cut) continue;
      assert.equal(ours.get(corpus[h.doc]._id), h.score, `${q._id} ${corpus[h.doc]._id}`);
      compared++;
    }
    assert.equal(lucene[i].filter((h) => h.score > cut).length, [...ours.values()].filter((s) => s > cut).length, `${q._id}: the same documents above the cut`);
  });
  assert.ok(compared > 1000, `compared ${compared}`);
});

test('report.md and the HTML report show the task; the random-weight row is marked; the export has its cells', async () => {
  const md = readFileSync(join(dir, 'report.md'), 'utf8');
  assert.match(md, /## BEIR task beir-search \(test\)/);
  assert.match(md, /\| tiny \(random weights\) \|/);
  assert.match(md, /\*\*Random weights\.\*\* tiny/);
  const bm25 = r.cells.find((c) => c.protocol === 'beir' && c.model === 'bm25')!;
  assert.match(md, new RegExp(`\\| bm25 \\| ${(100 * bm25.means.MAP).toFixed(1)} \\|`));
  const out = await writeReport(dir, { out: join(tmp, 'report'), pdf: false, log: () => {} });
  const html = readFileSync(out.html, 'utf8');
  assert.match(html, /BEIR task beir-search/);
  assert.match(html, /href="#beir">BEIR task</);
  assert.match(html, /random weights/);
  const q = loadResults(dir).queries({ task: 'beir-search', model: 'bm25' }).objects() as Record<string, unknown>[];
  assert.equal(q.length, 31, 'the notebook API filters the task\'s per-query rows');
  const cells = tidyColumns(tidyTables(dir, r).find((t) => t.name === 'cells')!);
  const beirRows = cells.protocol.map((p, i) => i).filter((i) => cells.protocol[i] === 'beir');
  assert.equal(beirRows.length, 2 * MEASURES.length);
  assert.ok(beirRows.every((i) => cells.task[i] === 'beir-search' && cells.group[i] === 'beir/beir-search'));
  assert.deepEqual(beirRows.filter((i) => cells.model[i] === 'tiny').map((i) => cells.weights[i]), MEASURES.map(() => 'random'));
});

test('a SciDocs task: the paper\'s Table 6 prior-work numbers stand beside, labelled as another protocol', () => {
  const renamed: ResultsIndex = { ...r, beir: { ...r.beir!, name: 'scidocs' } };
  const t = buildTables(renamed, loadPaperNumbers()).find((x) => x.id === 'beir')!;
  assert.deepEqual(t.columns, [...MEASURES, 'Table 6 MAP', 'Table 6 nDCG']);
  assert.match(t.intro, /Table 6: SciDocs "Cite" .*another protocol .*not compared/);
  assert.ok(t.rows.every((row) => row.cells.slice(MEASURES.length).every((c) => c.kind === 'value' && c.value === undefined)), 'bm25 and tiny have no prior-work numbers');
  const own = buildTables(r, loadPaperNumbers()).find((x) => x.id === 'beir')!;
  assert.deepEqual(own.columns, MEASURES, 'another task: no Table 6 columns');
});

test('same config ⇒ byte-identical task files in a fresh results folder (the task store and embeddings reused)', async () => {
  const cfg = loadConfig(config(), { work: join(tmp, 'work'), results: join(tmp, 'results-again') });
  const out = await runExperiment(cfg, { log: () => {}, threads: 2 });
  out.store.close();
  for (const f of ['qrels/beir/beir-search.qrels', 'runs/bm25/beir/beir-search.trec', 'runs/tiny/beir/beir-search.trec', 'cells/bm25/beir/beir-search.json', 'cells/tiny/beir/beir-search.json', 'results.json']) {
    assert.ok(readFileSync(join(dir, f)).equals(readFileSync(join(out.resultsDir, f))), `${f} differs between two runs`);
  }
});

test('navigation (the citation graph) is not run on the task, a re-ranker of it neither, one of bm25 is; results.json and the report say why', async () => {
  const cfg = loadConfig(config('', 'test', '  nav: { kind: navigation, first: bm25 }\n  rr: { kind: rerank, first: bm25, depth: 20, scorer: tiny }\n  rrnav: { kind: rerank, first: nav, scorer: bm25 }'), { work: join(tmp, 'work'), results: join(tmp, 'results-nav') });
  const out = await runExperiment(cfg, { log: () => {}, threads: 1 });
  out.store.close();
  assert.deepEqual(out.results.beir!.notRun, [
    { name: 'nav', reason: 'a navigation model navigates the citation graph, which a BEIR task does not have' },
    { name: 'rrnav', reason: 'it needs nav, which is not run on the task (first: nav)' },
  ]);
  assert.deepEqual(out.results.cells.filter((c) => c.protocol === 'beir').map((c) => c.model), ['bm25', 'tiny', 'rr']);
  assert.match(out.report, /Not run on it: nav \(a navigation model navigates the citation graph, which a BEIR task does not have/);
});

test('the task is one of the config\'s topic sets: by id or by its name (its files), the topics and judgements its cells used', () => {
  const cfg = loadConfig(config(), { work: join(tmp, 'work'), results: join(tmp, 'results') });
  const store = CorpusStore.open(join(tmp, 'work', 'store'));
  try {
    const sets = topicSetsOf(cfg, store);
    assert.match(sets.origin(), /^corpus-[0-9a-f]{12}\/seed-3$/);
    assert.ok(sets.list().includes('beir/beir-search'));
    const t = sets.get('beir/beir-search');
    assert.match(t.name!, /^beir-[0-9a-f]{12}\/beir\/beir-search$/);
    const cell = JSON.parse(readFileSync(join(dir, r.cells.find((c) => c.protocol === 'beir' && c.model === 'bm25')!.file), 'utf8')) as CellRecord;
    assert.deepEqual(Array.from(t.topics, (q) => t.docs.id(q)), cell.queryIds);
    assert.equal(readFileSync(join(dir, cell.files.qrels), 'utf8').split('\n').filter(Boolean).length, t.qrels!.docs.length);
    const again = sets.get(t.name!);
    assert.deepEqual(again.topics, t.topics);
    again.release?.();
    t.release?.();
  } finally {
    store.close();
  }
});

test('config errors name the key; a task folder without the split is one line', async () => {
  assert.throws(() => loadConfig(config(', name: "a b"')), (e: Error) => e instanceof CitebenchError && /protocols\.beir\.name.*a task name is a file name/.test(e.message));
  const cfg = loadConfig(config('', 'dev'), { work: join(tmp, 'work'), results: join(tmp, 'results-dev') });
  await assert.rejects(runExperiment(cfg, { log: () => {}, threads: 1 }), (e: Error) => e instanceof CitebenchError && /no qrels for split 'dev' \(splits here: test\)/.test(e.message));
});
