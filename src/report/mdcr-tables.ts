/**
 * Markdown versions of the paper's MDCR tables from `evaluateMdcr` results:
 *  - Table 3: rows = fields (paper abbreviations, Table 5 order) + AVG, columns = model × {MAP, R@5};
 *  - Table 4: rows = models, columns = candidate type × {MAP, R@5}, each the AVG over fields of the
 *    evaluation on 5 positives + that type's negatives.
 * Values are evaluate.py's (×100, 4 dp), printed with `digits` decimals (paper: 1).
 */
import { FIELDS, FIELD_ABBREV, type Field } from '../corpus/fields.ts';
import type { MdcrFieldResult, MdcrResult } from '../eval/mdcr.ts';

/** What a table needs of an evaluation: AVG and per-field values (an MdcrResult, or its summary in results.json). */
export type MdcrValues = Pick<MdcrResult, 'avg'> & { fields: Pick<MdcrFieldResult, 'field' | 'values'>[] };

export interface ModelMdcr {
  model: string;
  result: MdcrValues;
}

export interface ModelMdcrByType {
  model: string;
  /** Candidate type → result of evaluating 5 positives + that type's negatives. */
  byType: Record<string, MdcrValues>;
}

const fmt = (x: number | undefined, digits: number) => (x === undefined ? '–' : x.toFixed(digits));

/** Paper Table 3 (per-field MAP and R@5 of each model). Fields any result has, in the paper's order. */
export function mdcrTable3(models: ModelMdcr[], opts: { digits?: number } = {}): string {
  const digits = opts.digits ?? 1;
  const present = new Set(models.flatMap((m) => m.result.fields.map((f) => f.field)));
  const fields = FIELDS.filter((f) => present.has(f));
  const head = ['Field', ...models.flatMap((m) => [`${m.model} MAP`, `${m.model} R@5`])];
  const rows = fields.map((f: Field) => [
    FIELD_ABBREV[f],
    ...models.flatMap((m) => {
      const r = m.result.fields.find((x) => x.field === f);
      return [fmt(r?.values.map, digits), fmt(r?.values.recall_5, digits)];
    }),
  ]);
  rows.push(['AVG', ...models.flatMap((m) => [fmt(m.result.avg.map, digits), fmt(m.result.avg.recall_5, digits)])]);
  return markdown(head, rows);
}

/** Paper Table 4 (per candidate type, AVG over fields). Types in the order first met over the models. */
export function mdcrTable4(models: ModelMdcrByType[], opts: { digits?: number; types?: string[] } = {}): string {
  const digits = opts.digits ?? 1;
  const types = opts.types ?? [...new Set(models.flatMap((m) => Object.keys(m.byType)))];
  const head = ['Model', ...types.flatMap((t) => [`${t} MAP`, `${t} R@5`])];
  const rows = models.map((m) => [
    m.model,
    ...types.flatMap((t) => {
      const r = m.byType[t];
      return [fmt(r?.avg.map, digits), fmt(r?.avg.recall_5, digits)];
    }),
  ]);
  return markdown(head, rows);
}

function markdown(head: string[], rows: string[][]): string {
  const align = head.map((_, i) => (i === 0 ? ':---' : '---:'));
  return [head, align, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n') + '\n';
}
