/**
 * The paper's Tables 1–8 as data for the HTML report: our values (×100, mean ± sd over pool repeats), the
 * paper's printed value for the same model and column where there is one, significance against BM25, and the
 * best value per column (or per row and measure, where the paper compares models along a row). Rendering is
 * html.ts's job; nothing here formats text beyond labels.
 */
import { FIELDS, FIELD_ABBREV, type Field } from '../corpus/fields.ts';
import { baselineModel, compareTable, type Comparison, type PerQuery, type Significance, cellId } from './compare.ts';
import { meanOverRepeats, type MeanRow, type ResultsIndex } from './results.ts';
import type { PaperNumbers } from './paper-numbers.ts';
import { poolLabel } from './tables.ts';

export interface ValueCell {
  kind: 'value';
  /** Display units (×100 for fractions; MDCR is already ×100). Undefined: no value (printed as –). */
  value?: number;
  /** Standard deviation over repeats, display units; undefined when not applicable. */
  sd?: number;
  repeats?: number;
  paper?: number;
  sig?: Significance;
  best?: boolean;
}
export interface TextCell {
  kind: 'text';
  text: string;
}
export type TableCell = ValueCell | TextCell;

export interface TableRow {
  label: string;
  /** Shown under the label, e.g. "random weights". */
  note?: string;
  cells: TableCell[];
}

export interface ReportTable {
  /** Anchor and file-safe id: table1, table2 … */
  id: string;
  number: number;
  title: string;
  /** One paragraph above the table (plain text). */
  intro: string;
  /** Optional first header row of spanning groups (e.g. pool sizes). */
  groups?: { text: string; span: number }[];
  /** Header of every value column (after the row-label column). */
  columns: string[];
  rowHead: string;
  rows: TableRow[];
  /** True for tables of the paper's numbers only (5, 6). */
  paperOnly?: boolean;
}

const PAPER_ORDER = ['bm25', 'scibert', 'specter', 'scincl', 'aspire-bm', 'aspire-cs'];
export function paperOrder(models: string[]): string[] {
  return [...models].sort((a, b) => (PAPER_ORDER.indexOf(a) + 1 || 99) - (PAPER_ORDER.indexOf(b) + 1 || 99) || a.localeCompare(b));
}

const PAPER_POOLS: [string, number][] = [['200k', 2e5], ['500k', 5e5], ['1M', 1e6], ['2M', 2e6]];
/** The paper's pool size this pool stands for at the run's scale (4k at scale 0.02 → 200k), if any. */
export function paperPool(poolSize: number, scale: number): string | undefined {
  const full = poolSize / scale;
  return PAPER_POOLS.find(([, v]) => Math.abs(full - v) / v < 1e-6)?.[0];
}

/** The paper's spelling of one of our measure names (MAP, nDCG, R@30), or undefined. */
function paperMeasure(m: string): 'MAP' | 'nDCG' | 'R@30' | undefined {
  return (['MAP', 'nDCG', 'R@30'] as const).find((x) => x.toLowerCase() === m.toLowerCase());
}

function noteOf(r: ResultsIndex, model: string): string | undefined {
  const m = r.models.find((x) => x.name === model);
  return m?.weights === 'random' ? 'random weights' : undefined;
}

/** Marks the best value of each group of competing cells (ties: all of them). */
function markBest(rows: TableRow[], groupOf: (row: number, col: number) => string): void {
  const best = new Map<string, number>();
  rows.forEach((r, i) => r.cells.forEach((c, j) => {
    if (c.kind !== 'value' || c.value === undefined) return;
    const g = groupOf(i, j);
    best.set(g, Math.max(best.get(g) ?? -Infinity, c.value));
  }));
  rows.forEach((r, i) => r.cells.forEach((c, j) => {
    if (c.kind === 'value' && c.value !== undefined && c.value === best.get(groupOf(i, j))) c.best = true;
  }));
}

export interface TableOptions {
  /** Randomization-test trials (default 10,000). */
  trials?: number;
}

export function buildTables(r: ResultsIndex, pq: PerQuery, paper: PaperNumbers, opts: TableOptions = {}): ReportTable[] {
  const rows = meanOverRepeats(r.cells);
  const out: (ReportTable | undefined)[] = [
    table1(r, rows, pq, paper, opts),
    fieldTable(r, rows, pq, paper, 2, 'MAP', 'table2_field_level_MAP', opts),
    table3(r, paper),
    table4(r, paper),
    table5(r, paper),
    table6(paper),
    fieldTable(r, rows, pq, paper, 7, 'nDCG', 'table7_field_level_nDCG', opts),
    fieldTable(r, rows, pq, paper, 8, 'R@30', 'table8_field_level_R@30', opts),
  ];
  return out.filter((t): t is ReportTable => !!t);
}

const sigOf = (sig: Map<string, Significance>, protocol: string, field: string | null, poolSize: number, model: string, measure: string) =>
  sig.get(`${cellId(protocol, field, poolSize, model)}|${measure}`);

function table1(r: ResultsIndex, rows: MeanRow[], pq: PerQuery, paper: PaperNumbers, opts: TableOptions): ReportTable | undefined {
  const ds = rows.filter((x) => x.protocol === 'dataset');
  if (!ds.length) return undefined;
  const sizes = [...new Set(ds.map((x) => x.poolSize))].sort((a, b) => a - b);
  const models = paperOrder([...new Set(ds.map((x) => x.model))]);
  const base = baselineModel(r);
  const comps: Comparison[] = models.flatMap((model) => sizes.flatMap((s) => r.measures.map((measure) => ({ protocol: 'dataset', field: null, poolSize: s, model, measure }))));
  const sig = base ? compareTable(pq, base, comps, { trials: opts.trials, seed: r.seed }) : new Map();
  const pv = paper.table1_dataset_level.values as Record<string, Record<string, Record<string, number>> | undefined>;
  const body: TableRow[] = models.map((model) => ({
    label: model,
    note: noteOf(r, model),
    cells: sizes.flatMap((s) => r.measures.map((measure): ValueCell => {
      const row = ds.find((x) => x.model === model && x.poolSize === s);
      const pp = paperPool(s, r.scale);
      const pm = paperMeasure(measure);
      return {
        kind: 'value',
        value: row ? 100 * row.means[measure] : undefined,
        sd: row && row.repeats > 1 ? 100 * row.sd[measure] : undefined,
        repeats: row?.repeats,
        paper: pp && pm ? pv[model]?.[pp]?.[pm] : undefined,
        sig: sigOf(sig, 'dataset', null, s, model, measure),
      };
    })),
  }));
  markBest(body, (_, j) => String(j));
  const c = r.cells.find((x) => x.protocol === 'dataset' && x.split === 'test')!;
  const repeats = Math.max(...ds.map((x) => x.repeats));
  return {
    id: 'table1', number: 1, title: 'Dataset level (§3.1)', rowHead: 'model',
    intro: `${c.queries} queries from ${r.queryYear}, top ${r.k}; values ×100, mean ± sd over ${repeats} pool sample${repeats > 1 ? 's' : ''} per size. ` +
      `Paper values (S2ORC, 3,800 queries, 200k–2M pools) stand beside the pool size they correspond to at scale ${r.scale}.`,
    groups: sizes.map((s) => ({ text: `pool ${poolLabel(s)}${paperPool(s, r.scale) ? ` (paper ${paperPool(s, r.scale)})` : ''}`, span: r.measures.length })),
    columns: sizes.flatMap(() => r.measures),
    rows: body,
  };
}

function fieldTable(r: ResultsIndex, rows: MeanRow[], pq: PerQuery, paper: PaperNumbers, n: 2 | 7 | 8, name: string,
  key: 'table2_field_level_MAP' | 'table7_field_level_nDCG' | 'table8_field_level_R@30', opts: TableOptions): ReportTable | undefined {
  const fl = rows.filter((x) => x.protocol === 'field');
  const measure = r.measures.find((m) => m.toLowerCase() === name.toLowerCase());
  if (!fl.length || !measure) return undefined;
  const fields = FIELDS.filter((f) => fl.some((x) => x.field === f));
  const models = paperOrder([...new Set(fl.map((x) => x.model))]);
  const poolSize = fl[0].poolSize;
  const base = baselineModel(r);
  const comps: Comparison[] = models.flatMap((model) => fields.map((field) => ({ protocol: 'field', field, poolSize, model, measure })));
  const sig = base ? compareTable(pq, base, comps, { trials: opts.trials, seed: r.seed }) : new Map();
  const pv = paper[key] as Record<string, Record<string, number> | undefined>;
  const allFields = fields.length === FIELDS.length;
  const body: TableRow[] = models.map((model) => {
    const cells: ValueCell[] = fields.map((field: Field) => {
      const row = fl.find((x) => x.model === model && x.field === field);
      return {
        kind: 'value',
        value: row ? 100 * row.means[measure] : undefined,
        sd: row && row.repeats > 1 ? 100 * row.sd[measure] : undefined,
        repeats: row?.repeats,
        paper: pv[model]?.[FIELD_ABBREV[field]],
        sig: sigOf(sig, 'field', field, poolSize, model, measure),
      };
    });
    const vals = cells.map((c) => c.value);
    const avg = vals.every((v) => v !== undefined) ? (vals as number[]).reduce((s, v) => s + v, 0) / vals.length : undefined;
    // The paper's AVG is over all 19 fields: beside ours only when we have them all.
    cells.push({ kind: 'value', value: avg, paper: allFields ? pv[model]?.AVG : undefined });
    return { label: model, note: noteOf(r, model), cells };
  });
  markBest(body, (_, j) => String(j));
  const c = r.cells.find((x) => x.protocol === 'field' && x.split === 'test')!;
  const one = Object.entries(r.fieldRepeats).filter(([, k]) => k === 1).map(([f]) => f);
  return {
    id: `table${n}`, number: n, title: `Field level, ${name} (§3.2${n === 2 ? '' : ', App. A.4'})`, rowHead: 'model',
    intro: `${c.queries} queries per field from ${r.queryYear}, pools of ${poolLabel(poolSize)}, top ${r.k}; values ×100, mean ± sd over up to ` +
      `${Math.max(...Object.values(r.fieldRepeats))} pool samples${one.length ? ` (one for ${one.join(', ')}: the field-cited set is not larger than the pool)` : ''}. ` +
      `AVG is over the fields shown. Paper values: S2ORC, 200 queries per field, 100k pools.`,
    columns: [...fields.map((f) => FIELD_ABBREV[f]), 'AVG'],
    rows: body,
  };
}

const MDCR_METRICS = [['map', 'MAP'], ['recall_5', 'R@5']] as const;

function table3(r: ResultsIndex, paper: PaperNumbers): ReportTable | undefined {
  const m = r.mdcr;
  if (!m) return undefined;
  const models = paperOrder(Object.keys(m.results));
  const present = new Set(models.flatMap((x) => m.results[x].all.fields.map((f) => f.field)));
  const fields = FIELDS.filter((f) => present.has(f));
  const pv = paper.table3_mdcr as unknown as Record<string, Record<string, Record<string, number>> | undefined>;
  const body: TableRow[] = [...fields, 'AVG' as const].map((f) => ({
    label: f === 'AVG' ? 'AVG' : FIELD_ABBREV[f as Field],
    cells: models.flatMap((model) => MDCR_METRICS.map(([k, pn]): ValueCell => {
      const res = m.results[model].all;
      const v = f === 'AVG' ? res.avg[k] : res.fields.find((x) => x.field === f)?.values[k];
      const pf = f === 'AVG' ? (fields.length === FIELDS.length ? 'AVG' : undefined) : FIELD_ABBREV[f as Field];
      return { kind: 'value', value: v, paper: pf ? pv[model]?.[pf]?.[pn] : undefined };
    })),
  }));
  // As in the paper, models compete along a row (per field), MAP with MAP and R@5 with R@5.
  markBest(body, (i, j) => `${i}|${j % MDCR_METRICS.length}`);
  return {
    id: 'table3', number: 3, title: 'MDCR (§4.3)', rowHead: 'field',
    intro: `MDCR built by citebench from this corpus (${m.queriesPerSplit.test} test queries: the field-level ones; ${m.queriesPerSplit.val ?? 0} disjoint val queries), ` +
      `model-based negatives from ${m.chosenModels.join(', ') || 'no model'}. evaluate.py's values (×100); best model per field in bold. Paper values: the published MDCR test split.`,
    groups: models.map((x) => ({ text: x + (noteOf(r, x) ? ` (${noteOf(r, x)})` : ''), span: MDCR_METRICS.length })),
    columns: models.flatMap(() => MDCR_METRICS.map(([, n]) => n)),
    rows: body,
  };
}

function table4(r: ResultsIndex, paper: PaperNumbers): ReportTable | undefined {
  const m = r.mdcr;
  if (!m) return undefined;
  const models = paperOrder(Object.keys(m.results));
  const types = [...new Set(models.flatMap((x) => Object.keys(m.results[x].types)))];
  const pv = paper.table4_candidate_types as unknown as Record<string, Record<string, Record<string, number>> | undefined>;
  const body: TableRow[] = models.map((model) => ({
    label: model,
    note: noteOf(r, model),
    cells: types.flatMap((t) => MDCR_METRICS.map(([k, pn]): ValueCell => ({
      kind: 'value', value: m.results[model].types[t]?.avg[k], paper: pv[model]?.[t]?.[pn],
    }))),
  }));
  markBest(body, (_, j) => String(j));
  return {
    id: 'table4', number: 4, title: 'MDCR candidate types (§4.4)', rowHead: 'model',
    intro: `Each candidate type evaluated alone: the positives plus that type's negatives; AVG over fields, evaluate.py's values (×100). ` +
      `A type named after a model holds that model's top-ranked negatives. Low values mean the type's negatives are hard to tell from citations.`,
    groups: types.map((t) => ({ text: t, span: MDCR_METRICS.length })),
    columns: types.flatMap(() => MDCR_METRICS.map(([, n]) => n)),
    rows: body,
  };
}

function table5(r: ResultsIndex, paper: PaperNumbers): ReportTable {
  const inRun = new Set<string>([
    ...r.cells.filter((c) => c.field).map((c) => FIELD_ABBREV[c.field!]),
    ...Object.values(r.mdcr?.results ?? {}).flatMap((x) => x.all.fields.map((f) => FIELD_ABBREV[f.field as Field])),
  ]);
  return {
    id: 'table5', number: 5, title: 'Field abbreviations (App. A.2)', rowHead: 'abbreviation', paperOnly: true,
    intro: 'The MAG fields of study and the abbreviations the tables use (the paper\'s Table 5).',
    columns: ['field', 'in this run'],
    rows: Object.entries(paper.fields).map(([a, name]) => ({ label: a, cells: [{ kind: 'text', text: name }, { kind: 'text', text: inRun.has(a) ? 'yes' : '–' }] })),
  };
}

function table6(paper: PaperNumbers): ReportTable {
  const t = paper.table6_scidocs_cite;
  const body: TableRow[] = Object.entries(t.values).map(([model, v]) => ({
    label: model, cells: [{ kind: 'value', value: v.MAP }, { kind: 'value', value: v.nDCG }],
  }));
  markBest(body, (_, j) => String(j));
  return {
    id: 'table6', number: 6, title: 'SciDocs "Cite" as reported by prior work (App. A.3)', rowHead: 'model', paperOnly: true,
    intro: `The paper's Table 6, ${t.note}; citebench does not run SciDocs. Values in %.`,
    columns: ['MAP', 'nDCG'],
    rows: body,
  };
}
