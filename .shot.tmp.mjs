import { chromium } from 'playwright-core';
import { readFileSync, writeFileSync } from 'node:fs';
const [,, file, out] = process.argv;
let url = 'file://' + file;
if (file.endsWith('.svg')) { writeFileSync(file + '.html', `<html><body>${readFileSync(file, 'utf8')}</body></html>`); url += '.html'; }
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'] });
const p = await b.newPage({ viewport: { width: 1300, height: 900 } });
await p.goto(url);
await p.screenshot({ path: out, fullPage: true });
await b.close();
