// `citebench report` of a real small run beyond the paper (BM25, BM25 + navigation with the paper's k_d/k_c, the
// sparse Profiler; both settings; dataset and field level; MRR, F1@20 and R@1000 beside the paper's measures):
//  - Tables 1, 2, 7, 8 of each setting, parsed from the page in headless Chromium, equal the means ± sd
//    recomputed from cells/<model>/<group>.json of that setting, and their t-test marks equal Holm-corrected
//    paired t-tests recomputed from the per-query values (per setting and measure);
//  - the significance table equals results.json's record recomputed from the per-query values (Δ, p of the
//    t-test and of the seeded randomization test, Holm, the mark), agrees with Table 1's marks, and report.md
//    prints the same rows and the same inductive Table 1;
//  - the settings chart draws one line per model, setting and measure, the inductive ones dashed; the page shows
//    every table and chart, no console error, no request; a screenshot is saved (path printed).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { FIELD_ABBREV, type Field } from '../../src/corpus/fields.ts';
import { holm, pairedRandomizationTest, pairedTTest } from '../../src/eval/significance.ts';
import { meanInterval } from '../../src/eval/statistics.ts';
import { intervalText } from '../../src/report/statistics-tables.ts';
import { checkBest, checkCell, f1, launchChromium, openChecked, parseTables, perQueryMean, readCells, sizeText, stats, type Cell, type ParsedTable } from '../helpers/report-page.ts';
import { parseConfig } from '../../src/experiments/config.ts';
import { seedCorpusStage } from '../helpers/corpus-fixture.ts';
import { cliArgv } from '../helpers/cli.ts';

const root = new URL('../..', import.meta.url).pathname;
const paper = JSON.parse(readFileSync(join(root, 'src/report/paper-numbers.json'), 'utf8'));
const CONFIG = `name: beyond-small
seed: 7
corpus: {synthetic: {articles: 6000, seed: 7}}
k: 1000
measures: [MAP, nDCG, R@30, MRR, F1@20, R@1000]
validation: {queries: 8}
setting: [transductive, inductive]
models:
  bm25: {}
  nav: {kind: navigation, first: bm25}
  prof: {kind: profiler, base: bm25, tune: {beta: [0, 0.5]}}
protocols:
  dataset: {queries: 12, pools: [600, 900], repeats: 2}
  field: {queries: 3, pool: 700, repeats: 2, fields: [Medicine, Biology]}
`;

let tmp = '';
let browser: Browser;
let tables: ParsedTable[] = [];
const res = () => join(tmp, 'res');
const html = () => join(tmp, 'rep', 'index.html');

function cli(args: string[]) {
  const p = spawnSync(process.execPath, cliArgv(args), { encoding: 'utf8', cwd: root });
  assert.equal(p.status, 0, `citebench ${args.join(' ')}\n${p.stderr}`);
  return p;
}

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'citebench-beyond-report-'));
  writeFileSync(join(tmp, 'beyond.yaml'), CONFIG);
  await seedCorpusStage(parseConfig(CONFIG, join(tmp, 'beyond.yaml')), join(tmp, 'work'), { bm25: true });
  cli(['run', join(tmp, 'beyond.yaml'), '--work', join(tmp, 'work'), '--results', res()]);
  cli(['report', res(), '--out', join(tmp, 'rep'), '--store', join(tmp, 'work', 'store'), '--no-pdf']);
  browser = await launchChromium();
  tables = await parseTables(browser, html());
});

after(async () => {
  await browser?.close();
  if (process.env.KEEP_REPORT_TMP) console.log(`report test folder kept: ${tmp}`);
  else if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const SETTINGS = [null, 'inductive'] as const;
const ofSetting = (cells: Cell[], setting: string | null) => cells.filter((c) => (c.setting ?? null) === setting);
const find = (key: string, setting: string | null) => {
  const t = tables.find((x) => x.key === key && x.setting === setting);
  assert.ok(t, `table ${key} (${setting ?? 'transductive'}) in the page`);
  return t;
};

/** Holm-corrected paired t-test p of model vs bm25 per comparison, recomputed per measure over the given keys. */
function holmT(cells: Cell[], comps: { key: string; model: string; measure: string; sel: (c: Cell) => boolean }[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const measure of new Set(comps.map((c) => c.measure))) {
    const part = comps.filter((c) => c.measure === measure).map((c) => {
      const a = perQueryMean(cells.filter((x) => x.model === c.model && c.sel(x)), measure);
      const b = perQueryMean(cells.filter((x) => x.model === 'bm25' && c.sel(x)), measure);
      const qs = [...a.keys()].sort();
      assert.deepEqual(qs, [...b.keys()].sort(), `${c.key}: the same queries as bm25`);
      return { key: c.key, p: pairedTTest(qs.map((q) => a.get(q)!), qs.map((q) => b.get(q)!)).p };
    });
    holm(part.map((x) => x.p)).forEach((p, i) => out.set(part[i].key, p));
  }
  return out;
}

test('Tables 1, 2, 7, 8 of both settings equal the cell files of their setting; t-test marks recomputed per setting and measure', () => {
  const r = JSON.parse(readFileSync(join(res(), 'results.json'), 'utf8'));
  const all = readCells(res());
  assert.deepEqual(r.measures, ['MAP', 'nDCG', 'R@30', 'MRR', 'F1@20', 'R@1000']);
  const ofStatistics = (k: string) => /^(groups|slices)-/.test(k);
  assert.deepEqual(tables.map((t) => `${t.key}${t.setting ? `/${t.setting}` : ''}`).filter((k) => !ofStatistics(k)), ['1', '2', '5', '6', '7', '8', '1/inductive', '2/inductive', '7/inductive', '8/inductive', 'significance', 'cost']);
  // docs/statistics.md: a letter-group table per measure and protocol (both settings in one), the slices tables after.
  assert.equal(tables.filter((t) => t.key.startsWith('groups-')).length, 6 * 2);
  assert.ok(tables.some((t) => t.key.startsWith('slices-')));
  let checked = 0;
  for (const setting of SETTINGS) {
    const cells = ofSetting(all, setting);
    assert.ok(cells.length > 0);
    const t1 = find('1', setting);
    assert.match(t1.heading, setting ? /^Table 1 — Dataset level \(§3\.1\) — inductive setting$/ : /^Table 1 — Dataset level \(§3\.1\)$/);
    const sizes = [...new Set(cells.filter((c) => c.protocol === 'dataset').map((c) => c.poolSize))].sort((a, b) => a - b);
    assert.deepEqual(t1.head[1].slice(1), sizes.flatMap(() => r.measures), 'every measure of the config, MRR/F1@20/R@1000 included');
    const comps: Parameters<typeof holmT>[1] = [];
    const marks = new Map<string, boolean>();
    for (const row of t1.rows) {
      row.cells.forEach((got, j) => {
        const size = sizes[Math.floor(j / r.measures.length)];
        const measure = r.measures[j % r.measures.length];
        assert.equal(t1.head[0][j + 1], `pool ${sizeText(size)}`);
        const sel = (c: Cell) => c.protocol === 'dataset' && c.poolSize === size;
        const cs = cells.filter((c) => sel(c) && c.model === row.label);
        assert.equal(cs.length, 2, 'two repeats');
        const s = stats(cs, measure);
        checkCell(`${setting ?? 'transductive'} Table 1 ${row.label} ${size} ${measure}`, got, s.mean, s.sd, undefined);
        checked++;
        if (row.label === 'bm25') assert.equal(got.sig, '', 'the baseline has no mark');
        else {
          const key = `${row.label}|${size}|${measure}`;
          comps.push({ key, model: row.label, measure, sel });
          marks.set(key, got.sig.includes('*'));
        }
      });
    }
    const adj = holmT(cells, comps);
    for (const [key, mark] of marks) assert.equal(mark, adj.get(key)! < 0.05, `${setting ?? 'transductive'} Table 1 ${key}: t-test mark (Holm p ${adj.get(key)})`);
    checkBest(t1, (_, j) => String(j));

    for (const [n, measure, key] of [['2', 'MAP', 'table2_field_level_MAP'], ['7', 'nDCG', 'table7_field_level_nDCG'], ['8', 'R@30', 'table8_field_level_R@30']] as const) {
      const t = find(n, setting);
      const cols = t.head[0].slice(1);
      assert.deepEqual(cols, ['Bio', 'Med', 'AVG']);
      const fcomps: Parameters<typeof holmT>[1] = [];
      const fmarks = new Map<string, boolean>();
      for (const row of t.rows) {
        const means: number[] = [];
        cols.forEach((abbrev, j) => {
          // Two of 19 fields: the paper's AVG (over all 19) is not shown beside ours.
          if (abbrev === 'AVG') return checkCell(`Table ${n} ${row.label} AVG`, row.cells[j], means.reduce((s, x) => s + x, 0) / means.length, undefined, undefined);
          const sel = (c: Cell) => c.protocol === 'field' && !!c.field && FIELD_ABBREV[c.field as Field] === abbrev;
          const cs = cells.filter((c) => sel(c) && c.model === row.label);
          assert.ok(cs.length > 0);
          const s = stats(cs, measure);
          means.push(s.mean);
          // The paper's per-field values stand beside the transductive ones only (it has no inductive setting).
          checkCell(`${setting ?? 'transductive'} Table ${n} ${row.label} ${abbrev}`, row.cells[j], s.mean, s.sd, setting ? undefined : paper[key][row.label]?.[abbrev]);
          checked++;
          if (row.label !== 'bm25') {
            fcomps.push({ key: `${row.label}|${abbrev}`, model: row.label, measure, sel });
            fmarks.set(`${row.label}|${abbrev}`, row.cells[j].sig.includes('*'));
          }
        });
      }
      const fadj = holmT(cells, fcomps);
      for (const [key, mark] of fmarks) assert.equal(mark, fadj.get(key)! < 0.05, `Table ${n} ${key}: t-test mark`);
    }
  }
  assert.equal(checked, 2 * (3 * 2 * 6 + 3 * 3 * 2));
});

test('the significance table equals results.json\'s tests recomputed from per-query values, agrees with Table 1 and report.md', () => {
  const r = JSON.parse(readFileSync(join(res(), 'results.json'), 'utf8'));
  const all = readCells(res());
  const t = find('significance', null);
  assert.deepEqual(t.head[0], ['setting', 'pool', 'model', 'measure', 'Δ', 'p (t)', 'p (rand.)', 'p (Holm)', '95% CI of Δ', 'd_z']);
  const p3 = (x: number) => (x < 0.001 ? '<0.001' : x.toFixed(3));
  const rows = t.rows.map((x) => ({ setting: x.label, pool: x.cells[0].v, model: x.cells[1].v, measure: x.cells[2].v, cells: x.cells.map((c) => c.v) }));
  assert.equal(rows.length, 2 * 2 * 2 * r.measures.length, 'settings × pools × (nav, prof) × measures');
  // Recomputed: per query, the mean over repeats, paired in query-id order; the randomization test's seed names
  // the comparison as experiments/significance-stage.ts does (protocol|field|pool|model[|setting]|measure).
  const expect = rows.map((x) => {
    const setting = x.setting === 'transductive' ? null : x.setting;
    const size = [600, 900].find((s) => sizeText(s) === x.pool)!;
    const sel = (model: string) => ofSetting(all, setting).filter((c) => c.protocol === 'dataset' && c.poolSize === size && c.model === model).sort((a, b) => a.repeat - b.repeat);
    const a = sel(x.model);
    const b = sel('bm25');
    const ids = a[0].queryIds;
    for (const c of [...a, ...b]) assert.deepEqual(c.queryIds, ids, 'every repeat and model searched the same queries');
    const order = ids.map((_, i) => i).sort((i, j) => (ids[i] < ids[j] ? -1 : ids[i] > ids[j] ? 1 : 0));
    const mean = (cs: Cell[]) => Float64Array.from(order, (i) => cs.reduce((s, c) => s + c.perQuery[x.measure][i] / cs.length, 0));
    const va = mean(a);
    const vb = mean(b);
    const tt = pairedTTest(va, vb);
    const rnd = pairedRandomizationTest(va, vb, { trials: r.significance.trials, seed: `${r.seed}|dataset||${size}|${x.model}${setting ? `|${setting}` : ''}|${x.measure}` });
    const ci = meanInterval(Float64Array.from(va, (v, i) => v - vb[i]));
    return { ...x, d: va.reduce((s, v, i) => s + v - vb[i], 0) / va.length, pT: tt.p, pR: rnd.p, ci: intervalText(ci.ci95 ?? undefined), dz: ci.sd > 0 ? (ci.mean / ci.sd).toFixed(2) : undefined };
  });
  const holmOf = new Map<object, number>();
  for (const key of new Set(expect.map((e) => `${e.setting}|${e.measure}`))) {
    const part = expect.filter((e) => `${e.setting}|${e.measure}` === key);
    holm(part.map((e) => e.pT)).forEach((p, i) => holmOf.set(part[i], p));
  }
  const t1 = { transductive: find('1', null), inductive: find('1', 'inductive') } as Record<string, ParsedTable>;
  for (const e of expect) {
    const h = holmOf.get(e)!;
    const where = `${e.setting} ${e.pool} ${e.model} ${e.measure}`;
    const d = f1(100 * e.d);
    assert.deepEqual(e.cells.slice(3, 7), [d === '0.0' ? '±0.0' : d.startsWith('-') ? d : `+${d}`, p3(e.pT), p3(e.pR), p3(h) + (h < 0.05 ? ' *' : '')], where);
    // The interval of Δ and d_z (docs/statistics.md), recomputed from the same per-query differences.
    assert.equal(e.cells[7], e.ci, `${where}: 95 % CI`);
    if (e.dz !== undefined) assert.equal(e.cells[8], e.dz, `${where}: d_z`);
    // Table 1's mark of the same cell: the same stored row (Table 1's family: every model × pool of the setting and measure).
    const tab = t1[e.setting];
    const j = [600, 900].findIndex((s) => sizeText(s) === e.pool) * r.measures.length + r.measures.indexOf(e.measure);
    assert.equal(tab.rows.find((x) => x.label === e.model)!.cells[j].sig.includes('*'), h < 0.05, `${where}: Table 1 agrees`);
  }
  assert.ok(expect.some((e) => holmOf.get(e)! < 0.05) && expect.some((e) => holmOf.get(e)! >= 0.05), 'both outcomes occur: the marks are tested both ways');

  // report.md renders the same tables: the significance rows and the inductive Table 1's values.
  const md = readFileSync(join(res(), 'report.md'), 'utf8');
  for (const e of expect) assert.ok(md.includes(`| ${[e.setting, ...e.cells].join(' | ')} |`), `report.md: ${e.setting} ${e.cells.join(' ')}`);
  const section = md.slice(md.indexOf('## Table 1 — Dataset level (§3.1) — inductive setting'));
  const ind = ofSetting(all, 'inductive');
  for (const model of ['bm25', 'nav', 'prof']) {
    const line = section.split('\n').find((l) => l.startsWith(`| ${model} |`))!;
    const printed = line.split('|').slice(2, -1).map((s) => s.trim());
    // value, then the stored marks of its cell (results.json's decisions; none for the baseline)
    assert.deepEqual(printed.map((x) => x.replace(/[*†]+$/, '')), [600, 900].flatMap((s) => r.measures.map((m: string) => stats(ind.filter((c) => c.protocol === 'dataset' && c.poolSize === s && c.model === model), m).mean.toFixed(1))));
    assert.deepEqual(printed.map((x) => /[*†]*$/.exec(x)![0]), [600, 900].flatMap((s) => r.measures.map((m: string) => {
      const st = r.significance.rows.find((x: { protocol: string; setting: string; poolSize: number; model: string; measure: string }) => x.protocol === 'dataset' && x.setting === 'inductive' && x.poolSize === s && x.model === model && x.measure === m);
      return st ? `${st.pHolm < 0.05 ? '*' : ''}${st.pRandomizationHolm < 0.05 ? '†' : ''}` : '';
    })), `report.md inductive Table 1 ${model}: marks`);
  }
});

test('the page in headless Chromium: every table and chart visible; the settings chart draws each model and setting', async () => {
  const shots = mkdtempSync(join(tmpdir(), 'citebench-beyond-shots-'));
  // Charts: pool sizes, both settings, significance, the Profiler's β tuning (a kind-neutral tuning record), slices.
  // And the tables and chart of docs/statistics.md (letter groups, slices).
  await openChecked(browser, html(), { tables: 12 + tables.filter((t) => /^(groups|slices)-/.test(t.key)).length, charts: 6 }, join(shots, 'beyond.png'));
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  await page.goto(pathToFileURL(html()).href);
  const tuning = page.locator('figure#chart-tuning-prof');
  assert.equal(await tuning.count(), 1, 'the Profiler\'s tuning chart');
  assert.ok((await tuning.locator('svg path, svg rect').count()) > 0, 'it draws its bars');
  const toc = await page.locator('nav.toc a').allTextContents();
  assert.ok(toc.includes('Table 1 (inductive)') && toc.includes('Significance'), toc.join(', '));
  const chart = page.locator('#chart-settings');
  await chart.screenshot({ path: join(shots, 'settings-chart.png') });
  console.log(`settings chart screenshot: ${join(shots, 'settings-chart.png')}`);
  const dashes = await chart.locator('g.mark-line path').evaluateAll((ps) => ps.map((p) => p.getAttribute('stroke-dasharray') ?? ''));
  await page.close();
  assert.equal(dashes.length, 3 * 2 * 6, 'a line per model, setting and measure');
  const solid = dashes.filter((d) => d === '' || d === '1,0').length;
  assert.equal(solid, 3 * 6, 'transductive solid, inductive dashed');
});
