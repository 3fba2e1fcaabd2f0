/**
 * The HTML of the report: one self-contained page (inline CSS, inline SVG, no script, nothing fetched) with
 * the run's metadata, a banner when the numbers are not findings (synthetic corpus, random weights), Tables
 * 1–8 in the paper's layout, the charts and links to the drill-down pages. Every string from an input file is
 * escaped; notes.md goes through markdown-it with raw HTML and images off.
 */
import MarkdownIt from 'markdown-it';
import { chosenText, corpusSourceText, importedBanner, resultsFieldScheme, shortfallText, type ResultsIndex } from './results.ts';
import { fmtValue, poolLabel, sigMarks, tableBaselines, tableHeading, type ReportTable, type TableCell, type ValueCell } from './tables.ts';
import { summaryOf } from './markdown.ts';
import type { Correction } from '../eval/statistics.ts';
import { adjustedP, adjustedRandP, correctionName, marksLegend, testsAgainst } from './significance.ts';

/** The correction's short name in a tooltip. */
const adj = (s: { correction?: Correction }) => correctionName(s.correction);

export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Display formats shared by every table (tests recompute the same strings). */
export const fmt1 = (x: number) => fmtValue(x, 1);
const fmtDelta = (d: number) => {
  const s = fmt1(Math.abs(d));
  return s === '0.0' ? '±0.0' : `${d > 0 ? '▲' : '▼'}${s}`;
};

/** Rules of the result tables alone (also what a notebook cell needs). */
export const TABLE_CSS = `
/* A table wider than the window scrolls inside its own box, never the page; its row labels stay in view
   (sticky), and a shadow at the right edge says more columns follow. */
.scroll { overflow-x: auto; max-width: 100%;
  background: linear-gradient(to left, #fff 30%, rgba(255,255,255,0)) right / 40px 100% no-repeat local,
    radial-gradient(farthest-side at 100% 50%, rgba(0,0,0,.22), rgba(0,0,0,0)) right / 14px 100% no-repeat scroll; }
table.rt { border-collapse: collapse; margin: 6px 0; font-size: 12.5px; color: #111; }
table.rt th.row { position: sticky; left: 0; z-index: 1; background: #fff; box-shadow: inset -1px 0 0 #bbb; }
table.rt th, table.rt td { border-bottom: 1px solid #ddd; padding: 3px 6px; vertical-align: top; }
table.rt thead th { border-bottom: 2px solid #000; text-align: center; white-space: nowrap; }
table.rt thead tr.groups th { border-bottom: 1px solid #000; }
table.rt th.row { text-align: left; white-space: nowrap; font-weight: normal; }
table.rt .rnote { display: block; font-size: 10.5px; color: #a00; font-style: italic; }
table.rt td.num { text-align: right; white-space: nowrap; }
table.rt td.best .v { font-weight: bold; text-decoration: underline; }
table.rt .sd { color: #555; font-size: 10.5px; margin-left: 2px; }
table.rt .sig { font-weight: bold; margin-left: 1px; font-size: 11px; }
table.rt .pp { display: block; font-size: 10.5px; color: #555; }
table.rt .delta { padding: 0 2px; border-radius: 2px; color: #000; }
table.rt .delta.up { background: #d6e6f7; } table.rt .delta.down { background: #f8dcc8; font-style: italic; }`;

/** The provenance banner and the run's metadata list (also shown by a notebook's `res.about()`). */
export const META_CSS = `.banner { border: 3px double #000; background: #fff3c4; padding: 8px 12px; margin: 10px 0; font-size: 14px; }
.banner strong { text-transform: uppercase; letter-spacing: .03em; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 6px 0; font-size: 13px; }
dl.meta dt { font-weight: bold; } dl.meta dd { margin: 0; }`;

export const CSS = `
:root { --ink: #111; --muted: #555; --rule: #bbb; }
* { box-sizing: border-box; }
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; color: var(--ink); margin: 0; padding: 16px 24px; font-size: 14px; line-height: 1.35; }
/* Prose keeps a readable measure; the tables may use the whole window. */
body > :not(section), section > :not(.scroll):not(figure) { max-width: 1180px; }
h1 { font-size: 22px; margin: 0 0 8px; } h2 { font-size: 17px; margin: 22px 0 6px; border-bottom: 1px solid var(--rule); padding-bottom: 3px; }
${META_CSS}
nav.toc { font-size: 13px; } nav.toc a { margin-right: 10px; }
.intro, .legend, figcaption { color: var(--muted); font-size: 12.5px; }
${TABLE_CSS}
figure.chart { margin: 12px 0; } figure.chart svg { max-width: 100%; height: auto; }
ul.drill { columns: 3; font-size: 13px; }
.notes { border-left: 3px solid var(--rule); padding-left: 10px; }
@page { size: A4 landscape; margin: 12mm; }
@media print {
  body { max-width: none; padding: 0; font-size: 11px; }
  section.table, section.charts, section.notes, section.drilldown { break-before: page; }
  figure.chart { break-inside: avoid; }
  .scroll { overflow: visible; background: none; }
  body > :not(section), section > :not(.scroll):not(figure) { max-width: none; }
  table.rt th.row { position: static; box-shadow: none; }
  table.rt { font-size: 10px; } table.rt .pp, table.rt .sd { font-size: 8.5px; }
  table.rt th, table.rt td { padding: 2px 3px; }
  tr { break-inside: avoid; }
  /* Tables of more than 8 columns (Table 1 with the paper's values, the 20-column field tables) fit the page
     width by wrapping inside cells: the page is never shrunk to fit. */
  table.rt.wide { width: 100%; table-layout: fixed; font-size: 9px; }
  table.rt.wide th.row { width: 72px; white-space: normal; }
  table.rt.wide td.num, table.rt.wide thead th { white-space: normal; padding: 1px 2px; }
  table.rt.wide .pp, table.rt.wide .sd { font-size: 7.5px; }
  table.rt.widest { font-size: 8px; } table.rt.widest th.row { width: 64px; }
  table.rt.widest .pp, table.rt.widest .sd { font-size: 7px; }
  .banner { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  .delta { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}`;

function sigMark(c: ValueCell): string {
  if (!c.sig) return '';
  return c.sig.map((s) => {
    const title = `vs ${s.baseline} over ${s.queries} queries: mean difference ${fmt1(100 * s.meanDiff)}; paired t-test p ${s.pT.toPrecision(3)} (${adj(s)} ${adjustedP(s).toPrecision(3)}); randomization p ${s.pRandomization.toPrecision(3)} (${adj(s)} ${adjustedRandP(s).toPrecision(3)})${s.ci95 ? `; 95 % CI of the difference [${fmt1(100 * s.ci95[0])}, ${fmt1(100 * s.ci95[1])}]` : ''}${typeof s.effectSize === 'number' ? `; d_z ${s.effectSize.toFixed(2)}` : ''}`;
    const marks = sigMarks([s]);
    return `<span class="sig" title="${esc(title)}">${esc(marks)}</span>`;
  }).join('');
}

function cellHtml(c: TableCell): string {
  if (c.kind === 'text') return c.num ? `<td class="num">${esc(c.text)}</td>` : `<td>${esc(c.text)}</td>`;
  if (c.value === undefined && c.paper === undefined) return '<td class="num"><span class="v">–</span></td>';
  const parts = [`<span class="v">${c.value === undefined ? '–' : fmt1(c.value)}</span>`];
  if (c.sd !== undefined) parts.push(`<span class="sd">±${fmt1(c.sd)}</span>`);
  parts.push(sigMark(c));
  if (c.letters) parts.push(`<sup class="cld" title="letter group: values sharing a letter do not differ significantly">${esc(c.letters)}</sup>`);
  if (c.paper !== undefined) {
    const d = c.value === undefined ? '' : (() => {
      const delta = c.value - c.paper;
      const cls = fmtDelta(delta).startsWith('▲') ? 'up' : fmtDelta(delta).startsWith('▼') ? 'down' : 'same';
      return ` <span class="delta ${cls}" title="ours − paper">${fmtDelta(delta)}</span>`;
    })();
    parts.push(`<span class="pp">paper <span class="paper">${fmt1(c.paper)}</span>${d}</span>`);
  }
  return `<td class="num${c.best ? ' best' : ''}">${parts.join('')}</td>`;
}

export function tableHtml(t: ReportTable): string {
  const head: string[] = [];
  if (t.groups) head.push(`<tr class="groups"><th></th>${t.groups.map((g) => `<th colspan="${g.span}">${esc(g.text)}</th>`).join('')}</tr>`);
  head.push(`<tr class="cols"><th class="row">${esc(t.rowHead)}</th>${t.columns.map((c) => `<th>${esc(c)}</th>`).join('')}</tr>`);
  const body = t.rows.map((r) => `<tr><th class="row" scope="row"><span class="label">${esc(r.label)}</span>${r.note ? `<span class="rnote">${esc(r.note)}</span>` : ''}</th>${r.cells.map(cellHtml).join('')}</tr>`);
  const attrs = `data-table="${esc(String(t.number ?? t.id))}"${t.setting ? ` data-setting="${t.setting}"` : ''}`;
  return `<div class="scroll"><table class="rt${t.columns.length > 14 ? ' wide widest' : t.columns.length > 8 ? ' wide' : ''}" id="${esc(t.id)}-table" ${attrs}><thead>${head.join('')}</thead><tbody>${body.join('')}</tbody></table></div>`;
}

/** The legend under a table of values: what bold, ±, each baseline's marks and the paper's values mean. */
export function legendOf(t: ReportTable): string {
  const baselines = tableBaselines(t);
  const marks = baselines.length
    ? marksLegend(baselines, { head: '', each: (b) => testsAgainst(b), sep: '; ', tail: ' (hover for the p-values, the 95 % interval of the difference and d_z). ' })
    : '';
  return 'Bold underlined: best value in the column (Table 3: best model in the row, per measure). Small grey ±: standard deviation over pool repeats. ' +
    `${marks}"paper x ▲d / ▼d": the paper's printed value and ours minus it (▲ ours higher, ▼ ours lower, italic).`;
}

export function tableSection(t: ReportTable): string {
  const intro = `${t.intro}${t.paperNote ? ` ${t.paperNote}` : ''}`;
  return `<section class="table${t.setting ? ` ${t.setting}` : ''}" id="${esc(t.id)}"><h2>${esc(tableHeading(t))}</h2><p class="intro">${esc(intro)}</p>${tableHtml(t)}${t.paperOnly || t.plain ? '' : `<p class="legend">${esc(legendOf(t))}</p>`}</section>`;
}

/** The banner: said before anything else when the numbers are not findings about literature. */
export function bannerHtml(r: ResultsIndex): string {
  const lines: string[] = [];
  if (r.corpus.kind === 'synthetic') {
    const s = r.corpus.synthetic!;
    lines.push(`<strong>Synthetic corpus.</strong> Every number here comes from a synthetic S2ORC-shaped corpus (${s.articles} generated articles, seed ${s.seed}, ${esc(s.generator)}): it exercises the pipeline, and its values are properties of the generator, not findings about scientific literature.`);
  }
  if (r.corpus.source && resultsFieldScheme(r) !== 'mag') {
    lines.push(`<strong>OpenAlex Topics fields.</strong> ${r.corpus.kind === 'synthetic' ? 'A synthetic corpus generated in this form' : 'A corpus store of real data'} (${esc(corpusSourceText(r.corpus.source))}): the field-level and MDCR tables are over these fields, not comparable with the paper's MAG fields, and carry no paper values.`);
  }
  const random = r.models.filter((m) => m.weights === 'random').map((m) => m.name);
  if (random.length) lines.push(`<strong>Random weights.</strong> ${esc(random.join(', '))} ${random.length > 1 ? 'have' : 'has'} random (untrained) weights: ${random.length > 1 ? 'their' : 'its'} rows test loading, pooling and search, not retrieval quality.`);
  const imported = importedBanner(r.models);
  if (imported) lines.push(`<strong>Imported vectors.</strong> ${esc(imported.names.join(', '))} ${esc(imported.text)}`);
  return lines.length ? `<div class="banner" role="alert">${lines.map((l) => `<p>${l}</p>`).join('')}</div>` : '';
}

export interface MetaInput {
  r: ResultsIndex;
  resultsDir: string;
  /** timings.json's seconds per stage, when present. */
  timings?: Record<string, number>;
  versions: Record<string, string>;
}

export function metaHtml({ r, resultsDir, timings, versions }: MetaInput): string {
  const rows: [string, string][] = [];
  const c = r.corpus;
  rows.push(['results', esc(resultsDir)]);
  rows.push(['corpus', `${c.kind === 'synthetic' ? `<b>synthetic</b> (${c.synthetic!.articles} generated, seed ${c.synthetic!.seed}, ${esc(c.synthetic!.generator)})` : `corpus store (real data${c.source ? `: ${esc(corpusSourceText(c.source))}` : ''})`}: ${c.articles} prefiltered articles, ${c.citations} citations`]);
  rows.push(['config', `${esc(r.name)}, hash ${esc(r.configHash)}; seed ${r.seed}, scale ${r.scale}, queries from ${r.queryYear}, top ${r.k}; measures ${esc(r.measures.join(', '))}`]);
  rows.push(['models', r.models.map((m) => `${esc(m.name)} (${m.kind}, ${m.weights === 'random' ? '<b>random weights</b>' : m.weights === 'imported' ? '<b>imported vectors</b>' : m.weights === 'trained' ? 'trained weights' : 'lexical'}${summaryOf(m) ? `: ${esc(summaryOf(m)!)}` : ''}${weightFilesText(m.settings.weightFiles)})`).join('; ')]);
  if (r.cells.some((c) => c.setting === 'inductive')) rows.push(['settings', 'transductive (the paper\'s) and inductive (Goyal et al. 2026 §3.1: queries and pools disjoint, candidates published before the query year), each in tables of its own']);
  if (r.skipped.length) rows.push(['skipped', r.skipped.map((s) => `${esc(s.name)}: ${esc(s.reason.split('\n')[0])}`).join('; ')]);
  for (const t of r.tuning) rows.push([`tuning ${esc(t.model)}`, `${esc(chosenText(t))}: best ${esc(t.measure)} of ${t.grid.length} grid points on ${t.queries} validation queries (pool ${poolLabel(t.poolSize)})`]);
  if (r.validationShortfalls?.length) rows.push(['smaller validation splits', r.validationShortfalls.map((v) => esc(shortfallText(v))).join('; ')]);
  if (r.excluded.files.length) rows.push(['excluded queries', r.excluded.files.map((f) => `${esc(f.path)} (sha256 ${esc(f.sha256.slice(0, 12))}…, ${f.ids} ids)`).join('; ')]);
  if (timings) {
    const total = Object.values(timings).reduce((s, x) => s + x, 0);
    rows.push(['wall time (last run, timings.json)', `${total.toFixed(1)} s (${Object.entries(timings).map(([k, v]) => `${esc(k)} ${v.toFixed(1)} s`).join(', ')})`]);
  }
  rows.push(['versions', Object.entries(versions).map(([k, v]) => `${esc(k)} ${esc(v)}`).join(', ')]);
  return `<dl class="meta">${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`;
}

/** notes.md as HTML: no raw HTML, no images (they would be fetched), links kept. */
export function notesHtml(markdown: string): string {
  const md = new MarkdownIt({ html: false, linkify: false });
  md.disable('image');
  return md.render(markdown);
}

export function page(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    // Nothing may be fetched: the page is self-contained, and the policy makes a stray reference fail loudly.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">` +
    `<title>${esc(title)}</title><style>${CSS}</style></head><body>${body}</body></html>\n`;
}

/** `, pytorch_model.bin sha256 0123456789ab…` for a dense model's weight files (results.json has the full hashes). */
function weightFilesText(files: unknown): string {
  if (!Array.isArray(files)) return '';
  return files
    .filter((f): f is { file: string; sha256: string } => typeof f?.file === 'string' && typeof f?.sha256 === 'string')
    .map((f) => `, ${esc(f.file)} sha256 <code title="${esc(f.sha256)}">${esc(f.sha256.slice(0, 12))}…</code>`)
    .join('');
}
