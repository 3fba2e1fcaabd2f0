/**
 * Cost beside quality: each model's time per query (first stage, fusion, re-scoring apart) and pairs re-scored per
 * second, measured when its cells were computed (timings.json, kept apart from results.json so results stay
 * byte-identical), against its quality at the dataset level's largest pool: "is the reranker worth it", answered
 * on the page. Times are of the machine and load the cells ran on; a cell read back from the cache keeps the cost
 * measured when it was computed, and cells computed by cluster workers have none.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { abbreviated, base, HTML_FONT, HTML_WIDTH, modelLegend, modelScales, shortNames, type Chart, type ChartLayout } from './charts.ts';
import { noteOf, paperOrder } from './report-tables.ts';
import { meanOverRepeats, type CellCost, type ResultsIndex, type TimingsRecord } from './results.ts';
import { fmtValue, poolLabel, type ReportTable, type TextCell } from './tables.ts';

/** The stages in the order a pipeline runs them. */
const STAGES = ['first stage', 'fusion', 're-scoring'] as const;

/** timings.json of a results folder, or undefined (absent, torn or of an older version). */
export function readTimings(dir: string): TimingsRecord | undefined {
  const p = join(dir, 'timings.json');
  if (!existsSync(p)) return undefined;
  try {
    const t = JSON.parse(readFileSync(p, 'utf8')) as TimingsRecord;
    return t && typeof t.seconds === 'object' ? t : undefined;
  } catch {
    return undefined;
  }
}

export interface ModelCost {
  model: string;
  pool: number;
  measure: string;
  /** The measure ×100, mean over the pool's repeats. */
  quality: number;
  queries: number;
  /** Seconds per query by stage, and in all. */
  perQuery: Record<string, number>;
  total: number;
  /** (query, candidate) pairs re-scored per second of re-scoring; undefined where none were. */
  pairsPerSecond?: number;
}

/** Each model's cost and quality at the dataset level's largest pool (transductive), where its cells have costs. */
export function modelCosts(r: ResultsIndex, t: TimingsRecord | undefined): ModelCost[] {
  if (!t?.cells) return [];
  const cells = r.cells.filter((c) => c.protocol === 'dataset' && c.split === 'test' && !c.setting);
  if (!cells.length) return [];
  const pool = Math.max(...cells.map((c) => c.poolSize));
  const measure = r.measures[0];
  const means = meanOverRepeats(cells.filter((c) => c.poolSize === pool));
  const out: ModelCost[] = [];
  for (const model of paperOrder([...new Set(cells.map((c) => c.model))])) {
    const costs = cells.filter((c) => c.model === model && c.poolSize === pool).map((c) => t.cells![c.file]).filter((c): c is CellCost => !!c);
    const m = means.find((x) => x.model === model);
    if (!costs.length || !m) continue;
    const queries = costs.reduce((s, c) => s + c.queries, 0);
    const seconds: Record<string, number> = {};
    for (const c of costs) for (const [k, v] of Object.entries(c.seconds)) seconds[k] = (seconds[k] ?? 0) + v;
    const perQuery = Object.fromEntries(Object.entries(seconds).map(([k, v]) => [k, v / queries]));
    const pairs = costs.reduce((s, c) => s + c.pairs, 0);
    out.push({
      model, pool, measure, quality: 100 * m.means[measure], queries, perQuery, total: Object.values(perQuery).reduce((a, b) => a + b, 0),
      ...(pairs && seconds['re-scoring'] ? { pairsPerSecond: pairs / seconds['re-scoring'] } : {}),
    });
  }
  return out;
}

const ms = (s: number | undefined) => (s === undefined ? '–' : s * 1000 >= 100 ? (s * 1000).toFixed(0) : s * 1000 >= 1 ? (s * 1000).toFixed(1) : (s * 1000).toFixed(3));

export function costTable(r: ResultsIndex, t: TimingsRecord | undefined): ReportTable | undefined {
  const rows = modelCosts(r, t);
  if (!rows.length) return undefined;
  const num = (text: string): TextCell => ({ kind: 'text', text, num: true });
  const { pool, measure } = rows[0];
  const stages = STAGES.filter((s) => rows.some((x) => x.perQuery[s] !== undefined));
  return {
    id: 'cost', title: 'Cost beside quality', rowHead: 'model', plain: true,
    intro: `Each model's ${measure} (×100) at the dataset level's ${poolLabel(pool)} pool beside the time it spent per query when its cells were computed ` +
      `(milliseconds; ${stages.join(', ')} apart) and the (query, candidate) pairs it re-scored per second. Times are of the machine and load ` +
      'the cells ran on (timings.json); a cell read back from the cache keeps the time measured when it was computed.',
    columns: [measure, ...stages.map((s) => `${s} ms/q`), 'total ms/q', 'pairs/s'],
    rows: rows.map((x) => ({
      label: x.model,
      note: noteOf(r, x.model),
      cells: [num(fmtValue(x.quality)), ...stages.map((s) => num(ms(x.perQuery[s]))), num(ms(x.total)), num(x.pairsPerSecond === undefined ? '–' : x.pairsPerSecond.toFixed(1))],
    })),
  };
}

/** Quality against time per query (log scale), one point per model, laid out per width as the report's charts are. */
export function costChart(r: ResultsIndex, t: TimingsRecord | undefined): Chart | undefined {
  const rows = modelCosts(r, t);
  if (!rows.length) return undefined;
  const { pool, measure } = rows[0];
  const short = shortNames(rows.map((x) => x.model));
  const models = rows.map((x) => short.get(x.model)!);
  const values = rows.map((x) => ({ model: short.get(x.model)!, ms: Math.max(1e-3, x.total * 1000), quality: Math.round(x.quality * 10) / 10 }));
  // Whole decades around the points, ticks at 1, 3, 10…: a log axis whose labels never crowd.
  const lo = 10 ** Math.floor(Math.log10(Math.min(...values.map((v) => v.ms))));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...values.map((v) => v.ms)) * 1.0001));
  const ticks: number[] = [];
  for (let d = lo; d <= hi * 1.0001; d *= 10) ticks.push(d, 3 * d);
  const layout: ChartLayout = (width, font, plot) => {
    const scales = modelScales(models);
    const model = (ch: 'color' | 'shape') => ({ field: 'model', type: 'nominal', sort: models, title: 'model', scale: scales[ch], legend: modelLegend(models, width, font) });
    return {
      ...base(`Quality against time per query (${poolLabel(pool)} pool)`, font),
      data: { values }, width: plot, height: Math.round(Math.min(200, Math.max(110, 0.7 * plot))),
      mark: { type: 'point', filled: true, size: font * 5, stroke: '#222', strokeWidth: 0.4, opacity: 1 },
      encoding: {
        x: { field: 'ms', type: 'quantitative', scale: { type: 'log', domain: [lo, hi] }, axis: { values: ticks.filter((v) => v <= hi), format: '~g', labelOverlap: false, labelFlush: false }, title: 'ms per query (log scale)' },
        y: { field: 'quality', type: 'quantitative', scale: { zero: false, padding: 2 * font }, axis: { tickCount: 4 }, title: `${measure} ×100` },
        color: model('color'), shape: model('shape'),
      },
    };
  };
  return {
    id: 'chart-cost', title: 'Quality against time per query',
    caption: `Dataset level, ${poolLabel(pool)} pool: each model's ${measure} (×100) against the milliseconds it spent per query (all stages, log scale), as measured when its cells were computed (timings.json).`,
    spec: layout(HTML_WIDTH, HTML_FONT, Math.min(420, HTML_WIDTH - 90)), layout, abbreviations: abbreviated(short),
  };
}
