/**
 * HTML → PDF with the system's headless Chromium (Debian `chromium`, installed by scripts/setup.sh), driven by
 * playwright-core: nothing downloads a browser. A4 (the page's CSS sets landscape), backgrounds printed, SVG
 * charts stay vectors. Every request other than the page's own file is refused.
 */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { CitebenchError } from '../util/errors.ts';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

/** The Chromium binary: $CITEBENCH_CHROMIUM, else /usr/bin/chromium. */
function chromiumPath(): string {
  const p = process.env.CITEBENCH_CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(p)) {
    throw new CitebenchError(`${p}: Chromium not found (needed for the PDF): run bash scripts/setup.sh or apt-get install chromium, set CITEBENCH_CHROMIUM, or pass --no-pdf`);
  }
  return p;
}

export type Browser = import('playwright-core').Browser;

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
}

/** Prints a local HTML file to PDF bytes. Returns the bytes and the Chromium version. */
export async function printPdf(htmlFile: string, browser?: Browser): Promise<{ pdf: Buffer; chromium: string }> {
  const own = !browser;
  const b = browser ?? (await launchChromium());
  try {
    const page = await b.newPage();
    const url = pathToFileURL(resolve(htmlFile)).href;
    await page.route('**/*', (route) => (route.request().url() === url ? route.continue() : route.abort()));
    await page.goto(url, { waitUntil: 'load' });
    await page.emulateMedia({ media: 'print' });
    const pdf = await page.pdf({ format: 'A4', printBackground: true, preferCSSPageSize: true });
    await page.close();
    return { pdf, chromium: b.version() };
  } finally {
    if (own) await b.close();
  }
}
