/**
 * The MDCR files of a results folder (mdcr/: the build report, mdcr_<split>.json, its data jsonl, scores/<model>.json)
 * as records for a data frame: what the build drew per split and candidate type, and one query's candidates with
 * every model's score. Notebook 04 shows them; the numbers are the files', re-read.
 */
import { join } from 'node:path';
import { fieldAbbrev } from '../corpus/fields.ts';
import { readJsonFile } from '../util/json.ts';
import { readMdcrData } from '../eval/mdcr-data.ts';
import { CitebenchError } from '../util/errors.ts';
import type { MdcrRecord } from './results.ts';

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
  const field = opts.field ? Object.keys(bench).find((f) => f === opts.field || fieldAbbrev(f) === opts.field) ?? opts.field : Object.keys(bench)[0];
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
