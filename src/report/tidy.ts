/**
 * A results folder of `citebench run` as tidy tables: one row per observation, one column per variable, the
 * measure a column of its own (long format). `citebench export` writes them as Parquet or CSV for pandas, polars
 * and R; the notebook API shows the same tables (frames.ts `tidy()`). Each table is built here once, from
 * results.json and the cell files it names; docs/results.md ("Export") describes the columns.
 *
 * Values are the stored doubles, unrounded: cell and per-query values are fractions (MAP 0.655), MDCR values are
 * ×100 with 4 decimals as evaluate.py prints them.
 */
import type { MdcrSummary, CellSummary, ResultsIndex } from './results.ts';
import { readCell } from './results.ts';

export type TidyType = 'string' | 'int32' | 'double' | 'boolean';
export type TidyValue = string | number | boolean | null;

export interface TidyColumn {
  name: string;
  type: TidyType;
  /** Whether the column may hold nulls (a dataset-level cell has no field). */
  nullable?: boolean;
}

export interface TidyTable {
  name: TidyTableName;
  columns: TidyColumn[];
  /** Rows in a fixed order (the order of results.json and of each cell file), each value in column order. */
  rows(): Iterable<TidyValue[]>;
}

export const TIDY_TABLE_NAMES = ['cells', 'per_query', 'tuning', 'mdcr_fields', 'mdcr_types', 'models'] as const;
export type TidyTableName = (typeof TIDY_TABLE_NAMES)[number];

const S = (name: string, nullable = false): TidyColumn => ({ name, type: 'string', ...(nullable ? { nullable } : {}) });
const I = (name: string): TidyColumn => ({ name, type: 'int32' });
const D = (name: string): TidyColumn => ({ name, type: 'double' });

/** The columns that name a cell, first in `cells` and `per_query`. */
const CELL_KEY: TidyColumn[] = [S('model'), S('weights', true), S('protocol'), S('split'), S('setting'), S('field', true), S('task', true), I('pool_size'), I('repeat'), S('group')];

/** The pool group of a cell: cells/<model>/<group>.json → <group> (dataset/4k-r1, field/Bio/r1 …). */
export function groupOf(c: Pick<CellSummary, 'model' | 'file'>): string {
  const prefix = `cells/${c.model}/`;
  return c.file.startsWith(prefix) ? c.file.slice(prefix.length).replace(/\.json$/, '') : c.file;
}

function cellKey(c: CellSummary, weights: Map<string, string>): TidyValue[] {
  return [c.model, weights.get(c.model) ?? null, c.protocol, c.split, c.setting ?? 'transductive', c.field, c.task ?? null, c.poolSize, c.repeat, groupOf(c)];
}

/** One MDCR evaluation of a model: per field, and `AVG` over the fields as evaluate.py prints it. */
export interface MdcrEvaluationRow {
  model: string;
  /** 'all' (every candidate type, Table 3) or one candidate type (Table 4). */
  candidates: string;
  field: string;
  queries: number;
  values: Record<string, number>;
}

/** Every MDCR evaluation of a results index, fields then AVG, in results.json's order. */
export function mdcrEvaluations(r: ResultsIndex): MdcrEvaluationRow[] {
  if (!r.mdcr) return [];
  return Object.entries(r.mdcr.results).flatMap(([model, e]) =>
    ([['all', e.all], ...Object.entries(e.types)] as [string, MdcrSummary][]).flatMap(([candidates, s]) => [
      ...s.fields.map((f) => ({ model, candidates, field: f.field as string, queries: f.queries, values: f.values as Record<string, number> })),
      { model, candidates, field: 'AVG', queries: s.fields.reduce((n, f) => n + f.queries, 0), values: s.avg as Record<string, number> },
    ]));
}

/** The tidy tables of a results folder (`dir` holds the cell files `r` names; per_query reads them lazily). */
export function tidyTables(dir: string, r: ResultsIndex): TidyTable[] {
  const weights = new Map(r.models.map((m) => [m.name, m.weights]));
  const mdcr = (avg: boolean) => function* (): Iterable<TidyValue[]> {
    for (const e of mdcrEvaluations(r)) {
      if ((e.field === 'AVG') !== avg) continue;
      for (const [measure, value] of Object.entries(e.values)) yield avg ? [e.model, e.candidates, e.queries, measure, value] : [e.model, e.candidates, e.field, e.queries, measure, value];
    }
  };
  return [
    {
      name: 'cells',
      columns: [...CELL_KEY, I('pool_members'), I('queries'), I('empty_lists'), S('measure'), D('value'), S('cell_file'), S('run_file'), S('qrels_file')],
      *rows() {
        for (const c of r.cells) {
          const key = cellKey(c, weights);
          for (const [measure, value] of Object.entries(c.means)) yield [...key, c.poolMembers, c.queries, c.emptyLists, measure, value, c.file, c.files.run, c.files.qrels];
        }
      },
    },
    {
      name: 'per_query',
      columns: [...CELL_KEY, S('query_id'), S('measure'), D('value')],
      *rows() {
        for (const c of r.cells) {
          const key = cellKey(c, weights);
          const rec = readCell(dir, c);
          for (const [measure, values] of Object.entries(rec.perQuery)) {
            for (let i = 0; i < rec.queryIds.length; i++) yield [...key, rec.queryIds[i], measure, values[i]];
          }
        }
      },
    },
    {
      name: 'tuning',
      // One row per grid point and parameter (BM25: k1 and b; a Profiler: beta): pivot on `param` for one row per point.
      columns: [S('model'), S('measure'), I('queries'), I('pool_size'), I('point'), S('param'), D('value'), D('score'), { name: 'chosen', type: 'boolean' }],
      *rows() {
        for (const t of r.tuning) {
          for (const [i, g] of t.grid.entries()) {
            const chosen = Object.keys(t.chosen).every((k) => g.params[k] === t.chosen[k]);
            for (const [param, value] of Object.entries(g.params)) yield [t.model, t.measure, t.queries, t.poolSize, i + 1, param, value, g.score, chosen];
          }
        }
      },
    },
    { name: 'mdcr_fields', columns: [S('model'), S('candidates'), S('field'), I('queries'), S('measure'), D('value')], rows: mdcr(false) },
    { name: 'mdcr_types', columns: [S('model'), S('candidates'), I('queries'), S('measure'), D('value')], rows: mdcr(true) },
    {
      name: 'models',
      columns: [S('model'), S('kind'), S('weights'), S('settings')],
      *rows() {
        for (const m of r.models) yield [m.name, m.kind, m.weights, JSON.stringify(m.settings)];
      },
    },
  ];
}

/** A table's rows as columns (arrays in column order), for data-frame libraries. */
export function tidyColumns(t: TidyTable): Record<string, TidyValue[]> {
  const cols: TidyValue[][] = t.columns.map(() => []);
  for (const row of t.rows()) row.forEach((v, i) => cols[i].push(v));
  return Object.fromEntries(t.columns.map((c, i) => [c.name, cols[i]]));
}
