/**
 * The chart of the report's slices (statistics-tables.ts reportSlices): per query attribute, each model's mean
 * (×100) per group of queries with its 95 % t-interval as an error bar. Read from results.json; computes nothing.
 */
import type { ResultsIndex } from './results.ts';
import { reportSlices } from './statistics-tables.ts';
import { poolLabel } from './tables.ts';

const r1 = (x: number) => Math.round(x * 1000) / 10;

/** A chart as charts.ts's Chart (structurally: charts.ts imports this file, not the other way round). */
interface SliceChart {
  id: string;
  title: string;
  caption: string;
  spec: Record<string, unknown>;
}

/** `palette`: the report's model colours (charts.ts OKABE_ITO). */
export function sliceChart(r: ResultsIndex, palette: readonly string[]): SliceChart | undefined {
  const rows = reportSlices(r).filter((x) => x.ci95);
  if (!rows.length) return undefined;
  const { measure, poolSize, protocol } = rows[0];
  const models = [...new Set(rows.map((x) => x.model))];
  const attributes = [...new Set(rows.map((x) => x.attribute))];
  const panel = (attribute: string) => {
    const values = rows.filter((x) => x.attribute === attribute).map((x) => ({ slice: x.slice, model: x.model, n: x.queries, mean: r1(x.mean), lo: r1(x.ci95![0]), hi: r1(x.ci95![1]) }));
    const slices = [...new Set(values.map((v) => v.slice))];
    const x = { field: 'slice', type: 'nominal', sort: slices, title: attribute, axis: { labelAngle: slices.length > 8 ? -45 : 0, labelOverlap: true, labelLimit: 90 } };
    // Colour and shape tell the models apart (for more models than colours); one legend for both (same properties).
    const legend = { orient: 'bottom', columns: 4, labelLimit: 160 };
    const color = { field: 'model', type: 'nominal', sort: models, scale: { range: [...palette] }, legend };
    return {
      data: { values }, width: Math.max(160, 12 * slices.length * Math.min(models.length, 6)), height: 130,
      layer: [
        { mark: { type: 'rule' }, encoding: { x, xOffset: { field: 'model', type: 'nominal', sort: models }, y: { field: 'lo', type: 'quantitative', title: `${measure} ×100 (95 % CI)` }, y2: { field: 'hi' }, color } },
        { mark: { type: 'point', filled: true, size: 24 }, encoding: { x, xOffset: { field: 'model', type: 'nominal', sort: models }, y: { field: 'mean', type: 'quantitative' }, color, shape: { field: 'model', type: 'nominal', sort: models, legend }, tooltip: [{ field: 'model' }, { field: 'slice' }, { field: 'n' }, { field: 'mean' }, { field: 'lo' }, { field: 'hi' }] } },
      ],
    };
  };
  return {
    id: 'chart-slices', title: `${measure} per group of queries`,
    caption: `${measure} (×100) per group of test queries, ${protocol} level, ${poolLabel(poolSize)} pool: each model's mean over the group's queries (point) and its 95 % t-interval (bar); one panel per query attribute (the tables "${measure} by …").`,
    spec: {
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json', title: { text: `${measure} per group of queries`, anchor: 'start', fontSize: 13 }, background: 'white',
      config: { font: 'DejaVu Sans, Helvetica, Arial, sans-serif', view: { stroke: '#bbb' }, axis: { labelFontSize: 10, titleFontSize: 11 }, legend: { labelFontSize: 10, titleFontSize: 11 } },
      vconcat: attributes.map(panel), resolve: { scale: { color: 'shared', shape: 'shared', x: 'independent', xOffset: 'independent' } },
    },
  };
}
