/**
 * The report's charts as vega-lite specs, compiled and rendered to SVG in Node (vega's headless renderer: no
 * browser, no canvas). vega is an ES module with top-level await, so it is imported lazily: notebooks load
 * src/index.ts through require(), which such a module would break.
 *
 *  - metric vs pool size per model (dataset level; the paper's central finding: encoders fall faster than BM25)
 *  - the same in both settings, transductive and inductive, when the run has the inductive one
 *  - per-field heat map, model × field (field level)
 *  - candidate-type bars (MDCR, Table 4)
 *  - each tuned model's validation grid, whatever its kind (two parameters, e.g. BM25's k1 × b: a heat map)
 *  - the MDCR build's Jaccard matrix; differences from the first significance baseline (models beyond the paper)
 *  - the corpus (notebook 01): articles per year, per MAG field, citation-degree histograms
 * Every chart encodes models by shape/dash as well as colour, and heat maps print their values: legible in
 * greyscale print.
 */
import { meanInterval } from '../eval/statistics.ts';
import { SCHEME_LABEL, fieldAbbrev, schemeFields, type FieldScheme } from '../corpus/fields.ts';
import type { DegreeBin } from '../corpus/stats.ts';
import { SIGNIFICANCE_ALPHA, meanOverRepeats, paramsText, resultsFieldScheme, weightsNote, type ResultsIndex, type TuningRecord } from './results.ts';
import { adjustedP, beyondPaperRows, storedSignificance } from './significance.ts';
import { paperOrder } from './report-tables.ts';
import { poolLabel } from './tables.ts';
import { reportSlices } from './statistics-tables.ts';

// A vega-lite spec (kept loose: the compiler checks it).
export type ChartSpec = Record<string, unknown>;

/**
 * A chart at a given size: `width` the whole chart's width and `font` its type size (CSS px), `plot` the width of
 * one plot area (a panel) — figures.ts solves for it so the figure is exactly its printed width.
 */
export type ChartLayout = (width: number, font: number, plot: number) => ChartSpec;

export interface Chart {
  id: string;
  title: string;
  caption: string;
  /** The HTML report's spec (the layout at the report's width, when the chart has one). */
  spec: ChartSpec;
  /** The same chart laid out for another width (figures.ts: a paper's column or page). */
  layout?: ChartLayout;
  /** Names drawn abbreviated, short → full (figureCaption lists them). */
  abbreviations?: Record<string, string>;
}

/**
 * Okabe & Ito's colour-blind-safe palette (Color Universal Design), black last: the colours of the models, in the
 * HTML report and in the paper figures alike.
 */
export const OKABE_ITO = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000'];

/**
 * Marker shapes of the models, one each up to 12 (vega's symbols and four SVG paths on its unit square): with
 * Okabe-Ito's 8 colours the models stay apart in greyscale print and for colour-blind readers by shape alone.
 */
export const MODEL_SHAPES = [
  'circle', 'square', 'triangle-up', 'diamond', 'cross', 'triangle-down',
  'M0,-1L0.24,-0.33L0.95,-0.31L0.38,0.12L0.59,0.81L0,0.4L-0.59,0.81L-0.38,0.12L-0.95,-0.31L-0.24,-0.33Z', // star
  'triangle-right',
  'M-1,-0.6L-0.6,-1L0,-0.4L0.6,-1L1,-0.6L0.4,0L1,0.6L0.6,1L0,0.4L-0.6,1L-1,0.6L-0.4,0Z', // x
  'triangle-left',
  'M-0.85,-0.85L0.85,-0.85L-0.85,0.85L0.85,0.85Z', // bow tie
  'M0,-1L0.87,-0.5L0.87,0.5L0,1L-0.87,0.5L-0.87,-0.5Z', // hexagon
];
/** Line dashes of the models (solid first), cycling beside colour and shape. */
export const MODEL_DASHES = [[1, 0], [6, 2], [2, 2], [8, 2, 2, 2], [4, 4], [1, 3]];

/** Model i's colour, shape and dash (i ≥ 12 repeats a shape with another colour). */
export function modelStyle(i: number): { color: string; shape: string; dash: number[] } {
  return { color: OKABE_ITO[i % OKABE_ITO.length], shape: MODEL_SHAPES[i % MODEL_SHAPES.length], dash: MODEL_DASHES[i % MODEL_DASHES.length] };
}

/** The scales of the models' colour, shape and dash, in the given order. */
export function modelScales(models: string[]) {
  const st = models.map((_, i) => modelStyle(i));
  return {
    color: { domain: models, range: st.map((s) => s.color) },
    shape: { domain: models, range: st.map((s) => s.shape) },
    strokeDash: { domain: models, range: st.map((s) => s.dash) },
  };
}

/** Longest name drawn in full; a longer one is abbreviated (shortName). */
export const NAME_MAX = 14;

/**
 * The documented abbreviation rule of the charts: a name of at most 14 characters is drawn as it is; a longer one
 * as its first 8 characters, an ellipsis and its last 4 (`specter2-adapter-proximity` → `specter2…mity`), so
 * variants that share a prefix keep their endings apart. When two names still collide, the later ones end in a
 * number instead (`…2`, `…3`). The figure's caption file lists every abbreviation with the full name.
 */
export function shortNames(names: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const used = new Set<string>();
  for (const n of names) {
    if (out.has(n)) continue;
    let s = n.length <= NAME_MAX ? n : `${n.slice(0, 8)}…${n.slice(-4)}`;
    for (let k = 2; used.has(s); k++) s = `${n.slice(0, 8)}…${k}`;
    used.add(s);
    out.set(n, s);
  }
  return out;
}

export const abbreviated = (m: Map<string, string>) => {
  const a = Object.fromEntries([...m].filter(([full, short]) => full !== short).map(([full, short]) => [short, full]));
  return Object.keys(a).length ? a : undefined;
};

// Advance widths (em) of DejaVu Sans, the charts' font (Debian's fonts-dejavu-core, which Chromium draws them
// with): printable ASCII from the space, then × … ± − – — Δ ▲ ▼ · ° µ §. From the font's hmtx table (fontTools).
const DEJAVU_CHARS = ' !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~×…±−–—Δ▲▼·°µ§';
const DEJAVU_EM = [0.318, 0.401, 0.46, 0.838, 0.636, 0.95, 0.78, 0.275, 0.39, 0.39, 0.5, 0.838, 0.318, 0.361, 0.318, 0.337, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.337, 0.337, 0.838, 0.838, 0.838, 0.531, 1.0, 0.684, 0.686, 0.698, 0.77, 0.632, 0.575, 0.775, 0.752, 0.295, 0.295, 0.656, 0.557, 0.863, 0.748, 0.787, 0.603, 0.787, 0.695, 0.635, 0.611, 0.732, 0.684, 0.989, 0.685, 0.611, 0.685, 0.39, 0.337, 0.39, 0.838, 0.5, 0.5, 0.613, 0.635, 0.55, 0.635, 0.615, 0.352, 0.635, 0.634, 0.278, 0.278, 0.579, 0.278, 0.974, 0.634, 0.612, 0.635, 0.635, 0.411, 0.521, 0.392, 0.634, 0.592, 0.818, 0.592, 0.592, 0.525, 0.636, 0.337, 0.636, 0.838, 0.838, 1.0, 0.838, 0.838, 0.5, 1.0, 0.684, 0.769, 0.769, 0.318, 0.5, 0.636, 0.5];
const DEJAVU = new Map([...DEJAVU_CHARS].map((c, i) => [c, DEJAVU_EM[i]]));

/**
 * Width of a text in DejaVu Sans at `font` px (bold ~8 % wider): the charts' layout and vega's own text bounds
 * (textMetrics, see vegaModules) both use it, so the print check measures what Chromium draws, not vega's
 * canvas-less guess of 0.8 em a character. Other letters count 0.75 em, wide (CJK) ones 1 em.
 */
export function textWidth(s: string, font: number, bold = false): number {
  let em = 0;
  for (const c of s) em += DEJAVU.get(c) ?? (/[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\uff00-\uff60]/.test(c) ? 1 : 0.75);
  return em * font * (bold ? 1.08 : 1);
}

/** The HTML report's chart width and type size (CSS px). */
export const HTML_WIDTH = 760;
export const HTML_FONT = 11;

function config(font: number) {
  return {
    font: 'DejaVu Sans, Helvetica, Arial, sans-serif',
    range: { category: OKABE_ITO },
    view: { stroke: '#bbb' },
    axis: { labelFontSize: font, titleFontSize: font, titleFontWeight: 'normal' },
    legend: { labelFontSize: font, titleFontSize: font, titleFontWeight: 'normal' },
    header: { labelFontSize: font, titleFontSize: font },
    title: { fontSize: font + 2 },
  };
}

export function base(title: string, font = HTML_FONT): ChartSpec {
  return { $schema: 'https://vega.github.io/schema/vega-lite/v6.json', title: { text: title, anchor: 'start', fontSize: font + 2 }, config: config(font), background: 'white' };
}

/**
 * A legend of the models below the plot, in as many columns as the width holds. Vega puts it at the plot's left
 * edge, so the y axis's labels and title (~5 em) come off the width; no title (the caption says the entries are models).
 */
export function modelLegend(names: string[], width: number, font: number, axis = 5 * font) {
  const entry = 16 + Math.max(...names.map((n) => textWidth(n, font))) + 10;
  const columns = Math.max(1, Math.min(names.length, Math.floor((width - axis) / entry)));
  return {
    orient: 'bottom', direction: 'horizontal', columns, title: null, labelLimit: 0, symbolSize: 5 * font, columnPadding: 10, rowPadding: 3, offset: 6,
    // The symbol as the plot's markers draw it (a thin dark outline), not outlined in the line's dash.
    encode: { symbols: { update: { strokeDash: { value: [] }, stroke: { value: '#222' }, strokeWidth: { value: 0.4 } } } },
  };
}

const r1 = (x: number) => Math.round(x * 10) / 10;

/**
 * A cell's interval for measure m, ×100: the 95 % interval over queries where the results carry one (`ci`,
 * results.json of a newer `citebench run`), else ± 1 sd over pool samples (none with one sample).
 */
function intervalOf(x: { means: Record<string, number>; sd: Record<string, number>; ci?: Record<string, { lo: number; hi: number } | [number, number]> }, m: string): { lo: number; hi: number } | undefined {
  const ci = x.ci?.[m];
  if (ci) return Array.isArray(ci) ? { lo: r1(100 * ci[0]), hi: r1(100 * ci[1]) } : { lo: r1(100 * ci.lo), hi: r1(100 * ci.hi) };
  if (!(x.sd[m] > 0)) return undefined;
  return { lo: r1(100 * (x.means[m] - x.sd[m])), hi: r1(100 * (x.means[m] + x.sd[m])) };
}

/** Mean and 95 % t-interval of values (none with fewer than two): the statistics' one interval (eval/statistics.ts). */
export function tInterval(v: number[]): { mean: number; lo?: number; hi?: number } {
  const m = meanInterval(v);
  return m.ci95 ? { mean: m.mean, lo: m.ci95[0], hi: m.ci95[1] } : { mean: m.mean };
}

const poolLabelExpr = 'datum.value >= 1e6 ? datum.value / 1e6 + "M" : datum.value >= 1e3 ? datum.value / 1e3 + "k" : datum.value';

/** The pool-size axis: log, every pool size a tick and a label, the domain padded so the outer points and labels sit inside. */
const poolAxis = (sizes: number[], labels = true) => ({
  field: 'xd', type: 'quantitative',
  scale: { type: 'log', nice: false, domain: [sizes[0] / 1.3, sizes[sizes.length - 1] * 1.3] },
  // Every label drawn (vega would hide some it judges crowded; the print check measures them instead).
  axis: labels ? { values: sizes, labelExpr: poolLabelExpr, title: 'pool size (log scale)', grid: true, labelOverlap: false, labelFlush: false } : { values: sizes, labels: false, title: null, grid: true },
});

/**
 * Panels of one measure each: side by side when the width gives each at least 150 px; else in rows of as many as
 * fit, each with its own pool-size labels; one a row, one above the other over a shared pool-size axis. Views
 * concatenated, not a wrapped facet: a short last row draws no empty panel.
 */
function measurePanels(measures: string[], width: number, font: number, plot: number, panel: (m: string, bottom: boolean, height: number) => ChartSpec): ChartSpec {
  const cols = Math.max(1, Math.min(measures.length, Math.floor(width / (150 + 5 * font))));
  const wide = Math.round(Math.min(200, Math.max(110, 0.8 * plot)));
  if (cols === measures.length) return { hconcat: measures.map((m) => ({ ...panel(m, true, wide), width: plot, height: wide })), spacing: Math.round(font) };
  if (cols > 1) {
    const rows = Array.from({ length: Math.ceil(measures.length / cols) }, (_, i) => measures.slice(i * cols, (i + 1) * cols));
    return { vconcat: rows.map((row) => ({ hconcat: row.map((m) => ({ ...panel(m, true, wide), width: plot, height: wide })), spacing: Math.round(font) })), spacing: Math.round(font) };
  }
  const height = Math.round(Math.min(130, Math.max(75, 0.42 * plot)));
  return { vconcat: measures.map((m, i) => ({ ...panel(m, i === measures.length - 1, height), width: plot, height })), spacing: Math.round(0.6 * font) };
}

/** A panel's width in the HTML report (measurePanels's columns at its width, ~70 px of axis each). */
const htmlPanelWidth = (n: number) => Math.floor(HTML_WIDTH / Math.max(1, Math.min(n, Math.floor(HTML_WIDTH / (150 + 5 * HTML_FONT))))) - 70;

/** Metric (×100) vs pool size per model, one panel per measure: the dataset level (the paper's setting). */
export function poolSizeChart(r: ResultsIndex): Chart | undefined {
  const rows = meanOverRepeats(r.cells).filter((x) => x.protocol === 'dataset' && !x.setting);
  if (!rows.length) return undefined;
  const full = paperOrder([...new Set(rows.map((x) => x.model))]);
  const short = shortNames(full);
  const models = full.map((m) => short.get(m)!);
  const sizes = [...new Set(rows.map((x) => x.poolSize))].sort((a, b) => a - b);
  // Models side by side at each pool size (a small step on the log axis) so their intervals do not hide each other.
  const dodge = (m: string) => 10 ** (0.012 * (full.indexOf(m) - (full.length - 1) / 2) * Math.min(1, 6 / full.length));
  // The 95 % interval over queries that the run stored for each mean (results.json significance.means), where it did.
  const stored = new Map((r.significance?.means ?? []).filter((c) => c.protocol === 'dataset' && c.setting === 'transductive' && c.ci95)
    .map((c) => [`${c.model}\u0000${c.poolSize}\u0000${c.measure}`, c.ci95!] as const));
  const ciOf = (x: { model: string; poolSize: number }) => Object.fromEntries(r.measures.flatMap((m) => {
    const ci = stored.get(`${x.model}\u0000${x.poolSize}\u0000${m}`);
    return ci ? [[m, ci]] : [];
  }));
  const values = rows.flatMap((x) => r.measures.map((m) => ({
    model: short.get(x.model)!, pool: x.poolSize, xd: x.poolSize * dodge(x.model), measure: m, value: r1(100 * x.means[m]), ...intervalOf({ ...x, ci: ciOf(x) }, m),
  })));
  const anyInterval = values.some((v) => v.lo !== undefined);
  const layout: ChartLayout = (width, font, plot) => {
    const scales = modelScales(models);
    const model = (ch: 'color' | 'shape' | 'strokeDash') => ({ field: 'model', type: 'nominal', sort: models, title: 'model', scale: scales[ch], legend: modelLegend(models, width, font) });
    const panel = (m: string, bottom: boolean) => ({
      transform: [{ filter: { field: 'measure', equal: m } }],
      layer: [
        ...(anyInterval ? [{ mark: { type: 'rule', strokeWidth: 1 }, encoding: { x: poolAxis(sizes, bottom), y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' }, color: model('color') } }] : []),
        {
          mark: { type: 'line', strokeWidth: 1.4, point: { size: font * 4, filled: true, stroke: '#222', strokeWidth: 0.4 } },
          encoding: { x: poolAxis(sizes, bottom), y: { field: 'value', type: 'quantitative', title: `${m} ×100`, scale: { zero: false }, axis: { tickCount: 4 } }, color: model('color'), strokeDash: model('strokeDash'), shape: model('shape') },
        },
      ],
    });
    return { ...base('Dataset level: metric vs pool size', font), data: { values }, ...measurePanels(r.measures, width, font, plot, panel), resolve: { scale: { y: 'independent' } } };
  };
  return {
    id: 'chart-pool', title: 'Metric vs pool size',
    caption: `Dataset level: each model's mean ${anyInterval ? '(bars: 95 % interval over queries where the run stored one, else ±1 sd over pool samples) ' : ''}as the candidate pool grows; pool sizes ${sizes.map(poolLabel).join(', ')}. In the paper, the encoders fall faster than BM25 as pools grow.`,
    spec: layout(HTML_WIDTH, HTML_FONT, htmlPanelWidth(r.measures.length)),
    layout, abbreviations: abbreviated(short),
  };
}

/**
 * Both settings at the dataset level: each model's mean per pool size, solid transductive, dashed inductive, one
 * panel per measure. Only for a run with the inductive setting.
 */
export function settingsChart(r: ResultsIndex): Chart | undefined {
  const rows = meanOverRepeats(r.cells).filter((x) => x.protocol === 'dataset');
  if (!rows.some((x) => x.setting === 'inductive')) return undefined;
  const full = paperOrder([...new Set(rows.map((x) => x.model))]);
  const short = shortNames(full);
  const models = full.map((m) => short.get(m)!);
  const sizes = [...new Set(rows.map((x) => x.poolSize))].sort((a, b) => a - b);
  const values = rows.flatMap((x) => r.measures.map((m) => ({ model: short.get(x.model)!, setting: x.setting ?? 'transductive', pool: x.poolSize, xd: x.poolSize, measure: m, value: r1(100 * x.means[m]) })));
  const layout: ChartLayout = (width, font, plot) => {
    const scales = modelScales(models);
    const model = (ch: 'color' | 'shape') => ({ field: 'model', type: 'nominal', sort: models, title: 'model', scale: scales[ch], legend: modelLegend(models, width, font) });
    const panel = (m: string, bottom: boolean) => ({
      transform: [{ filter: { field: 'measure', equal: m } }],
      mark: { type: 'line', strokeWidth: 1.4, point: { size: font * 4, filled: true, stroke: '#222', strokeWidth: 0.4 } },
      encoding: {
        x: poolAxis(sizes, bottom), y: { field: 'value', type: 'quantitative', title: `${m} ×100`, scale: { zero: false }, axis: { tickCount: 4 } },
        color: model('color'), shape: model('shape'),
        strokeDash: { field: 'setting', type: 'nominal', sort: ['transductive', 'inductive'], title: 'setting', legend: { orient: 'top', direction: 'horizontal', title: null, symbolType: 'stroke', symbolStrokeWidth: 2, symbolSize: 300, encode: { symbols: { update: { stroke: { value: '#333' } } } } } },
      },
    });
    return { ...base('Dataset level: transductive (solid) vs inductive (dashed)', font), data: { values }, ...measurePanels(r.measures, width, font, plot, panel), resolve: { scale: { y: 'independent' } } };
  };
  return {
    id: 'chart-settings', title: 'Transductive vs inductive setting',
    caption: 'Dataset level in both settings: each model\'s mean over repeats as the pool grows, solid the transductive setting (the paper\'s), dashed the inductive one ' +
      '(Goyal et al. 2026 §3.1: queries and pools disjoint, candidates older than the queries). The settings draw other queries and pools: compare trends and models, not single points.',
    spec: layout(HTML_WIDTH, HTML_FONT, htmlPanelWidth(r.measures.length)),
    layout, abbreviations: abbreviated(short),
  };
}

/** Smallest type of a value printed in a heat-map cell (CSS px; 8.5 px = 6.4 pt at print size). */
const CELL_FONT_MIN = 8.5;

/**
 * Model × field heat map of one measure (field level, the paper's setting). Fields run across when their columns
 * hold a value's text, else down (models across); a cell prints its value only when the text fits it with room
 * to spare — otherwise the colour bar reads it and the report's table (Table 2) has the numbers.
 */
export function fieldHeatmap(r: ResultsIndex, measureName?: string): Chart | undefined {
  const measure = measureName ?? r.measures[0];
  const rows = meanOverRepeats(r.cells).filter((x) => x.protocol === 'field' && !x.setting && x.means[measure] !== undefined);
  if (!rows.length) return undefined;
  const fullFields = schemeFields(resultsFieldScheme(r)).filter((f) => rows.some((x) => x.field === f));
  const fieldNames = shortNames(fullFields.map(fieldAbbrev));
  const fields = [...fieldNames.values()];
  const full = paperOrder([...new Set(rows.map((x) => x.model))]);
  const short = shortNames(full);
  const models = full.map((m) => short.get(m)!);
  const values = rows.map((x) => ({ model: short.get(x.model)!, field: fieldNames.get(fieldAbbrev(x.field!))!, value: r1(100 * x.means[measure]) }));
  const max = Math.max(...values.map((v) => v.value));
  const valueText = Math.max(...values.map((v) => v.value.toFixed(1).length));
  const layout: ChartLayout = (width, font, plot) => {
    const labelW = (names: string[]) => Math.max(...names.map((n) => textWidth(n, font))) + 10;
    // Fields across when each column can hold a value at the smallest cell type, else models across.
    const acrossFields = (width - labelW(models) - 60) / fields.length >= textWidth('0'.repeat(valueText), CELL_FONT_MIN) + 4;
    const [cols, rowsOf] = acrossFields ? [fields, models] : [models, fields];
    const cellW = plot / cols.length;
    const cellH = Math.max(font + 4, Math.min(1.8 * font, acrossFields ? 1.8 * font : cellW * 0.4));
    const cellFont = Math.min(font, cellH - 3, (cellW - 4) / (0.64 * valueText));
    const showValues = cellFont >= CELL_FONT_MIN;
    const vertical = labelW(cols) - 10 > cellW - 3;
    const colEnc = { field: acrossFields ? 'field' : 'model', type: 'nominal', sort: cols, title: acrossFields ? 'field' : null, axis: { labelAngle: vertical ? -90 : 0, labelAlign: vertical ? 'left' : 'center', labelBaseline: 'middle', orient: 'top', ticks: false, domain: false, labelPadding: 3 } };
    const rowEnc = { field: acrossFields ? 'model' : 'field', type: 'nominal', sort: rowsOf, title: null, axis: { ticks: false, domain: false } };
    const enc = { x: colEnc, y: rowEnc };
    return {
      ...base(`Field level: ${measure} ×100`, font),
      data: { values },
      width: plot, height: Math.round(cellH * rowsOf.length),
      layer: [
        { mark: { type: 'rect', stroke: 'white', strokeWidth: 0.5 }, encoding: { ...enc, color: { field: 'value', type: 'quantitative', scale: { scheme: 'blues', zero: true }, title: `${measure} ×100`, legend: { orient: 'right', gradientLength: Math.max(60, Math.min(cellH * rowsOf.length, 160)), gradientThickness: 8, titleOrient: 'left', titleAngle: -90, titleAnchor: 'middle', offset: 6, tickCount: 4 } } } },
        ...(showValues ? [{ mark: { type: 'text', fontSize: Math.round(cellFont * 10) / 10 }, encoding: { ...enc, text: { field: 'value', type: 'quantitative', format: '.1f' }, color: { condition: { test: `datum.value > ${0.6 * max}`, value: 'white' }, value: 'black' } } }] : []),
      ],
    };
  };
  return {
    id: 'chart-fields', title: `Field level ${measure} per model and field`,
    caption: `Field level: ${measure} ×100 per model and field (${resultsFieldScheme(r) === 'mag' ? 'MAG fields, the paper\'s abbreviations' : SCHEME_LABEL[resultsFieldScheme(r)]}); darker is higher. Cells print their values where they fit; the report's field-level table has them all.`,
    spec: layout(HTML_WIDTH, HTML_FONT, Math.min(HTML_WIDTH - 160, 40 * fields.length)),
    // Every field drawn other than by its full name (the scheme's abbreviation, then the length rule) is named in full.
    layout, abbreviations: abbreviated(new Map([...short, ...fullFields.map((f) => [f, fieldNames.get(fieldAbbrev(f))!] as [string, string])])),
  };
}

/**
 * MDCR MAP per candidate type (Table 4): a dot per model on each type's row, the model's shape and colour, with
 * its 95 % t-interval over the fields (the AVG is the fields' mean).
 */
export function candidateTypeChart(r: ResultsIndex): Chart | undefined {
  const m = r.mdcr;
  if (!m) return undefined;
  const full = paperOrder(Object.keys(m.results));
  const short = shortNames(full);
  const models = full.map((x) => short.get(x)!);
  const types = [...new Set(full.flatMap((x) => Object.keys(m.results[x].types)))];
  const values = full.flatMap((model) => types.filter((t) => m.results[model].types[t]).map((t) => {
    const s = m.results[model].types[t];
    const iv = tInterval(s.fields.map((f) => f.values.map));
    return { model: short.get(model)!, type: t, MAP: r1(s.avg.map), ...(iv.lo !== undefined ? { lo: r1(iv.lo), hi: r1(iv.hi!) } : {}) };
  }));
  const anyInterval = values.some((v) => 'lo' in v);
  const layout: ChartLayout = (width, font, plot) => {
    const scales = modelScales(models);
    const axisW = Math.max(...types.map((t) => textWidth(t, font))) + 8;
    const model = (ch: 'color' | 'shape') => ({ field: 'model', type: 'nominal', sort: models, title: 'model', scale: scales[ch], legend: modelLegend(models, width, font, axisW) });
    // No axis title: the type names say what they are (the caption too), and the width goes to the plot.
    const y = { field: 'type', type: 'nominal', sort: types, title: null, axis: { ticks: false, domain: false, grid: false } };
    const yOffset = { field: 'model', type: 'nominal', sort: models, scale: { paddingOuter: 0.6 } };
    const rowH = Math.max(2 * font + 4, 0.62 * font * models.length + 6);
    return {
      ...base('MDCR: MAP per candidate type', font),
      data: { values }, width: plot, height: Math.round(rowH * types.length),
      layer: [
        ...(anyInterval ? [{ mark: { type: 'rule', strokeWidth: 1 }, encoding: { y, yOffset, x: { field: 'lo', type: 'quantitative' }, x2: { field: 'hi' }, color: model('color') } }] : []),
        { mark: { type: 'point', filled: true, size: font * 4, stroke: '#222', strokeWidth: 0.4, opacity: 1 }, encoding: { y, yOffset, x: { field: 'MAP', type: 'quantitative', title: 'MAP ×100 (AVG over fields)', scale: { zero: false }, axis: { tickCount: 5 } }, color: model('color'), shape: model('shape') } },
      ],
      config: { ...config(font), axisY: { grid: true } },
    };
  };
  return {
    id: 'chart-types', title: 'MDCR candidate types',
    caption: `MDCR: MAP of each model when a query's candidates are its positives plus one type of negatives (AVG over fields${anyInterval ? '; bars: 95 % t-interval over the fields' : ''}). Lower: harder negatives.`,
    spec: layout(HTML_WIDTH, HTML_FONT, HTML_WIDTH - 200),
    layout, abbreviations: abbreviated(short),
  };
}

/**
 * One tuned model's validation score over its grid, the chosen point outlined: a heat map over two parameters
 * (e.g. BM25's k1 × b), bars over one (e.g. a Profiler's β), horizontal bars over the grid's points when it has
 * more (their names read level). Values print where they fit.
 */
export function tuningChart(t: TuningRecord): Chart {
  const names = Object.keys(t.params);
  const isChosen = (p: Record<string, number>) => names.every((n) => p[n] === t.chosen[n]);
  const values = t.grid.map((g) => ({ ...g.params, point: paramsText(g.params), score: Math.round(10000 * g.score) / 100, chosen: isChosen(g.params) }));
  const id = `chart-tuning-${t.model.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const where = `${t.queries} validation queries, pool ${poolLabel(t.poolSize)}`;
  const caption = `${t.model}: validation ${t.measure} ×100 over ${names.join(' × ')} (${where}); the chosen ${names.map((n) => `${n} ${t.chosen[n]}`).join(', ')} outlined.`;
  const title = `Tuning: ${t.model} (${t.measure} ×100)`;
  const scoreText = Math.max(...values.map((v) => v.score.toFixed(2).length));
  const layout: ChartLayout = (width, font, plot) => {
    const fits = (cellW: number) => cellW - 4 >= textWidth('0'.repeat(scoreText), font);
    if (names.length === 2) {
      const [xName, yName] = names;
      const xs = [...new Set(t.grid.map((g) => g.params[xName]))].sort((a, b) => a - b);
      const ys = [...new Set(t.grid.map((g) => g.params[yName]))].sort((a, b) => b - a);
      const enc = { x: { field: xName, type: 'ordinal', sort: xs, axis: { labelAngle: 0 } }, y: { field: yName, type: 'ordinal', sort: ys } };
      return {
        ...base(title, font), data: { values },
        width: plot, height: Math.round(ys.length * Math.max(font + 8, Math.min(2.4 * font, (0.6 * plot) / ys.length))),
        layer: [
          { mark: 'rect', encoding: { ...enc, color: { field: 'score', type: 'quantitative', scale: { zero: false, range: ['#f7fbff', '#6baed6'] }, title: t.measure, legend: { orient: 'right', gradientThickness: 8, gradientLength: 80, tickCount: 3 } } } },
          { mark: { type: 'rect', fill: null, stroke: 'black', strokeWidth: 2.5 }, transform: [{ filter: 'datum.chosen' }], encoding: enc },
          ...(fits(plot / xs.length) ? [{ mark: { type: 'text', fontSize: font }, encoding: { ...enc, text: { field: 'score', type: 'quantitative', format: '.2f' }, color: { value: 'black' } } }] : []),
        ],
      };
    }
    if (names.length === 1) {
      const x = { field: names[0], type: 'ordinal', sort: [...t.params[names[0]]].sort((a, b) => a - b), axis: { labelAngle: 0 } };
      const y = { field: 'score', type: 'quantitative', scale: { zero: false }, title: `${t.measure} ×100`, axis: { tickCount: 4 } };
      return {
        ...base(title, font), data: { values }, width: plot, height: Math.round(Math.max(100, Math.min(180, 0.5 * plot))),
        layer: [
          { mark: { type: 'bar', color: '#9ecae1' }, encoding: { x, y } },
          { mark: { type: 'bar', fill: null, stroke: 'black', strokeWidth: 2 }, transform: [{ filter: 'datum.chosen' }], encoding: { x, y } },
          ...(fits(plot / values.length) ? [{ mark: { type: 'text', fontSize: font, dy: -font * 0.7 }, encoding: { x, y, text: { field: 'score', type: 'quantitative', format: '.2f' } } }] : []),
        ],
      };
    }
    // More than two parameters: a bar per grid point, its name level on the left, its score at the bar's end.
    const y = { field: 'point', type: 'ordinal', sort: values.map((v) => v.point), title: names.join(', ') };
    const x = { field: 'score', type: 'quantitative', scale: { zero: false }, title: `${t.measure} ×100`, axis: { tickCount: 4 } };
    return {
      ...base(title, font), data: { values }, width: plot, height: Math.round(values.length * (font + 6)),
      layer: [
        { mark: { type: 'bar', color: '#9ecae1' }, encoding: { x, y } },
        { mark: { type: 'bar', fill: null, stroke: 'black', strokeWidth: 2 }, transform: [{ filter: 'datum.chosen' }], encoding: { x, y } },
        { mark: { type: 'text', fontSize: font, align: 'right', dx: -3 }, encoding: { x, y, text: { field: 'score', type: 'quantitative', format: '.2f' } } },
      ],
    };
  };
  const htmlPlot = names.length === 2 ? Math.max(160, 56 * new Set(t.grid.map((g) => g.params[names[0]])).size) : names.length === 1 ? Math.max(160, 48 * values.length) : 300;
  return { id, title: `Tuning grid of ${t.model}`, caption, spec: layout(HTML_WIDTH, HTML_FONT, htmlPlot), layout };
}

/** The MDCR build's model-based Jaccard matrix (§4.1) as a heat map; the chosen models are marked on the axes. */
export function jaccardChart(r: ResultsIndex): Chart | undefined {
  const j = r.mdcr?.jaccard;
  if (!j || !j.models.length) return undefined;
  const label = (m: string) => (r.mdcr!.chosenModels.includes(m) ? `${m} (chosen)` : m);
  const names = j.models.map(label);
  const values = j.models.flatMap((a, i) => j.models.map((b, k) => ({ a: label(a), b: label(b), J: Math.round(1000 * j.matrix[i][k]) / 1000 })));
  const enc = { x: { field: 'b', type: 'nominal', sort: names, title: null, axis: { labelAngle: -30 } }, y: { field: 'a', type: 'nominal', sort: names, title: null } };
  return {
    id: 'chart-jaccard', title: 'MDCR model-based Jaccard matrix',
    caption: 'MDCR build: average Jaccard index between the top-ranked negatives of each pair of models (test split). The models with the lowest average give the model-based negatives.',
    spec: {
      ...base('MDCR: Jaccard index of the models\' top negatives'),
      data: { values },
      width: Math.max(120, 60 * names.length), height: Math.max(60, 34 * names.length),
      layer: [
        { mark: 'rect', encoding: { ...enc, color: { field: 'J', type: 'quantitative', scale: { scheme: 'greys', domain: [0, 1] }, title: 'Jaccard' } } },
        { mark: { type: 'text', fontSize: 11 }, encoding: { ...enc, text: { field: 'J', type: 'quantitative', format: '.3f' }, color: { condition: { test: 'datum.J > 0.55', value: 'white' }, value: 'black' } } },
      ],
    },
  };
}

/**
 * Beyond the paper: each model's paired difference from the first baseline (×100, per-query values averaged over repeats) per
 * measure, pool size and setting, from results.json's stored significance rows (Table 1's family); filled bars are
 * significant after Holm's correction (paired t-test, p < 0.05), hollow ones are not.
 */
export function significanceChart(r: ResultsIndex): Chart | undefined {
  const s = { baseline: storedSignificance(r)?.baselines[0], rows: beyondPaperRows(r) };
  if (!s.rows.length) return undefined;
  const sizes = [...new Set(s.rows.map((x) => x.poolSize))].sort((a, b) => a - b).map(poolLabel);
  const label = (m: string) => {
    const note = weightsNote(r.models.find((x) => x.name === m)?.weights);
    return note ? `${m} (${note})` : m;
  };
  const models = [...new Set(s.rows.map((x) => label(x.model)))];
  const settings = [...new Set(s.rows.map((x) => x.setting))];
  const values = s.rows.map((x) => ({ setting: x.setting, pool: poolLabel(x.poolSize), model: label(x.model), measure: x.measure, delta: Math.round(1000 * x.meanDiff) / 10, sig: adjustedP(x) < SIGNIFICANCE_ALPHA, pHolm: adjustedP(x) }));
  const model = { field: 'model', type: 'nominal', sort: models, title: `model (vs ${s.baseline})`, legend: { labelLimit: 300 } };
  const facet: Record<string, unknown> = { column: { field: 'measure', type: 'nominal', sort: r.measures.filter((m) => s.rows.some((x) => x.measure === m)), title: null, header: { labelFontSize: 12 } } };
  if (settings.length > 1) facet.row = { field: 'setting', type: 'nominal', sort: settings, title: null, header: { labelFontSize: 12 } };
  return {
    id: 'chart-significance', title: `Difference from ${s.baseline} per model, measure and setting`,
    caption: `Mean paired difference model − ${s.baseline} (×100) over ${s.rows[0].queries} queries, per pool size; filled bars: significant after Holm's correction (paired t-test, p < 0.05), hollow: not.`,
    spec: {
      ...base(`Difference from ${s.baseline} (×100); filled = significant (Holm, p < 0.05)`),
      data: { values },
      facet,
      resolve: { scale: { y: 'independent' } },
      spec: {
        width: Math.max(110, 22 * sizes.length * models.length), height: 150,
        layer: [
          { mark: { type: 'rule', color: '#555' }, encoding: { y: { datum: 0, type: 'quantitative' } } },
          {
            mark: { type: 'bar', strokeWidth: 1.5 },
            encoding: {
              x: { field: 'pool', type: 'nominal', sort: sizes, title: 'pool', axis: { labelAngle: 0 } },
              xOffset: { field: 'model', type: 'nominal', sort: models },
              // symlog: a model far off (a random-weight re-ranker) does not flatten the small differences.
              // stack: null — the models sit side by side (xOffset); stacked, a bar would start where the last ended.
              y: { field: 'delta', type: 'quantitative', stack: null, title: 'Δ ×100 (symlog)', scale: { type: 'symlog' }, axis: { values: [-100, -30, -10, -3, -1, 0, 1, 3, 10, 30, 100] } },
              stroke: model,
              fill: { condition: { test: 'datum.sig', field: 'model', type: 'nominal', sort: models }, value: 'white' },
              tooltip: [{ field: 'model' }, { field: 'pool' }, { field: 'delta', title: 'Δ ×100' }, { field: 'pHolm', title: 'p (Holm)', format: '.3g' }],
            },
          },
        ],
      },
    },
  };
}

/** Articles per publication year of a corpus store (describeStore's yearCounts); 2019, the query year, marked. */
export function yearChart(yearCounts: Record<number, number>, queryYear = 2019): Chart {
  const values = Object.entries(yearCounts).map(([y, n]) => ({ year: Number(y), articles: n, query: Number(y) === queryYear }));
  return {
    id: 'chart-years', title: 'Articles per year', caption: `Articles of the store per publication year; the queries come from ${queryYear} (dark bar), candidates from ${queryYear} or before.`,
    spec: {
      ...base('Corpus: articles per publication year'),
      data: { values }, width: 560, height: 180,
      mark: { type: 'bar', stroke: 'black', strokeWidth: 0.3 },
      encoding: {
        x: { field: 'year', type: 'ordinal', title: 'year', axis: { labelAngle: -90, labelExpr: 'datum.value % 5 === 0 ? datum.value : ""' } },
        y: { field: 'articles', type: 'quantitative', title: 'articles' },
        color: { field: 'query', type: 'nominal', scale: { domain: [false, true], range: ['#9ecae1', '#08306b'] }, legend: null },
      },
    },
  };
}

/**
 * Articles per field of the store's scheme — MAG's 19 unless describeStore says OpenAlex Topics' 26 (an article may
 * have several fields, so the bars can add up to more than the store).
 */
export function fieldChart(fields: Record<string, number>, scheme: FieldScheme = 'mag'): Chart {
  const names = schemeFields(scheme);
  const values = names.map((f) => ({ field: f, abbrev: fieldAbbrev(f), articles: fields[f] ?? 0 }));
  return {
    id: 'chart-fields-corpus', title: 'Articles per field', caption: `Articles of the store labelled with each of ${SCHEME_LABEL[scheme]} (the field level samples its queries per field).`,
    spec: {
      ...base(scheme === 'mag' ? 'Corpus: articles per MAG field' : 'Corpus: articles per OpenAlex topic field'),
      data: { values }, width: 420, height: names.length * 16,
      mark: { type: 'bar', stroke: 'black', strokeWidth: 0.3, color: '#6baed6' },
      encoding: {
        y: { field: 'field', type: 'nominal', sort: '-x', title: null },
        x: { field: 'articles', type: 'quantitative', title: 'articles' },
        tooltip: [{ field: 'field' }, { field: 'articles' }],
      },
    },
  };
}

/** Inbound and outbound citation-degree histograms (degreeHistogram's power-of-two bins), side by side. */
export function degreeChart(bins: DegreeBin[]): Chart {
  const order = bins.filter((b) => b.direction === 'inbound').map((b) => b.label);
  for (const b of bins) if (!order.includes(b.label)) order.push(b.label);
  return {
    id: 'chart-degrees', title: 'Citation degrees', caption: 'Articles by their number of citations inside the store: inbound (cited by) and outbound (citing), in power-of-two bins.',
    spec: {
      ...base('Corpus: citation degrees inside the store'),
      data: { values: bins },
      facet: { column: { field: 'direction', type: 'nominal', title: null, header: { labelFontSize: 12 } } },
      spec: {
        width: 260, height: 170,
        mark: { type: 'bar', stroke: 'black', strokeWidth: 0.3, color: '#6baed6' },
        encoding: {
          x: { field: 'label', type: 'ordinal', sort: order, title: 'citations', axis: { labelAngle: -45 } },
          y: { field: 'articles', type: 'quantitative', title: 'articles' },
        },
      },
    },
  };
}

/**
 * The report's slices (statistics-tables.ts reportSlices): per query attribute, a panel of its groups, one row
 * each, with each model's mean (×100) and its 95 % t-interval over the group's queries, the models side by side
 * within a row (colour and shape). Rows, not columns: nineteen fields or many years stay legible at a column's
 * width, the panel growing downwards; field names as the paper abbreviates them.
 */
export function sliceChart(r: ResultsIndex): Chart | undefined {
  const rows = reportSlices(r).filter((x) => x.ci95);
  if (!rows.length) return undefined;
  const { measure, poolSize, protocol } = rows[0];
  const full = paperOrder([...new Set(rows.map((x) => x.model))]);
  const short = shortNames(full);
  const models = full.map((m) => short.get(m)!);
  const attributes = [...new Set(rows.map((x) => x.attribute))];
  const label = (attribute: string, slice: string) => (attribute === 'field' ? fieldAbbrev(slice) : slice);
  const sliceNames = shortNames([...new Set(rows.map((x) => label(x.attribute, x.slice)))]);
  const values = rows.map((x) => ({
    attribute: x.attribute, slice: sliceNames.get(label(x.attribute, x.slice))!, model: short.get(x.model)!, n: x.queries,
    mean: r1(100 * x.mean), lo: r1(100 * x.ci95![0]), hi: r1(100 * x.ci95![1]),
  }));
  const layout: ChartLayout = (width, font, plot) => {
    const scales = modelScales(models);
    const model = (ch: 'color' | 'shape') => ({ field: 'model', type: 'nominal', sort: models, title: 'model', scale: scales[ch], legend: modelLegend(models, width, font) });
    const rowHeight = Math.max(font * 1.5, Math.min(models.length, 12) * 2.6);
    const panel = (attribute: string) => {
      const slices = [...new Set(values.filter((v) => v.attribute === attribute).map((v) => v.slice))];
      const y = { field: 'slice', type: 'nominal', sort: slices, title: attribute, axis: { labelOverlap: false, labelLimit: 0 } };
      const yOffset = { field: 'model', type: 'nominal', sort: models, scale: { paddingInner: 0.1 } };
      return {
        transform: [{ filter: { field: 'attribute', equal: attribute } }],
        width: plot, height: Math.round(rowHeight * slices.length),
        layer: [
          { mark: { type: 'rule', strokeWidth: 0.9 }, encoding: { y, yOffset, x: { field: 'lo', type: 'quantitative', title: `${measure} ×100 (95 % interval)`, axis: { tickCount: 4 } }, x2: { field: 'hi' }, color: model('color') } },
          { mark: { type: 'point', filled: true, size: font * 3, stroke: '#222', strokeWidth: 0.3, opacity: 1 }, encoding: { y, yOffset, x: { field: 'mean', type: 'quantitative' }, color: model('color'), shape: model('shape'), tooltip: [{ field: 'model' }, { field: 'slice' }, { field: 'n' }, { field: 'mean' }, { field: 'lo' }, { field: 'hi' }] } },
        ],
      };
    };
    return { ...base(`${measure} per group of queries`, font), data: { values }, vconcat: attributes.map(panel), spacing: Math.round(font), resolve: { scale: { y: 'independent', yOffset: 'independent' } } };
  };
  return {
    id: 'chart-slices', title: `${measure} per group of queries`,
    caption: `${measure} (×100) per group of test queries, ${protocol} level, ${poolLabel(poolSize)} pool: each model's mean over the group's queries (point) and its 95 % t-interval (bar); one panel per query attribute (the tables "${measure} by …").`,
    spec: layout(HTML_WIDTH, HTML_FONT, HTML_WIDTH - 160), layout, abbreviations: abbreviated(new Map([...short, ...[...sliceNames].filter(([a, b]) => a !== b)])),
  };
}

/** Every chart the results support, in report order. */
export function reportCharts(r: ResultsIndex): Chart[] {
  return [poolSizeChart(r), settingsChart(r), fieldHeatmap(r), candidateTypeChart(r), ...r.tuning.map(tuningChart), sliceChart(r)].filter((c): c is Chart => !!c);
}

type VegaModule = typeof import('vega');
type VegaLiteModule = typeof import('vega-lite');
let modules: Promise<[VegaModule, VegaLiteModule]> | undefined;

/** vega and vega-lite, loaded once, vega's text measure set to DejaVu Sans's widths (textWidth). */
export function vegaModules(): Promise<[VegaModule, VegaLiteModule]> {
  modules ??= Promise.all([import('vega'), import('vega-lite')]).then(([vega, vl]) => {
    const tm = (vega as unknown as { textMetrics: unknown }).textMetrics as { width: (item: Record<string, unknown>, text?: unknown) => number };
    tm.width = (item, text) => {
      const t = text ?? item.text;
      const lines = Array.isArray(t) ? t.map(String) : [t == null ? '' : String(t)];
      const bold = item.fontWeight === 'bold' || Number(item.fontWeight) >= 600;
      return Math.max(0, ...lines.map((l) => textWidth(l, Number(item.fontSize ?? 11), bold)));
    };
    return [vega, vl];
  });
  return modules;
}

/** Versions of the chart libraries (for the report's metadata). */
export async function vegaVersions(): Promise<{ vega: string; 'vega-lite': string }> {
  const [vega, vl] = await vegaModules();
  return { vega: vega.version, 'vega-lite': vl.version };
}

/**
 * SVG of a vega-lite spec. Element ids get `idPrefix` so several charts can sit inline in one HTML page
 * without their clip paths and gradients colliding.
 */
export async function chartSvg(spec: ChartSpec, idPrefix = 'c'): Promise<string> {
  const [vega, vl] = await vegaModules();
  const compiled = vl.compile(spec as unknown as Parameters<VegaLiteModule['compile']>[0]).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    const svg = await view.toSVG();
    return svg.replace(/\bid="([^"]+)"/g, `id="${idPrefix}-$1"`).replace(/url\(#([^)]+)\)/g, `url(#${idPrefix}-$1)`);
  } finally {
    view.finalize();
  }
}
