/**
 * The paper's MDCR tables from `evaluateMdcr` results, as report tables (tables.ts):
 *  - Table 3: rows = fields (paper abbreviations, Table 5 order) + AVG, columns = model × {MAP, R@5};
 *  - Table 4: rows = models, columns = candidate type × {MAP, R@5}, each the AVG over fields of the
 *    evaluation on 5 positives + that type's negatives.
 * Values are evaluate.py's (×100, 4 dp). The report adds the paper's values (report-tables.ts); `citebench mdcr
 * tables` prints them as Markdown with `digits` decimals (paper: 1).
 */
import { fieldAbbrev, schemeFields, schemeOfNames } from '../corpus/fields.ts';
import type { MdcrFieldResult, MdcrResult } from '../eval/mdcr.ts';
import { tableMarkdown, type ReportTable, type ValueCell } from './tables.ts';

/** What a table needs of an evaluation: AVG and per-field values (an MdcrResult, or its summary in results.json). */
export type MdcrValues = Pick<MdcrResult, 'avg'> & { fields: Pick<MdcrFieldResult, 'field' | 'values'>[] };

export interface ModelMdcr {
  model: string;
  /** Shown with the model's name, e.g. "random weights". */
  note?: string;
  result: MdcrValues;
}

export interface ModelMdcrByType {
  model: string;
  note?: string;
  /** Candidate type → result of evaluating 5 positives + that type's negatives. */
  byType: Record<string, MdcrValues>;
}

/** MAP and R@5: the measures of the paper's MDCR tables (evaluate.py's keys, printed names). */
export const MDCR_METRICS = [['map', 'MAP'], ['recall_5', 'R@5']] as const;

const named = (m: { model: string; note?: string }) => (m.note ? `${m.model} (${m.note})` : m.model);

/** Paper Table 3 (per-field MAP and R@5 of each model). Fields any result has, in their scheme's order (MAG's: the paper's). */
export function mdcrTable3Data(models: ModelMdcr[]): ReportTable {
  const present = new Set(models.flatMap((m) => m.result.fields.map((f) => f.field)));
  const fields = schemeFields(schemeOfNames(present)).filter((f) => present.has(f));
  const row = (label: string, values: (m: ModelMdcr) => Record<string, number> | undefined) => ({
    label,
    cells: models.flatMap((m) => MDCR_METRICS.map(([k]): ValueCell => ({ kind: 'value', value: values(m)?.[k] }))),
  });
  return {
    id: 'table3', number: 3, title: 'MDCR (§4.3)', rowHead: 'field', intro: 'MDCR per field (evaluate.py\'s values ×100).',
    groups: models.map((m) => ({ text: named(m), span: MDCR_METRICS.length })),
    columns: models.flatMap(() => MDCR_METRICS.map(([, n]) => n)),
    rows: [
      ...fields.map((f) => row(fieldAbbrev(f), (m) => m.result.fields.find((x) => x.field === f)?.values)),
      row('AVG', (m) => m.result.avg),
    ],
  };
}

/** Paper Table 4 (per candidate type, AVG over fields). Types in the order first met over the models. */
export function mdcrTable4Data(models: ModelMdcrByType[], types?: string[]): ReportTable {
  const ts = types ?? [...new Set(models.flatMap((m) => Object.keys(m.byType)))];
  return {
    id: 'table4', number: 4, title: 'MDCR candidate types (§4.4)', rowHead: 'model', intro: 'MDCR per candidate type, AVG over fields (evaluate.py\'s values ×100).',
    groups: ts.map((t) => ({ text: t, span: MDCR_METRICS.length })),
    columns: ts.flatMap(() => MDCR_METRICS.map(([, n]) => n)),
    rows: models.map((m) => ({
      label: m.model, note: m.note,
      cells: ts.flatMap((t) => MDCR_METRICS.map(([k]): ValueCell => ({ kind: 'value', value: m.byType[t]?.avg[k] }))),
    })),
  };
}

/** Table 3 as Markdown. */
export function mdcrTable3(models: ModelMdcr[], opts: { digits?: number } = {}): string {
  return tableMarkdown(mdcrTable3Data(models), opts) + '\n';
}

/** Table 4 as Markdown. */
export function mdcrTable4(models: ModelMdcrByType[], opts: { digits?: number; types?: string[] } = {}): string {
  return tableMarkdown(mdcrTable4Data(models, opts.types), opts) + '\n';
}
