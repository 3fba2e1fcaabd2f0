/**
 * The Markdown report of a results folder (report.md, written by `citebench run`): the tables of report-tables.ts
 * — the paper's Tables 1, 2, 7, 8 (large-scale protocols) and 3, 4 (MDCR), the inductive setting's, the paired
 * tests against BM25 — rendered by tables.ts, the paper's own table after each of its tables. The HTML report
 * renders the same tables. Where the numbers come from is said above the tables: a synthetic corpus or
 * random-weight model is never presented as a finding.
 */
import { chosenText, corpusSourceText, importedBanner, resultsFieldScheme, shortfallText, weightsNote, type ModelEntry, type ResultsIndex } from './results.ts';
import type { PaperNumbers } from './paper-numbers.ts';
import { buildTables } from './report-tables.ts';
import { paperFieldTableData, tableBaselines, paperMdcrTablesData, paperTable1Data, poolLabel as sizeLabel, tableHeading, tableMarkdown, type ReportTable } from './tables.ts';
import { marksLegend, testsAgainst } from './significance.ts';

/** Where the numbers come from, said before any table. */
export function provenance(r: ResultsIndex): string[] {
  const out: string[] = [];
  if (r.corpus.kind === 'synthetic') {
    out.push(`> **Synthetic corpus.** Every number below comes from a synthetic S2ORC-shaped corpus (${r.corpus.synthetic!.articles} generated articles, seed ${r.corpus.synthetic!.seed}, generator ${r.corpus.synthetic!.generator}): it exercises the pipeline at scale, and its values are properties of the generator, not findings about scientific literature.`);
  }
  if (r.corpus.source && resultsFieldScheme(r) !== 'mag') {
    out.push(`> **OpenAlex Topics fields.** ${r.corpus.kind === 'synthetic' ? 'A synthetic corpus generated in this form' : 'A corpus store of real data'} (${corpusSourceText(r.corpus.source)}): the field-level and MDCR tables are over these fields, not comparable with the paper's MAG fields, and carry no paper values.`);
  }
  const random = r.models.filter((m) => m.weights === 'random').map((m) => m.name);
  if (random.length) out.push(`> **Random weights.** ${random.join(', ')} ${random.length > 1 ? 'have' : 'has'} random (untrained) weights: ${random.length > 1 ? 'their' : 'its'} rows test loading, pooling and search, not retrieval quality.`);
  const imported = importedBanner(r.models);
  if (imported) out.push(`> **Imported vectors.** ${imported.names.join(', ')} ${imported.text}`);
  return out;
}

function section(t: ReportTable, paperTables: string[]): string {
  const baselines = tableBaselines(t);
  return [`## ${tableHeading(t)}`, '', t.intro, '', tableMarkdown(t), ...(baselines.length ? ['', marksLegend(baselines, { head: 'Marks: ', each: (b) => testsAgainst(b, '`'), sep: '; ', tail: ': the tests citebench run stored in results.json.' })] : []), ...paperTables.flatMap((p) => ['', p]), ''].join('\n');
}

const paperText = (t: ReportTable) => `${t.intro}\n\n${tableMarkdown(t)}`;

/** Our tables in the Markdown report's order, each with the paper's own where it has one. */
function tableSections(r: ResultsIndex, paper?: PaperNumbers): string[] {
  const tables = new Map(buildTables(r, paper).map((t) => [t.id, t]));
  const mdcrPaper = paper && paperMdcrTablesData(paper);
  // The paper's field-level and MDCR tables are over MAG's fields: none follows a table over other fields.
  const magFields = resultsFieldScheme(r) === 'mag';
  const paperOf: Record<string, () => string> = paper ? {
    table1: () => paperText(paperTable1Data(paper, ['200k', '500k', '1M', '2M'], r.measures.filter((m) => ['MAP', 'nDCG', 'R@30'].includes(m)))),
    ...(magFields ? {
      table2: () => paperText(paperFieldTableData(paper, 2)),
      table7: () => paperText(paperFieldTableData(paper, 7)),
      table8: () => paperText(paperFieldTableData(paper, 8)),
      table3: () => paperText(mdcrPaper![0]),
      table4: () => paperText(mdcrPaper![1]),
    } : {}),
  } : {};
  const order = ['table1', 'table2', 'table7', 'table8', 'table3', 'table3-specter2-card', 'table4', 'table1-inductive', 'table2-inductive', 'table7-inductive', 'table8-inductive', 'beir', 'significance', ...[...tables.keys()].filter((id) => /^(groups|slices)-/.test(id))];
  return order.filter((id) => tables.has(id)).map((id) => section(tables.get(id)!, paperOf[id] ? [paperOf[id]()] : []));
}

export function renderMarkdownReport(r: ResultsIndex, paper?: PaperNumbers): string {
  const head = [`# citebench — ${r.name}`, '', ...provenance(r), ''];
  head.push(`Corpus: ${r.corpus.articles} prefiltered articles, ${r.corpus.citations} citations (${r.corpus.kind === 'synthetic' ? 'synthetic' : r.corpus.source ? `corpus store: ${corpusSourceText(r.corpus.source)}` : 'corpus store'}); seed ${r.seed}, scale ${r.scale}; config hash ${r.configHash}.`);
  head.push(`Models: ${r.models.map((m) => `${m.name}${summaryOf(m) ? ` (${summaryOf(m)}${weightsNote(m.weights) ? `; ${weightsNote(m.weights)}` : ''})` : weightsNote(m.weights) ? ` (${weightsNote(m.weights)})` : ''}`).join(', ')}.`);
  if (r.skipped.length) head.push(`Skipped (no weights on this machine; see docs/dense.md to add them): ${r.skipped.map((s) => s.name).join(', ')}.`);
  for (const t of r.tuning) head.push(`Tuning: ${t.model} ${chosenText(t)} — best ${t.measure} of ${t.grid.length} grid points on ${t.queries} validation queries (pool ${sizeLabel(t.poolSize)}), disjoint from the test queries.`);
  for (const v of r.validationShortfalls ?? []) head.push(`Smaller validation split: ${shortfallText(v)}.`);
  if (r.excluded.files.length) head.push(`Excluded query ids: ${r.excluded.files.map((f) => `${f.path} (sha256 ${f.sha256.slice(0, 12)}…, ${f.ids} ids, ${f.notInStore} not in the store)`).join(', ')}.`);
  head.push(`The paper's tables follow ours for orientation${r.corpus.kind === 'synthetic' ? ' only: a synthetic corpus at another scale does not reproduce their values' : ''}.`, '');
  return [...head, ...tableSections(r, paper)].join('\n');
}

/** A model's words beside its name (results.json `summary`; older results kept it in `settings.summary`). */
export function summaryOf(m: ModelEntry): string | undefined {
  return m.summary ?? (typeof m.settings.summary === 'string' ? m.settings.summary : undefined);
}
