/**
 * Every report chart of fabricated results (bench/report/fabricate.ts: N models, four pool sizes 5k–40k, every
 * MAG field, MDCR) as figures at 3.3 in and 7 in, each also as a 300-dpi PNG (headless Chromium), with its print
 * check's problems printed — to look at the figures as a reader would. docs/img/figure-pool-column.png is
 * chart-pool-3.3.png of six models.
 *   usage: npx tsx scripts/dev/figure-pngs.ts [N_MODELS=6] [OUT_DIR]
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { FIELDS } from '../../src/corpus/fields.ts';
import { fabricateResults } from '../../bench/report/fabricate.ts';
import { readResults } from '../../src/report/results.ts';
import { reportCharts } from '../../src/report/charts.ts';
import { figureRender, figureSvg } from '../../src/report/figures.ts';
import { printCheck } from '../../src/report/print-check.ts';
import { launchChromium } from '../../src/report/pdf.ts';

async function main() {
  const n = Number(process.argv[2] ?? 6);
  const out = process.argv[3] ?? mkdtempSync(join(tmpdir(), 'cb-figs-'));
  const names = ['bm25', 'scibert', 'specter', 'scincl', 'aspire-bm', 'aspire-cs', 'specter2-adapter-proximity', 'e5-large-v2', 'bge-base-en-v1.5', 'contriever', 'minilm-l6', 'gte-base'];
  const models = Array.from({ length: n }, (_, i) => names[i] ?? `model-${i + 1}`);
  const res = join(out, 'results');
  fabricateResults(res, { queries: 20, pools: [5000, 10_000, 20_000, 40_000], scale: 1, repeats: 2, models, fields: [...FIELDS], fieldQueries: 5, fieldPool: 500, k: 20, cited: 3, seed: 5 });
  mkdirSync(out, { recursive: true });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ deviceScaleFactor: 300 / 96 });
    for (const c of reportCharts(readResults(res))) {
      for (const inches of [3.3, 7]) {
        const check = await printCheck((await figureRender(c, { width: inches })).spec, inches);
        const svg = await figureSvg(c, { width: inches });
        const f = join(out, `${c.id}-${inches}`);
        writeFileSync(`${f}.svg`, svg);
        await page.setContent(`<html><body style="margin:0;background:white">${svg.replace(/^<\?xml[^>]*>/, '')}</body></html>`);
        await (await page.$('svg'))!.screenshot({ path: `${f}.png` });
        console.log(`${f}.png  ${check.problems.length ? check.problems.join('; ') : 'print check passed'}`);
      }
    }
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
