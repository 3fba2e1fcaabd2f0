/**
 * docs/img/notebook.png: an executed notebook (after `npm run notebooks`, in data/notebooks-out/) opened in the
 * real Jupyter Notebook server and captured with headless Chromium, as a reader of the README sees it.
 *
 *   node --import tsx scripts/dev/notebook-screenshot.ts [NAME=02-dataset-level] [OUT=docs/img/notebook.png]
 *
 * The server runs on a free local port without a token, serving data/notebooks-out/ only, and is stopped after.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { privateKernelPath, REPO, signNotebook } from '../notebooks.ts';
import { CHROMIUM_ARGS } from '../../src/report/pdf.ts';

const name = process.argv[2] ?? '02-dataset-level';
const out = process.argv[3] ?? join(REPO, 'docs/img/notebook.png');
const dir = join(REPO, 'data/notebooks-out');
if (!existsSync(join(dir, `${name}.ipynb`))) {
  console.error(`no ${join(dir, `${name}.ipynb`)}: run npm run notebooks first`);
  process.exit(2);
}

signNotebook(join(dir, `${name}.ipynb`)); // as npm run notebooks does; an older copy may be unsigned

const port = await new Promise<number>((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const p = (s.address() as { port: number }).port;
    s.close(() => resolve(p));
  });
});
const args = ['notebook', '--no-browser', `--port=${port}`, '--ip=127.0.0.1', '--NotebookApp.token=', '--NotebookApp.password=', `--notebook-dir=${dir}`];
if (process.getuid?.() === 0) args.push('--allow-root'); // CI and this machine run as root
// This checkout's tslab kernel, as npm run notebooks uses: the page shows the kernel ready, not "Kernel error".
const env = { ...process.env, JUPYTER_PATH: [privateKernelPath(), process.env.JUPYTER_PATH].filter(Boolean).join(':') };
const server = spawn('jupyter', args, { stdio: ['ignore', 'ignore', 'pipe'], env });
let log = '';
server.stderr.on('data', (d) => (log += d));
try {
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/api`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (i > 120) throw new Error(`jupyter notebook did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  const browser = await chromium.launch({ executablePath: process.env.CITEBENCH_CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1650 } });
    await page.goto(`${base}/notebooks/${name}.ipynb`, { waitUntil: 'networkidle' });
    await page.locator('.output_html table').first().waitFor();
    await page.waitForTimeout(1500); // charts and MathJax settle
    // The kernel indicator settles on idle once tslab has started (a reader then sees no "starting" notice).
    await page.waitForFunction(() => document.querySelector('#kernel_indicator_icon')?.classList.contains('kernel_idle_icon'), undefined, { timeout: 60_000 }).catch(() => undefined);
    // Scroll past the title cell so the import, the banner and the first tables are in view.
    await page.evaluate(() => document.querySelector('#notebook-container .code_cell')?.scrollIntoView());
    await page.waitForTimeout(500);
    await page.screenshot({ path: out });
    console.log(`wrote ${out}`);
  } finally {
    await browser.close();
  }
} finally {
  server.kill('SIGTERM');
}
