/**
 * Markdown versions of the paper's MDCR tables from `evaluateMdcr` results:
 *  - Table 3: rows = fields (paper abbreviations, Table 5 order) + AVG, columns = model × {MAP, R@5};
 *  - Table 4: rows = models, columns = candidate type × {MAP, R@5}, each the AVG over fields of the
 *    evaluation on 5 positives + that type's negatives.
 * Values are evaluate.py's (×100, 4 dp), printed with `digits` decimals (paper: 1).
 * Also, as records for a data frame, the MDCR build's candidate counts (mdcr_build_report.json) and one query's
 * candidates with their scores.
 */
import { FIELDS, FIELD_ABBREV, type Field } from '../corpus/fields.ts';
import { join } from 'node:path';
import { readJsonFile, type MdcrFieldResult, type MdcrResult } from '../eval/mdcr.ts';
import { readMdcrData } from '../retrieval/mdcr-score.ts';
import { CitebenchError } from '../util/errors.ts';
import type { MdcrRecord } from './results.ts';

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

/** What the MDCR build drew, per split and candidate type (mdcr/mdcr_build_report.json): got, and how many were short. */
export function mdcrBuildCounts(resultsDir: string, m: Pick<MdcrRecord, 'files'>): Record<string, string | number>[] {
  const path = join(resultsDir, m.files.report ?? 'mdcr/mdcr_build_report.json');
  const rep = readJsonFile(path) as Record<string, { counts?: { queries: number; pairs: number; perType: Record<string, { got: number; short: number; shortQueries: number }> } }>;
  const out: Record<string, string | number>[] = [];
  for (const split of ['test', 'val']) {
    const c = rep?.[split]?.counts;
    if (!c || typeof c.perType !== 'object') throw new CitebenchError(`${path}: no ${split}.counts.perType (not an MDCR build report of citebench)`);
    for (const [type, t] of Object.entries(c.perType)) {
      out.push({ split, type: type === 'true' ? 'true (positives)' : type, queries: c.queries, candidates: t.got, missing: t.short, 'queries short': t.shortQueries });
    }
  }
  return out;
}

/**
 * One MDCR query's candidates as the benchmark files hold them (mdcr_<split>.json and its data jsonl): each
 * candidate's type (`true` = a cited positive), paper id and title, and the score every evaluated model gave the
 * pair (mdcr/scores/<model>.json; test split only). Default: the first query of the first field.
 */
export function mdcrCandidates(resultsDir: string, m: Pick<MdcrRecord, 'files'>, opts: { split?: 'test' | 'val'; field?: string; query?: string } = {}): Record<string, string | number | null>[] {
  const split = opts.split ?? 'test';
  const benchPath = join(resultsDir, m.files[split] ?? `mdcr/mdcr_${split}.json`);
  const bench = readJsonFile(benchPath) as Record<string, Record<string, Record<string, string[]>>>;
  const field = opts.field ? FIELDS.find((f) => f === opts.field || FIELD_ABBREV[f] === opts.field) ?? opts.field : Object.keys(bench)[0];
  const queries = bench[field];
  if (!queries) throw new CitebenchError(`${benchPath}: no field '${field}' (has ${Object.keys(bench).join(', ')})`);
  const query = opts.query ?? Object.keys(queries)[0];
  const lists = queries[query];
  if (!lists) throw new CitebenchError(`${benchPath}: no query '${query}' in ${field}`);
  const data = readMdcrData(join(resultsDir, m.files[`${split}_data`] ?? `mdcr/mdcr_${split}_data.jsonl`));
  const title = (id: string) => {
    const i = data.indexOf.get(id);
    return i === undefined ? null : data.texts.text(i).title;
  };
  const scores = split === 'test'
    ? Object.entries(m.files).filter(([k]) => k.startsWith('scores_')).map(([k, f]) => [k.slice('scores_'.length), readJsonFile(join(resultsDir, f)) as Record<string, number>] as const)
    : [];
  // Positives first, as evaluate.py labels them (an id listed both as a negative and `true` is relevant).
  const types = ['true', ...Object.keys(lists).filter((t) => t !== 'true')];
  return types.flatMap((type) => (lists[type] ?? []).map((id) => ({
    field, query, type, paper_id: id, ...Object.fromEntries(scores.map(([model, s]) => [model, s[`${query}_${id}`] ?? null])), title: title(id),
  })));
}
