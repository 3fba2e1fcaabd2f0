/**
 * The paired tests results.json stores (experiments/significance-stage.ts computes them once, at the end of
 * `citebench run`), as the report, the charts and the notebooks read them: the marks of Tables 1, 2, 7, 8 and
 * the rows of the table of the models beyond the paper. Nothing here tests anything, so a mark on the page is
 * the stored decision by construction.
 */
import type { Correction } from '../eval/statistics.ts';
import { SIGNIFICANCE_ALPHA, SIGNIFICANCE_FAMILY, type ResultsIndex, type SignificanceRecord, type SignificanceRow } from './results.ts';

/** A row's t-test p adjusted by its record's correction (an older record: Holm's). */
export const adjustedP = (x: Pick<SignificanceRow, 'pHolm' | 'pAdjusted'>) => x.pAdjusted ?? x.pHolm;
/** A row's randomization-test p adjusted by its record's correction (an older record: Holm's). */
export const adjustedRandP = (x: Pick<SignificanceRow, 'pRandomizationHolm' | 'pRandomizationAdjusted'>) => x.pRandomizationAdjusted ?? x.pRandomizationHolm;
/** How a legend says the correction: "Holm-corrected", "Bonferroni-corrected", "Benjamini–Hochberg-adjusted", "not corrected". */
export function correctionWords(c: Correction | undefined): string {
  return { holm: 'Holm-corrected', bonferroni: 'Bonferroni-corrected', bh: 'Benjamini–Hochberg-adjusted (false discovery rate)', none: 'not corrected' }[c ?? 'holm'];
}

/** The correction's short name (a tooltip, a column head): "Holm", "Bonferroni", "BH", "uncorrected". */
export function correctionName(c: Correction | undefined): string {
  return { holm: 'Holm', bonferroni: 'Bonferroni', bh: 'BH', none: 'uncorrected' }[c ?? 'holm'];
}

/** A baseline of a table's marks, as its legend names it. */
export interface MarkedBaseline {
  name: string;
  marks: [string, string];
  correction?: Correction;
}

/** One baseline's two marks in words: "* paired t-test, † paired randomization test against bm25" (`quote` around each mark). */
export const testsAgainst = (b: MarkedBaseline, quote = ''): string =>
  `${quote}${b.marks[0]}${quote} paired t-test, ${quote}${b.marks[1]}${quote} paired randomization test against ${b.name}`;

/**
 * The legend of a table's significance marks, one sentence each renderer formats: `head`, the baselines' marks
 * (`each`, joined by `sep`), what was tested (`test`, where the marks stand for one test), the averaging, the
 * correction and its family, `p` (default "p < α"), `tail`. `text` escapes prose for the format.
 */
export function marksLegend(
  baselines: readonly MarkedBaseline[],
  f: { head: string; each: (b: MarkedBaseline, i: number) => string; sep: string; test?: string; repeats?: string; p?: string; tail: string; text?: (s: string) => string },
): string {
  const text = f.text ?? ((s: string) => s);
  return `${f.head}${baselines.map(f.each).join(f.sep)} (${f.test ? `${f.test}, ` : ''}per-query values averaged over ${f.repeats ?? 'repeats'}), ` +
    `${text(correctionWords(baselines[0]?.correction))} over the comparisons of one measure in the table${baselines.length > 1 ? ' against one baseline' : ''}, ${f.p ?? `p < ${SIGNIFICANCE_ALPHA}`}${f.tail}`;
}

/** The stored record, or undefined for a results.json of an older citebench (no record, or rows of an unknown shape). */
export function storedSignificance(r: Pick<ResultsIndex, 'significance'>): SignificanceRecord | undefined {
  const s = r.significance;
  return s && s.family === SIGNIFICANCE_FAMILY && Array.isArray(s.rows) && Array.isArray(s.baselines) ? s : undefined;
}

/** Said above a table that would carry marks when results.json holds no stored tests; undefined when it does. */
export function significanceNote(r: Pick<ResultsIndex, 'significance' | 'name'>): string | undefined {
  if (storedSignificance(r)) return undefined;
  return `No significance marks: this results.json was written by an older citebench, which did not store its paired tests; ` +
    `run \`citebench run\` on its config (${r.name}) again to add them (every cell is reused).`;
}

/** Key of one table cell's comparisons (one row per baseline). */
export const significanceKey = (x: Pick<SignificanceRow, 'protocol' | 'setting' | 'measure' | 'field' | 'poolSize' | 'model'>) =>
  `${x.protocol}|${x.setting}|${x.measure}|${x.field ?? ''}|${x.poolSize}|${x.model}`;

/** Every stored comparison by significanceKey: a cell's rows, one per baseline in the record's order (empty without a record). */
export function significanceRows(r: Pick<ResultsIndex, 'significance'>): Map<string, SignificanceRow[]> {
  const s = storedSignificance(r);
  const out = new Map<string, SignificanceRow[]>();
  for (const b of s?.baselines ?? []) {
    for (const x of s!.rows) {
      if (x.baseline !== b) continue;
      const k = significanceKey(x);
      out.set(k, [...(out.get(k) ?? []), x]);
    }
  }
  return out;
}

/** The marks of the n-th baseline (0-based): * † for the first, ‡ § for the second, then ¶ # and ⁑ ‖, then numbered. */
export function markPair(n: number): [string, string] {
  const pairs: [string, string][] = [['*', '†'], ['‡', '§'], ['¶', '#'], ['⁑', '‖']];
  return pairs[n] ?? [`*${n + 1}`, `†${n + 1}`];
}

/** The stored dataset-level rows of the models beyond the paper against the first baseline: the significance table and chart. */
export function beyondPaperRows(r: Pick<ResultsIndex, 'significance'>): SignificanceRow[] {
  const s = storedSignificance(r);
  const beyond = new Set(s?.beyondPaper ?? []);
  return (s?.rows ?? []).filter((x) => x.protocol === 'dataset' && beyond.has(x.model) && x.baseline === s!.baselines[0]);
}
