// The report's tables and figures for a paper (`citebench report` → tables/, figures/), on fabricated results
// with two significance baselines and a model named `bm25_b.v1-x`:
//  - tables/tables.tex compiles with pdflatex (Debian's texlive-latex-recommended), run from another directory,
//    and every number of Tables 1–4 of the Markdown report (ours) is in the PDF's text (pdftotext), as are the
//    model names; each table file compiles alone in an article that loads the packages its first line names;
//  - the paper's values follow ours in tables/ as tables of their own (as the report shows them), never in our
//    cells; --no-latex-paper-values leaves them out;
//  - a run over OpenAlex Topics fields (names with commas) with a note holding &, %, #, non-ASCII letters compiles
//    and prints them;
//  - every chart of the report has figures/NAME.svg (valid XML, read by Chromium's XML parser, 3.3 in wide,
//    Okabe-Ito colours), NAME.pdf (one page of that size, no raster image, fonts embedded, its axis titles as text)
//    and NAME.txt (its caption, naming the synthetic corpus), drawn from the same data as the HTML chart.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { fabricateResults } from '../../bench/report/fabricate.ts';
import { significanceStage } from '../../src/experiments/significance-stage.ts';
import { renderMarkdownReport } from '../../src/report/markdown.ts';
import { loadPaperNumbers } from '../../src/report/paper-numbers.ts';
import { readResults } from '../../src/report/results.ts';
import { buildTables } from '../../src/report/report-tables.ts';
import { latexFiles, latexText, tableLatex, tablesDocument } from '../../src/report/latex.ts';
import { reportCharts } from '../../src/report/charts.ts';
import { writeReport, type ReportOutcome } from '../../src/report/write-report.ts';
import { launchChromium } from '../../src/report/pdf.ts';
import { OKABE_ITO } from '../../src/report/charts.ts';

const PDFLATEX = '/usr/bin/pdflatex';
const CHROMIUM = process.env.CITEBENCH_CHROMIUM ?? '/usr/bin/chromium';
const skipTex = existsSync(PDFLATEX) ? false : 'no pdflatex (scripts/setup.sh installs texlive-latex-recommended)';
const skipFig = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (run scripts/setup.sh)`;
const paper = loadPaperNumbers();
const MODEL = 'bm25_b.v1-x';

let tmp = '';
let out: ReportOutcome;

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'cb-latex-'));
  const res = join(tmp, 'res');
  fabricateResults(res, {
    queries: 12, pools: [800, 1600], scale: 1, repeats: 2, models: ['bm25', MODEL, 'specter', 'scincl'],
    fields: ['Biology', 'Computer Science', 'Art'], fieldQueries: 6, fieldPool: 500, k: 30, cited: 5, seed: 11,
  });
  // Two baselines, as a config's significance.baselines gives them: marks against each.
  const r = readResults(res);
  r.significance = significanceStage({ measures: r.measures, seed: r.seed, significance: { baselines: ['bm25', 'specter'] } }, res, r.models, r.cells);
  writeFileSync(join(res, 'results.json'), JSON.stringify(r, null, 1));
  if (!skipFig) out = await writeReport(res, { out: join(tmp, 'rep') });
});
after(() => tmp && rmSync(tmp, { recursive: true, force: true }));

/** pdflatex on a file, run in `cwd`; its PDF's text (pdftotext), or the log's first error. */
function compile(texFile: string, cwd: string): string {
  const p = spawnSync(PDFLATEX, ['-interaction=nonstopmode', '-halt-on-error', texFile], { cwd, encoding: 'utf8', timeout: 60_000 });
  const name = texFile.replace(/^.*\//, '').replace(/\.tex$/, '');
  assert.equal(p.status, 0, `pdflatex ${texFile}:\n${(p.stdout.match(/^!.*(\n.*){0,4}/m) ?? [p.stdout.slice(-2000)])[0]}`);
  // No bitmap (Type 3) font: every glyph is from the Type 1 fonts texlive-latex-recommended brings.
  const fonts = spawnSync('pdffonts', [join(cwd, `${name}.pdf`)], { encoding: 'utf8' }).stdout;
  assert.doesNotMatch(fonts, /Type 3/, `${texFile}: a bitmap font:\n${fonts}`);
  return spawnSync('pdftotext', [join(cwd, `${name}.pdf`), '-'], { encoding: 'utf8' }).stdout;
}

/** Whether `n` stands in `text` as a number of its own (not inside a longer one). */
const hasNumber = (text: string, n: string) => new RegExp(`(?<![\\d.])${n.replace(/[.]/g, '\\.')}(?![\\d])`).test(text);

/** Our table (the first) of each "## Table N —" section of the Markdown report: its numbers and row labels. */
function markdownTables(md: string, numbers: number[]): Map<number, { numbers: string[]; labels: string[]; paper: string[] }> {
  const out = new Map<number, { numbers: string[]; labels: string[]; paper: string[] }>();
  for (const sec of md.split(/^## /m)) {
    const n = Number(/^Table (\d) — /.exec(sec)?.[1]);
    if (!numbers.includes(n)) continue;
    const blocks = sec.split(/\n(?!\|)/).map((b) => b.split('\n').filter((l) => l.startsWith('|'))).filter((b) => b.length);
    const nums = (b: string[]) => b.filter((l) => !/^\|[-:|]+\|$/.test(l)).flatMap((l) => l.match(/-?\d+(?:\.\d+)?/g) ?? []);
    out.set(n, { numbers: nums(blocks[0]), labels: blocks[0].slice(2).map((l) => l.split('|')[1].trim().replace(/ \(.*\)$/, '')), paper: blocks.slice(1).flatMap(nums) });
  }
  return out;
}

test('tables.tex compiles with pdflatex from another directory and prints every number and model of Tables 1–4', { skip: skipTex || skipFig, timeout: 120_000 }, () => {
  const elsewhere = mkdtempSync(join(tmp, 'cwd-'));
  const text = compile(out.latex.document, elsewhere);
  const md = renderMarkdownReport(readResults(join(tmp, 'res')), paper);
  const tables = markdownTables(md, [1, 2, 3, 4]);
  assert.deepEqual([...tables.keys()].sort(), [1, 2, 3, 4], 'the fabricated results have Tables 1–4');
  for (const [n, t] of tables) {
    assert.ok(t.numbers.length > 10, `Table ${n} has numbers`);
    const missing = t.numbers.filter((x) => !hasNumber(text, x));
    assert.deepEqual(missing, [], `Table ${n}: numbers of report.md not in the compiled PDF`);
    // The report's Markdown shows the paper's tables too: by default the document holds them, tables of their own.
    assert.deepEqual(t.paper.filter((x) => !hasNumber(text, x)), [], `the paper's Table ${n} in report.md: numbers not in the compiled PDF`);
    for (const label of t.labels) assert.ok(text.includes(label), `Table ${n}: row ${label} printed`);
  }
  assert.ok(text.includes(MODEL), `the model name ${MODEL} is printed as it is`);
  assert.ok(out.latex.files.some((f) => /paper-table1\.tex$/.test(f)), out.latex.files.join(' '));
  // Superscript letters per baseline, with their legend in the caption.
  assert.match(text, /a against bm25, b against specter/);
});

test('each table file compiles alone in an article that loads the packages of its first line', { skip: skipTex || skipFig, timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmp, 'alone-'));
  assert.ok(out.latex.files.length >= 7, out.latex.files.join(' '));
  for (const f of out.latex.files) {
    const tex = readFileSync(f, 'utf8');
    const first = tex.split('\n')[0];
    assert.match(first, /^% .*\\usepackage\{booktabs\}/, `${f}: the first line names its packages`);
    const pkgs = [...first.matchAll(/\\usepackage\{[^}]+\}/g)].map((m) => m[0]).join('');
    assert.match(tex, /\\toprule[\s\S]*\\midrule[\s\S]*\\bottomrule/, `${f}: booktabs rules`);
    if (/(paper-table\d|table6)\.tex$/.test(f)) assert.match(tex, /\\caption\{[\s\S]*\}\n\\label\{tab:citebench-/, `${f}: the paper's table, a caption and a label`);
    else assert.match(tex, /\\caption\{[\s\S]*Synthetic corpus[\s\S]*\}\n\\label\{tab:citebench-/, `${f}: a caption that names the synthetic corpus, and a label`);
    const doc = join(dir, 'one.tex');
    writeFileSync(doc, `\\documentclass{article}${pkgs}\\begin{document}\\input{${f}}\\end{document}\n`);
    compile(doc, dir);
  }
});

test('the paper\'s tables follow ours, each a table of its own (never in our cells), and print the paper\'s numbers; --no-latex-paper-values leaves them out', { skip: skipTex, timeout: 120_000 }, () => {
  const r = readResults(join(tmp, 'res'));
  assert.ok(!latexFiles(r, buildTables(r, paper)).some((f) => /^paper-/.test(f.file)), 'without the paper: none of its tables');
  const files = latexFiles(r, buildTables(r, paper), { paper });
  const ids = files.map((f) => f.file);
  assert.deepEqual(ids.filter((f) => f.startsWith('paper-')), ['paper-table1.tex', 'paper-table2.tex', 'paper-table3.tex', 'paper-table4.tex', 'paper-table7.tex', 'paper-table8.tex']);
  assert.equal(ids.indexOf('paper-table1.tex'), ids.indexOf('table1.tex') + 1);
  // Our cells never hold the paper's value: ours are the same bytes with or without it.
  assert.equal(files.find((f) => f.file === 'table1.tex')!.tex, latexFiles(r, buildTables(r, paper)).find((f) => f.file === 'table1.tex')!.tex);
  const dir = mkdtempSync(join(tmp, 'paper-'));
  for (const f of files) writeFileSync(join(dir, f.file), f.tex);
  writeFileSync(join(dir, 'tables.tex'), tablesDocument(files, 'with the paper'));
  const text = compile('tables.tex', dir);
  const md = markdownTables(renderMarkdownReport(r, paper), [1, 2, 3, 4]);
  for (const [n, t] of md) assert.deepEqual(t.paper.filter((x) => !hasNumber(text, x)), [], `the paper's Table ${n}: numbers not printed`);
});

test('OpenAlex Topics fields (names with commas) and notes with &, %, #, non-ASCII letters compile and print as written', { skip: skipTex, timeout: 120_000 }, () => {
  const res = join(tmp, 'topics');
  fabricateResults(res, {
    queries: 6, pools: [500], scale: 1, repeats: 1, models: ['bm25', MODEL], fieldScheme: 'topics',
    fields: ['Business, Management and Accounting', 'Biochemistry, Genetics and Molecular Biology', 'Arts and Humanities'], fieldQueries: 4, fieldPool: 300, k: 20, cited: 3, seed: 3,
  });
  const r = readResults(res);
  const note = 'Šnajder & Medić: 50% of #queries, naïve_ex. café ~ {x} $5';
  r.mdcr!.notes = [note];
  const files = latexFiles(r, buildTables(r, paper));
  const dir = mkdtempSync(join(tmp, 'topics-tex-'));
  for (const f of files) writeFileSync(join(dir, f.file), f.tex);
  writeFileSync(join(dir, 'tables.tex'), tablesDocument(files, 'Topics: R&D, 100% #1'));
  const text = compile('tables.tex', dir).replace(/-\n/g, '-').replace(/\s+/g, ' ');
  for (const name of ['Business, Management and Accounting', 'Biochemistry, Genetics and Molecular Biology', MODEL, 'Topics: R&D, 100% #1', 'OpenAlex Topics fields']) {
    assert.ok(text.includes(name), `${name} printed`);
  }
  // pdftotext writes the dotless i under the diaeresis as it is drawn (ı̈): compared as i.
  assert.ok(text.normalize('NFC').replace(/ı̈/g, 'ï').includes(note.replace('~', '˜')), `the note printed as written: ${note}`);
});

test('latexText: every special character escaped; a character LaTeX cannot draw is named, not an error', () => {
  assert.equal(latexText('a_b & 50% #1 $x ^ ~ \\ {}'), 'a{\\ttfamily\\char95}b \\& 50\\% \\#1 \\ensuremath{\\$}x \\^{} \\~{} \\textbackslash{} \\{\\}');
  assert.equal(latexText('Šnajder Medić'), '\\v{S}najder Medi\\\'{c}');
  assert.equal(latexText('--x'), '-{}-x', 'two hyphens stay two hyphens, not a dash');
  assert.equal(latexText('中'), '{}[U+4E2D]', 'named by its code point, kept from a row end\'s optional argument');
  const t = tableLatex({ id: 'x', title: 't', intro: 'i', columns: ['a'], rowHead: 'r', rows: [{ label: 'm', cells: [{ kind: 'value', value: 1.25, best: true }] }] });
  assert.match(t, /\\textbf\{1\.3\}/, 'the best value bold, the report\'s rounding');
});

test('every chart of the report as SVG and PDF: 3.3 in wide, vector, its axis titles as text, same data as the HTML chart', { skip: skipFig, timeout: 120_000 }, async () => {
  const r = readResults(join(tmp, 'res'));
  const charts = reportCharts(r);
  assert.ok(charts.length >= 4);
  const dir = join(tmp, 'rep', 'figures');
  assert.deepEqual(readdirSync(dir).sort(), charts.flatMap((c) => [`${c.id}.pdf`, `${c.id}.svg`, `${c.id}.tex`, `${c.id}.txt`]).sort());
  const html = readFileSync(join(tmp, 'rep', 'index.html'), 'utf8');
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    for (const c of charts) {
      const svg = readFileSync(join(dir, `${c.id}.svg`), 'utf8');
      const parsed = await page.evaluate((s) => {
        const d = new DOMParser().parseFromString(s, 'image/svg+xml');
        return { error: d.getElementsByTagName('parsererror')[0]?.textContent ?? null, root: d.documentElement.nodeName, width: d.documentElement.getAttribute('width'), images: d.getElementsByTagName('image').length };
      }, svg);
      assert.deepEqual(parsed, { error: null, root: 'svg', width: '3.3in', images: 0 }, `${c.id}.svg`);
      const pdf = join(dir, `${c.id}.pdf`);
      const info = spawnSync('pdfinfo', [pdf], { encoding: 'utf8' }).stdout;
      assert.match(info, /Pages:\s+1\n/, `${c.id}.pdf: one page`);
      assert.ok(Math.abs(Number(/Page size:\s+([\d.]+) x/.exec(info)![1]) - 3.3 * 72) < 1, `${c.id}.pdf: 3.3 in wide\n${info}`);
      const images = spawnSync('pdfimages', ['-list', pdf], { encoding: 'utf8' }).stdout.trim().split('\n').slice(2);
      assert.deepEqual(images, [], `${c.id}.pdf: no raster image`);
      const fonts = spawnSync('pdffonts', [pdf], { encoding: 'utf8' }).stdout.trim().split('\n').slice(2);
      assert.ok(fonts.length && fonts.every((l) => / yes +yes +yes /.test(l)), `${c.id}.pdf: fonts embedded (subsets)\n${fonts.join('\n')}`);
      const text = spawnSync('pdftotext', [pdf, '-'], { encoding: 'utf8' }).stdout.replace(/\s+/g, ' ');
      for (const title of axisTitles(c.spec)) assert.ok(text.includes(title), `${c.id}.pdf: axis title "${title}" as text`);
      // The same data: every number the HTML chart prints (tick and cell labels aside from the axes' own) is in the figure.
      const inHtml = new Set(svgTexts(new RegExp(`<figure class="chart" id="${c.id}">([\\s\\S]*?)</figure>`).exec(html)![1]));
      const inFig = new Set(svgTexts(svg));
      const cellValues = [...inHtml].filter((x) => /^\d+\.\d+$/.test(x));
      for (const v of cellValues) assert.ok(inFig.has(v), `${c.id}: value ${v} of the HTML chart in the figure`);
      const caption = readFileSync(join(dir, `${c.id}.txt`), 'utf8');
      assert.ok(caption.includes(c.caption) && /Synthetic corpus/.test(caption), `${c.id}.txt: the caption and the synthetic corpus`);
      assert.doesNotMatch(text, /Synthetic/, `${c.id}.pdf: nothing drawn over the plot`);
    }
    // Models in Okabe and Ito's colour-blind-safe colours.
    const pool = readFileSync(join(dir, 'chart-pool.svg'), 'utf8');
    assert.ok(OKABE_ITO.slice(0, 4).every((col) => pool.includes(col)), 'four models, four Okabe-Ito colours');
  } finally {
    await browser.close();
  }
});

/** The axis titles a chart spec names (strings only). */
function axisTitles(spec: unknown): string[] {
  const out = new Set<string>();
  const walk = (x: unknown) => {
    if (!x || typeof x !== 'object') return;
    const o = x as Record<string, unknown>;
    const enc = o.encoding as Record<string, { title?: unknown }> | undefined;
    for (const ch of ['x', 'y']) if (typeof enc?.[ch]?.title === 'string') out.add(enc[ch].title as string);
    for (const v of Object.values(o)) walk(v);
  };
  walk(spec);
  return [...out];
}

const svgTexts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);

test('figures follow --figure-width', { skip: skipFig, timeout: 60_000 }, async () => {
  const { figureSvg } = await import('../../src/report/figures.ts');
  const c = reportCharts(readResults(join(tmp, 'res')))[0];
  const svg = await figureSvg(c, { width: 7 });
  assert.match(svg, /<svg[^>]* width="7in"/);
});

test('from a notebook: res.latex(n | name) is the file citebench report writes; cb.saveFigure writes SVG or PDF by extension', { skip: skipFig, timeout: 60_000 }, async () => {
  const { loadResults } = await import('../../src/report/frames.ts');
  const { saveFigure } = await import('../../src/report/figures.ts');
  const res = loadResults(join(tmp, 'res'));
  assert.equal(res.latex(1), readFileSync(join(tmp, 'rep', 'tables', 'table1.tex'), 'utf8'));
  assert.equal(res.latex('table3'), readFileSync(join(tmp, 'rep', 'tables', 'table3.tex'), 'utf8'));
  assert.match(res.latex('paper-table1', { paper: true }), /The paper's Table 1/);
  assert.throws(() => res.latex(6), /no Table 6 in these results \(have: .*table1.*; the paper's own with \{ paper: true \}\)/);
  assert.notEqual(res.latex(1, { test: 'randomization' }), res.latex(1), 'the randomization test\'s letters');
  const svg = await saveFigure(res.chart('pool'), join(tmp, 'w', 'pool.svg'));
  assert.equal(readFileSync(svg, 'utf8'), readFileSync(join(tmp, 'rep', 'figures', 'chart-pool.svg'), 'utf8'));
  const pdf = await saveFigure(res.chart('fields'), join(tmp, 'w', 'fields.pdf'), { width: 5 });
  assert.equal(readFileSync(pdf).subarray(0, 5).toString(), '%PDF-');
  await assert.rejects(saveFigure(res.chart('pool'), join(tmp, 'w', 'pool.png')), /pool\.png: a figure is written as \.svg or \.pdf/);
});
