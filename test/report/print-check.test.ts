// The paper figures pass a print check (src/report/print-check.ts, read from vega's scenegraph) on fabricated
// results with six models (one name longer than the abbreviation rule allows), four pool sizes, every MAG field
// and MDCR — and with twelve models, and with one: at a single column (3.3 in) and a page width (7 in), no text
// under 6 pt once printed, no two texts overlapping or touching, every pool size labelled, no plot area without
// marks, the plot filling its canvas. The twelve models keep apart by shape alone (greyscale); the caption file
// names the abbreviated models in full. And report tables compile with pdflatex whatever a name holds.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { FIELDS } from '../../src/corpus/fields.ts';
import { fabricateResults } from '../../bench/report/fabricate.ts';
import { readResults, type ResultsIndex } from '../../src/report/results.ts';
import { MODEL_SHAPES, OKABE_ITO, modelStyle, reportCharts, settingsChart, shortNames, tuningChart } from '../../src/report/charts.ts';
import { figureCaption, figureLatex, figureRender } from '../../src/report/figures.ts';
import { printCheck } from '../../src/report/print-check.ts';
import { poolLabel } from '../../src/report/tables.ts';
import { latexText, tableLatex, tablesDocument } from '../../src/report/latex.ts';

const LONG = 'specter2-adapter-proximity';
const POOLS = [5000, 10_000, 20_000, 40_000];
let tmp = '';
const runs: Record<string, ResultsIndex> = {};

before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'cb-print-'));
  const models = ['bm25', 'scibert', 'specter', 'scincl', 'aspire-bm', LONG, 'e5-large-v2', 'bge-base-en-v1.5', 'contriever', 'minilm-l6', 'gte-base', 'aspire-cs'];
  for (const n of [6, 12, 1]) {
    const dir = join(tmp, `m${n}`);
    fabricateResults(dir, { queries: 12, pools: POOLS, scale: 1, repeats: 2, models: models.slice(0, n), fields: [...FIELDS], fieldQueries: 4, fieldPool: 400, k: 20, cited: 3, seed: n });
    runs[n] = readResults(dir);
  }
});
after(() => tmp && rmSync(tmp, { recursive: true, force: true }));

for (const n of [6, 12, 1]) {
  test(`${n} model(s), four pool sizes, every field, MDCR: every chart passes the print check at 3.3 in and 7 in`, { timeout: 300_000 }, async () => {
    const charts = reportCharts(runs[n]);
    assert.deepEqual(charts.map((c) => c.id), ['chart-pool', 'chart-fields', 'chart-types', 'chart-tuning-bm25', 'chart-slices']);
    for (const c of charts) {
      for (const inches of [3.3, 7]) {
        const f = await figureRender(c, { width: inches });
        const p = await printCheck(f.spec, inches);
        const where = `${c.id} at ${inches} in`;
        assert.deepEqual(p.problems, [], where);
        assert.ok(p.texts.length > 5 && p.plots >= 1 && p.emptyPlots === 0, `${where}: ${p.texts.length} texts, ${p.plots} plots`);
        assert.ok(Math.min(...p.texts.map((t) => t.pt)) >= 6, where);
        // The figure is its printed width (type keeps its size) and the texts lie on it.
        const w = Number(/<svg[^>]*\swidth="([\d.]+)"/.exec(f.svg)![1]);
        assert.ok(Math.abs(w - inches * 96) <= 2, `${where}: drawn ${w} px for ${inches * 96}`);
        assert.ok(p.texts.every((t) => t.x1 >= -1 && t.x2 <= inches * 72 + 1), `${where}: a text outside the figure`);
        if (c.id === 'chart-pool') {
          const labels = new Set(p.texts.map((t) => t.text));
          assert.deepEqual(POOLS.map(poolLabel).filter((l) => !labels.has(l)), [], `${where}: every pool size labelled`);
          assert.equal(p.plots, 3, `${where}: one panel per measure, none empty`);
        }
        if (c.id === 'chart-fields' && n === 6) {
          // Six models: the values fit their cells at either width and are printed.
          assert.ok(p.texts.filter((t) => /^\d+\.\d$/.test(t.text)).length === 6 * FIELDS.length, `${where}: every cell's value`);
        }
      }
    }
  });
}

test('the plot fills its canvas: the pool chart\'s panels and the MDCR dot plot take most of the figure\'s width', { timeout: 120_000 }, async () => {
  const [pool, , types] = reportCharts(runs[6]);
  for (const c of [pool, types]) {
    for (const inches of [3.3, 7]) {
      const f = await figureRender(c, { width: inches });
      const plot = JSON.stringify(f.spec).match(/"width":(\d+(?:\.\d+)?)/g)!.map((m) => Number(m.split(':')[1]));
      const panels = c.id === 'chart-pool' && inches === 7 ? 3 : 1;
      assert.ok(panels * Math.max(...plot) >= 0.6 * inches * 96, `${c.id} at ${inches} in: plots ${plot} px of ${inches * 96}`);
    }
  }
});

test('twelve models stay apart in greyscale: a shape each, Okabe-Ito colours; a long name is abbreviated by the rule and named in full in the caption', () => {
  const styles = Array.from({ length: 12 }, (_, i) => modelStyle(i));
  assert.equal(new Set(styles.map((s) => s.shape)).size, 12, 'twelve shapes');
  assert.equal(MODEL_SHAPES.length, 12);
  assert.ok(styles.every((s) => OKABE_ITO.includes(s.color)));
  assert.equal(new Set(styles.map((s) => `${s.color} ${s.shape}`)).size, 12);
  const short = shortNames([LONG, 'specter2-adapter-adhoc-mity', 'bm25']);
  assert.equal(short.get(LONG), 'specter2…mity');
  assert.equal(short.get('specter2-adapter-adhoc-mity'), 'specter2…2', 'a collision ends in a number');
  assert.equal(short.get('bm25'), 'bm25');
  const pool = reportCharts(runs[12])[0];
  assert.deepEqual(pool.abbreviations, { 'specter2…mity': LONG, 'bge-base…v1.5': 'bge-base-en-v1.5' });
  const caption = figureCaption(pool, 'Synthetic corpus.');
  assert.match(caption, /Abbreviated: .*specter2…mity = specter2-adapter-proximity/);
  assert.doesNotMatch(JSON.stringify(pool.spec), new RegExp(LONG), 'the long name is drawn abbreviated');
  assert.match(figureCaption(reportCharts(runs[6])[1]), /Abbreviated: .*Bio = Biology; .*Soc = Sociology\./, 'the heat map\'s caption names the fields in full');
});

const PDFLATEX = '/usr/bin/pdflatex';
const skipTex = existsSync(PDFLATEX) ? false : 'no pdflatex (scripts/setup.sh installs texlive-latex-recommended)';

test('LaTeX for any name: ą ę ł, a label opening with [, Cyrillic, Greek, CJK and TeX\'s specials compile and every number prints; the figure\'s LaTeX caption compiles', { skip: skipTex, timeout: 120_000 }, () => {
  const names = ['Łódź ąę Ąę model', '[x] reranker', 'Иван-модель', 'Ελληνικά άλφα', '中文模型', '&%$#_{}~^\\ model', 'plain'];
  const rows = names.map((label, i) => ({ label, cells: [{ kind: 'value' as const, value: 10 + i + 0.25 * i, sd: 0.5 + i / 10 }, { kind: 'value' as const, value: 90 - i * 1.5 }] }));
  const t = { id: 'names', title: 'Names ąę [y]', intro: 'Models with any name:', columns: ['MAP', 'nDCG ł'], rowHead: 'model', rows };
  const tex = tableLatex(t);
  assert.match(tex, /\n\{\}\[x\] reranker/, 'a row label opening with [ is kept from the previous row\'s \\\\');
  assert.match(tex, /Ivan-model/, 'Cyrillic transliterated');
  assert.match(tex, /\\ProvideTextCommandDefault\{\\k\}/, 'the ogonek fallback for OT1');
  const dir = mkdtempSync(join(tmp, 'tex-'));
  writeFileSync(join(dir, 'names.tex'), tex);
  writeFileSync(join(dir, 'tables.tex'), tablesDocument([{ file: 'names.tex', table: t, tex }], 'Tables: Łódź [z] Иван'));
  const p = spawnSync(PDFLATEX, ['-interaction=nonstopmode', '-halt-on-error', 'tables.tex'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  assert.equal(p.status, 0, (p.stdout.match(/^!.*(\n.*){0,4}/m) ?? [p.stdout.slice(-1500)])[0]);
  const fonts = spawnSync('pdffonts', [join(dir, 'tables.pdf')], { encoding: 'utf8' }).stdout;
  assert.doesNotMatch(fonts, /Type 3/, `no bitmap font:\n${fonts}`);
  const text = spawnSync('pdftotext', [join(dir, 'tables.pdf'), '-'], { encoding: 'utf8' }).stdout.normalize('NFC');
  for (const r of rows) for (const c of r.cells) {
    assert.ok(text.includes(c.value.toFixed(1)), `${c.value.toFixed(1)} printed`);
    assert.ok(text.includes(c.sd !== undefined ? c.sd.toFixed(1) : c.value.toFixed(1)), 'sd printed');
  }
  for (const s of ['[x] reranker', 'Ivan-model', 'U+4E2D', '&%$#_{}', '\\ model', 'ódź']) assert.ok(text.includes(s), `${s} printed`);
  // Under T1 with Latin Modern (when installed) the ogonek letters are the font's own.
  if (spawnSync('kpsewhich', ['lmodern.sty'], { encoding: 'utf8' }).stdout.trim()) assert.ok(text.includes('ąę'), 'ą ę print as themselves under T1');
  // A figure's LaTeX float: its caption (abbreviations, any model name) compiles beside its PDF.
  const pool = reportCharts(runs[12])[0];
  const fig = figureLatex({ ...pool, abbreviations: { ...pool.abbreviations, 'x…[1]': '[1] Łódź & 100% Иван' } }, 'Synthetic corpus (seed 1).');
  spawnSync('mkdir', ['-p', join(dir, 'figures')]);
  // A stand-in for the figure's PDF, 3.3 in wide (the real one needs Chromium; latex-figures.test.ts checks it).
  writeFileSync(join(dir, 'figures', 'chart-pool.tex'), '\\documentclass{article}\\usepackage[paperwidth=3.3in,paperheight=2in,margin=0.2in]{geometry}\\pagestyle{empty}\\begin{document}plot\\end{document}\n');
  assert.equal(spawnSync(PDFLATEX, ['-interaction=nonstopmode', 'chart-pool.tex'], { cwd: join(dir, 'figures'), encoding: 'utf8', timeout: 60_000 }).status, 0);
  writeFileSync(join(dir, 'fig.tex'), `\\documentclass{article}\\usepackage{graphicx}\\begin{document}\\input{figure.tex}\\end{document}\n`);
  writeFileSync(join(dir, 'figure.tex'), fig);
  const q = spawnSync(PDFLATEX, ['-interaction=nonstopmode', '-halt-on-error', 'fig.tex'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  assert.equal(q.status, 0, (q.stdout.match(/^!.*(\n.*){0,4}/m) ?? [q.stdout.slice(-1500)])[0]);
  assert.match(spawnSync('pdftotext', [join(dir, 'fig.pdf'), '-'], { encoding: 'utf8' }).stdout.replace(/\s+/g, ' '), /specter2\. \. \. mity = specter2-adapter-proximity/, "the caption's abbreviations (pdflatex's \\dots)");
  assert.equal(latexText('[a]'), '{}[a]');
});

test('the other layouts pass too: both settings, five measures (rows of panels at 7 in), tuning grids of one and three parameters', { timeout: 300_000 }, async () => {
  const r = structuredClone(runs[6]);
  r.cells.push(...r.cells.filter((c) => c.protocol === 'dataset').map((c) => ({ ...c, setting: 'inductive' as const, means: Object.fromEntries(Object.entries(c.means).map(([k, v]) => [k, v * 0.9])) })));
  const t = r.tuning[0];
  const g3 = [1, 2].flatMap((a) => [0.5, 0.9].flatMap((b) => [10, 20].map((c) => ({ params: { a, b, c }, score: 0.2 + a / 10 + b / 10 + c / 1000 }))));
  const charts = [
    settingsChart(r)!,
    tuningChart({ ...t, model: 'profiler', params: { beta: [0.1, 0.2, 0.5, 1, 2, 5] }, grid: [0.1, 0.2, 0.5, 1, 2, 5].map((b, i) => ({ params: { beta: b }, score: 0.3 + i / 100 })), chosen: { beta: 1 } }),
    tuningChart({ ...t, model: 'rrf', params: { a: [1, 2], b: [0.5, 0.9], c: [10, 20] }, grid: g3, chosen: { a: 1, b: 0.5, c: 10 } }),
  ];
  const five = structuredClone(runs[6]);
  five.measures = [...five.measures, 'MAP@x', 'nDCG@x'];
  for (const c of five.cells) Object.assign(c.means, { 'MAP@x': c.means.MAP * 0.8, 'nDCG@x': c.means.nDCG * 0.7 });
  charts.push(reportCharts(five)[0]);
  for (const c of charts) {
    for (const inches of [3.3, 7]) {
      const p = await printCheck((await figureRender(c, { width: inches })).spec, inches);
      assert.deepEqual(p.problems, [], `${c.id} at ${inches} in`);
      assert.equal(p.emptyPlots, 0);
      if (c.id === 'chart-pool') assert.equal(p.plots, 5, 'five panels, none empty');
    }
  }
});

test('the print check finds what the old figures had: type under 6 pt, labels touching, a wrapped facet\'s empty panel', async () => {
  const values = [1, 2, 3].flatMap((m) => [1, 2, 3].map((x) => ({ m: `m${m}`, x, y: x * m })));
  // Three panels wrapped in two columns: the second column's axis hangs under no panel (the "fourth, empty panel").
  const wrapped = { data: { values }, facet: { field: 'm', type: 'nominal' }, columns: 2, resolve: { scale: { y: 'independent' } }, spec: { width: 100, height: 80, mark: 'line', encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' } } } };
  const w = await printCheck(wrapped, 3.3);
  assert.equal(w.emptyPlots, 1, w.problems.join('; '));
  assert.deepEqual((await printCheck({ ...wrapped, columns: 3 }, 3.3)).emptyPlots, 0, 'three in a row: none empty');
  const labels = { data: { values: [{ a: 'label one', b: 1 }, { a: 'label two', b: 1.02 }] }, width: 200, height: 100, mark: { type: 'text', fontSize: 4 }, encoding: { text: { field: 'a' }, x: { field: 'b', type: 'quantitative' } } };
  const l = await printCheck(labels, 3.3);
  assert.ok(l.problems.some((p) => /"label one" and "label two" overlap or touch/.test(p)), l.problems.join('; '));
  assert.ok(l.problems.some((p) => /"label one" at [\d.]+ pt \(under 6 pt\)/.test(p)), l.problems.join('; '));
});
