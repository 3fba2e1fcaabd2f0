/**
 * The paired tests results.json stores (experiments/significance-stage.ts computes them once, at the end of
 * `citebench run`), as the report, the charts and the notebooks read them: the marks of Tables 1, 2, 7, 8 and
 * the rows of the table of the models beyond the paper. Nothing here tests anything, so a mark on the page is
 * the stored decision by construction.
 */
import { SIGNIFICANCE_FAMILY, type ResultsIndex, type SignificanceRecord, type SignificanceRow } from './results.ts';

/** The stored record, or undefined for a results.json of an older citebench (no record, or rows of the old shape). */
export function storedSignificance(r: Pick<ResultsIndex, 'significance'>): SignificanceRecord | undefined {
  const s = r.significance;
  return s && s.family === SIGNIFICANCE_FAMILY && Array.isArray(s.rows) ? s : undefined;
}

/** Said above a table that would carry marks when results.json holds no stored tests; undefined when it does. */
export function significanceNote(r: Pick<ResultsIndex, 'significance' | 'name'>): string | undefined {
  if (storedSignificance(r)) return undefined;
  return `No significance marks: this results.json was written by an older citebench, which did not store its paired tests; ` +
    `run \`citebench run\` on its config (${r.name}) again to add them (every cell is reused).`;
}

/** Key of one stored comparison. */
export const significanceKey = (x: Pick<SignificanceRow, 'protocol' | 'setting' | 'measure' | 'field' | 'poolSize' | 'model'>) =>
  `${x.protocol}|${x.setting}|${x.measure}|${x.field ?? ''}|${x.poolSize}|${x.model}`;

/** Every stored comparison by significanceKey (empty without a stored record). */
export function significanceRows(r: Pick<ResultsIndex, 'significance'>): Map<string, SignificanceRow> {
  return new Map((storedSignificance(r)?.rows ?? []).map((x) => [significanceKey(x), x]));
}

/** The stored dataset-level rows of the models beyond the paper: the significance table and chart. */
export function beyondPaperRows(r: Pick<ResultsIndex, 'significance'>): SignificanceRow[] {
  const beyond = new Set(storedSignificance(r)?.beyondPaper ?? []);
  return (storedSignificance(r)?.rows ?? []).filter((x) => x.protocol === 'dataset' && beyond.has(x.model));
}
