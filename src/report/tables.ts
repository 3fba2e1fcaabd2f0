/**
 * The report's tables before they are rendered — our result tables (report-tables.ts builds them from a results
 * folder, mdcr-tables.ts from MDCR evaluations) and the paper's own — and their Markdown rendering. html.ts
 * renders the same objects as HTML, so the Markdown and the HTML report print one set of tables.
 */
import { FIELDS, FIELD_ABBREV } from '../corpus/fields.ts';
import type { PaperNumbers } from './paper-numbers.ts';
import { SIGNIFICANCE_ALPHA, type SignificanceRow } from './results.ts';
import { adjustedP, adjustedRandP, type MarkedBaseline } from './significance.ts';

export function poolLabel(n: number): string {
  if (n >= 1_000_000 && n % 1_000_000 === 0) return `${n / 1_000_000}M`;
  if (n >= 1000 && n % 1000 === 0) return `${n / 1000}k`;
  return String(n);
}

export interface ValueCell {
  kind: 'value';
  /** Display units (×100 for fractions; MDCR is already ×100). Undefined: no value (printed as –). */
  value?: number;
  /** Standard deviation over repeats, display units; undefined when not applicable. */
  sd?: number;
  repeats?: number;
  paper?: number;
  /** results.json's stored tests of this cell, one per baseline, each with its marks (report/significance.ts). */
  sig?: MarkedRow[];
  best?: boolean;
  /** Letter group of the all-pairs test (compact letter display), printed as a superscript beside the value. */
  letters?: string;
}
export interface TextCell {
  kind: 'text';
  text: string;
  /** A number printed as text (right-aligned, like values). */
  num?: boolean;
}
export type TableCell = ValueCell | TextCell;

export interface TableRow {
  label: string;
  /** Shown with the label, e.g. "random weights". */
  note?: string;
  cells: TableCell[];
}

export interface ReportTable {
  /** Anchor and file-safe id: table1, table1-inductive, significance … */
  id: string;
  /** The paper's table number, for our version of one of its tables (absent: a table of our own). */
  number?: number;
  title: string;
  /** One paragraph above the table (plain text), true whichever way it is rendered. */
  intro: string;
  /** Where the paper's values in the cells come from (the HTML prints them there; Markdown prints the paper's table). */
  paperNote?: string;
  /** Optional first header row of spanning groups (e.g. pool sizes); `short` heads Markdown columns ("4k MAP"). */
  groups?: { text: string; span: number; short?: string }[];
  /** Header of every value column (after the row-label column). */
  columns: string[];
  rowHead: string;
  rows: TableRow[];
  /** True for tables of the paper's numbers only (5, 6). */
  paperOnly?: boolean;
  /** No legend of value cells under it (tables of text and p-values). */
  plain?: boolean;
  /** The setting its numbers come from when it is not the paper's (transductive). */
  setting?: 'inductive';
}

/** "Table 1 — Dataset level (§3.1)", or the title alone for a table of our own. */
export const tableHeading = (t: ReportTable) => (t.number ? `Table ${t.number} — ${t.title}` : t.title);

/** A value with `digits` decimals, never "-0.0" (tests recompute the same strings). */
export function fmtValue(x: number, digits = 1): string {
  const p = 10 ** digits;
  return (Object.is(Math.round(x * p) / p, -0) ? 0 : x).toFixed(digits);
}

const mdText = (s: string) => s.replace(/\|/g, '\\|');

/** A stored test of a cell against one baseline and that baseline's marks (t-test, randomization test). */
export type MarkedRow = SignificanceRow & { marks: [string, string] };

/** The stored decisions of a cell against each baseline: its t-test mark and its randomization-test mark where the adjusted p (the record's correction, Holm by default) is below SIGNIFICANCE_ALPHA. */
export function sigMarks(rows: readonly MarkedRow[]): string {
  return rows.map((s) => `${adjustedP(s) < SIGNIFICANCE_ALPHA ? s.marks[0] : ''}${adjustedRandP(s) < SIGNIFICANCE_ALPHA ? s.marks[1] : ''}`).join('');
}

/** The baselines a table's cells are marked against, with their marks, in mark order. */
export function tableBaselines(t: ReportTable): MarkedBaseline[] {
  const seen = new Map<string, MarkedRow>();
  for (const r of t.rows) for (const c of r.cells) if (c.kind === 'value') for (const s of c.sig ?? []) if (!seen.has(s.baseline)) seen.set(s.baseline, s);
  return [...seen].map(([name, s]) => ({ name, marks: s.marks, correction: s.correction })).sort((a, b) => markRank(a.marks) - markRank(b.marks));
}

const markRank = (m: [string, string]) => ['*', '‡', '¶', '⁑'].indexOf(m[0]) + 1 || 5 + Number(m[0].slice(1));



/** The table as Markdown: one header row ("group column" heads), values with `digits` decimals (– where none) and their stored marks. */
export function tableMarkdown(t: ReportTable, opts: { digits?: number } = {}): string {
  const digits = opts.digits ?? 1;
  const group = t.groups?.flatMap((g) => Array<string>(g.span).fill(g.short ?? g.text)) ?? [];
  const head = [t.rowHead, ...t.columns.map((c, j) => (group[j] ? `${group[j]} ${c}` : c))].map(mdText);
  const cell = (c: TableCell) => (c.kind === 'text' ? mdText(c.text) : c.value === undefined || Number.isNaN(c.value) ? '–' : fmtValue(c.value, digits) + (c.sig ? sigMarks(c.sig) : '') + (c.letters ? `<sup>${c.letters}</sup>` : ''));
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i ? '---:' : '---')).join('|')}|`];
  for (const r of t.rows) lines.push(`| ${[mdText(r.note ? `${r.label} (${r.note})` : r.label), ...r.cells.map(cell)].join(' | ')} |`);
  return lines.join('\n');
}

/**
 * The paper's Table 1 in our layout: every model the paper reports, in the paper's order (or only `models`,
 * when given), for the sizes and measures given. Values as the paper prints them (one decimal).
 */
export function paperTable1Data(paper: PaperNumbers, sizes: string[], measures: string[], models?: string[]): ReportTable {
  const values = paper.table1_dataset_level.values as Record<string, Record<string, Record<string, number>> | undefined>;
  return {
    id: 'paper-table1', number: 1, title: 'Dataset level (§3.1), the paper\'s', paperOnly: true, rowHead: 'model (paper)',
    intro: `The paper's Table 1 (S2ORC, ${sizes.join('/')} pools, 3,800 queries):`,
    groups: sizes.map((s) => ({ text: s, span: measures.length })),
    columns: sizes.flatMap(() => measures),
    rows: (models ?? Object.keys(values)).filter((m) => values[m]).map((model) => ({
      label: model,
      cells: sizes.flatMap((s) => measures.map((m): ValueCell => ({ kind: 'value', value: values[model]![s]?.[m] }))),
    })),
  };
}

/** paperTable1Data as Markdown. */
export function paperTable1(paper: PaperNumbers, sizes: string[], measures: string[], models?: string[]): string {
  return tableMarkdown(paperTable1Data(paper, sizes, measures, models));
}

const ABBREVS = FIELDS.map((f) => FIELD_ABBREV[f]);
const printed = (v: number | undefined): ValueCell => ({ kind: 'value', value: v });

/** The paper's Table 2, 7 or 8 (models × 19 fields + AVG, as printed). */
export function paperFieldTableData(paper: PaperNumbers, n: 2 | 7 | 8): ReportTable {
  const key = ({ 2: 'table2_field_level_MAP', 7: 'table7_field_level_nDCG', 8: 'table8_field_level_R@30' } as const)[n];
  const p = paper[key] as Record<string, Record<string, number>>;
  return {
    id: `paper-table${n}`, number: n, title: 'the paper\'s', paperOnly: true, rowHead: 'model (paper)',
    intro: `The paper's Table ${n} (S2ORC, 200 queries per field, 100k pools):`,
    columns: [...ABBREVS, 'AVG'],
    rows: Object.keys(p).map((model) => ({ label: model, cells: [...ABBREVS, 'AVG'].map((a) => printed(p[model][a])) })),
  };
}

/** The paper's Tables 3 (fields × model MAP/R@5) and 4 (models × candidate type MAP/R@5), as printed. */
export function paperMdcrTablesData(paper: PaperNumbers): [ReportTable, ReportTable] {
  const metrics = ['MAP', 'R@5'] as const;
  const t3 = paper.table3_mdcr as unknown as Record<string, Record<string, Record<string, number>>>;
  const t4 = paper.table4_candidate_types as unknown as Record<string, Record<string, Record<string, number>>>;
  const m3 = Object.keys(t3);
  const m4 = Object.keys(t4);
  const types = Object.keys(t4[m4[0]]);
  return [{
    id: 'paper-table3', number: 3, title: 'the paper\'s', paperOnly: true, rowHead: 'field', intro: 'The paper\'s Table 3 (the published MDCR test split):',
    groups: m3.map((m) => ({ text: m, span: metrics.length })), columns: m3.flatMap(() => [...metrics]),
    rows: [...ABBREVS, 'AVG'].map((a) => ({ label: a, cells: m3.flatMap((m) => metrics.map((x) => printed(t3[m][a]?.[x]))) })),
  }, {
    id: 'paper-table4', number: 4, title: 'the paper\'s', paperOnly: true, rowHead: 'model (paper)', intro: 'The paper\'s Table 4:',
    groups: types.map((t) => ({ text: t, span: metrics.length })), columns: types.flatMap(() => [...metrics]),
    rows: m4.map((m) => ({ label: m, cells: types.flatMap((t) => metrics.map((x) => printed(t4[m][t]?.[x]))) })),
  }];
}
