/**
 * What the report tests share: the cells of a results folder read straight from cells/**.json (never through
 * the renderer's code), the same numbers recomputed independently (means ± sd over repeats, per-query means), and
 * the HTML read back by real headless Chromium — tables parsed from the DOM, the page opened with its console and
 * network watched and a screenshot taken.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = process.env.CITEBENCH_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, args: ARGS });

export interface Cell {
  model: string; protocol: string; split: string; field: string | null; poolSize: number; repeat: number; setting?: string;
  means: Record<string, number>; perQuery: Record<string, number[]>; queryIds: string[];
}

/** Every test-split cell file of a results folder. */
export function readCells(dir: string): Cell[] {
  const out: Cell[] = [];
  (function walk(d: string) {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (n.endsWith('.json')) out.push(JSON.parse(readFileSync(p, 'utf8')));
    }
  })(join(dir, 'cells'));
  return out.filter((c) => c.split === 'test');
}

export const f1 = (x: number) => (Math.abs(x) < 0.05 ? 0 : x).toFixed(1);
export const delta = (d: number) => (f1(Math.abs(d)) === '0.0' ? '±0.0' : `${d > 0 ? '▲' : '▼'}${f1(Math.abs(d))}`);
export const sizeText = (size: number) => (size >= 1e6 && size % 1e6 === 0 ? `${size / 1e6}M` : size >= 1000 && size % 1000 === 0 ? `${size / 1000}k` : String(size));

/** Mean (×100) and sample sd (×100, undefined for one repeat) over the cells' means of one measure. */
export function stats(cells: Cell[], measure: string) {
  const v = cells.map((c) => c.means[measure]);
  const m = v.reduce((s, x) => s + x, 0) / v.length;
  const sd = v.length > 1 ? Math.sqrt(v.reduce((s, x) => s + (x - m) ** 2, 0) / (v.length - 1)) : undefined;
  return { mean: 100 * m, sd: sd === undefined ? undefined : 100 * sd };
}

/** query → mean over repeats of one measure. */
export function perQueryMean(cells: Cell[], measure: string): Map<string, number> {
  const acc = new Map<string, number[]>();
  for (const c of cells) c.queryIds.forEach((q, i) => acc.set(q, [...(acc.get(q) ?? []), c.perQuery[measure][i]]));
  return new Map([...acc].map(([q, v]) => [q, v.reduce((s, x) => s + x, 0) / v.length]));
}

export interface ParsedCell { v: string; sd: string | null; sig: string; paper: string | null; delta: string | null; best: boolean }
export interface ParsedTable {
  /** data-table: the paper's table number, or the id of a table of our own ("significance"). */
  key: string;
  n: number;
  setting: string | null;
  heading: string;
  head: string[][];
  rows: { label: string; cells: ParsedCell[] }[];
}

/** Every result table of a report page as the browser's DOM has it. */
export async function parseTables(browser: Browser, file: string): Promise<ParsedTable[]> {
  const page = await browser.newPage();
  await page.goto(pathToFileURL(file).href);
  const tables = await page.evaluate(() => [...document.querySelectorAll('table[data-table]')].map((t) => ({
    key: t.getAttribute('data-table')!,
    n: Number(t.getAttribute('data-table')),
    setting: t.getAttribute('data-setting'),
    heading: t.closest('section')?.querySelector('h2')?.textContent ?? '',
    // header rows with colspans expanded, so column j of the body has header head[r][j]
    head: [...t.querySelectorAll('thead tr')].map((tr) => [...tr.children].flatMap((th) => Array((th as HTMLTableCellElement).colSpan).fill(th.textContent!.trim()))),
    rows: [...t.querySelectorAll('tbody tr')].map((tr) => ({
      label: tr.querySelector('th .label')!.textContent!.trim(),
      cells: [...tr.querySelectorAll('td')].map((td) => ({
        v: (td.querySelector('.v') ?? td).textContent!.trim(),
        sd: td.querySelector('.sd')?.textContent?.replace('±', '') ?? null,
        sig: td.querySelector('.sig')?.textContent ?? '',
        paper: td.querySelector('.paper')?.textContent ?? null,
        delta: td.querySelector('.delta')?.textContent ?? null,
        best: td.classList.contains('best'),
      })),
    })),
  })));
  await page.close();
  return tables;
}

/** Checks value, sd, paper value and delta of one parsed cell against the recomputation. */
export function checkCell(where: string, got: ParsedCell, mean: number | undefined, sd: number | undefined, paperValue: number | undefined) {
  assert.equal(got.v, mean === undefined ? '–' : f1(mean), `${where}: value`);
  assert.equal(got.sd, sd === undefined ? null : f1(sd), `${where}: sd`);
  assert.equal(got.paper, paperValue === undefined ? null : f1(paperValue), `${where}: paper value`);
  assert.equal(got.delta, paperValue === undefined || mean === undefined ? null : delta(mean - paperValue), `${where}: delta`);
}

/** Bold marks the best unrounded value of each group of competing cells (checked on the printed values). */
export function checkBest(t: ParsedTable, group: (row: number, col: number) => string) {
  const best = new Map<string, number>();
  t.rows.forEach((r, i) => r.cells.forEach((c, j) => {
    if (c.v !== '–') best.set(group(i, j), Math.max(best.get(group(i, j)) ?? -Infinity, Number(c.v)));
  }));
  t.rows.forEach((r, i) => r.cells.forEach((c, j) => {
    if (c.v === '–') return;
    // Bold marks the best unrounded value; a rounded tie may be bold or not, a lower printed value never is.
    if (Number(c.v) < best.get(group(i, j))! - 0.05) assert.ok(!c.best, `Table ${t.n} ${r.label} col ${j}: bold but not best`);
    if (Number(c.v) === best.get(group(i, j))) {
      // Every other cell of the group (along a column or along a row, as the table groups them) prints lower.
      const strictlyBest = t.rows.every((o, k) => o.cells.every((x, l) => (k === i && l === j) || group(k, l) !== group(i, j) || x.v === '–' || Number(x.v) < Number(c.v)));
      if (strictlyBest) assert.ok(c.best, `Table ${t.n} ${r.label} col ${j}: best but not bold`);
    }
  }));
}

/**
 * Opens the page in Chromium: the expected numbers of tables and charts visible with a size, every chart with
 * marks, no console error, no request but the page itself; a full-page screenshot to `shot`.
 */
export async function openChecked(browser: Browser, file: string, expect: { tables: number; charts: number }, shot: string) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => requests.push(r.url()));
  const url = pathToFileURL(file).href;
  await page.goto(url, { waitUntil: 'load' });
  const tables = page.locator('table.rt');
  const charts = page.locator('figure.chart svg');
  assert.equal(await tables.count(), expect.tables);
  assert.equal(await charts.count(), expect.charts);
  for (const l of [...(await tables.all()), ...(await charts.all())]) {
    assert.ok(await l.isVisible());
    const box = await l.boundingBox();
    assert.ok(box && box.width > 50 && box.height > 20, `visible with a size: ${JSON.stringify(box)}`);
  }
  // Every chart drew marks (not an empty frame).
  for (const c of await charts.all()) assert.ok((await c.locator('path, rect, text').count()) > 10);
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`report screenshot: ${shot}`);
  await page.close();
  assert.deepEqual(errors, []);
  assert.deepEqual(requests, [url], 'the page fetches nothing but itself');
}
