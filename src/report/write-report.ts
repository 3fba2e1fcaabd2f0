/**
 * `citebench report`: a results folder of `citebench run` → <out>/index.html (self-contained), <out>/report.pdf
 * and <out>/drill/<field>/<model>.html; for a paper, <out>/tables/*.tex with tables.tex (latex.ts: the same
 * tables as LaTeX) and <out>/figures/NAME.svg, .pdf, .txt (figures.ts: the same charts as standalone figures).
 * The same results give the same HTML bytes (no dates, seeded tests).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeFileAtomic } from '../util/atomic.ts';
import { chartSvg, reportCharts, vegaVersions, type Chart } from './charts.ts';
import { drillPages, findStore, storeLookup } from './drilldown.ts';
import { bannerHtml, esc, metaHtml, notesHtml, page, tableSection } from './html.ts';
import { loadPaperNumbers, type PaperNumbers } from './paper-numbers.ts';
import { buildTables } from './report-tables.ts';
import type { ReportTable } from './tables.ts';
import { readResults, resultsFieldScheme, type ResultsIndex } from './results.ts';
import { launchChromium, printPdf } from './pdf.ts';
import { latexFiles, latexProvenance, tablesDocument } from './latex.ts';
import { figureCaption, figurePdf, figureSvg } from './figures.ts';

export interface ReportOptions {
  /** Output folder. */
  out: string;
  /** Write report.pdf too (default true). */
  pdf?: boolean;
  /** Corpus store for titles and years in the drill-down (default: <results>/../store when it matches). */
  store?: string;
  paper?: PaperNumbers;
  /** The paper's own tables after ours in tables/, each a table of its own, as the report shows them (default true). */
  latexPaperValues?: boolean;
  /** Printed width of the figures in inches (default 3.3, one column). */
  figureWidth?: number;
  log?: (line: string) => void;
}

export interface ReportOutcome {
  html: string;
  pdf?: string;
  drillPages: number;
  tables: number;
  /** tables/tables.tex and the table files it inputs. */
  latex: { document: string; files: string[] };
  /** figures/NAME.svg (and .pdf unless pdf is false) per chart. */
  figures: string[];
  charts: number;
  seconds: { html: number; pdf: number };
}

function citebenchVersion(): string {
  try {
    return JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

function timingsOf(dir: string): Record<string, number> | undefined {
  const p = join(dir, 'timings.json');
  if (!existsSync(p)) return undefined;
  try {
    return JSON.parse(readFileSync(p, 'utf8')).seconds;
  } catch {
    return undefined;
  }
}

/** Every chart the results support, as SVG, in report order. */
async function renderCharts(r: ResultsIndex): Promise<(Chart & { svg: string })[]> {
  return Promise.all(reportCharts(r).map(async (c) => ({ ...c, svg: await chartSvg(c.spec, c.id) })));
}

export async function writeReport(resultsDir: string, opts: ReportOptions): Promise<ReportOutcome> {
  const log = opts.log ?? (() => {});
  const t0 = performance.now();
  const r = readResults(resultsDir);
  const paper = opts.paper ?? loadPaperNumbers();
  const out = opts.out;

  const tables = buildTables(r, paper);
  const charts = await renderCharts(r);

  const storeDir = findStore(resultsDir, r, opts.store);
  const store = storeDir ? storeLookup(storeDir) : undefined;
  let drill;
  try {
    drill = drillPages(resultsDir, r, { lookup: store?.lookup });
  } finally {
    store?.close();
  }

  const notesPath = join(resultsDir, 'notes.md');
  const notes = existsSync(notesPath) ? notesHtml(readFileSync(notesPath, 'utf8')) : '';
  const versions = { citebench: citebenchVersion(), node: process.version, ...(await vegaVersions()) };

  const tocLabel = (t: ReportTable) => (t.number ? `Table ${t.number}${t.setting ? ` (${t.setting})` : ''}` : t.id === 'beir' ? 'BEIR task' : 'Significance');
  const toc = [...tables.map((t) => `<a href="#${esc(t.id)}">${esc(tocLabel(t))}</a>`), charts.length ? '<a href="#charts">Charts</a>' : '', drill.length ? '<a href="#drilldown">Drill-down</a>' : '', notes ? '<a href="#notes">Notes</a>' : ''].filter(Boolean);
  const body = [
    `<header><h1>citebench report — ${esc(r.name)}</h1>${bannerHtml(r)}`,
    metaHtml({ r, resultsDir, timings: timingsOf(resultsDir), versions }),
    `<nav class="toc">${toc.join(' ')}</nav>`,
    `<p class="intro">Tables follow the paper's numbering (Medić &amp; Šnajder 2022). ${r.corpus.kind === 'synthetic' ? 'The paper\'s values beside ours are for orientation only: a synthetic corpus at another scale does not reproduce them.' : r.corpus.source && resultsFieldScheme(r) !== 'mag' ? 'The paper\'s values stand beside ours with the difference, except over fields: this run\'s are OpenAlex Topics fields, not the paper\'s MAG fields.' : 'The paper\'s values stand beside ours with the difference.'} The paper's figures come from the repository's copy (src/report/paper-numbers.json; ${esc(paper.source.transcribed_from)}).</p></header>`,
    ...tables.map(tableSection),
    charts.length ? `<section class="charts" id="charts"><h2>Charts</h2>${charts.map((c) => `<figure class="chart" id="${c.id}">${c.svg}<figcaption>${esc(c.caption)}</figcaption></figure>`).join('')}</section>` : '',
    drill.length ? `<section class="drilldown" id="drilldown"><h2>Drill-down: worst and best queries per field and model</h2><p class="intro">${storeDir ? `Titles and years from the corpus store ${esc(storeDir)}.` : 'No corpus store found beside the results (pass --store): the pages show paper ids only.'}</p><ul class="drill">${drill.map((p) => `<li><a href="${esc(p.path)}">${esc(p.field)} — ${esc(p.model)}</a></li>`).join('')}</ul></section>` : '',
    notes ? `<section class="notes" id="notes"><h2>Notes (notes.md)</h2><div class="notes">${notes}</div></section>` : '',
  ].join('\n');

  rmSync(join(out, 'drill'), { recursive: true, force: true });
  // The paper's tables and figures: the same tables and charts, as LaTeX and as standalone SVG/PDF.
  rmSync(join(out, 'tables'), { recursive: true, force: true });
  const tex = latexFiles(r, tables, { paper: opts.latexPaperValues ?? true ? paper : undefined });
  for (const f of tex) writeFileAtomic(join(out, 'tables', f.file), f.tex);
  const texDoc = join(out, 'tables', 'tables.tex');
  writeFileAtomic(texDoc, tablesDocument(tex, `citebench tables: ${r.name}`, resolve(out, 'tables')));
  log(`report: ${texDoc} (${tex.length} tables)`);
  rmSync(join(out, 'figures'), { recursive: true, force: true });
  const figures: { id: string; svg: string }[] = [];
  const provenance = r.corpus.kind === 'synthetic' ? latexProvenance(r) : undefined;
  for (const c of charts) {
    const svg = await figureSvg(c, { width: opts.figureWidth });
    writeFileAtomic(join(out, 'figures', `${c.id}.svg`), svg);
    writeFileAtomic(join(out, 'figures', `${c.id}.txt`), figureCaption(c, provenance));
    figures.push({ id: c.id, svg });
  }
  for (const p of drill) writeFileAtomic(join(out, p.path), p.html);
  const htmlPath = join(out, 'index.html');
  writeFileAtomic(htmlPath, page(`citebench report — ${r.name}`, body));
  const tHtml = performance.now();
  log(`report: ${htmlPath} (${tables.length} tables, ${charts.length} charts, ${drill.length} drill-down pages)`);

  let pdfPath: string | undefined;
  const figureFiles = figures.map((f) => join(out, 'figures', `${f.id}.svg`));
  if (opts.pdf !== false) {
    pdfPath = join(out, 'report.pdf');
    const browser = await launchChromium();
    try {
      const { pdf } = await printPdf(htmlPath, browser);
      writeFileAtomic(pdfPath, pdf);
      for (const f of figures) {
        const p = join(out, 'figures', `${f.id}.pdf`);
        writeFileAtomic(p, await figurePdf(f.svg, browser));
        figureFiles.push(p);
      }
    } finally {
      await browser.close();
    }
    log(`report: ${pdfPath}`);
    log(`report: ${join(out, 'figures')} (${figures.length} figures, SVG and PDF)`);
  } else {
    log(`report: ${join(out, 'figures')} (${figures.length} figures, SVG only: --no-pdf)`);
    rmSync(join(out, 'report.pdf'), { force: true });
  }
  const tPdf = performance.now();
  return { html: htmlPath, pdf: pdfPath, drillPages: drill.length, tables: tables.length, charts: charts.length,
    latex: { document: texDoc, files: tex.map((f) => join(out, 'tables', f.file)) }, figures: figureFiles, seconds: { html: (tHtml - t0) / 1000, pdf: (tPdf - tHtml) / 1000 } };
}
