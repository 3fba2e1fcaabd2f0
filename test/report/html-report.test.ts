// `citebench report` on a real small results folder (configs/ci.yaml: two BM25 models, every protocol) and on a
// fabricated one (six models, pools that map to the paper's, notes.md with hostile text):
//  - every table cell parsed from the HTML (in Chromium's DOM) equals the value recomputed here from the
//    cells/*.json files (mean ± sd over repeats ×100), the paper's value from paper-numbers.json and ours − it,
//    the best value per column in bold, the t-test mark from per-query values averaged over repeats (Holm), and
//    both marks equal to results.json's stored decisions (the report computes no test of its own);
//  - in real headless Chromium every table and chart is visible with a non-zero size, with no console error and
//    no network request; a screenshot is saved (path printed);
//  - the PDF has a page per table section and the tables' text (pdftotext).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import type { Browser } from 'playwright-core';
import { FIELD_ABBREV, type Field } from '../../src/corpus/fields.ts';
import { holm, pairedTTest } from '../../src/eval/significance.ts';
import { fabricateResults } from '../../bench/report/fabricate.ts';
import { checkBest, checkCell, f1, launchChromium, openChecked, parseTables, perQueryMean, readCells, sizeText, stats, type ParsedTable } from '../helpers/report-page.ts';
import { cliArgv } from '../helpers/cli.ts';

const root = new URL('../..', import.meta.url).pathname;
const paper = JSON.parse(readFileSync(join(root, 'src/report/paper-numbers.json'), 'utf8'));

let tmp = '';
let browser: Browser;
const ci = () => join(tmp, 'ci');
const fab = () => join(tmp, 'fab');

function cli(args: string[]) {
  const p = spawnSync(process.execPath, cliArgv(args), { encoding: 'utf8', cwd: root });
  assert.equal(p.status, 0, `citebench ${args.join(' ')}\n${p.stderr}`);
  return p;
}

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'citebench-report-'));
  cli(['run', 'configs/ci.yaml', '--work', join(tmp, 'work'), '--results', ci()]);
  fabricateResults(fab(), {
    queries: 30, pools: [2000, 5000, 10000, 20000], scale: 0.01, repeats: 2, models: ['bm25', 'scibert', 'specter', 'scincl', 'aspire-bm', 'aspire-cs'],
    fields: ['Art', 'Biology', 'Computer Science'], fieldQueries: 12, fieldPool: 1000, k: 50, cited: 5, seed: 3,
  });
  writeFileSync(join(fab(), 'notes.md'), '# Notes\n\nA <script>alert(1)</script> note & more.\n\n![remote](http://example.invalid/x.png)\n\n[a link](http://example.invalid/)\n');
  cli(['report', ci(), '--out', join(tmp, 'rep-ci'), '--store', join(tmp, 'work', 'store')]);
  cli(['report', fab(), '--out', join(tmp, 'rep-fab')]);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  if (process.env.KEEP_REPORT_TMP) console.log(`report test folder kept: ${tmp}`);
  else if (tmp) rmSync(tmp, { recursive: true, force: true });
});

function checkResults(dir: string, tables: ParsedTable[]) {
  const r = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
  const cells = readCells(dir);
  // The paper's setting: the ci and fabricated runs have no other.
  assert.ok(tables.every((t) => t.setting === null));
  const byNumber = new Map(tables.map((t) => [t.n, t]));
  const base = r.models.some((m: { name: string }) => m.name === 'bm25') ? 'bm25' : undefined;
  let checked = 0;

  // Table 1: head[0] = "pool 4k (paper 200k)" groups, head[1] = measures.
  const t1 = byNumber.get(1)!;
  const dsSizes = [...new Set(cells.filter((c) => c.protocol === 'dataset').map((c) => c.poolSize))].sort((a, b) => a - b);
  const pvals: { key: string; measure: string; p: number; mark: boolean }[] = [];
  for (const row of t1.rows) {
    row.cells.forEach((got, j) => {
      const size = dsSizes[Math.floor(j / r.measures.length)];
      const measure = t1.head[1][j + 1];
      assert.ok(t1.head[0][j + 1].startsWith(`pool ${sizeText(size)}`), `Table 1 column ${j}: pool ${size} in '${t1.head[0][j + 1]}'`);
      const cs = cells.filter((c) => c.protocol === 'dataset' && c.model === row.label && c.poolSize === size);
      const s = stats(cs, measure);
      const full = size / r.scale;
      const label = ({ 200000: '200k', 500000: '500k', 1000000: '1M', 2000000: '2M' } as Record<number, string>)[full];
      checkCell(`Table 1 ${row.label} ${size} ${measure}`, got, s.mean, s.sd, label ? paper.table1_dataset_level.values[row.label]?.[label]?.[measure] : undefined);
      checked++;
      if (base && row.label !== base) {
        const a = perQueryMean(cs, measure);
        const b = perQueryMean(cells.filter((c) => c.protocol === 'dataset' && c.model === base && c.poolSize === size), measure);
        const qs = [...a.keys()].sort();
        pvals.push({ key: `${row.label} ${size} ${measure}`, measure, p: pairedTTest(qs.map((q) => a.get(q)!), qs.map((q) => b.get(q)!)).p, mark: got.sig.includes('*') });
        const st = r.significance.rows.find((x: { protocol: string; setting: string; poolSize: number; model: string; measure: string }) =>
          x.protocol === 'dataset' && x.setting === 'transductive' && x.poolSize === size && x.model === row.label && x.measure === measure);
        assert.equal(got.sig, `${st.pHolm < 0.05 ? '*' : ''}${st.pRandomizationHolm < 0.05 ? '†' : ''}`, `Table 1 ${row.label} ${size} ${measure}: the stored decisions`);
      } else assert.equal(got.sig, '', 'the baseline has no mark');
    });
  }
  // Holm over the comparisons of one measure in the table.
  for (const measure of r.measures) {
    const part = pvals.filter((x) => x.measure === measure);
    const adj = holm(part.map((x) => x.p));
    part.forEach((x, i) => assert.equal(x.mark, adj[i] < 0.05, `Table 1 ${x.key}: t-test mark (Holm p ${adj[i]})`));
  }
  checkBest(t1, (_, j) => String(j));

  // Tables 2, 7, 8: columns = field abbreviations + AVG.
  for (const [n, measure, key] of [[2, 'MAP', 'table2_field_level_MAP'], [7, 'nDCG', 'table7_field_level_nDCG'], [8, 'R@30', 'table8_field_level_R@30']] as const) {
    const t = byNumber.get(n)!;
    const cols = t.head[0].slice(1);
    for (const row of t.rows) {
      const means: number[] = [];
      cols.forEach((abbrev, j) => {
        if (abbrev === 'AVG') {
          const avg = means.reduce((s, x) => s + x, 0) / means.length;
          checkCell(`Table ${n} ${row.label} AVG`, row.cells[j], avg, undefined, cols.length === 20 ? paper[key][row.label]?.AVG : undefined);
          return;
        }
        const cs = cells.filter((c) => c.protocol === 'field' && c.model === row.label && c.field && FIELD_ABBREV[c.field as Field] === abbrev);
        assert.ok(cs.length > 0, `Table ${n}: no cell for ${row.label} ${abbrev}`);
        const s = stats(cs, measure);
        means.push(s.mean);
        checkCell(`Table ${n} ${row.label} ${abbrev}`, row.cells[j], s.mean, s.sd, paper[key][row.label]?.[abbrev]);
        checked++;
      });
    }
    checkBest(t, (_, j) => String(j));
  }

  // Tables 3 and 4: evaluate.py's values as results.json holds them.
  const models = t1.rows.map((x) => x.label);
  const t3 = byNumber.get(3)!;
  for (const row of t3.rows) {
    row.cells.forEach((got, j) => {
      const model = t3.head[0][j + 1].split(' ')[0];
      const metric = t3.head[1][j + 1] === 'MAP' ? 'map' : 'recall_5';
      const res = r.mdcr.results[model].all;
      const v = row.label === 'AVG' ? res.avg[metric] : res.fields.find((f: { field: Field }) => FIELD_ABBREV[f.field] === row.label).values[metric];
      const p = row.label === 'AVG' ? undefined : paper.table3_mdcr[model]?.[row.label]?.[t3.head[1][j + 1]];
      checkCell(`Table 3 ${row.label} ${model} ${metric}`, got, v, undefined, p);
      checked++;
    });
  }
  checkBest(t3, (i, j) => `${i}|${j % 2}`);
  const t4 = byNumber.get(4)!;
  for (const row of t4.rows) {
    assert.ok(models.includes(row.label));
    row.cells.forEach((got, j) => {
      const type = t4.head[0][j + 1];
      const metric = t4.head[1][j + 1] === 'MAP' ? 'map' : 'recall_5';
      checkCell(`Table 4 ${row.label} ${type}`, got, r.mdcr.results[row.label].types[type]?.avg[metric], undefined, paper.table4_candidate_types[row.label]?.[type]?.[t4.head[1][j + 1]]);
      checked++;
    });
  }
  checkBest(t4, (_, j) => String(j));

  // Tables 5 and 6: the paper's own.
  const t5 = byNumber.get(5)!;
  assert.deepEqual(t5.rows.map((x) => [x.label, x.cells[0].v]), Object.entries(paper.fields));
  const t6 = byNumber.get(6)!;
  assert.deepEqual(t6.rows.map((x) => [x.label, x.cells[0].v, x.cells[1].v]), Object.entries(paper.table6_scidocs_cite.values).map(([m, v]) => [m, f1((v as { MAP: number }).MAP), f1((v as { nDCG: number }).nDCG)]));
  return checked;
}

test('every table cell of the report equals the value recomputed from the results files (ci run and fabricated)', async () => {
  const a = checkResults(ci(), await parseTables(browser, join(tmp, 'rep-ci', 'index.html')));
  const b = checkResults(fab(), await parseTables(browser, join(tmp, 'rep-fab', 'index.html')));
  assert.ok(a > 50 && b > 200, `cells checked: ${a}, ${b}`);
  // The fabricated pools map to the paper's: Table 1 prints its values; so do Tables 2/3 for the paper's models.
  const html = readFileSync(join(tmp, 'rep-fab', 'index.html'), 'utf8');
  assert.match(html, /pool 2k \(paper 200k\)/);
  assert.match(html, /Random weights\./);
  assert.match(readFileSync(join(tmp, 'rep-ci', 'index.html'), 'utf8'), /Synthetic corpus\./);
});

test('input text is escaped; notes.md renders without raw HTML or remote images', () => {
  const html = readFileSync(join(tmp, 'rep-fab', 'index.html'), 'utf8');
  assert.ok(!/<script/i.test(html), 'no script element');
  assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt; note &amp; more/);
  assert.ok(!/<img/i.test(html), 'no image fetched');
  assert.match(html, /<a href="http:\/\/example\.invalid\/">a link<\/a>/);
});

/** The tables and chart of docs/statistics.md (letter groups, slices) a page has besides the others. */
function statisticsIn(html: string): { tables: number; charts: number } {
  const page = readFileSync(html, 'utf8');
  // The statistics' tables and chart, and the cost table and chart of a run with timings.json (docs/rerank.md).
  return {
    tables: (page.match(/data-table="(groups|slices)-/g) ?? []).length + (page.includes('data-table="cost"') ? 1 : 0),
    charts: (page.includes('id="chart-slices"') ? 1 : 0) + (page.includes('id="chart-cost"') ? 1 : 0),
  };
}
const withStatistics = (html: string, tables: number, charts: number) => {
  const s = statisticsIn(html);
  assert.ok(s.tables > 0, `${html}: letter-group and slices tables`);
  return { tables: tables + s.tables, charts: charts + s.charts };
};

test('index.html in headless Chromium: every table and chart visible, no console error, no network request', async () => {
  const shots = mkdtempSync(join(tmpdir(), 'citebench-report-shots-'));
  await openChecked(browser, join(tmp, 'rep-ci', 'index.html'), withStatistics(join(tmp, 'rep-ci', 'index.html'), 8, 4), join(shots, 'ci.png'));
  await openChecked(browser, join(tmp, 'rep-fab', 'index.html'), withStatistics(join(tmp, 'rep-fab', 'index.html'), 8, 4), join(shots, 'fabricated.png'));
  assert.ok(statSync(join(shots, 'ci.png')).size > 10_000);
});

test('the PDF: A4, one page break per table, the tables\' text', () => {
  const pdf = join(tmp, 'rep-ci', 'report.pdf');
  const info = spawnSync('pdfinfo', [pdf], { encoding: 'utf8' }).stdout;
  const pages = Number(/Pages:\s+(\d+)/.exec(info)![1]);
  assert.match(info, /Page size:\s+841\.\d+ x 59[45]\.\d+ pts \(A4\)/);
  const text = (p: number) => spawnSync('pdftotext', ['-f', String(p), '-l', String(p), '-layout', pdf, '-'], { encoding: 'utf8' }).stdout;
  const texts = Array.from({ length: pages }, (_, i) => text(i + 1));
  // Title page, Tables 1–8 each starting a page, charts (two pages here), the drill-down list.
  const starts = texts.map((t) => t.trim().split('\n')[0].trim());
  for (let n = 1; n <= 8; n++) assert.ok(starts.some((s) => s.startsWith(`Table ${n} —`)), `Table ${n} starts a page: ${starts.join(' | ')}`);
  assert.ok(starts.some((s) => s.startsWith('Charts')));
  assert.ok(starts.some((s) => s.startsWith('Drill-down')));
  // Each statistics table starts a page too.
  const extra = statisticsIn(join(tmp, 'rep-ci', 'index.html')).tables;
  assert.ok(pages >= 11 + extra && pages <= 15 + extra, `pages: ${pages}`);
  // Table 1's values are in the PDF's text, on Table 1's page.
  const cells = readCells(ci()).filter((c) => c.protocol === 'dataset' && c.model === 'bm25');
  const t1 = texts.find((t) => t.trim().startsWith('Table 1 —'))!;
  for (const size of new Set(cells.map((c) => c.poolSize))) {
    for (const m of ['MAP', 'nDCG', 'R@30']) assert.ok(t1.includes(f1(stats(cells.filter((c) => c.poolSize === size), m).mean)), `Table 1 bm25 ${size} ${m}`);
  }
  // Vectors: the chart pages' text is real text (SVG text survives), not an image.
  assert.match(texts.find((t) => t.trim().startsWith('Charts'))!, /pool size/);
});

test('drill-down pages: worst query\'s top 10 from its run file, titles from the store', () => {
  const r = JSON.parse(readFileSync(join(ci(), 'results.json'), 'utf8'));
  const c = r.cells.find((x: { protocol: string; split: string; repeat: number; model: string }) => x.protocol === 'field' && x.split === 'test' && x.repeat === 1 && x.model === 'bm25');
  const rec = JSON.parse(readFileSync(join(ci(), c.file), 'utf8'));
  const vals: number[] = rec.perQuery[r.measures[0]];
  const worst = rec.queryIds.map((q: string, i: number) => ({ q, v: vals[i] })).sort((a: { v: number; q: string }, b: { v: number; q: string }) => a.v - b.v || (a.q < b.q ? -1 : 1))[0].q;
  const run = readFileSync(join(ci(), c.files.run), 'utf8').split('\n').filter((l) => l.startsWith(`${worst} `)).map((l) => l.split(' ')[2]);
  const page = readFileSync(join(tmp, 'rep-ci', 'drill', FIELD_ABBREV[c.field as Field], 'bm25.html'), 'utf8');
  const first = page.indexOf(`Query ${worst}`);
  assert.ok(first > 0 && first < page.indexOf('Best queries'), 'the worst query comes first');
  let at = first;
  for (const d of run.slice(0, 10)) {
    const i = page.indexOf(`>${d}<`, at);
    assert.ok(i > at, `rank order: ${d}`);
    at = i;
  }
  assert.ok(!page.includes('no corpus store'), 'titles from the store');
  assert.ok(existsSync(join(tmp, 'rep-fab', 'drill', 'CS', 'scincl.html')));
});

test('notebook helpers: a table as HTML and a chart as SVG, through the notebooks\' require path', () => {
  const code = `const cb = require('tsx/cjs/api').require(${JSON.stringify(join(root, 'src/index.ts'))}, ${JSON.stringify(join(root, 'notebooks') + '/')});
    const h = cb.reportTableHtml(${JSON.stringify(ci())}, 2);
    cb.reportChartSvg(${JSON.stringify(ci())}, 'fields').then((s) => console.log(JSON.stringify({ h, s: s.slice(0, 4) })));`;
  const p = spawnSync(process.execPath, ['-e', code], { encoding: 'utf8', cwd: root });
  assert.equal(p.status, 0, p.stderr);
  const { h, s } = JSON.parse(p.stdout);
  assert.match(h, /<table class="rt[^"]*" id="table2-table" data-table="2">/);
  assert.match(h, /<style>/);
  assert.equal(s, '<svg');
});

test('citebench report: bad input is one line naming the file, exit 2, no stack trace', () => {
  const run = (args: string[]) => spawnSync(process.execPath, cliArgv(['report', ...args]), { encoding: 'utf8', cwd: root });
  for (const [args, re] of [
    [[join(tmp, 'nowhere'), '--out', join(tmp, 'x')], /nowhere: not a results folder of citebench run/],
    [[ci(), '--out', join(tmp, 'x'), '--store', fab()], /not a corpus store \(no meta\.json\)/],
    [[ci(), '--out', join(tmp, 'x'), '--trials', '100'], /--trials: the report draws the marks citebench run stored in results\.json/],
    [[ci()], /--out DIR is required/],
  ] as const) {
    const p = run([...args]);
    assert.equal(p.status, 2, p.stderr);
    assert.match(p.stderr.split('\n')[0], re);
    assert.ok(!/\n\s+at /.test(p.stderr), p.stderr);
  }
});
