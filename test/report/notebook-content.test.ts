// What notebooks 03–05 show beyond the report's tables, checked against the files it comes from, on two real
// results folders (configs/ci.yaml: field level + MDCR; a small beyond config: navigation, Profiler, both settings):
//  - worstQueries: per-query values from the cell file, cited counts from the qrels, first cited rank from the
//    TREC run, titles from the corpus store — each re-read here from the file — and the order the drill pages use;
//    a hostile title is escaped when shown;
//  - the MDCR build counts and one query's candidates recounted from mdcr_test.json, its data jsonl and the
//    scores files; the Jaccard chart's values are the build report's matrix;
//  - the significance chart's differences recomputed from the cell files (per query, mean over repeats), its
//    filled bars the comparisons whose Holm-adjusted t-test p (recomputed) is below 0.05.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { FIELD_ABBREV, FIELDS, type Field } from '../../src/corpus/fields.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { holm, pairedTTest } from '../../src/eval/significance.ts';
import { loadConfig, parseConfig } from '../../src/experiments/config.ts';
import { runExperiment } from '../../src/experiments/run.ts';
import { jaccardChart, significanceChart, chartSvg } from '../../src/report/charts.ts';
import { drillPages, worstQueries } from '../../src/report/drilldown.ts';
import { loadResults, toHtml } from '../../src/report/frames.ts';
import { mdcrBuildCounts, mdcrCandidates } from '../../src/report/mdcr-files.ts';
import { readResults } from '../../src/report/results.ts';
import { CitebenchError } from '../../src/util/errors.ts';

const root = new URL('../..', import.meta.url).pathname;
let tmp = '';
const ci = () => join(tmp, 'ci', 'results');
const by = () => join(tmp, 'by', 'results');

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'cb-nbcontent-'));
  const cfg = loadConfig(join(root, 'configs/ci.yaml'), { work: join(tmp, 'ci'), results: ci() });
  (await runExperiment(cfg, { log: () => {} })).store.close();
  const beyond = parseConfig([
    'name: by', 'seed: 3', 'corpus: {synthetic: {articles: 4000}}', 'k: 1000', 'measures: [MAP, nDCG, MRR, R@1000]',
    'validation: {queries: 8}', 'setting: [transductive, inductive]',
    'models:', '  bm25: {k1: 0.9, b: 0.4}', '  bm25-nav: {kind: navigation, first: bm25}', '  profiler: {kind: profiler, base: bm25, beta: 0.6}',
    'protocols:', '  dataset: {queries: 24, pools: [2400], repeats: 2}', '',
  ].join('\n'), 'by.yaml', { work: join(tmp, 'by'), results: by() });
  (await runExperiment(beyond, { log: () => {} })).store.close();
});

after(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const json = (p: string) => JSON.parse(readFileSync(p, 'utf8'));

/** qrels file → query → relevant docs; run file → query → docs by rank (parsed here, independently). */
function qrelsFile(p: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const line of readFileSync(p, 'utf8').split('\n')) {
    const [q, , d, rel] = line.trim().split(/\s+/);
    if (!d || Number(rel) <= 0) continue;
    if (!out.has(q)) out.set(q, new Set());
    out.get(q)!.add(d);
  }
  return out;
}
function runFile(p: string): Map<string, string[]> {
  const rows = new Map<string, [number, string][]>();
  for (const line of readFileSync(p, 'utf8').split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 6) continue;
    if (!rows.has(f[0])) rows.set(f[0], []);
    rows.get(f[0])!.push([Number(f[3]), f[2]]);
  }
  return new Map([...rows].map(([q, l]) => [q, l.sort((a, b) => a[0] - b[0]).map((x) => x[1])]));
}

test('worstQueries: values, cited counts, ranks and titles equal the cell, qrels, run and store files', () => {
  const r = readResults(ci());
  for (const [field, model, repeat] of [['Biology', 'bm25', 1], ['CS', 'bm25-tuned', 2]] as const) {
    const abbrev = FIELD_ABBREV[(FIELDS.find((f) => f === field || FIELD_ABBREV[f] === field))!];
    const cellPath = join(ci(), 'cells', model, 'field', abbrev, `r${repeat}.json`);
    const cell = json(cellPath);
    const expected = cell.queryIds.map((q: string, i: number) => ({ q, v: cell.perQuery.nDCG[i] }))
      .sort((a: { q: string; v: number }, b: { q: string; v: number }) => a.v - b.v || (a.q < b.q ? -1 : 1));
    const rows = worstQueries(ci(), r, { field, model, repeat, measure: 'nDCG', n: 3 });
    assert.deepEqual(rows.map((x) => x.query), expected.slice(0, 3).map((x: { q: string }) => x.q));
    const qrels = qrelsFile(join(ci(), cell.files.qrels));
    const run = runFile(join(ci(), cell.files.run));
    const store = CorpusStore.open(join(tmp, 'ci', 'store'));
    try {
      rows.forEach((row, i) => {
        assert.equal(row.measure, 'nDCG');
        assert.equal(row.value, expected[i].v);
        const cited = qrels.get(row.query)!;
        assert.equal(row.cited, cited.size);
        const list = run.get(row.query) ?? [];
        const first = list.findIndex((d) => cited.has(d));
        assert.equal(row.firstCited, first < 0 ? null : first + 1);
        assert.equal(row.citedInTop10, list.slice(0, 10).filter((d) => cited.has(d)).length);
        assert.equal(row.retrieved, list.length);
        const at = store.indexOfSorted(row.query);
        assert.equal(row.title, store.text(at).title);
        assert.equal(row.year, store.years[at]);
      });
    } finally {
      store.close();
    }
  }
  // Default: BM25, the first measure, pool sample 1 — the queries the drill page lists as the worst.
  const rows = worstQueries(ci(), r, { field: 'Med', n: 3 });
  const page = drillPages(ci(), r).find((p) => p.field === 'Medicine' && p.model === 'bm25')!;
  const worstSection = page.html.slice(page.html.indexOf('<h2>Worst queries'), page.html.indexOf('<h2>Best queries'));
  assert.deepEqual([...worstSection.matchAll(/<h3>Query (\d+)/g)].map((m) => m[1]), rows.map((x) => x.query));
});

test('worstQueries: a title is text, escaped when shown; bad requests are CitebenchErrors that say what exists', async () => {
  const r = readResults(ci());
  const rows = worstQueries(ci(), r, { field: 'Soc', n: 2, lookup: () => ({ title: '<img src=x onerror=alert(1)> & <b>', year: 2019 }) });
  assert.equal(rows[0].title, '<img src=x onerror=alert(1)> & <b>');
  const html = await toHtml(loadResults(ci(), { store: join(tmp, 'ci', 'store') }).worstQueries({ field: 'Soc', n: 2 }));
  assert.match(html, /<table/);
  const { aq } = await import('../../src/report/frames.ts');
  const shown = await toHtml(aq.from(rows));
  assert.ok(!shown.includes('<img'), 'no raw tag from a title');
  assert.ok(shown.includes('&lt;img src=x onerror=alert(1)&gt; &amp; &lt;b&gt;'));
  assert.throws(() => worstQueries(ci(), r, { field: 'Astrology' }), (e: Error) => e instanceof CitebenchError && /unknown field 'Astrology'.*Art, Bio/.test(e.message));
  assert.throws(() => worstQueries(ci(), r, { field: 'Art' }), (e: Error) => e instanceof CitebenchError && /no field-level test cell for Art.*fields: .*Medicine.*models: bm25, bm25-tuned/.test(e.message));
  assert.throws(() => worstQueries(ci(), r, { field: 'Bio', measure: 'MRR' }), (e: Error) => e instanceof CitebenchError && /no per-query values of 'MRR'/.test(e.message));
  assert.throws(() => worstQueries(ci(), r, { field: 'Bio', store: join(tmp, 'nowhere') }), (e: Error) => e instanceof CitebenchError && /not a corpus store/.test(e.message));
});

test('MDCR build counts and one query\'s candidates equal a recount of the benchmark, data and scores files', () => {
  const r = readResults(ci());
  const m = r.mdcr!;
  const bench = json(join(ci(), 'mdcr', 'mdcr_test.json')) as Record<string, Record<string, Record<string, string[]>>>;
  const queries = Object.values(bench).flatMap((qs) => Object.values(qs));
  const counts = mdcrBuildCounts(ci(), m).filter((x) => x.split === 'test');
  // Keys holding candidates (an official key whose model the run lacks is written as empty lists, and not drawn).
  const types = [...new Set(queries.flatMap((q) => Object.keys(q).filter((t) => queries.some((x) => x[t].length > 0))))];
  assert.deepEqual(counts.map((x) => x.type).sort(), types.map((t) => (t === 'true' ? 'true (positives)' : t)).sort());
  for (const c of counts) {
    const t = c.type === 'true (positives)' ? 'true' : (c.type as string);
    assert.equal(c.queries, queries.length);
    assert.equal(c.candidates, queries.reduce((s, q) => s + (q[t]?.length ?? 0), 0), `${t}: candidates drawn`);
  }
  // The val split has its own queries (disjoint from test: test/mdcr checks that).
  const val = json(join(ci(), 'mdcr', 'mdcr_val.json')) as Record<string, Record<string, unknown>>;
  assert.equal(mdcrBuildCounts(ci(), m).find((x) => x.split === 'val')!.queries, Object.values(val).reduce((s, qs) => s + Object.keys(qs).length, 0));

  const field = Object.keys(bench)[1];
  const query = Object.keys(bench[field])[2];
  const rows = mdcrCandidates(ci(), m, { field: FIELD_ABBREV[field as Field], query });
  const lists = bench[field][query];
  assert.equal(rows.length, Object.values(lists).reduce((s, l) => s + l.length, 0));
  assert.deepEqual(rows.filter((x) => x.type === 'true').map((x) => x.paper_id), lists.true);
  for (const t of Object.keys(lists)) assert.deepEqual(rows.filter((x) => x.type === t).map((x) => x.paper_id), lists[t]);
  const titles = new Map(readFileSync(join(ci(), 'mdcr', 'mdcr_test_data.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).map((d) => [String(d.paper_id), d.title]));
  const scores = Object.fromEntries(r.models.map((x) => [x.name, json(join(ci(), 'mdcr', 'scores', `${x.name}.json`))]));
  for (const row of rows) {
    assert.equal(row.field, field);
    assert.equal(row.title, titles.get(row.paper_id as string));
    for (const model of Object.keys(scores)) assert.equal(row[model], scores[model][`${query}_${row.paper_id}`], `${model} score of ${row.paper_id}`);
  }
  assert.throws(() => mdcrCandidates(ci(), m, { field: 'Art' }), (e: Error) => e instanceof CitebenchError && /no field 'Art'/.test(e.message));
  assert.throws(() => loadResults(by()).mdcrBuild(), (e: Error) => e instanceof CitebenchError && /no MDCR in these results/.test(e.message));
});

test('the Jaccard chart shows the build report\'s matrix and marks the chosen models', async () => {
  const r = readResults(ci());
  const rep = json(join(ci(), 'mdcr', 'mdcr_build_report.json'));
  const c = jaccardChart(r)!;
  const values = (c.spec.data as { values: { a: string; b: string; J: number }[] }).values;
  const models: string[] = rep.test.jaccard.models;
  assert.equal(values.length, models.length ** 2);
  for (const v of values) {
    const i = models.indexOf(v.a.replace(/ \(chosen\)$/, ''));
    const k = models.indexOf(v.b.replace(/ \(chosen\)$/, ''));
    assert.equal(v.J, Math.round(1000 * rep.test.jaccard.matrix[i][k]) / 1000);
    assert.equal(v.a.endsWith('(chosen)'), rep.test.chosen.includes(models[i]));
  }
  const svg = await chartSvg(c.spec, c.id);
  assert.match(svg, /^<svg/);
  assert.ok(svg.includes(rep.test.jaccard.matrix[0][1].toFixed(3)), 'the value is printed in its cell');
  assert.equal(loadResults(ci()).chart('jaccard').id, 'chart-jaccard');
  assert.equal(jaccardChart(readResults(by())), undefined);
});

/** cells/*.json of one protocol's test split, read from the folder tree. */
function cellFiles(dir: string): { model: string; poolSize: number; setting?: string; repeat: number; queryIds: string[]; perQuery: Record<string, number[]> }[] {
  const out: ReturnType<typeof cellFiles> = [];
  (function walk(d: string) {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (n.endsWith('.json')) out.push(json(p));
    }
  })(join(dir, 'cells'));
  return out;
}

test('the significance chart: every difference recomputed from the cell files, filled where Holm-adjusted p < 0.05', async () => {
  const r = readResults(by());
  const cells = cellFiles(by());
  const perQuery = (model: string, pool: number, setting: string, measure: string) => {
    const acc = new Map<string, number[]>();
    for (const c of cells.filter((x) => x.model === model && x.poolSize === pool && (x.setting ?? 'transductive') === setting)) {
      c.queryIds.forEach((q, i) => acc.set(q, [...(acc.get(q) ?? []), c.perQuery[measure][i]]));
    }
    return new Map([...acc].map(([q, v]) => [q, v.reduce((s, x) => s + x, 0) / v.length]));
  };
  const c = significanceChart(r)!;
  const values = (c.spec.data as { values: { setting: string; pool: string; model: string; measure: string; delta: number; sig: boolean }[] }).values;
  // 2 settings × 1 pool × 2 models × 4 measures
  assert.equal(values.length, 2 * 1 * 2 * 4);
  const pools: Record<string, number> = { '2400': 2400 };
  const pRaw = new Map<string, number>();
  for (const v of values) {
    const a = perQuery(v.model, pools[v.pool], v.setting, v.measure);
    const b = perQuery('bm25', pools[v.pool], v.setting, v.measure);
    const qs = [...a.keys()].sort();
    assert.deepEqual(qs, [...b.keys()].sort(), 'paired on the same queries');
    const diff = qs.reduce((s, q) => s + a.get(q)! - b.get(q)!, 0) / qs.length;
    assert.ok(Math.abs(v.delta - 100 * diff) <= 0.05 + 1e-9, `${v.setting} ${v.pool} ${v.model} ${v.measure}: Δ ${v.delta} vs ${100 * diff}`);
    pRaw.set(`${v.setting}|${v.measure}|${v.pool}|${v.model}`, pairedTTest(Float64Array.from(qs, (q) => a.get(q)!), Float64Array.from(qs, (q) => b.get(q)!)).p);
  }
  // Holm over the rows of one setting and measure, recomputed.
  const groups = new Map<string, string[]>();
  for (const k of pRaw.keys()) {
    const g = k.split('|').slice(0, 2).join('|');
    groups.set(g, [...(groups.get(g) ?? []), k]);
  }
  let filled = 0;
  for (const keys of groups.values()) {
    const adj = holm(keys.map((k) => pRaw.get(k)!));
    keys.forEach((k, i) => {
      const [setting, measure, pool, model] = k.split('|');
      const v = values.find((x) => x.setting === setting && x.measure === measure && x.pool === pool && x.model === model)!;
      assert.equal(v.sig, adj[i] < 0.05, `${k}: significant ⇔ Holm p ${adj[i]} < 0.05`);
      if (v.sig) filled++;
    });
  }
  assert.ok(filled > 0 && filled < values.length, `some bars filled, some hollow (${filled} of ${values.length})`);
  // Bars side by side, each from 0 to its own Δ: nothing stacked (vega-lite stacks bars by default).
  const vl = await import('vega-lite');
  const compiled = JSON.stringify(vl.compile(c.spec as never).spec);
  assert.doesNotMatch(compiled, /"type":"stack"/);
  const svg = await chartSvg(c.spec, c.id);
  assert.match(svg, /inductive/);
  assert.match(svg, /R@1000/);
  assert.equal(significanceChart(readResults(ci())), undefined, 'no beyond models: no chart');
  assert.throws(() => loadResults(ci()).chart('significance'), /no data for the 'significance' chart/);
});

