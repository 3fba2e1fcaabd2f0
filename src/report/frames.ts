/**
 * A results folder of `citebench run` as data frames (arquero tables) for notebooks and scripts, and `show`,
 * which puts a frame, a chart or a report table inline in a tslab notebook. Everything is read from the folder's
 * files (results.json, cells/<model>/<group>.json), like `citebench report`, so a number in a notebook can be
 * traced to the file it came from (the `file`, `run` and `qrels` columns).
 *
 * arquero rather than danfojs: docs/contributing.md, "Dependencies and why".
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as aq from 'arquero';
import type { ColumnTable } from 'arquero';
import { chartSvg, type Chart, type ChartSpec } from './charts.ts';
import { META_CSS, bannerHtml, esc, metaHtml } from './html.ts';
import { reportChart, reportTableHtml, type ChartName } from './notebook.ts';
import { buildTables } from './report-tables.ts';
import { loadPaperNumbers } from './paper-numbers.ts';
import { latexFiles, type LatexOptions } from './latex.ts';
import { meanOverRepeats, readCell, readResults, type CellSummary, type GroupRow, type ResultsIndex, type SignificanceRow } from './results.ts';
import { storedSignificance } from './significance.ts';
import { CitebenchError } from '../util/errors.ts';
import { worstQueries, type WorstQueriesOptions } from './drilldown.ts';
import { mdcrBuildCounts, mdcrCandidates } from './mdcr-files.ts';
import { groupOf, mdcrEvaluations, tidyColumns, tidyTables, TIDY_TABLE_NAMES, type TidyTableName } from './tidy.ts';

/** A results folder as a notebook shows it: relative to the repository when inside it, no machine's paths. */
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const repoRelative = (p: string) => (p.startsWith(REPO_ROOT) ? p.slice(REPO_ROOT.length) : p);

export { aq };
export type Frame = ColumnTable;

/**
 * Significance rows as a frame: the baseline's name, then the row's columns (results.json's significance record),
 * the intervals as two columns each (ci95Lo/ci95Hi: t-interval; bootLo/bootHi: percentile bootstrap).
 */
export function significanceFrameOf(rows: readonly (Omit<SignificanceRow, 'protocol' | 'setting'> & { protocol: string; setting: string })[]): Frame {
  const columns = ['baseline', 'protocol', 'setting', 'measure', 'field', 'poolSize', 'model', 'queries', 'meanDiff', 'ci95Lo', 'ci95Hi', 'bootLo', 'bootHi', 'effectSize',
    'pT', 'pRandomization', 'pHolm', 'pRandomizationHolm', 'pAdjusted', 'pRandomizationAdjusted', 'correction'];
  // An empty frame still has the columns, so filters and `orderby` on it work.
  if (!rows.length) return aq.table(Object.fromEntries(columns.map((c) => [c, []])));
  const num = (x: number | null | undefined) => (x === null || x === undefined ? NaN : x);
  return aq.from(rows.map((x) => {
    const o: Record<string, unknown> = Object.fromEntries(columns.map((c) => [c, x[c as keyof typeof x]]));
    Object.assign(o, {
      ci95Lo: num(x.ci95?.[0]), ci95Hi: num(x.ci95?.[1]), bootLo: num(x.bootstrapCi95?.[0]), bootHi: num(x.bootstrapCi95?.[1]), effectSize: num(x.effectSize),
      // An older record has no correction: its marks are Holm's.
      pAdjusted: x.pAdjusted ?? x.pHolm, pRandomizationAdjusted: x.pRandomizationAdjusted ?? x.pRandomizationHolm, correction: x.correction ?? 'holm',
    });
    return o;
  }));
}

/** Slice rows (results.json's significance.slices, or sliceFrame's) as a frame: the intervals as lo/hi columns. */
export function slicesFrameOf(rows: readonly Record<string, unknown>[]): Frame {
  const lead = ['protocol', 'setting', 'measure', 'poolSize', 'attribute', 'slice', 'model', 'queries', 'mean', 'ci95Lo', 'ci95Hi', 'baseline', 'pairedQueries', 'meanDiff', 'diffLo', 'diffHi'];
  const present = lead.filter((c) => ['ci95Lo', 'ci95Hi', 'diffLo', 'diffHi'].includes(c) || rows.some((x) => x[c] !== undefined));
  if (!rows.length) return aq.table(Object.fromEntries(present.map((c) => [c, []])));
  const iv = (x: unknown, i: number) => (Array.isArray(x) ? (x[i] as number) : NaN);
  return aq.from(rows.map((x) => Object.fromEntries(present.map((c) => [c,
    c === 'ci95Lo' ? iv(x.ci95, 0) : c === 'ci95Hi' ? iv(x.ci95, 1) : c === 'diffLo' ? iv(x.diffCi95, 0) : c === 'diffHi' ? iv(x.diffCi95, 1) : x[c] ?? null]))));
}

/** Letter groups (results.json's significance.groups) as a frame: one row per group × model with its mean, interval and letters. */
export function groupsFrameOf(groups: readonly GroupRow[]): Frame {
  const columns = ['protocol', 'setting', 'measure', 'poolSize', 'queries', 'model', 'mean', 'ci95Lo', 'ci95Hi', 'letters'];
  const rows = groups.flatMap((g) => Object.keys(g.letters).map((model) => ({
    protocol: g.protocol, setting: g.setting, measure: g.measure, poolSize: g.poolSize, queries: g.queries, model, mean: g.means[model],
    ci95Lo: g.ci95[model]?.[0] ?? NaN, ci95Hi: g.ci95[model]?.[1] ?? NaN, letters: g.letters[model],
  })));
  if (!rows.length) return aq.table(Object.fromEntries(columns.map((c) => [c, []])));
  return aq.from(rows);
}

/** The tidy tuning table (a row per grid point and parameter) with one row per grid point and a column per parameter. */
function pivotParams(t: Frame): Frame {
  const keys = ['model', 'measure', 'queries', 'pool', 'point', 'score', 'chosen'];
  if (t.numRows() === 0) return t.select(...keys);
  // pivot orders the new columns by name; keep the grid's order (e.g. BM25's k1 before b) as results.json has it
  const params = [...new Set(t.array('param') as string[])];
  return t.groupby(...keys).pivot('param', 'value').select(...keys, ...params);
}

/** Trusted HTML made by citebench's own renderers (input strings already escaped). */
export class Html {
  constructor(readonly html: string) {}
}

/** Which cells `queries()` reads (every given key must match). */
export interface CellFilter {
  model?: string;
  protocol?: 'dataset' | 'field' | 'beir';
  split?: 'test' | 'val';
  field?: string;
  /** A BEIR task's name. */
  task?: string;
  group?: string;
  pool?: number;
  setting?: 'transductive' | 'inductive';
}

function cellColumns(c: CellSummary) {
  return {
    model: c.model, protocol: c.protocol, split: c.split, group: groupOf(c), field: c.field, task: c.task ?? null, pool: c.poolSize,
    poolMembers: c.poolMembers, repeat: c.repeat, setting: c.setting ?? 'transductive', queries: c.queries, emptyLists: c.emptyLists,
  };
}

/** One results folder as frames. Fractions stay fractions (MAP 0.655, not 65.5); MDCR values are ×100 as evaluate.py prints them. */
export class ResultsFrames {
  readonly index: ResultsIndex;
  /** One row per cell (model × protocol × pool group, both splits): its means, sizes and files. */
  readonly cells: Frame;
  /** Mean over repeats of the test cells (what the paper's tables print): one column per measure and `<measure>_sd`. */
  readonly means: Frame;
  /** Every tuned model's validation grid, whatever its kind: a column per parameter, score; `chosen` marks the point it runs with. */
  readonly tuning: Frame;
  /** The models of the run: kind, weights (lexical, trained, random: never a finding) and settings. */
  readonly models: Frame;
  /**
   * Every paired test against the baseline that results.json stores (the report's marks): one row per model ×
   * table cell × measure, with its family's Holm-adjusted p-values. Absent for a results.json of an older citebench.
   */
  readonly significance?: Frame;
  /** Each model's mean per measure and protocol (all pairs: the field level pooled over fields) with its 95 % interval and letter group (significance.groups). */
  readonly groups?: Frame;
  /** Per-query results grouped by query attribute (significance.slices): n, mean and interval per model, the difference to the first baseline. */
  readonly slices?: Frame;
  /** MDCR: the Jaccard matrix that chose the model-based negatives, and every evaluation (Tables 3 and 4). */
  readonly mdcr?: { chosenModels: string[]; notes: string[]; jaccard: Frame; results: Frame };
  private readonly perQueryCache = new Map<string, Frame>();

  /** `store`: the corpus store the results were computed on (titles for worstQueries), when known. */
  constructor(readonly dir: string, readonly store?: string) {
    const r = readResults(dir);
    this.index = r;
    this.cells = aq.from(r.cells.map((c) => ({ ...cellColumns(c), ...c.means, file: c.file, run: c.files.run, qrels: c.files.qrels })));
    this.means = aq.from(meanOverRepeats(r.cells).map((m) => ({
      model: m.model, protocol: m.protocol, field: m.field, pool: m.poolSize, setting: m.setting ?? 'transductive', repeats: m.repeats,
      ...m.means, ...Object.fromEntries(Object.entries(m.sd).map(([k, v]) => [`${k}_sd`, v])),
    })));
    // One row per grid point, a column per parameter (k1, b, beta …; empty where a model has no such parameter).
    this.tuning = pivotParams(this.tidy('tuning').rename({ pool_size: 'pool' }));
    this.models = this.tidy('models');
    const sig = storedSignificance(r);
    if (sig) this.significance = significanceFrameOf(sig.rows);
    if (sig?.groups) this.groups = groupsFrameOf(sig.groups);
    if (sig?.slices) this.slices = slicesFrameOf(sig.slices as unknown as Record<string, unknown>[]);
    if (r.mdcr) {
      const m = r.mdcr;
      const results = mdcrEvaluations(r).map(({ values, ...e }) => ({ ...e, ...values }));
      this.mdcr = {
        chosenModels: m.chosenModels, notes: m.notes, results: aq.from(results),
        jaccard: aq.from(m.jaccard.models.map((a, i) => ({ model: a, ...Object.fromEntries(m.jaccard.models.map((b, j) => [b, m.jaccard.matrix[i][j]])), average: m.jaccard.average[i] }))),
      };
    }
  }

  /**
   * A tidy table of `citebench export` (cells, per_query, tuning, mdcr_fields, mdcr_types, models), the same rows
   * and columns as its Parquet and CSV files (docs/results.md, "Export").
   */
  tidy(name: TidyTableName): Frame {
    const t = tidyTables(this.dir, this.index).find((x) => x.name === name);
    if (!t) throw new CitebenchError(`no tidy table '${name}' (have: ${TIDY_TABLE_NAMES.join(', ')})`);
    return aq.table(tidyColumns(t));
  }

  /**
   * One row per cell × query with each measure's per-query value, read from the cell files
   * (cells/<model>/<group>.json); `where` limits the cells read.
   */
  queries(where: CellFilter = {}): Frame {
    const key = JSON.stringify(where);
    const hit = this.perQueryCache.get(key);
    if (hit) return hit;
    const rows: Record<string, unknown>[] = [];
    for (const c of this.index.cells) {
      const cols = cellColumns(c);
      if (Object.entries(where).some(([k, v]) => v !== undefined && (cols as Record<string, unknown>)[k] !== v)) continue;
      const rec = readCell(this.dir, c);
      const names = Object.keys(rec.perQuery);
      rec.queryIds.forEach((q, i) => rows.push({ ...cols, query: q, ...Object.fromEntries(names.map((n) => [n, rec.perQuery[n][i]])), file: c.file }));
    }
    const t = aq.from(rows);
    this.perQueryCache.set(key, t);
    return t;
  }

  /**
   * The paper's Table `n` (1–8) as a frame of our values in its units (×100, mean over repeats), one column per
   * table column (`<group> <column>` where the table has groups, e.g. `4k MAP`); `paper: true` adds the paper's value
   * beside each (`… (paper)`).
   */
  table(n: number, opts: { paper?: boolean } = {}): Frame {
    const t = buildTables(this.index, loadPaperNumbers()).find((x) => x.number === n);
    if (!t) throw new CitebenchError(`${this.dir}: no Table ${n} in these results (Tables 1/2/7/8 need the dataset or field level, 3/4 MDCR)`);
    const heads: string[] = [];
    for (const g of t.groups ?? [{ text: '', span: t.columns.length }]) for (let i = 0; i < g.span; i++) heads.push(g.text ? `${g.text} ${t.columns[heads.length]}` : t.columns[heads.length]);
    return aq.from(t.rows.map((row) => {
      const o: Record<string, unknown> = { [t.rowHead]: row.label };
      if (row.note) o.note = row.note;
      row.cells.forEach((c, i) => {
        o[heads[i]] = c.kind === 'text' ? c.text : c.value ?? null;
        if (opts.paper && c.kind === 'value') o[`${heads[i]} (paper)`] = c.paper ?? null;
      });
      return o;
    }));
  }

  /**
   * A table of the report as LaTeX, as `citebench report` writes it to tables/: Table `n` (the paper's numbering,
   * the paper's setting) or a table by its name (`table1-inductive`, `significance`, `beir`, `table5` …; `paper-table1`
   * … the paper's own, with `paper: true`). booktabs, caption with what the numbers are and where they come from,
   * label, best bold, ± sd, a superscript letter per significance baseline (`test: 'randomization'` for the other
   * stored test).
   */
  latex(table: number | string, opts: LatexOptions & { paper?: boolean } = {}): string {
    const paper = loadPaperNumbers();
    const files = latexFiles(this.index, buildTables(this.index, paper), { ...opts, paper: opts.paper ? paper : undefined });
    const f = typeof table === 'number' ? files.find((x) => x.table.number === table && !x.table.setting && !x.table.id.startsWith('paper-')) : files.find((x) => x.table.id === table);
    if (!f) {
      const have = files.map((x) => x.table.id).join(', ');
      throw new CitebenchError(`${this.dir}: no ${typeof table === 'number' ? `Table ${table}` : `table '${table}'`} in these results (have: ${have}${opts.paper ? '' : "; the paper's own with { paper: true }"})`);
    }
    return f.tex;
  }

  /** Where these numbers come from: a banner when the corpus is synthetic or a model has random weights, then the run's metadata. */
  about(): Html {
    return new Html(`<div class="citebench"><style>${META_CSS}</style>${bannerHtml(this.index)}${metaHtml({ r: this.index, resultsDir: repoRelative(this.dir), versions: { node: process.version } })}</div>`);
  }

  /** Table `n` as the HTML report draws it (paper values beside ours, significance marks, best bold). */
  reportTable(n: number): Html {
    return new Html(reportTableHtml(this.dir, n));
  }

  /**
   * The worst queries of one field (field level, test split, pool sample 1 by default), worst first: the measure
   * ×100, cited articles, first cited rank, cited in the top 10, and the query's title from the corpus store.
   */
  worstQueries(opts: WorstQueriesOptions): Frame {
    return aq.from(worstQueries(this.dir, this.index, { store: this.store, ...opts }));
  }

  /** MDCR: what the build drew per split and candidate type (mdcr/mdcr_build_report.json). */
  mdcrBuild(): Frame {
    return aq.from(mdcrBuildCounts(this.dir, this.mdcrRecord()));
  }

  /** MDCR: one query's candidates (type, paper id, title) and every model's score for each pair; default the first query. */
  mdcrCandidates(opts: { split?: 'test' | 'val'; field?: string; query?: string } = {}): Frame {
    return aq.from(mdcrCandidates(this.dir, this.mdcrRecord(), opts));
  }

  private mdcrRecord() {
    if (!this.index.mdcr) throw new CitebenchError(`${this.dir}: no MDCR in these results (the config has no protocols.mdcr)`);
    return this.index.mdcr;
  }

  /** A chart of these results: pool (metric vs pool size), fields (heat map), types (MDCR), tuning, jaccard (MDCR build), significance (Δ vs BM25). */
  chart(name: ChartName, opts: { measure?: string; model?: string } = {}): Chart {
    return reportChart(this.index, name, opts, this.dir);
  }
}

/** A results folder of `citebench run` as frames (see ResultsFrames). */
export function loadResults(dir: string, opts: { store?: string } = {}): ResultsFrames {
  return new ResultsFrames(dir, opts.store);
}

const isFrame = (x: unknown): x is Frame => !!x && typeof (x as Frame).numRows === 'function' && typeof (x as Frame).columnNames === 'function' && typeof (x as Frame).scan === 'function';
const isChart = (x: unknown): x is Chart => !!x && typeof x === 'object' && 'spec' in x && 'id' in x;
const VL_KEYS = ['mark', 'layer', 'facet', 'hconcat', 'vconcat', 'concat', 'repeat'];
const isSpec = (x: unknown): x is ChartSpec => !!x && typeof x === 'object' && VL_KEYS.some((k) => k in x);

function cellText(v: unknown): string {
  if (v === null || v === undefined) return '–';
  if (typeof v === 'number') return Number.isInteger(v) || !Number.isFinite(v) ? String(v) : v.toFixed(4);
  if (v instanceof Date) return v.toISOString();
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

// Prefixed with .citebench to outrank JupyterLab's own table rules (right-aligned text cells).
const FRAME_CSS = `.citebench table.cbf{border-collapse:collapse;font-size:12.5px;margin:4px 0}
.citebench table.cbf th,.citebench table.cbf td{border-bottom:1px solid #ddd;padding:2px 8px;text-align:left;white-space:nowrap}
.citebench table.cbf thead th{border-bottom:2px solid #000}.citebench table.cbf td.n{text-align:right;font-variant-numeric:tabular-nums}
.citebench p.cbf-cap{font-size:11px;color:#555;margin:2px 0 8px}`;

/** A frame as an HTML table: column names and values escaped, numbers to 4 decimals, the first `limit` rows. */
export function frameHtml(t: Frame, opts: { limit?: number; caption?: string } = {}): string {
  const limit = opts.limit ?? 50;
  const names = t.columnNames();
  const rows = t.objects({ limit }) as Record<string, unknown>[];
  const body = rows.map((r) => `<tr>${names.map((n) => `<td${typeof r[n] === 'number' ? ' class="n"' : ''}>${esc(cellText(r[n]))}</td>`).join('')}</tr>`).join('');
  const n = t.numRows();
  const cap = [opts.caption, n > rows.length ? `first ${rows.length} of ${n} rows` : `${n} row${n === 1 ? '' : 's'}`].filter(Boolean).map((s) => esc(s!)).join(' · ');
  return `<div class="citebench"><style>${FRAME_CSS}</style><table class="cbf"><thead><tr>${names.map((x) => `<th>${esc(x)}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table><p class="cbf-cap">${cap}</p></div>`;
}

/**
 * A whole HTML page (e.g. the report's index.html) inside the notebook: an iframe holding the page itself
 * (srcdoc), so its styles stay apart from the notebook's and nothing is fetched.
 */
export function embedHtml(file: string, opts: { height?: number } = {}): Html {
  const page = readFileSync(file, 'utf8');
  return new Html(`<iframe title="${esc(file)}" srcdoc="${esc(page)}" style="width:100%;height:${opts.height ?? 800}px;border:1px solid #bbb;background:white"></iframe>`);
}

/** One page of a PDF as a PNG image (poppler's pdftoppm, which scripts/setup.sh installs). */
export function pdfPage(file: string, opts: { page?: number; dpi?: number } = {}): Html {
  const page = String(opts.page ?? 1);
  const r = spawnSync('pdftoppm', ['-png', '-r', String(opts.dpi ?? 60), '-f', page, '-l', page, '-singlefile', file], { maxBuffer: 64 << 20 });
  if (r.error || r.status !== 0) throw new CitebenchError(`pdftoppm ${file}: ${r.error?.message ?? r.stderr.toString().trim()} (install poppler-utils: bash scripts/setup.sh)`);
  return new Html(`<img alt="${esc(`${file}, page ${page}`)}" style="border:1px solid #bbb;max-width:100%" src="data:image/png;base64,${r.stdout.toString('base64')}">`);
}

let chartCount = 0;

/** What `show` displays, as HTML: a frame (table), a chart or vega-lite spec (SVG), Html as is, anything else as escaped text. */
export async function toHtml(x: unknown, opts: { limit?: number; caption?: string } = {}): Promise<string> {
  if (x instanceof Html) return x.html;
  if (isFrame(x)) return frameHtml(x, opts);
  if (isChart(x) || isSpec(x)) {
    const spec = isChart(x) ? x.spec : x;
    const svg = await chartSvg(spec, `${isChart(x) ? x.id : 'chart'}-${++chartCount}`);
    const cap = opts.caption ?? (isChart(x) ? x.caption : undefined);
    return `<figure class="citebench-chart" style="margin:6px 0">${svg}${cap ? `<figcaption style="font-size:11px;color:#555">${esc(cap)}</figcaption>` : ''}</figure>`;
  }
  return `<pre>${esc(typeof x === 'string' ? x : JSON.stringify(x, null, 2))}</pre>`;
}

type TslabDisplay = { html(s: string): void };

/**
 * The display of the tslab kernel running this code. The kernel's tslab may be another copy than the one
 * src/ resolves (the registered kernel of another checkout), and only the kernel's copy is connected to
 * Jupyter: find it among the loaded modules by its live connection, else take the one beside src/.
 */
function kernelDisplay(): TslabDisplay {
  const req = createRequire(import.meta.url);
  for (const [file, mod] of Object.entries(req.cache)) {
    if (/[\\/]tslab[\\/]dist[\\/]jupyter\.js$/.test(file) && (mod?.exports as { lastWriteDisplayData?: unknown })?.lastWriteDisplayData) {
      return (req(join(dirname(file), 'public.js')) as { display: TslabDisplay }).display;
    }
  }
  return (req('tslab') as { display: TslabDisplay }).display;
}

/**
 * Displays `x` inline in a tslab notebook (`await cb.show(x)`): a frame as an HTML table, a chart or vega-lite
 * spec as SVG, Html as is.
 */
export async function show(x: unknown, opts: { limit?: number; caption?: string } = {}): Promise<void> {
  const html = await toHtml(x, opts);
  try {
    kernelDisplay().html(html);
  } catch (e) {
    throw new CitebenchError(`show() displays in a tslab notebook only (${(e as Error).message}); outside one, use toHtml() or frameHtml()`);
  }
}
