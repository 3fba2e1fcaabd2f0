/**
 * Drill-down pages, one per field and model (field level, test split, first pool sample): the worst and the
 * best queries by the first measure, each with its top-10 candidates (title, year, cited or not) and its cited
 * articles with their ranks — so a reviewer can see why a field is hard. Titles and years come from the corpus
 * store when one is given (and matches the results); without it the pages show paper ids only.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fieldAbbrev, parseSchemeField, schemeFieldHint, schemeFields, type FieldName } from '../corpus/fields.ts';
import { CorpusStore } from '../corpus/store.ts';
import { readRankedRun, readRelevant } from '../eval/trec-run.ts';
import { CitebenchError } from '../util/errors.ts';
import { firstBaseline, readCell, resultsFieldScheme, type CellRecord, type CellSummary, type ResultsIndex } from './results.ts';
import { esc, fmt1, page } from './html.ts';
import { paperOrder } from './report-tables.ts';

export interface ArticleInfo {
  title: string;
  year?: number;
}
export type ArticleLookup = (paperId: string) => ArticleInfo | undefined;

/** Titles and years from a corpus store; the store stays open until close(). */
export function storeLookup(dir: string): { lookup: ArticleLookup; close: () => void } {
  const store = CorpusStore.open(dir);
  return {
    lookup: (id) => {
      const i = store.indexOfSorted(id);
      if (i < 0) return undefined;
      const y = store.years[i];
      return { title: store.text(i).title, year: y || undefined };
    },
    close: () => store.close(),
  };
}

export interface DrillPage {
  /** Path relative to the report folder. */
  path: string;
  field: FieldName;
  model: string;
  html: string;
}

/** File-safe name of a model. */
const slug = (s: string) => s.replace(/[^A-Za-z0-9_.-]/g, '_');

/** The wanted queries of a TREC run: query → docnos in trec_eval's order (eval/trec-run.ts). */
function runOf(file: string, wanted: Set<string>): Map<string, string[]> {
  return new Map([...readRankedRun(file, { queries: wanted }).lists].map(([q, l]) => [q, l.map((x) => x.docno)]));
}

/** The wanted queries' relevant docnos of a qrels file (eval/trec-run.ts). */
function qrelsOf(file: string, wanted: Set<string>): Map<string, string[]> {
  return readRelevant(file, { queries: wanted });
}

export interface DrillOptions {
  /** Queries shown at each end (worst and best); default 3. */
  perEnd?: number;
  lookup?: ArticleLookup;
}

function articleCell(id: string, lookup?: ArticleLookup): string {
  const a = lookup?.(id);
  return `<td class="id">${esc(id)}</td><td>${a ? esc(a.title) : '<span class="muted">(no title: no corpus store)</span>'}</td><td>${a?.year ?? '–'}</td>`;
}

export function drillPages(dir: string, r: ResultsIndex, opts: DrillOptions = {}): DrillPage[] {
  const perEnd = opts.perEnd ?? 3;
  const measure = r.measures[0];
  // The paper's setting only: an inductive cell of the same field and model would take the same page path.
  const cells = r.cells.filter((c) => c.protocol === 'field' && c.split === 'test' && c.repeat === 1 && !c.setting);
  const pages: DrillPage[] = [];
  const models = paperOrder([...new Set(cells.map((c) => c.model))]);
  const order = schemeFields(resultsFieldScheme(r));
  cells.sort((a, b) => order.indexOf(a.field!) - order.indexOf(b.field!) || models.indexOf(a.model) - models.indexOf(b.model));
  for (const c of cells) {
    pages.push(drillPage(dir, r, c, measure, perEnd, opts.lookup));
  }
  return pages;
}

/** A cell's queries by one measure, worst first (ties by query id): the order drill pages and worstQueries use. */
function queriesByValue(rec: CellRecord, measure: string): { q: string; v: number }[] {
  const vals = rec.perQuery[measure];
  return rec.queryIds.map((q, i) => ({ q, v: vals[i] })).sort((a, b) => a.v - b.v || (a.q < b.q ? -1 : a.q > b.q ? 1 : 0));
}

function drillPage(dir: string, r: ResultsIndex, c: CellSummary, measure: string, perEnd: number, lookup?: ArticleLookup): DrillPage {
  const order = queriesByValue(readCell(dir, c), measure);
  const worst = order.slice(0, Math.min(perEnd, order.length));
  const best = order.slice(Math.max(worst.length, order.length - perEnd)).reverse();
  const wanted = new Set([...worst, ...best].map((x) => x.q));
  const run = runOf(join(dir, c.files.run), wanted);
  const qrels = qrelsOf(join(dir, c.files.qrels), wanted);
  const abbrev = fieldAbbrev(c.field!);
  const weights = r.models.find((m) => m.name === c.model)?.weights;
  const block = (x: { q: string; v: number }) => {
    const list = run.get(x.q) ?? [];
    const cited = new Set(qrels.get(x.q) ?? []);
    const rankOf = new Map(list.map((d, i) => [d, i + 1]));
    const q = lookup?.(x.q);
    const top = list.slice(0, 10).map((d, i) => `<tr class="${cited.has(d) ? 'cited' : ''}"><td>${i + 1}</td>${articleCell(d, lookup)}<td>${cited.has(d) ? '✔ cited' : ''}</td></tr>`);
    const citedRows = [...cited].map((d) => ({ d, rank: rankOf.get(d) })).sort((a, b) => (a.rank ?? 1e12) - (b.rank ?? 1e12) || (a.d < b.d ? -1 : 1))
      .map(({ d, rank }) => `<tr><td>${rank ?? `not in top ${r.k}`}</td>${articleCell(d, lookup)}</tr>`);
    return `<article class="query"><h3>Query ${esc(x.q)}${q ? ` — ${esc(q.title)} (${q.year ?? '?'})` : ''}</h3>` +
      `<p>${esc(measure)} ${fmt1(100 * x.v)} · ${cited.size} cited articles in the pool · ${list.length} retrieved</p>` +
      `<h4>Top 10</h4><table class="dl"><thead><tr><th>rank</th><th>paper id</th><th>title</th><th>year</th><th></th></tr></thead><tbody>${top.join('') || '<tr><td colspan="5">empty list</td></tr>'}</tbody></table>` +
      `<h4>Cited articles and their ranks</h4><table class="dl"><thead><tr><th>rank</th><th>paper id</th><th>title</th><th>year</th></tr></thead><tbody>${citedRows.join('')}</tbody></table></article>`;
  };
  const body = `<p><a href="../../index.html">← report</a></p><h1>${esc(c.field!)} (${esc(abbrev)}) — ${esc(c.model)}</h1>` +
    (weights === 'random' ? `<div class="banner"><strong>Random weights.</strong> ${esc(c.model)} has untrained weights: these rankings say nothing about retrieval quality.</div>` : '') +
    (weights === 'imported' ? `<div class="banner"><strong>Imported vectors.</strong> ${esc(c.model)} ranks by vectors computed outside citebench: these rankings are as good as the encoder that made them.</div>` : '') +
    (r.corpus.kind === 'synthetic' ? `<div class="banner"><strong>Synthetic corpus.</strong> Titles and citations are generated.</div>` : '') +
    `<p class="intro">Field level, test queries, pool sample 1 of ${r.fieldRepeats[abbrev] ?? 1} (${c.poolMembers} candidates), top ${r.k}. ${c.queries} queries, mean ${esc(measure)} ${fmt1(100 * c.means[measure])}. ` +
    `The ${worst.length} worst and ${best.length} best queries by ${esc(measure)}; cited rows are marked.</p>` +
    `<h2>Worst queries</h2>${worst.map(block).join('')}<h2>Best queries</h2>${best.map(block).join('')}`;
  const css = `<style>table.dl{border-collapse:collapse;font-size:12px;margin:4px 0 10px}table.dl td,table.dl th{border-bottom:1px solid #ddd;padding:2px 6px;text-align:left}tr.cited td{font-weight:bold;background:#eef5ea}td.id{font-family:monospace}.muted{color:#777}article.query{break-inside:avoid}</style>`;
  return { path: `drill/${slug(abbrev)}/${slug(c.model)}.html`, field: c.field!, model: c.model, html: page(`${c.field} — ${c.model}`, css + body) };
}

/**
 * The drill-down's corpus store: `given` (an error when it is not the results' corpus), else <results>/../store
 * (the runner's layout) when it holds the same number of articles, else none.
 */
export function findStore(resultsDir: string, r: ResultsIndex, given?: string): string | undefined {
  const dir = given ?? join(resultsDir, '..', 'store');
  const metaPath = join(dir, 'meta.json');
  if (!existsSync(metaPath)) {
    if (given) throw new CitebenchError(`${given}: not a corpus store (no meta.json)`);
    return undefined;
  }
  let articles: unknown;
  try {
    articles = JSON.parse(readFileSync(metaPath, 'utf8')).articles;
  } catch (e) {
    if (given) throw new CitebenchError(`${metaPath}: not valid JSON (${(e as Error).message})`);
    return undefined;
  }
  if (articles === r.corpus.articles) return dir;
  if (given) throw new CitebenchError(`${metaPath}: ${articles} articles, but the results were computed on ${r.corpus.articles}: not this run's corpus`);
  return undefined;
}

/** One query of a field-level cell, for a data frame (what the drill page shows, without the lists). */
export interface QueryRow {
  query: string;
  measure: string;
  /** The measure's value for this query (a fraction, as in the cell file). */
  value: number;
  /** Cited articles of the query in the pool (its relevant documents). */
  cited: number;
  /** Rank of the best-ranked cited article; null when none is in the top k. */
  firstCited: number | null;
  citedInTop10: number;
  retrieved: number;
  year: number | null;
  /** From the corpus store; null without one. Raw text: whoever renders it escapes it. */
  title: string | null;
}

export interface WorstQueriesOptions {
  field: string;
  /** Default: the run's first baseline (else the first model of the field level). */
  model?: string;
  /** Default: the run's first measure. */
  measure?: string;
  /** Queries returned (default 10). */
  n?: number;
  /** Pool sample (default 1, the one drill pages show). */
  repeat?: number;
  /** Titles and years: a lookup, or a corpus store folder (default: the runner's <results>/../store when it is this run's corpus). */
  lookup?: ArticleLookup;
  store?: string;
}

/**
 * The worst queries of one field-level cell (test split), worst first: per-query values from the cell file, the
 * cited articles from its qrels, their ranks from its run file, titles from the corpus store.
 */
export function worstQueries(dir: string, r: ResultsIndex, opts: WorstQueriesOptions): QueryRow[] {
  const scheme = resultsFieldScheme(r);
  const field = parseSchemeField(scheme, opts.field);
  const fieldCells = r.cells.filter((c) => c.protocol === 'field' && c.split === 'test' && !c.setting);
  if (!field) throw new CitebenchError(`unknown field '${opts.field}': ${scheme === 'mag' ? `a MAG field name or the paper's abbreviation (${schemeFields('mag').map(fieldAbbrev).join(', ')})` : `this run's fields are ${schemeFieldHint(scheme)}`}`);
  const baseline = firstBaseline(r);
  const model = opts.model ?? (fieldCells.some((c) => c.model === baseline) ? baseline! : fieldCells[0]?.model);
  const repeat = opts.repeat ?? 1;
  const c = fieldCells.find((x) => x.field === field && x.model === model && x.repeat === repeat);
  if (!c) {
    const have = (k: (x: CellSummary) => string) => [...new Set(fieldCells.map(k))].join(', ') || 'none';
    throw new CitebenchError(`${dir}: no field-level test cell for ${field}, model ${model}, pool sample ${repeat} (fields: ${have((x) => x.field!)}; models: ${have((x) => x.model)})`);
  }
  const measure = opts.measure ?? r.measures[0];
  const rec = readCell(dir, c);
  if (!rec.perQuery[measure]) throw new CitebenchError(`${join(dir, c.file)}: no per-query values of '${measure}' (have: ${Object.keys(rec.perQuery).join(', ')})`);
  const worst = queriesByValue(rec, measure).slice(0, opts.n ?? 10);
  const wanted = new Set(worst.map((x) => x.q));
  const run = runOf(join(dir, c.files.run), wanted);
  const qrels = qrelsOf(join(dir, c.files.qrels), wanted);
  let lookup = opts.lookup;
  let close = () => {};
  const store = lookup ? undefined : findStore(dir, r, opts.store);
  if (store) ({ lookup, close } = storeLookup(store));
  try {
    return worst.map(({ q, v }) => {
      const list = run.get(q) ?? [];
      const cited = new Set(qrels.get(q) ?? []);
      const first = list.findIndex((d) => cited.has(d));
      const a = lookup?.(q);
      return {
        query: q, measure, value: v, cited: cited.size, firstCited: first < 0 ? null : first + 1,
        citedInTop10: list.slice(0, 10).filter((d) => cited.has(d)).length, retrieved: list.length, year: a?.year ?? null, title: a?.title ?? null,
      };
    });
  } finally {
    close();
  }
}
