/**
 * The Markdown report of a results folder: the paper's Tables 1, 2, 7, 8 (large-scale protocols) and 3, 4
 * (MDCR) in its layout, values ×100 with one decimal, each followed by the paper's own table for the same
 * models. Where the numbers come from is said above the tables: a synthetic corpus or random-weight model is
 * never presented as a finding.
 */
import { FIELDS, FIELD_ABBREV } from '../corpus/fields.ts';
import { meanOverRepeats, type MeanRow, type ResultsIndex } from './results.ts';
import type { PaperNumbers } from './paper-numbers.ts';
import { paperTable1, poolLabel as sizeLabel } from './tables.ts';
import { mdcrTable3, mdcrTable4 } from './mdcr-tables.ts';

const ABBREVS = FIELDS.map((f) => FIELD_ABBREV[f]);

function mdTable(head: string[], rows: string[][]): string {
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i ? '---:' : '---')).join('|')}|`];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}

const pct = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '–' : (100 * x).toFixed(1));
const printed = (x: number | undefined) => (x === undefined ? '–' : x.toFixed(1));

/** Model label in a table: random-weight models say so in every row they appear. */
function label(r: ResultsIndex, model: string): string {
  const m = r.models.find((x) => x.name === model);
  return m?.weights === 'random' ? `${model} (random weights)` : model;
}

/** Where the numbers come from, said before any table. */
export function provenance(r: ResultsIndex): string[] {
  const out: string[] = [];
  if (r.corpus.kind === 'synthetic') {
    out.push(`> **Synthetic corpus.** Every number below comes from a synthetic S2ORC-shaped corpus (${r.corpus.synthetic!.articles} generated articles, seed ${r.corpus.synthetic!.seed}, generator ${r.corpus.synthetic!.generator}): it exercises the pipeline at scale, and its values are properties of the generator, not findings about scientific literature.`);
  }
  const random = r.models.filter((m) => m.weights === 'random').map((m) => m.name);
  if (random.length) out.push(`> **Random weights.** ${random.join(', ')} ${random.length > 1 ? 'have' : 'has'} random (untrained) weights: ${random.length > 1 ? 'their' : 'its'} rows test loading, pooling and search, not retrieval quality.`);
  return out;
}

function paperOrder(models: string[]): string[] {
  const order = ['bm25', 'scibert', 'specter', 'scincl', 'aspire-bm', 'aspire-cs'];
  return [...models].sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
}

/** Table 1: models × (pool size × measure), dataset level. `suffix` names a setting other than the paper's. */
export function table1(r: ResultsIndex, rows: MeanRow[], paper?: PaperNumbers, suffix = ''): string {
  const ds = rows.filter((x) => x.protocol === 'dataset');
  if (!ds.length) return '';
  const sizes = [...new Set(ds.map((x) => x.poolSize))].sort((a, b) => a - b);
  const models = paperOrder([...new Set(ds.map((x) => x.model))]);
  const head = ['model', ...sizes.flatMap((s) => r.measures.map((m) => `${sizeLabel(s)} ${m}`))];
  const body = models.map((model) => [label(r, model), ...sizes.flatMap((s) => {
    const row = ds.find((x) => x.model === model && x.poolSize === s);
    return r.measures.map((m) => pct(row?.means[m]));
  })]);
  const repeats = Math.max(...ds.map((x) => x.repeats));
  const parts = [`## Table 1 — dataset level (§3.1)${suffix}`, '', `${ds[0] ? cellsNote(r, 'dataset') : ''} Mean over ${repeats} pool sample${repeats > 1 ? 's' : ''} per size.`, '', mdTable(head, body)];
  if (paper) {
    const psizes = ['200k', '500k', '1M', '2M'];
    parts.push('', `The paper's Table 1 (S2ORC, ${psizes.join('/')} pools, 3,800 queries):`, '', paperTable1(paper, psizes, r.measures.filter((m) => ['MAP', 'nDCG', 'R@30'].includes(m))));
  }
  return parts.join('\n');
}

function cellsNote(r: ResultsIndex, protocol: 'dataset' | 'field'): string {
  const c = r.cells.find((x) => x.protocol === protocol && x.split === 'test');
  if (!c) return '';
  return protocol === 'dataset'
    ? `${c.queries} queries from ${r.queryYear}, top ${r.k}; values ×100.`
    : `${c.queries} queries per field from ${r.queryYear}, pools of ${sizeLabel(c.poolSize)}, top ${r.k}; values ×100.`;
}

const FIELD_TABLES = [
  { n: 2, measure: 'MAP', key: 'table2_field_level_MAP' },
  { n: 7, measure: 'nDCG', key: 'table7_field_level_nDCG' },
  { n: 8, measure: 'R@30', key: 'table8_field_level_R@30' },
] as const;

/** Tables 2, 7, 8: models × fields (+ AVG) for one measure each, field level. */
export function fieldTables(r: ResultsIndex, rows: MeanRow[], paper?: PaperNumbers, suffix = ''): string {
  const fl = rows.filter((x) => x.protocol === 'field');
  if (!fl.length) return '';
  const present = ABBREVS.filter((a) => fl.some((x) => x.field && FIELD_ABBREV[x.field] === a));
  const models = paperOrder([...new Set(fl.map((x) => x.model))]);
  const one = Object.entries(r.fieldRepeats).filter(([, n]) => n === 1).map(([f]) => f);
  const parts: string[] = [];
  for (const t of FIELD_TABLES) {
    const measure = r.measures.find((m) => m.toLowerCase() === t.measure.toLowerCase());
    if (!measure) continue;
    const body = models.map((model) => {
      const vals = present.map((a) => fl.find((x) => x.model === model && x.field && FIELD_ABBREV[x.field] === a)?.means[measure]);
      const ok = vals.filter((v): v is number => v !== undefined);
      return [label(r, model), ...vals.map(pct), pct(ok.length === vals.length ? ok.reduce((s, v) => s + v, 0) / ok.length : undefined)];
    });
    parts.push(`## Table ${t.n} — field level, ${t.measure} (§3.2)${suffix}`, '', `${cellsNote(r, 'field')} Mean over ${Math.max(...Object.values(r.fieldRepeats))} pool samples${one.length ? ` (one for ${one.join(', ')}: the field-cited set is not larger than the pool)` : ''}; AVG over the fields shown.`, '', mdTable(['model', ...present, 'AVG'], body));
    const p = paper?.[t.key] as Record<string, Record<string, number>> | undefined;
    if (p) {
      parts.push('', `The paper's Table ${t.n} (S2ORC, 200 queries per field, 100k pools):`, '',
        mdTable(['model (paper)', ...ABBREVS, 'AVG'], Object.keys(p).map((model) => [model, ...[...ABBREVS, 'AVG'].map((a) => printed(p[model][a]))])));
    }
    parts.push('');
  }
  return parts.join('\n');
}

/** Tables 3 and 4: MDCR per field and per candidate type (evaluate.py's values, ×100). */
export function mdcrTables(r: ResultsIndex, paper?: PaperNumbers): string {
  const m = r.mdcr;
  if (!m) return '';
  const models = paperOrder(Object.keys(m.results));
  const metrics = [['map', 'MAP'], ['recall_5', 'R@5']] as const;
  const q = m.queriesPerSplit.test;
  const parts = [`## Table 3 — MDCR (§4)`, '',
    `MDCR built by citebench from this corpus (${q} test queries: the field-level ones; ${m.queriesPerSplit.val} disjoint val queries), ` +
      `model-based negatives from ${m.chosenModels.join(', ') || 'no model'}${m.notes.length ? ` (${m.notes.join('; ')})` : ''}. evaluate.py's numbers (×100).`, '',
    mdcrTable3(models.map((x) => ({ model: label(r, x), result: m.results[x].all })))];
  const paperModels = (t: Record<string, unknown> | undefined) => Object.keys(t ?? {}) as (keyof NonNullable<typeof t>)[];
  if (paper?.table3_mdcr) {
    const t3 = paper.table3_mdcr as unknown as Record<string, Record<string, Record<string, number>>>;
    const pm = paperModels(t3) as string[];
    parts.push(`The paper's Table 3 (the published MDCR test split):`, '',
      mdTable(['field', ...pm.flatMap((x) => metrics.map(([, n]) => `${x} ${n}`))], [...ABBREVS, 'AVG'].map((a) => [a, ...pm.flatMap((x) => metrics.map(([, n]) => printed(t3[x][a]?.[n])))])), '');
  }
  parts.push(`## Table 4 — MDCR candidate types (§4.4)`, '', `Each type evaluated alone: the positives plus that type's negatives; AVG over fields.`, '',
    mdcrTable4(models.map((x) => ({ model: label(r, x), byType: m.results[x].types }))));
  if (paper?.table4_candidate_types) {
    const t4 = paper.table4_candidate_types as unknown as Record<string, Record<string, Record<string, number>>>;
    const pm = paperModels(t4) as string[];
    const pt = Object.keys(t4[pm[0]]);
    parts.push(`The paper's Table 4:`, '',
      mdTable(['model (paper)', ...pt.flatMap((t) => metrics.map(([, n]) => `${t} ${n}`))], pm.map((x) => [x, ...pt.flatMap((t) => metrics.map(([, n]) => printed(t4[x][t]?.[n])))])));
  }
  return parts.join('\n');
}

/** The inductive setting's tables (Goyal et al. 2026 §3.1), when the run has them; no paper numbers exist for it. */
export function inductiveTables(r: ResultsIndex, rows: MeanRow[]): string {
  const ind = rows.filter((x) => x.setting === 'inductive');
  if (!ind.length) return '';
  return [`## Inductive setting (Goyal et al. 2026 §3.1)`, '',
    `Queries and pools are disjoint and every candidate was published strictly before its query (year < ${r.queryYear}); queries cite at least one such article; profiles use only citing articles published before ${r.queryYear}. Queries and pools are drawn from streams of their own, so they differ from the transductive tables above.`, '',
    table1(r, ind, undefined, ' — inductive'), '', fieldTables(r, ind, undefined, ' — inductive')].join('\n');
}

/** Paired tests against BM25 of the models beyond the paper (results.json's significance record). */
export function significanceTable(r: ResultsIndex): string {
  const s = r.significance;
  if (!s || !s.rows.length) return '';
  const p = (x: number) => (x < 0.001 ? '<0.001' : x.toFixed(3));
  const body = s.rows.map((x) => [x.setting, sizeLabel(x.poolSize), label(r, x.model), x.measure, (x.meanDiff >= 0 ? '+' : '') + (100 * x.meanDiff).toFixed(1), p(x.pT), p(x.pRandomization), p(x.pHolm) + (x.pHolm < 0.05 ? ' *' : '')]);
  return [`## Paired significance against ${s.baseline} (dataset level)`, '',
    `Per query, the mean over repeats; Δ = model − ${s.baseline} (×100) over ${s.rows[0].queries} queries; two-sided paired t-test, paired randomization test (${s.trials} sign flips, seeded), Holm's correction over the rows of one setting and measure (* : < 0.05).`, '',
    mdTable(['setting', 'pool', 'model', 'measure', 'Δ', 'p (t)', 'p (rand.)', 'p (Holm)'], body)].join('\n');
}

export function renderMarkdownReport(r: ResultsIndex, paper?: PaperNumbers): string {
  const all = meanOverRepeats(r.cells);
  const rows = all.filter((x) => !x.setting);
  const head = [`# citebench — ${r.name}`, '', ...provenance(r), ''];
  head.push(`Corpus: ${r.corpus.articles} prefiltered articles, ${r.corpus.citations} citations (${r.corpus.kind === 'synthetic' ? 'synthetic' : 'corpus store'}); seed ${r.seed}, scale ${r.scale}; config hash ${r.configHash}.`);
  head.push(`Models: ${r.models.map((m) => `${m.name}${m.kind === 'bm25' ? ` (k1 ${m.settings.k1}, b ${m.settings.b}${m.settings.tuned ? ', tuned' : ''})` : typeof m.settings.summary === 'string' ? ` (${m.settings.summary}${m.weights === 'random' ? '; random weights' : ''})` : m.weights === 'random' ? ' (random weights)' : ''}`).join(', ')}.`);
  if (r.skipped.length) head.push(`Skipped (no weights on this machine; see docs/dense.md to add them): ${r.skipped.map((s) => s.name).join(', ')}.`);
  for (const t of r.tuning) head.push(`Tuning: ${t.model} k1 ${t.chosen.k1}, b ${t.chosen.b} — best ${t.measure} of ${t.grid.length} grid points on ${t.queries} validation queries (pool ${sizeLabel(t.poolSize)}), disjoint from the test queries.`);
  if (r.excluded.files.length) head.push(`Excluded query ids: ${r.excluded.files.map((f) => `${f.path} (sha256 ${f.sha256.slice(0, 12)}…, ${f.ids} ids, ${f.notInStore} not in the store)`).join(', ')}.`);
  head.push(`The paper's tables follow ours for orientation${r.corpus.kind === 'synthetic' ? ' only: a synthetic corpus at another scale does not reproduce their values' : ''}.`, '');
  return [...head, table1(r, rows, paper), '', fieldTables(r, rows, paper), mdcrTables(r, paper), '', inductiveTables(r, all), '', significanceTable(r), ''].filter((s, i, a) => !(s === '' && a[i - 1] === '')).join('\n');
}
