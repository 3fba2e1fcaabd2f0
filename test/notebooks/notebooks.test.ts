// Notebooks are generated from notebooks/src/*.txt, committed without outputs, and must run headless on the
// tslab kernel (scripts/setup.sh installs Jupyter from Debian and registers the kernel). Every source in
// notebooks/src is a notebook here: a new one is generated, run and checked without touching this file.
// The runs use small-data mode (CITEBENCH_SMALL=1) in one temporary work folder, so the corpus and the
// results are built once and shared, as the notebooks share them in an interactive session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { REPO } from '../helpers/shared.ts';
import { NB_DIR, PYTHON, executeNotebook, exportHtml, generateNotebook, notebookNames, outputProblems, type Execution } from '../../scripts/notebooks.ts';
import { CHROMIUM_ARGS } from '../../src/report/pdf.ts';

const names = notebookNames();
const hasJupyter = existsSync('/usr/bin/jupyter-nbconvert') && existsSync(join(REPO, 'node_modules/.bin/tslab'));
const work = mkdtempSync(join(tmpdir(), 'cb-nbrun-'));
const executed = new Map<string, Execution>();
/** The notebook opened in Chromium: the dataset level (a table, the tuning grid, Table 1, the pool-size chart). */
const BROWSER_NOTEBOOK = '02-dataset-level';
const CHROMIUM = process.env.CITEBENCH_CHROMIUM ?? '/usr/bin/chromium';

test('every notebook source has its notebook, generated from it and committed without outputs', { skip: existsSync(PYTHON) ? false : 'no /usr/bin/python3' }, () => {
  assert.ok(names.length >= 3, `notebooks/src has the notebooks (${names.join(', ')})`);
  const ipynb = readdirSync(NB_DIR).filter((f) => f.endsWith('.ipynb')).map((f) => f.replace(/\.ipynb$/, '')).sort();
  assert.deepEqual(ipynb, names, 'one notebooks/<name>.ipynb per notebooks/src/<name>.txt');
  const tmp = mkdtempSync(join(tmpdir(), 'cb-nb-'));
  for (const name of names) {
    const out = join(tmp, `${name}.ipynb`);
    generateNotebook(name, out);
    assert.equal(readFileSync(join(NB_DIR, `${name}.ipynb`), 'utf8'), readFileSync(out, 'utf8'), `${name}.ipynb is out of date: run npm run notebooks (or scripts/make-notebook.py)`);
    const json = JSON.parse(readFileSync(join(NB_DIR, `${name}.ipynb`), 'utf8'));
    for (const c of json.cells) if (c.cell_type === 'code') assert.deepEqual(c.outputs, [], `${name}: outputs must be stripped`);
    const code = json.cells.filter((c: { cell_type: string }) => c.cell_type === 'code').map((c: { source: string }) => c.source).join('\n');
    assert.match(code, /import \* as cb from 'citebench'/, `${name} imports citebench the documented way`);
    assert.doesNotMatch(code, /console\.table/, `${name}: tables go through cb.show (HTML), not console.table`);
  }
});

test('the output check finds errors, stderr and missing tables or charts', () => {
  const cell = (outputs: object[]) => ({ cell_type: 'code', outputs });
  const good = [cell([{ output_type: 'display_data', data: { 'text/html': '<div><table class="x"></table></div>' } }]), cell([{ output_type: 'display_data', data: { 'text/html': '<figure><svg width="1"></svg></figure>' } }])];
  assert.deepEqual(outputProblems({ cells: good as never }), []);
  assert.match(outputProblems({ cells: [good[0]] as never }).join(), /no chart/);
  assert.match(outputProblems({ cells: [good[1]] as never }).join(), /no HTML table/);
  assert.match(outputProblems({ cells: [...good, cell([{ output_type: 'error', ename: 'TypeError', evalue: 'x is undefined' }])] as never }).join(), /cell 2: TypeError/);
  assert.match(outputProblems({ cells: [...good, cell([{ output_type: 'stream', name: 'stderr', text: ['1:5 - Cannot find name'] }])] as never }).join(), /stderr: 1:5 - Cannot find name/);
  // The first code cell prints at most 25 lines; a progress line rewritten in place (\r) is one line.
  const log = (n: number) => cell([{ output_type: 'stream', name: 'stdout', text: Array.from({ length: n }, (_, i) => `[cells] ${i}\n`) }]);
  assert.match(outputProblems({ cells: [log(26), ...good] as never }).join(), /cell 0 \(the first code cell\) printed 26 lines \(at most 25/);
  assert.deepEqual(outputProblems({ cells: [log(25), ...good] as never }), []);
  const inPlace = cell([{ output_type: 'stream', name: 'stdout', text: [Array.from({ length: 300 }, (_, i) => `\r[cells] ${i}/300`).join('') + '\n'] }]);
  assert.deepEqual(outputProblems({ cells: [inPlace, ...good] as never }), []);
});

for (const name of names) {
  test(`notebook ${name} runs headless in small-data mode: no error, at least one table and one chart`, { skip: hasJupyter ? false : 'Jupyter (nbconvert) or tslab is not installed (run scripts/setup.sh)', timeout: 420_000 }, () => {
    const e = executeNotebook(name, { outDir: work, cellTimeout: 300, env: { CITEBENCH_SMALL: '1', CITEBENCH_WORK: join(work, 'data') } });
    console.log(`${name}: ${e.seconds.toFixed(1)} s`);
    executed.set(name, e);
    assert.deepEqual(e.problems, [], `${name}:\n${e.problems.join('\n')}`);
  });
}

test(`${BROWSER_NOTEBOOK}, executed and exported to HTML, shows its tables and charts in headless Chromium`, { skip: !hasJupyter ? 'Jupyter is not installed' : !existsSync(CHROMIUM) ? `no Chromium at ${CHROMIUM} (run scripts/setup.sh)` : false, timeout: 120_000 }, async () => {
  const e = executed.get(BROWSER_NOTEBOOK);
  assert.ok(e && !e.problems.length, `${BROWSER_NOTEBOOK} ran (see its test above)`);
  // What the notebook file holds, counted from its JSON: the page must show as many.
  const outputs = JSON.parse(readFileSync(e.file, 'utf8')).cells.flatMap((c: { outputs?: { data?: Record<string, string | string[]> }[] }) => c.outputs ?? []);
  const htmlOf = (o: { data?: Record<string, string | string[]> }) => [o.data?.['text/html'] ?? ''].flat().join('');
  const nCharts = outputs.filter((o: never) => /<svg[\s>]/.test(htmlOf(o))).length;
  const nTables = outputs.filter((o: never) => /<table[\s>]/.test(htmlOf(o))).length;
  assert.ok(nCharts >= 2 && nTables >= 3, `${nCharts} charts, ${nTables} tables in the executed notebook`);
  // Marked trusted, as a notebook run in Jupyter is: otherwise Jupyter Notebook strips its styles and charts.
  const signed = spawnSync(PYTHON, ['-c', 'import sys, nbformat\nfrom nbformat.sign import NotebookNotary\nsys.exit(0 if NotebookNotary().check_signature(nbformat.read(sys.argv[1], as_version=4)) else 3)', e.file]);
  assert.equal(signed.status, 0, `${e.file} is not signed as trusted`);
  const html = exportHtml(e.file, work);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    const errors: string[] = [];
    const remote: string[] = [];
    page.on('pageerror', (err) => errors.push(String(err)));
    page.on('request', (r) => { if (!r.url().startsWith('file:')) remote.push(r.url()); });
    await page.route(/^(?!file:)/, (route) => route.abort());
    await page.goto(pathToFileURL(html).href, { waitUntil: 'load' });
    const charts = page.locator('figure.citebench-chart > svg');
    assert.equal(await charts.count(), nCharts, 'every chart output is on the page');
    for (const c of await charts.all()) {
      await c.scrollIntoViewIfNeeded();
      assert.ok(await c.isVisible(), 'chart visible');
      const box = await c.boundingBox();
      assert.ok(box && box.width > 150 && box.height > 80, `chart has a size: ${JSON.stringify(box)}`);
      // vega draws each mark as a path inside a g.mark-* group: bars, lines, points, cells with a size.
      const marks = c.locator('g[class*="mark-"] path');
      assert.ok((await marks.count()) >= 4, 'marks drawn');
      const sized = await marks.evaluateAll((els) => els.filter((m) => { const r = m.getBoundingClientRect(); return r.width > 0 && r.height > 0; }).length);
      assert.ok(sized >= 4, `${sized} marks with a nonzero size`);
      assert.ok((await c.locator('text').count()) > 5, 'axis labels and titles drawn');
    }
    const tables = page.locator('div.citebench table');
    assert.equal(await tables.count(), nTables, 'every table output is on the page');
    for (const t of await tables.all()) {
      const box = await t.boundingBox();
      assert.ok(box && box.width > 100 && box.height > 20, `table has a size: ${JSON.stringify(box)}`);
    }
    const shot = join(work, `${BROWSER_NOTEBOOK}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`notebook screenshot: ${shot}`);
    assert.deepEqual(errors, [], 'no page error');
    assert.deepEqual(remote, [], 'nothing fetched from the network');
  } finally {
    await browser.close();
  }
});
