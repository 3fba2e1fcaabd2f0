// Wide tables in the HTML report: Table 1 with the paper's values beside four pool sizes and Tables 2, 7, 8 with
// 19 fields and their average are wider than a 1,280 px window. In headless Chromium at 1,280 and 1,920 px the
// page itself never scrolls sideways; each wide table scrolls inside its own box, its last column can be
// scrolled into that box, and the row labels stay at the box's left edge while it scrolls. In print (A4
// landscape) every column lies within the page width.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { FIELDS } from '../../src/corpus/fields.ts';
import { writeReport } from '../../src/report/write-report.ts';
import { fabricateResults } from '../../bench/report/fabricate.ts';
import { launchChromium } from '../helpers/report-page.ts';

const WIDE = ['1', '2', '7', '8'];
let tmp = '';
let html = '';
let browser: Browser;

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'cb-wide-'));
  // Every field, pools that stand for the paper's (4k ↔ 200k at scale 0.02), so the paper's values show.
  fabricateResults(join(tmp, 'res'), {
    queries: 10, pools: [4000, 10000, 20000, 40000], scale: 0.02, repeats: 2, models: ['bm25', 'scibert', 'specter', 'scincl'],
    fields: [...FIELDS], fieldQueries: 3, fieldPool: 500, k: 20, cited: 3, seed: 5,
  });
  html = (await writeReport(join(tmp, 'res'), { out: join(tmp, 'rep'), pdf: false })).html;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

async function open(width: number, media: 'screen' | 'print' = 'screen'): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await page.emulateMedia({ media });
  await page.goto(pathToFileURL(html).href, { waitUntil: 'load' });
  return page;
}

/** Scrolls table N's box to its right end; where its row labels and last column then are, relative to the box. */
function scrollToEnd(page: Page, n: string) {
  return page.evaluate((n) => {
    const table = document.querySelector(`table[data-table="${n}"]`) as HTMLTableElement;
    const box = table.parentElement as HTMLElement;
    const wider = table.scrollWidth > box.clientWidth;
    box.scrollLeft = box.scrollWidth;
    const b = box.getBoundingClientRect();
    const cols = [...table.querySelectorAll('thead tr.cols th')];
    const first = cols[0].getBoundingClientRect();
    const last = cols[cols.length - 1].getBoundingClientRect();
    const label = table.querySelector('tbody th.row')!.getBoundingClientRect();
    return {
      wider, scrolled: box.scrollLeft, boxRight: b.right,
      lastInBox: last.left >= b.left - 0.5 && last.right <= b.left + box.clientWidth + 0.5,
      labelsAtLeft: Math.abs(first.left - b.left) < 1 && Math.abs(label.left - b.left) < 1,
      columns: cols.length,
    };
  }, n);
}

for (const width of [1280, 1920]) {
  test(`${width} px: the page never scrolls sideways; Tables 1, 2, 7, 8 scroll in their own box with the row labels fixed`, async () => {
    const page = await open(width);
    try {
      const doc = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
      assert.ok(doc.scroll <= doc.client, `the page is ${doc.scroll} px wide in a ${doc.client} px window`);
      for (const n of WIDE) {
        const t = await scrollToEnd(page, n);
        assert.ok(t.boxRight <= doc.client, `Table ${n}'s box ends inside the window`);
        assert.ok(t.lastInBox, `Table ${n}: its last column scrolls into its box`);
        assert.ok(t.labelsAtLeft, `Table ${n}: the row labels stay at the box's left edge`);
        if (width === 1280) assert.ok(t.wider && t.scrolled > 0, `Table ${n} is wider than a 1,280 px window (so this checks the scrolling)`);
        assert.equal(t.columns, n === '1' ? 13 : 21, `Table ${n}: model + ${n === '1' ? '4 pools × 3 measures' : '19 fields + AVG'}`);
      }
      assert.equal(await page.evaluate(() => document.documentElement.scrollLeft), 0, 'scrolling the tables moved the page');
    } finally {
      await page.close();
    }
  });
}

test('print (A4 landscape): every column of Tables 1, 2, 7, 8 within the page width', async () => {
  // 297 mm − 2 × 12 mm margins = 273 mm ≈ 1,032 CSS px.
  const page = await open(1032, 'print');
  try {
    for (const n of WIDE) {
      const w = await page.evaluate((n) => {
        const t = document.querySelector(`table[data-table="${n}"]`) as HTMLTableElement;
        return { table: Math.ceil(t.getBoundingClientRect().right), page: document.documentElement.clientWidth, scroll: t.scrollWidth, client: t.clientWidth };
      }, n);
      assert.ok(w.table <= w.page, `Table ${n} ends at ${w.table} px on a ${w.page} px page`);
      assert.ok(w.scroll <= w.client + 1, `Table ${n}: no cell overflows the table in print`);
    }
  } finally {
    await page.close();
  }
});
