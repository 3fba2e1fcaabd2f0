// The notebooks' results API (src/report/frames.ts) on a real small results folder (configs/ci.yaml: two BM25
// models, dataset and field level, MDCR, tuning). Every frame value is checked against the files it comes from:
// the cell files found by walking cells/ (not results.json's index), each query's value in them, the TREC qrels,
// and MDCR re-evaluated from the benchmark and scores files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { loadConfig } from '../../src/experiments/config.ts';
import { runExperiment } from '../../src/experiments/run.ts';
import { aq, embedHtml, frameHtml, loadResults, show, toHtml, type ResultsFrames } from '../../src/report/frames.ts';
import { evaluateMdcr } from '../../src/eval/mdcr.ts';
import { CitebenchError } from '../../src/util/errors.ts';
import { readResults } from '../../src/report/results.ts';
import { tree } from '../helpers/files.ts';
import { REPO } from '../helpers/shared.ts';

interface CellFile { model: string; protocol: string; split: string; field: string | null; poolSize: number; repeat: number; queries: number; means: Record<string, number>; perQuery: Record<string, number[]>; queryIds: string[]; files: { run: string; qrels: string } }

let tmp = '';
let dir = '';
let res: ResultsFrames;
const cellFiles = new Map<string, CellFile>();

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'cb-frames-'));
  const cfg = loadConfig(join(REPO, 'configs/ci.yaml'), { work: join(tmp, 'work'), results: join(tmp, 'results') });
  const out = await runExperiment(cfg, { log: () => {} });
  out.store.close();
  dir = out.resultsDir;
  for (const [p, bytes] of tree(join(dir, 'cells'))) cellFiles.set(`cells/${p}`, JSON.parse(bytes.toString('utf8')));
  res = loadResults(dir);
});

after(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const MEASURES = ['MAP', 'nDCG', 'R@30'];
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

test('cells: one row per cell file, its means, sizes and files as stored; the qrels hold its queries', () => {
  assert.ok(cellFiles.size > 10);
  assert.equal(res.cells.numRows(), cellFiles.size);
  const rows = res.cells.objects() as Record<string, unknown>[];
  for (const [file, c] of cellFiles) {
    const row = rows.find((r) => r.file === file);
    assert.ok(row, `a row for ${file}`);
    assert.equal(row.model, c.model);
    assert.equal(row.protocol, c.protocol);
    assert.equal(row.split, c.split);
    assert.equal(row.field, c.field);
    assert.equal(row.pool, c.poolSize);
    assert.equal(row.repeat, c.repeat);
    assert.equal(row.queries, c.queries);
    assert.equal(row.group, file.slice(`cells/${c.model}/`.length, -'.json'.length));
    for (const m of MEASURES) assert.equal(row[m], c.means[m], `${file} ${m}`);
    assert.equal(row.run, c.files.run);
    assert.equal(row.qrels, c.files.qrels);
    assert.ok(existsSync(join(dir, c.files.run)), 'the run file exists');
    const qids = new Set(readFileSync(join(dir, c.files.qrels), 'utf8').trim().split('\n').map((l) => l.split(/\s+/)[0]));
    assert.deepEqual([...qids].sort(), [...c.queryIds].sort(), `${file}: the qrels judge exactly its queries`);
  }
});

test('queries(): one row per cell × query with the per-query values of the cell file; they average to its means', () => {
  const bm25Field = [...cellFiles.entries()].filter(([, c]) => c.model === 'bm25' && c.protocol === 'field');
  const t = res.queries({ model: 'bm25', protocol: 'field' });
  assert.equal(t.numRows(), bm25Field.reduce((n, [, c]) => n + c.queryIds.length, 0));
  const rows = t.objects() as Record<string, unknown>[];
  for (const [file, c] of bm25Field) {
    const mine = rows.filter((r) => r.file === file);
    assert.deepEqual(mine.map((r) => r.query), c.queryIds);
    for (const m of MEASURES) {
      mine.forEach((r, i) => assert.equal(r[m], c.perQuery[m][i]));
      assert.ok(Math.abs(mean(mine.map((r) => r[m] as number)) - c.means[m]) < 1e-12, `${file}: per-query ${m} averages to the cell's`);
    }
  }
  assert.equal(res.queries().numRows(), [...cellFiles.values()].reduce((n, c) => n + c.queryIds.length, 0), 'no filter: every cell');
  assert.equal(res.queries({ field: 'Nothing' }).numRows(), 0);
});

test('means: mean and sample sd over the repeats of the test cells, recomputed from the cell files', () => {
  const groups = new Map<string, CellFile[]>();
  for (const c of cellFiles.values()) {
    if (c.split !== 'test') continue;
    const k = `${c.model}|${c.protocol}|${c.field}|${c.poolSize}`;
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  assert.equal(res.means.numRows(), groups.size);
  const rows = res.means.objects() as Record<string, unknown>[];
  for (const [k, g] of groups) {
    const row = rows.find((r) => `${r.model}|${r.protocol}|${r.field}|${r.pool}` === k)!;
    assert.ok(row, k);
    assert.equal(row.repeats, g.length);
    for (const m of MEASURES) {
      const xs = g.map((c) => c.means[m]);
      const mu = mean(xs);
      const sd = xs.length > 1 ? Math.sqrt(xs.reduce((s, x) => s + (x - mu) ** 2, 0) / (xs.length - 1)) : 0;
      assert.ok(Math.abs((row[m] as number) - mu) < 1e-12, `${k} ${m}`);
      assert.ok(Math.abs((row[`${m}_sd`] as number) - sd) < 1e-12, `${k} ${m} sd`);
    }
  }
});

test('table(1): Table 1 as a frame holds the means ×100 of the dataset cells per model and pool', () => {
  const t = res.table(1, { paper: true });
  const rows = t.objects() as Record<string, unknown>[];
  assert.deepEqual(rows.map((r) => r.model), ['bm25', 'bm25-tuned']);
  const pools = [...new Set([...cellFiles.values()].filter((c) => c.protocol === 'dataset').map((c) => c.poolSize))].sort((a, b) => a - b);
  const mapCols = t.columnNames().filter((n) => n.endsWith(' MAP'));
  assert.equal(mapCols.length, pools.length);
  assert.ok(t.columnNames().includes(`${mapCols[0]} (paper)`));
  for (const r of rows) {
    pools.forEach((p, i) => {
      const xs = [...cellFiles.values()].filter((c) => c.model === r.model && c.protocol === 'dataset' && c.split === 'test' && c.poolSize === p).map((c) => c.means.MAP);
      assert.ok(Math.abs((r[mapCols[i]] as number) - 100 * mean(xs)) < 1e-9, `${r.model} pool ${p}`);
    });
  }
  assert.throws(() => res.table(9), CitebenchError);
});

test('tuning, models and MDCR frames: as recorded, MDCR re-evaluated from the benchmark and scores files', () => {
  const grid = res.tuning.objects() as Record<string, unknown>[];
  assert.equal(grid.length, 4, 'ci.yaml tunes k1 ∈ {0.9, 1.2} × b ∈ {0.4, 0.75}');
  assert.equal(grid.filter((g) => g.chosen).length, 1);
  const chosen = grid.find((g) => g.chosen)!;
  assert.equal(chosen.score, Math.max(...grid.map((g) => g.score as number)), 'the chosen point has the best validation score');
  const tuned = (res.models.objects() as Record<string, unknown>[]).find((m) => m.model === 'bm25-tuned')!;
  assert.deepEqual([JSON.parse(tuned.settings as string).k1, JSON.parse(tuned.settings as string).b], [chosen.k1, chosen.b]);

  const m = res.mdcr!;
  assert.ok(m);
  const bench = JSON.parse(readFileSync(join(dir, 'mdcr/mdcr_test.json'), 'utf8'));
  const rows = m.results.objects() as Record<string, unknown>[];
  for (const model of ['bm25', 'bm25-tuned']) {
    const scores = JSON.parse(readFileSync(join(dir, `mdcr/scores/${model}.json`), 'utf8'));
    const all = evaluateMdcr(bench, scores);
    const avg = rows.find((r) => r.model === model && r.candidates === 'all' && r.field === 'AVG')!;
    for (const k of ['map', 'ndcg', 'recall_5'] as const) assert.equal(avg[k], all.avg[k], `${model} AVG ${k}`);
    for (const f of all.fields) assert.equal(rows.find((r) => r.model === model && r.candidates === 'all' && r.field === f.field)!.map, f.values.map);
    const graph = evaluateMdcr(bench, scores, { candidateType: 'graph' });
    assert.equal(rows.find((r) => r.model === model && r.candidates === 'graph' && r.field === 'AVG')!.map, graph.avg.map);
  }
  const j = m.jaccard.objects() as Record<string, unknown>[];
  assert.deepEqual(j.map((r) => r.model), ['bm25', 'bm25-tuned']);
  assert.equal(j[0].bm25, 1);
  assert.equal(j[0]['bm25-tuned'], j[1].bm25, 'symmetric');
  // The stored tests: bm25-tuned against bm25 in every cell of Table 1 and Tables 2, 7, 8 (every measure).
  const sig = res.significance!.objects() as Record<string, unknown>[];
  const stored = readResults(dir).significance!;
  assert.deepEqual(stored.baselines, ['bm25']);
  // The intervals as lo/hi columns; the rest as stored.
  assert.deepEqual(sig, stored.rows.map(({ ci95, bootstrapCi95, ...x }) => ({ ...x, ci95Lo: ci95![0], ci95Hi: ci95![1], bootLo: bootstrapCi95![0], bootHi: bootstrapCi95![1] })));
  assert.equal(sig.filter((x) => x.protocol === 'dataset').length, 2 * 3, 'bm25-tuned × 2 pools × 3 measures');
  assert.equal(sig.filter((x) => x.protocol === 'field').length, 4 * 3, 'bm25-tuned × 4 fields × 3 measures');
  assert.ok(sig.every((x) => x.model === 'bm25-tuned' && x.setting === 'transductive'));
});

test('frameHtml escapes column names and values, rounds numbers, says how many rows it shows', () => {
  const t = aq.from([{ '<b>model</b>': '<script>alert(1)</script>', MAP: 0.123456789, n: 3 }, { '<b>model</b>': 'a & b', MAP: null, n: 4 }]);
  const html = frameHtml(t);
  assert.doesNotMatch(html, /<script>|<b>/);
  assert.match(html, /<th>&lt;b&gt;model&lt;\/b&gt;<\/th>/);
  assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.match(html, /a &amp; b/);
  assert.match(html, /<td class="n">0\.1235<\/td>/);
  assert.match(html, /<td>–<\/td>/, 'null as a dash');
  assert.match(html, /2 rows/);
  assert.match(frameHtml(t, { limit: 1, caption: 'x<y' }), /x&lt;y · first 1 of 2 rows/);
  assert.equal((frameHtml(t, { limit: 1 }).match(/<tr>/g) ?? []).length, 2, 'header + one row');
});

test('toHtml: charts become SVG with ids unique per call; show() outside a notebook is a clear error; embedHtml keeps a page in srcdoc', async () => {
  // The heat map's colour legend is a gradient referenced by id: two on one page must not share ids.
  const a = await toHtml(res.chart('fields'));
  const b = await toHtml(res.chart('fields'));
  assert.match(a, /^<figure class="citebench-chart"[^>]*><svg /);
  const ids = (s: string) => new Set([...s.matchAll(/\bid="([^"]+)"/g)].map((x) => x[1]));
  assert.ok(ids(a).size > 0);
  for (const id of ids(a)) assert.ok(!ids(b).has(id), `id ${id} appears in two charts`);
  for (const [, ref] of a.matchAll(/url\(#([^)]+)\)/g)) assert.ok(ids(a).has(ref), `url(#${ref}) refers to an id of the same chart`);
  assert.match(await toHtml({ mark: 'bar', data: { values: [{ x: 'a', y: 1 }] }, encoding: { x: { field: 'x', type: 'nominal' }, y: { field: 'y', type: 'quantitative' } } }), /<svg /);
  assert.match(await toHtml(res.cells), /<table class="cbf">/);
  assert.equal(await toHtml('<i>'), '<pre>&lt;i&gt;</pre>');
  for (const name of ['pool', 'types', 'tuning'] as const) assert.match(await toHtml(res.chart(name)), /<svg /);
  await assert.rejects(show(res.cells), (e: Error) => e instanceof CitebenchError && /tslab notebook/.test(e.message));
  const page = join(tmp, 'page.html');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(page, '<!doctype html><title>t</title><p class="x">a "quoted" <b>page</b></p>');
  const html = embedHtml(page).html;
  assert.match(html, /^<iframe [^<]*srcdoc="&lt;!doctype html&gt;&lt;title&gt;t&lt;\/title&gt;&lt;p class=&quot;x&quot;&gt;a &quot;quoted&quot; &lt;b&gt;page&lt;\/b&gt;&lt;\/p&gt;"/);
});
