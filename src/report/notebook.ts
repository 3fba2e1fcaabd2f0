/**
 * Notebook helpers: one table as HTML (with its own CSS) or one chart as SVG, for tslab's
 * `require('tslab').display.html(...)`. They read a results folder of `citebench run`, like `citebench report`.
 */
import { candidateTypeChart, chartSvg, fieldHeatmap, jaccardChart, poolSizeChart, settingsChart, significanceChart, tuningChart, type Chart } from './charts.ts';
import { TABLE_CSS, esc, legendOf, tableHtml } from './html.ts';
import { loadPaperNumbers } from './paper-numbers.ts';
import { buildTables } from './report-tables.ts';
import { readResults, type ResultsIndex } from './results.ts';
import { CitebenchError } from '../util/errors.ts';

// Jupyter Notebook's Bootstrap styles `.label` as a white-on-grey badge: the row labels would vanish.
const NOTEBOOK_TABLE_CSS = '\n.citebench table.rt .label { color: inherit; background: none; font-size: inherit; font-weight: inherit; padding: 0; display: inline; }';

/** Table `n` (1–8, the paper's numbering) of a results folder as an HTML fragment. */
export function reportTableHtml(resultsDir: string, n: number): string {
  const r = readResults(resultsDir);
  const t = buildTables(r, loadPaperNumbers()).find((x) => x.number === n);
  if (!t) throw new CitebenchError(`${resultsDir}: no Table ${n} in these results (Tables 1/2/7/8 need the dataset or field level, 3/4 MDCR)`);
  return `<div class="citebench"><style>${TABLE_CSS}${NOTEBOOK_TABLE_CSS}</style><p><b>Table ${t.number} — ${esc(t.title)}</b></p>${tableHtml(t)}${t.paperOnly ? '' : `<p style="font-size:11px;color:#555">${esc(legendOf(t))}</p>`}</div>`;
}

export type ChartName = 'pool' | 'settings' | 'fields' | 'types' | 'tuning' | 'jaccard' | 'significance';

/** One chart of a results index: pool (metric vs pool size), settings (both settings), fields (heat map), types (MDCR), tuning, jaccard (MDCR build), significance (Δ vs BM25). */
export function reportChart(r: ResultsIndex, name: ChartName, opts: { measure?: string; model?: string } = {}, where = 'these results'): Chart {
  let c: Chart | undefined;
  if (name === 'pool') c = poolSizeChart(r);
  else if (name === 'settings') c = settingsChart(r);
  else if (name === 'fields') c = fieldHeatmap(r, opts.measure);
  else if (name === 'types') c = candidateTypeChart(r);
  else if (name === 'jaccard') c = jaccardChart(r);
  else if (name === 'significance') c = significanceChart(r);
  else if (name === 'tuning') {
    const t = opts.model ? r.tuning.find((x) => x.model === opts.model) : r.tuning[0];
    c = t && tuningChart(t);
  } else throw new CitebenchError(`unknown chart '${name}': pool, settings, fields, types, tuning, jaccard or significance`);
  if (!c) throw new CitebenchError(`${where}: no data for the '${name}' chart`);
  return c;
}

/** One chart of a results folder as SVG (see reportChart). */
export async function reportChartSvg(resultsDir: string, name: ChartName, opts: { measure?: string; model?: string } = {}): Promise<string> {
  const c = reportChart(readResults(resultsDir), name, opts, resultsDir);
  return chartSvg(c.spec, c.id);
}
