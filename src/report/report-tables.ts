/**
 * Our result tables, for the Markdown and the HTML report alike (tables.ts renders them as Markdown, html.ts as
 * HTML):
 *  - the paper's Tables 1–8 in its layout: our values (×100, mean ± sd over pool repeats), the paper's printed
 *    value for the same model and column where there is one, the significance against each baseline that results.json
 *    stores (significance.ts: read, never computed here), and the best value per column (or per row and measure,
 *    where the paper compares models along a row);
 *  - the inductive setting's Tables 1, 2, 7, 8 (Goyal et al. 2026 §3.1), when the run has it: other queries and
 *    pools, so a table of its own, never cells beside the transductive ones; no paper values exist for it;
 *  - the stored paired tests of the models beyond the paper against BM25.
 * A run over another field scheme than MAG's (an OpenAlex Topics store) has its field-level and MDCR tables over
 * that scheme's fields, said in their titles, with no paper value beside them. Nothing here formats numbers.
 */
import { FIELDS, SCHEME_LABEL, fieldAbbrev, schemeFields, type FieldScheme } from '../corpus/fields.ts';
import { meanOverRepeats, resultsFieldScheme, weightsNote, type MeanRow, type ResultsIndex } from './results.ts';
import { groupTables, intervalText, sliceTables } from './statistics-tables.ts';
import { adjustedP, correctionName, correctionWords, beyondPaperRows, markPair, significanceKey, significanceNote, significanceRows, storedSignificance } from './significance.ts';
import type { PaperNumbers } from './paper-numbers.ts';
import { hasSpecter2, SPECTER2_CARD_MDCR, type PublishedTable } from './published.ts';
import { MDCR_METRICS, mdcrTable3Data, mdcrTable4Data } from './mdcr-tables.ts';
import { fmtValue, poolLabel, type MarkedRow, type ReportTable, type TableRow, type TextCell, type ValueCell } from './tables.ts';

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

export function noteOf(r: ResultsIndex, model: string): string | undefined {
  const m = r.models.find((x) => x.name === model);
  return weightsNote(m?.weights);
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

/** What the inductive setting is, said above each of its tables. */
function inductiveNote(r: Pick<ResultsIndex, 'queryYear'>): string {
  return `Inductive setting (Goyal et al. 2026 §3.1): queries and pools are disjoint and every candidate was published strictly before its query ` +
    `(year < ${r.queryYear}); queries cite at least one such article; profiles use only citing articles published before ${r.queryYear}. ` +
    'Queries and pools come from streams of their own, so these numbers are not comparable cell by cell with the transductive table.';
}

/**
 * Every table of the results, in report order: Tables 1–8 (the paper's setting), the inductive setting's 1, 2,
 * 7, 8, the stored paired tests of the models beyond the paper. Marks come from results.json's significance
 * record; a results.json without one gets tables without marks and a note saying how to add them.
 */
export function buildTables(r: ResultsIndex, paper: PaperNumbers | undefined): ReportTable[] {
  const all = meanOverRepeats(r.cells);
  const rows = all.filter((x) => !x.setting);
  const ind = all.filter((x) => x.setting === 'inductive');
  const sig = marksOf(r);
  const out: (ReportTable | undefined)[] = [
    table1(r, rows, sig, paper),
    fieldTable(r, rows, sig, paper, 2),
    table3(r, paper),
    r.mdcr && hasSpecter2(r.models) ? publishedTable('table3-specter2-card', 'MDCR as the SPECTER2 model card publishes it', SPECTER2_CARD_MDCR) : undefined,
    table4(r, paper),
    table5(r, paper),
    paper && table6(paper),
    fieldTable(r, rows, sig, paper, 7),
    fieldTable(r, rows, sig, paper, 8),
    ...inductiveTables(r, ind, sig),
    beirTable(r, rows, paper),
    significanceTable(r),
    ...groupTables(r),
    ...sliceTables(r),
  ];
  return out.filter((t): t is ReportTable => !!t);
}

/** The inductive setting's Tables 1, 2, 7, 8; the first says what the setting is, the others refer to it. */
function inductiveTables(r: ResultsIndex, rows: MeanRow[], sig: Marks): ReportTable[] {
  const ts = [table1(r, rows, sig, undefined, 'inductive'), ...([2, 7, 8] as const).map((n) => fieldTable(r, rows, sig, undefined, n, 'inductive'))].filter((t): t is ReportTable => !!t);
  ts.forEach((t, i) => (t.intro = `${i === 0 ? inductiveNote(r) : 'Inductive setting (Goyal et al. 2026 §3.1; see the first inductive table).'} ${t.intro}`));
  return ts;
}

/** The inductive setting, or undefined for the paper's (transductive): as cells record it. */
type SettingTag = 'inductive' | undefined;

/** Stored comparisons by significanceKey, each with its baseline's marks. */
type Marks = Map<string, MarkedRow[]>;

/** The stored tests of one table cell, if any (none for a baseline's own row against itself). */
const markOf = (sig: Marks, protocol: 'dataset' | 'field', setting: SettingTag, measure: string, field: string | null, poolSize: number, model: string) =>
  sig.get(significanceKey({ protocol, setting: setting ?? 'transductive', measure, field, poolSize, model }));

/** The stored rows by table cell, each with the marks of its baseline (the record's order: * † for the first). */
function marksOf(r: ResultsIndex): Marks {
  const order = storedSignificance(r)?.baselines ?? [];
  return new Map([...significanceRows(r)].map(([k, rows]) => [k, rows.map((x) => ({ ...x, marks: markPair(order.indexOf(x.baseline)) }))]));
}

/** The intro's last sentence when marks are missing for want of a stored record. */
const noteFor = (r: ResultsIndex) => {
  const n = significanceNote(r);
  return n ? ` ${n}` : '';
};

const settingSuffix = (setting: SettingTag) => (setting ? ` — ${setting} setting` : '');

function table1(r: ResultsIndex, rows: MeanRow[], sig: Marks, paper: PaperNumbers | undefined, setting?: SettingTag): ReportTable | undefined {
  const ds = rows.filter((x) => x.protocol === 'dataset');
  if (!ds.length) return undefined;
  const sizes = [...new Set(ds.map((x) => x.poolSize))].sort((a, b) => a - b);
  const models = paperOrder([...new Set(ds.map((x) => x.model))]);
  const pv = paper?.table1_dataset_level.values as Record<string, Record<string, Record<string, number>> | undefined> | undefined;
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
        paper: pp && pm ? pv?.[model]?.[pp]?.[pm] : undefined,
        sig: markOf(sig, 'dataset', setting, measure, null, s, model),
      };
    })),
  }));
  markBest(body, (_, j) => String(j));
  const c = r.cells.find((x) => x.protocol === 'dataset' && x.split === 'test' && x.setting === setting)!;
  const repeats = Math.max(...ds.map((x) => x.repeats));
  return {
    id: `table1${setting ? `-${setting}` : ''}`, number: 1, title: `Dataset level (§3.1)${settingSuffix(setting)}`, rowHead: 'model', ...(setting ? { setting } : {}),
    intro: `${c.queries} queries from ${r.queryYear}, top ${r.k}; values ×100, mean over ${repeats} pool sample${repeats > 1 ? 's' : ''} per size.${noteFor(r)}`,
    ...(paper ? { paperNote: `Paper values (S2ORC, 3,800 queries, 200k–2M pools) stand beside the pool size they correspond to at scale ${r.scale}.` } : {}),
    groups: sizes.map((s) => ({ text: `pool ${poolLabel(s)}${paper && paperPool(s, r.scale) ? ` (paper ${paperPool(s, r.scale)})` : ''}`, short: poolLabel(s), span: r.measures.length })),
    columns: sizes.flatMap(() => r.measures),
    rows: body,
  };
}

/** The paper's field-level tables: number → measure and paper-numbers.json key. */
const FIELD_TABLES = {
  2: { measure: 'MAP', key: 'table2_field_level_MAP', title: 'Field level, MAP (§3.2)' },
  7: { measure: 'nDCG', key: 'table7_field_level_nDCG', title: 'Field level, nDCG (§3.2, App. A.4)' },
  8: { measure: 'R@30', key: 'table8_field_level_R@30', title: 'Field level, R@30 (§3.2, App. A.4)' },
} as const;

/** What a field table says first when its fields are not MAG's (nothing for MAG's, the paper's). */
function otherFields(scheme: FieldScheme): string {
  return scheme === 'mag' ? '' : "OpenAlex Topics fields — not comparable with the paper's MAG fields (each work's primary topic; abbreviations in Table 5): the paper's values are not shown. ";
}

function fieldTable(r: ResultsIndex, rows: MeanRow[], sig: Marks, paper: PaperNumbers | undefined, n: keyof typeof FIELD_TABLES, setting?: SettingTag): ReportTable | undefined {
  const { measure: name, key, title } = FIELD_TABLES[n];
  const fl = rows.filter((x) => x.protocol === 'field');
  const measure = r.measures.find((m) => m.toLowerCase() === name.toLowerCase());
  if (!fl.length || !measure) return undefined;
  // Another scheme's fields (OpenAlex Topics') are other sets of articles: the paper's values never stand beside them.
  const scheme = resultsFieldScheme(r);
  if (scheme !== 'mag') paper = undefined;
  const fields = schemeFields(scheme).filter((f) => fl.some((x) => x.field === f));
  const models = paperOrder([...new Set(fl.map((x) => x.model))]);
  const poolSize = fl[0].poolSize;
  const pv = paper?.[key] as Record<string, Record<string, number> | undefined> | undefined;
  const allFields = fields.length === FIELDS.length;
  const body: TableRow[] = models.map((model) => {
    const cells: ValueCell[] = fields.map((field) => {
      const row = fl.find((x) => x.model === model && x.field === field);
      return {
        kind: 'value',
        value: row ? 100 * row.means[measure] : undefined,
        sd: row && row.repeats > 1 ? 100 * row.sd[measure] : undefined,
        repeats: row?.repeats,
        paper: pv?.[model]?.[fieldAbbrev(field)],
        sig: markOf(sig, 'field', setting, measure, field, poolSize, model),
      };
    });
    const vals = cells.map((c) => c.value);
    const avg = vals.every((v) => v !== undefined) ? (vals as number[]).reduce((s, v) => s + v, 0) / vals.length : undefined;
    // The paper's AVG is over all 19 fields: beside ours only when we have them all.
    cells.push({ kind: 'value', value: avg, paper: allFields ? pv?.[model]?.AVG : undefined });
    return { label: model, note: noteOf(r, model), cells };
  });
  markBest(body, (_, j) => String(j));
  const c = r.cells.find((x) => x.protocol === 'field' && x.split === 'test' && x.setting === setting)!;
  // Repeats per field as run (one where the field-cited set does not exceed the pool: the paper's Art/His/Phi rule).
  const repeats = Math.max(...fl.map((x) => x.repeats));
  const one = repeats > 1 ? fields.filter((f) => fl.every((x) => x.field !== f || x.repeats === 1)).map(fieldAbbrev) : [];
  return {
    id: `table${n}${setting ? `-${setting}` : ''}`, number: n, title: `${title}${scheme === 'mag' ? '' : ' — OpenAlex Topics fields'}${settingSuffix(setting)}`, rowHead: 'model', ...(setting ? { setting } : {}),
    intro: `${otherFields(scheme)}${c.queries} queries per field from ${r.queryYear}, pools of ${poolLabel(poolSize)}, top ${r.k}; values ×100, mean over up to ` +
      `${repeats} pool sample${repeats > 1 ? 's' : ''}${one.length ? ` (one for ${one.join(', ')}: the field-cited set is not larger than the pool)` : ''}. AVG is over the fields shown.${noteFor(r)}`,
    ...(paper ? { paperNote: 'Paper values: S2ORC, 200 queries per field, 100k pools.' } : {}),
    columns: [...fields.map(fieldAbbrev), 'AVG'],
    rows: body,
  };
}

function table3(r: ResultsIndex, paper: PaperNumbers | undefined): ReportTable | undefined {
  const m = r.mdcr;
  if (!m) return undefined;
  const scheme = resultsFieldScheme(r);
  if (scheme !== 'mag') paper = undefined;
  const models = paperOrder(Object.keys(m.results));
  const t = mdcrTable3Data(models.map((x) => ({ model: x, note: noteOf(r, x), result: m.results[x].all })));
  const allFields = t.rows.length === FIELDS.length + 1;
  const pv = (paper?.table3_mdcr ?? {}) as unknown as Record<string, Record<string, Record<string, number>> | undefined>;
  for (const row of t.rows) {
    row.cells.forEach((c, j) => {
      // The paper's AVG is over all 19 fields: beside ours only when we have them all.
      if (c.kind === 'value' && (row.label !== 'AVG' || allFields)) c.paper = pv[models[Math.floor(j / MDCR_METRICS.length)]]?.[row.label]?.[MDCR_METRICS[j % MDCR_METRICS.length][1]];
    });
  }
  // As in the paper, models compete along a row (per field), MAP with MAP and R@5 with R@5.
  markBest(t.rows, (i, j) => `${i}|${j % MDCR_METRICS.length}`);
  return {
    ...t,
    ...(scheme === 'mag' ? {} : { title: `${t.title} — OpenAlex Topics fields` }),
    intro: `${otherFields(scheme)}MDCR built by citebench from this corpus (${m.queriesPerSplit.test} test queries: the field-level ones; ${m.queriesPerSplit.val ?? 0} disjoint val queries), ` +
      `model-based negatives from ${m.chosenModels.join(', ') || 'no model'}${m.notes.length ? ` (${m.notes.join('; ')})` : ''}. evaluate.py's values (×100); the best model per field is marked.`,
    ...(paper ? { paperNote: 'Paper values: the published MDCR test split.' } : {}),
  };
}

/** Published numbers of other work, shown as a reference block: its source named, no difference to ours. */
function publishedTable(id: string, title: string, p: PublishedTable): ReportTable {
  return {
    id, title, rowHead: 'model (published)', paperOnly: true,
    intro: `For reference, not computed by citebench: ${p.columns.join(' and ')} ×100 on ${p.on}, as quoted from ${p.source}. ` +
      'They were measured with the published models on the published files; this run\'s MDCR is built from its own corpus, so they are not compared with ours.',
    columns: p.columns,
    rows: p.rows.map((x) => ({ label: x.model, cells: x.values.map((v) => ({ kind: 'value' as const, value: v })) })),
  };
}

function table4(r: ResultsIndex, paper: PaperNumbers | undefined): ReportTable | undefined {
  const m = r.mdcr;
  if (!m) return undefined;
  // Averages over another scheme's fields: not the paper's averages.
  if (resultsFieldScheme(r) !== 'mag') paper = undefined;
  const models = paperOrder(Object.keys(m.results));
  const t = mdcrTable4Data(models.map((x) => ({ model: x, note: noteOf(r, x), byType: m.results[x].types })));
  const types = t.groups!.map((g) => g.text);
  const pv = (paper?.table4_candidate_types ?? {}) as unknown as Record<string, Record<string, Record<string, number>> | undefined>;
  t.rows.forEach((row, i) => row.cells.forEach((c, j) => {
    if (c.kind === 'value') c.paper = pv[models[i]]?.[types[Math.floor(j / MDCR_METRICS.length)]]?.[MDCR_METRICS[j % MDCR_METRICS.length][1]];
  }));
  markBest(t.rows, (_, j) => String(j));
  return {
    ...t,
    intro: `Each candidate type evaluated alone: the positives plus that type's negatives; AVG over fields, evaluate.py's values (×100). ` +
      `A type named after a model holds that model's top-ranked negatives. Low values mean the type's negatives are hard to tell from citations.`,
  };
}

/** The stored paired tests of the models beyond the paper against the first baseline (dataset level): Table 1's rows for them. */
function significanceTable(r: ResultsIndex): ReportTable | undefined {
  const s = storedSignificance(r);
  const rows = beyondPaperRows(r);
  if (!s || !rows.length) return undefined;
  const p = (x: number) => (x < 0.001 ? '<0.001' : x.toFixed(3));
  const num = (text: string): TextCell => ({ kind: 'text', text, num: true });
  // A difference that rounds to zero has no sign worth printing (it may be a tiny real one either way).
  const signed = (v: string) => (v === '0.0' ? '±0.0' : v.startsWith('-') ? v : `+${v}`);
  const against = s.baselines[0];
  const adjName = correctionName(s.correction);
  return {
    id: 'significance', title: `Paired significance against ${against} (dataset level)`, rowHead: 'setting', plain: true,
    intro: `Per query, the mean over repeats; Δ = model − ${against} (×100) over ${rows[0].queries} queries; two-sided paired t-test, ` +
      `paired randomization test (${s.trials} sign flips, seeded), ${correctionWords(s.correction)} over every comparison of one setting and measure in Table 1 ` +
      `(every model and pool size; * : < ${s.alpha}): the tests behind Table 1's marks, as citebench run stored them (results.json, significance); the 95 % t-interval of the mean difference Δ (×100) and the effect size d_z = mean / sd of the paired differences.`,
    columns: ['pool', 'model', 'measure', 'Δ', 'p (t)', 'p (rand.)', `p (${adjName})`, '95% CI of Δ', 'd_z'],
    rows: rows.map((x) => ({
      label: x.setting,
      cells: [num(poolLabel(x.poolSize)), { kind: 'text', text: noteOf(r, x.model) ? `${x.model} (${noteOf(r, x.model)})` : x.model }, { kind: 'text', text: x.measure },
        num(signed(fmtValue(100 * x.meanDiff))), num(p(x.pT)), num(p(x.pRandomization)), num(p(adjustedP(x)) + (adjustedP(x) < s.alpha ? ' *' : '')),
        num(intervalText(x.ci95 ?? undefined)), num(typeof x.effectSize === 'number' ? x.effectSize.toFixed(2) : '–')],
    })),
  };
}

/**
 * The BEIR task of the run (protocols.beir): each model's values ×100 on the task's own documents, queries and
 * graded judgements. For a SciDocs task the prior-work SciDocs "Cite" numbers of the paper's Table 6 stand beside
 * as columns of their own, labelled: another protocol (30 candidates per query), so never a difference.
 */
function beirTable(r: ResultsIndex, rows: MeanRow[], paper: PaperNumbers | undefined): ReportTable | undefined {
  const b = r.beir;
  const cells = rows.filter((x) => x.protocol === 'beir');
  if (!b || !cells.length) return undefined;
  const prior = paper && /scidocs/i.test(b.name) ? paper.table6_scidocs_cite : undefined;
  const priorOf = (model: string) => prior?.values[model as keyof typeof prior.values];
  const models = paperOrder([...new Set(cells.map((x) => x.model))]);
  const body: TableRow[] = models.map((model) => {
    const row = cells.find((x) => x.model === model)!;
    const own: ValueCell[] = r.measures.map((m) => ({ kind: 'value', value: 100 * row.means[m] }));
    const p = priorOf(model);
    return { label: model, note: noteOf(r, model), cells: prior ? [...own, { kind: 'value', value: p?.MAP }, { kind: 'value', value: p?.nDCG }] : own };
  });
  markBest(body, (_, j) => String(j));
  const notRun = b.notRun.length ? ` Not run on it: ${b.notRun.map((x) => `${x.name} (${x.reason})`).join('; ')}.` : '';
  return {
    id: 'beir', title: `BEIR task ${b.name} (${b.split})`, rowHead: 'model',
    intro: `A BEIR-layout retrieval task beside the paper's protocols: ${b.queries} judged queries of qrels/${b.split}.tsv, each searched over the task's ${b.documents} documents ` +
      `(BM25 statistics of those documents alone), ${b.judgements} graded judgements (nDCG uses the labels as gains); top ${r.k}, values ×100. ` +
      'These numbers come from the task\'s own data, not from the run\'s corpus.' +
      (prior ? ` The last two columns are the paper's Table 6: SciDocs "Cite" ${prior.note} — another protocol (each query ranks 30 candidates), shown beside, not compared.` : '') + notRun,
    columns: prior ? [...r.measures, 'Table 6 MAP', 'Table 6 nDCG'] : r.measures,
    rows: body,
  };
}

function table5(r: ResultsIndex, paper: PaperNumbers | undefined): ReportTable | undefined {
  const inRun = new Set<string>([
    ...r.cells.filter((c) => c.field).map((c) => fieldAbbrev(c.field!)),
    ...Object.values(r.mdcr?.results ?? {}).flatMap((x) => x.all.fields.map((f) => fieldAbbrev(f.field))),
  ]);
  const scheme = resultsFieldScheme(r);
  if (scheme !== 'mag') {
    return {
      id: 'table5', number: 5, title: 'Field abbreviations — OpenAlex Topics fields', rowHead: 'abbreviation', plain: true,
      intro: `${SCHEME_LABEL[scheme]} and the abbreviations the tables use. They are not the paper's fields (its Table 5 lists MAG's): a name both use does not name the same articles.`,
      columns: ['field', 'in this run'],
      rows: schemeFields(scheme).map((f) => ({ label: fieldAbbrev(f), cells: [{ kind: 'text', text: f }, { kind: 'text', text: inRun.has(fieldAbbrev(f)) ? 'yes' : '–' }] })),
    };
  }
  if (!paper) return undefined;
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
    intro: `The paper's Table 6, ${t.note}; citebench runs SciDocs only as a BEIR-format task (protocols.beir: the "BEIR task" table), another protocol. Values in %.`,
    columns: ['MAP', 'nDCG'],
    rows: body,
  };
}
