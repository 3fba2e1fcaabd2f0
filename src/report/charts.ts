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
import { SCHEME_LABEL, fieldAbbrev, schemeFields, type FieldScheme } from '../corpus/fields.ts';
import type { DegreeBin } from '../corpus/stats.ts';
import { SIGNIFICANCE_ALPHA, meanOverRepeats, paramsText, resultsFieldScheme, weightsNote, type ResultsIndex, type TuningRecord } from './results.ts';
import { adjustedP, beyondPaperRows, storedSignificance } from './significance.ts';
import { paperOrder } from './report-tables.ts';
import { poolLabel } from './tables.ts';
import { sliceChart } from './slice-charts.ts';

// A vega-lite spec (kept loose: the compiler checks it).
export type ChartSpec = Record<string, unknown>;

export interface Chart {
  id: string;
  title: string;
  caption: string;
  spec: ChartSpec;
}

/**
 * Okabe & Ito's colour-blind-safe palette (Color Universal Design), black last: the colours of the models, in the
 * HTML report and in the paper figures alike.
 */
export const OKABE_ITO = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000'];

const CONFIG = {
  font: 'DejaVu Sans, Helvetica, Arial, sans-serif',
  range: { category: OKABE_ITO },
  view: { stroke: '#bbb' },
  axis: { labelFontSize: 11, titleFontSize: 11 },
  legend: { labelFontSize: 11, titleFontSize: 11 },
};

function base(title: string): ChartSpec {
  return { $schema: 'https://vega.github.io/schema/vega-lite/v6.json', title: { text: title, anchor: 'start', fontSize: 13 }, config: CONFIG, background: 'white' };
}

const r1 = (x: number) => Math.round(x * 10) / 10;

/** Metric (×100) vs pool size per model, one panel per measure: the dataset level (the paper's setting). */
export function poolSizeChart(r: ResultsIndex): Chart | undefined {
  const rows = meanOverRepeats(r.cells).filter((x) => x.protocol === 'dataset' && !x.setting);
  if (!rows.length) return undefined;
  const models = paperOrder([...new Set(rows.map((x) => x.model))]);
  const sizes = [...new Set(rows.map((x) => x.poolSize))].sort((a, b) => a - b);
  const values = rows.flatMap((x) => r.measures.map((m) => ({
    model: x.model, pool: x.poolSize, poolLabel: poolLabel(x.poolSize), measure: m,
    value: r1(100 * x.means[m]), lo: r1(100 * (x.means[m] - x.sd[m])), hi: r1(100 * (x.means[m] + x.sd[m])),
  })));
  const x = poolAxis(sizes);
  const model = { field: 'model', type: 'nominal', sort: models, title: 'model' };
  return {
    id: 'chart-pool', title: 'Metric vs pool size', caption: 'Dataset level: each model\'s mean (±1 sd over repeats) as the candidate pool grows. In the paper, the encoders fall faster than BM25 as pools grow.',
    spec: {
      ...base('Dataset level: metric vs pool size'),
      data: { values },
      facet: { column: { field: 'measure', type: 'nominal', sort: r.measures, title: null, header: { labelFontSize: 12 } } },
      resolve: { scale: { y: 'independent' } },
      spec: {
        width: 190, height: 170,
        layer: [
          { mark: { type: 'errorbar', ticks: true }, encoding: { x, y: { field: 'lo', type: 'quantitative', title: 'value ×100' }, y2: { field: 'hi' }, color: model } },
          { mark: { type: 'line', point: { size: 45, filled: true } }, encoding: { x, y: { field: 'value', type: 'quantitative', title: 'value ×100', scale: { zero: false } }, color: model, strokeDash: model, shape: model } },
        ],
      },
    },
  };
}

const poolAxis = (sizes: number[]) => ({
  field: 'pool', type: 'quantitative', scale: { type: 'log', nice: false },
  axis: { values: sizes, labelExpr: 'datum.value >= 1e6 ? datum.value / 1e6 + "M" : datum.value >= 1e3 ? datum.value / 1e3 + "k" : datum.value', title: 'pool size (log)' },
});

/**
 * Both settings at the dataset level: each model's mean per pool size, solid transductive, dashed inductive, one
 * panel per measure. Only for a run with the inductive setting.
 */
export function settingsChart(r: ResultsIndex): Chart | undefined {
  const rows = meanOverRepeats(r.cells).filter((x) => x.protocol === 'dataset');
  if (!rows.some((x) => x.setting === 'inductive')) return undefined;
  const models = paperOrder([...new Set(rows.map((x) => x.model))]);
  const sizes = [...new Set(rows.map((x) => x.poolSize))].sort((a, b) => a - b);
  const values = rows.flatMap((x) => r.measures.map((m) => ({ model: x.model, setting: x.setting ?? 'transductive', pool: x.poolSize, measure: m, value: r1(100 * x.means[m]) })));
  const model = { field: 'model', type: 'nominal', sort: models, title: 'model' };
  return {
    id: 'chart-settings', title: 'Transductive vs inductive setting',
    caption: 'Dataset level in both settings: each model\'s mean over repeats as the pool grows, solid the transductive setting (the paper\'s), dashed the inductive one ' +
      '(Goyal et al. 2026 §3.1: queries and pools disjoint, candidates older than the queries). The settings draw other queries and pools: compare trends and models, not single points.',
    spec: {
      ...base('Dataset level: transductive (solid) vs inductive (dashed)'),
      data: { values },
      facet: { field: 'measure', type: 'nominal', sort: r.measures, title: null, header: { labelFontSize: 12 } },
      columns: 3,
      resolve: { scale: { y: 'independent' } },
      spec: {
        width: 220, height: 160,
        mark: { type: 'line', point: { size: 40, filled: true } },
        encoding: {
          x: poolAxis(sizes), y: { field: 'value', type: 'quantitative', title: 'value ×100', scale: { zero: false } },
          color: model, shape: model, strokeDash: { field: 'setting', type: 'nominal', sort: ['transductive', 'inductive'], title: 'setting', legend: { symbolType: 'stroke', symbolStrokeWidth: 2, symbolSize: 300, encode: { symbols: { update: { stroke: { value: '#333' } } } } } },
        },
      },
    },
  };
}

/** Model × field heat map of one measure (field level, the paper's setting), values printed in the cells. */
export function fieldHeatmap(r: ResultsIndex, measureName?: string): Chart | undefined {
  const measure = measureName ?? r.measures[0];
  const rows = meanOverRepeats(r.cells).filter((x) => x.protocol === 'field' && !x.setting && x.means[measure] !== undefined);
  if (!rows.length) return undefined;
  const fields = schemeFields(resultsFieldScheme(r)).filter((f) => rows.some((x) => x.field === f)).map(fieldAbbrev);
  const models = paperOrder([...new Set(rows.map((x) => x.model))]);
  const values = rows.map((x) => ({ model: x.model, field: fieldAbbrev(x.field!), value: r1(100 * x.means[measure]) }));
  const max = Math.max(...values.map((v) => v.value));
  const enc = { x: { field: 'field', type: 'nominal', sort: fields, title: 'field', axis: { labelAngle: 0 } }, y: { field: 'model', type: 'nominal', sort: models, title: null } };
  return {
    id: 'chart-fields', title: `Field level ${measure} per model and field`, caption: `Field level: ${measure} ×100 per model (rows) and field (columns${resultsFieldScheme(r) === 'mag' ? '' : `: ${SCHEME_LABEL[resultsFieldScheme(r)]}`}); darker is higher.`,
    spec: {
      ...base(`Field level: ${measure} ×100`),
      data: { values },
      width: Math.max(200, 34 * fields.length), height: 26 * models.length,
      layer: [
        { mark: 'rect', encoding: { ...enc, color: { field: 'value', type: 'quantitative', scale: { scheme: 'blues', zero: true }, title: measure } } },
        { mark: { type: 'text', fontSize: 10 }, encoding: { ...enc, text: { field: 'value', type: 'quantitative', format: '.1f' }, color: { condition: { test: `datum.value > ${0.6 * max}`, value: 'white' }, value: 'black' } } },
      ],
    },
  };
}

/** MDCR MAP per candidate type, a bar per model (Table 4). */
export function candidateTypeChart(r: ResultsIndex): Chart | undefined {
  const m = r.mdcr;
  if (!m) return undefined;
  const models = paperOrder(Object.keys(m.results));
  const types = [...new Set(models.flatMap((x) => Object.keys(m.results[x].types)))];
  const values = models.flatMap((model) => types.filter((t) => m.results[model].types[t]).map((t) => ({ model, type: t, MAP: m.results[model].types[t].avg.map })));
  return {
    id: 'chart-types', title: 'MDCR candidate types', caption: 'MDCR: MAP of each model when a query\'s candidates are its positives plus one type of negatives (AVG over fields). Lower bars: harder negatives.',
    spec: {
      ...base('MDCR: MAP per candidate type'),
      data: { values },
      width: Math.max(260, 70 * types.length), height: 200,
      mark: { type: 'bar', stroke: 'black', strokeWidth: 0.5 },
      encoding: {
        x: { field: 'type', type: 'nominal', sort: types, title: 'candidate type', axis: { labelAngle: 0 } },
        xOffset: { field: 'model', type: 'nominal', sort: models },
        y: { field: 'MAP', type: 'quantitative', title: 'MAP ×100', scale: { domain: [0, 100] } },
        color: { field: 'model', type: 'nominal', sort: models, scale: { scheme: 'greys' }, title: 'model' },
      },
    },
  };
}

/**
 * One tuned model's validation score over its grid, the chosen point outlined: a heat map over two parameters
 * (e.g. BM25's k1 × b), bars over one (e.g. a Profiler's β) or over the grid's points when it has more.
 */
export function tuningChart(t: TuningRecord): Chart {
  const names = Object.keys(t.params);
  const isChosen = (p: Record<string, number>) => names.every((n) => p[n] === t.chosen[n]);
  const point = (p: Record<string, number>) => paramsText(p);
  const values = t.grid.map((g) => ({ ...g.params, point: point(g.params), score: Math.round(10000 * g.score) / 100, chosen: isChosen(g.params) }));
  const id = `chart-tuning-${t.model.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const where = `${t.queries} validation queries, pool ${poolLabel(t.poolSize)}`;
  const caption = `${t.model}: validation ${t.measure} ×100 over ${names.join(' × ')} (${where}); the chosen ${names.map((n) => `${n} ${t.chosen[n]}`).join(', ')} outlined.`;
  const text = { mark: { type: 'text', fontSize: 10 } };
  if (names.length === 2) {
    const [xName, yName] = names;
    const xs = [...new Set(t.grid.map((g) => g.params[xName]))].sort((a, b) => a - b);
    const ys = [...new Set(t.grid.map((g) => g.params[yName]))].sort((a, b) => b - a);
    const enc = { x: { field: xName, type: 'ordinal', sort: xs, axis: { labelAngle: 0 } }, y: { field: yName, type: 'ordinal', sort: ys } };
    return {
      id, title: `Tuning grid of ${t.model}`, caption,
      spec: {
        ...base(`Tuning: ${t.model} (${t.measure} ×100)`),
        data: { values },
        width: Math.max(160, 44 * xs.length), height: Math.max(100, 28 * ys.length),
        layer: [
          { mark: 'rect', encoding: { ...enc, color: { field: 'score', type: 'quantitative', scale: { zero: false, range: ['#f7fbff', '#6baed6'] }, title: t.measure } } },
          { mark: { type: 'rect', fill: null, stroke: 'black', strokeWidth: 3 }, transform: [{ filter: 'datum.chosen' }], encoding: enc },
          { ...text, encoding: { ...enc, text: { field: 'score', type: 'quantitative', format: '.2f' }, color: { value: 'black' } } },
        ],
      },
    };
  }
  // One parameter: its values in order; more than two: the grid's points in grid order.
  const x = names.length === 1 ? { field: names[0], type: 'ordinal', sort: [...t.params[names[0]]].sort((a, b) => a - b), axis: { labelAngle: 0 } } : { field: 'point', type: 'ordinal', sort: values.map((v) => v.point), title: names.join(', '), axis: { labelAngle: -30 } };
  const y = { field: 'score', type: 'quantitative', scale: { zero: false }, title: `${t.measure} ×100` };
  return {
    id, title: `Tuning grid of ${t.model}`, caption,
    spec: {
      ...base(`Tuning: ${t.model} (${t.measure} ×100)`),
      data: { values },
      width: Math.max(160, 40 * values.length), height: 140,
      layer: [
        { mark: { type: 'bar', color: '#9ecae1' }, encoding: { x, y } },
        { mark: { type: 'bar', fill: null, stroke: 'black', strokeWidth: 2 }, transform: [{ filter: 'datum.chosen' }], encoding: { x, y } },
        { ...text, mark: { type: 'text', fontSize: 10, dy: -6 }, encoding: { x, y, text: { field: 'score', type: 'quantitative', format: '.2f' } } },
      ],
    },
  };
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

/** Every chart the results support, in report order. */
export function reportCharts(r: ResultsIndex): Chart[] {
  return [poolSizeChart(r), settingsChart(r), fieldHeatmap(r), candidateTypeChart(r), ...r.tuning.map(tuningChart), sliceChart(r, OKABE_ITO)].filter((c): c is Chart => !!c);
}

type VegaModule = typeof import('vega');
type VegaLiteModule = typeof import('vega-lite');
let modules: Promise<[VegaModule, VegaLiteModule]> | undefined;

/** Versions of the chart libraries (for the report's metadata). */
export async function vegaVersions(): Promise<{ vega: string; 'vega-lite': string }> {
  modules ??= Promise.all([import('vega'), import('vega-lite')]);
  const [vega, vl] = await modules;
  return { vega: vega.version, 'vega-lite': vl.version };
}

/**
 * SVG of a vega-lite spec. Element ids get `idPrefix` so several charts can sit inline in one HTML page
 * without their clip paths and gradients colliding.
 */
export async function chartSvg(spec: ChartSpec, idPrefix = 'c'): Promise<string> {
  modules ??= Promise.all([import('vega'), import('vega-lite')]);
  const [vega, vl] = await modules;
  const compiled = vl.compile(spec as unknown as Parameters<VegaLiteModule['compile']>[0]).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    const svg = await view.toSVG();
    return svg.replace(/\bid="([^"]+)"/g, `id="${idPrefix}-$1"`).replace(/url\(#([^)]+)\)/g, `url(#${idPrefix}-$1)`);
  } finally {
    view.finalize();
  }
}
