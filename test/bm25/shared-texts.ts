/** The real texts of ../shared/data used by the parity tests (title + abstract where there is one). */
import { existsSync, readFileSync } from 'node:fs';

const DATA = new URL('../../../shared/data/', import.meta.url).pathname;

export function sharedDataMissing(): string | undefined {
  return existsSync(DATA + 's2orc-sample/metadata.jsonl') && existsSync(DATA + 'scirepeval-sample/fos_small.json')
    ? undefined
    : `../shared/data is absent (${DATA}); parity tests need the shared S2ORC and SciRepEval samples`;
}

export interface TitledText {
  title: string;
  abstract: string;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** Documents: S2ORC sample + fos_small + specter positives/negatives + search_small candidates. */
export function sharedDocuments(): TitledText[] {
  const docs: TitledText[] = [];
  for (const line of readFileSync(DATA + 's2orc-sample/metadata.jsonl', 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line);
    docs.push({ title: str(r.title), abstract: str(r.abstract) });
  }
  for (const r of JSON.parse(readFileSync(DATA + 'scirepeval-sample/fos_small.json', 'utf8'))) {
    docs.push({ title: str(r.title), abstract: str(r.abstract) });
  }
  for (const r of JSON.parse(readFileSync(DATA + 'scirepeval-sample/specter_small.json', 'utf8'))) {
    for (const key of ['pos', 'neg']) if (r[key]) docs.push({ title: str(r[key].title), abstract: str(r[key].abstract) });
  }
  for (const line of readFileSync(DATA + 'scirepeval-sample/search_small.jsonl', 'utf8').split('\n')) {
    if (!line.trim()) continue;
    for (const c of JSON.parse(line).candidates ?? []) docs.push({ title: str(c.title), abstract: str(c.abstract) });
  }
  return docs;
}

/** Queries: specter query papers (title + abstract) and search_small keyword queries. */
export function sharedQueries(): TitledText[] {
  const qs: TitledText[] = [];
  for (const r of JSON.parse(readFileSync(DATA + 'scirepeval-sample/specter_small.json', 'utf8'))) {
    qs.push({ title: str(r.query.title), abstract: str(r.query.abstract) });
  }
  for (const line of readFileSync(DATA + 'scirepeval-sample/search_small.jsonl', 'utf8').split('\n')) {
    if (!line.trim()) continue;
    qs.push({ title: str(JSON.parse(line).query), abstract: '' });
  }
  return qs;
}
