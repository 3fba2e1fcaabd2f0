/**
 * Regression values (Anserini's practice): every number a results folder holds for a config — each cell's
 * means, the tuning grid and choice, the MDCR evaluation per model, candidate type and field, paired tests —
 * written once to a file in the repository and compared with every later run of the same config.
 *
 * The comparison is equality, not a tolerance: a run is deterministic (same config and seed ⇒ byte-identical
 * results.json; BM25 and the measures use V8's own fdlibm ports for log/exp, not the platform's libm), and
 * results.json stores each mean as the shortest decimal that reads back as the same double (JSON.stringify),
 * so the expected file holds exactly the numbers results.json holds. Any difference, in the last bit or in a
 * cell that appears or disappears, is a change of behaviour that a reviewer should see.
 *
 * File layout: a header (what made the values, that they are not findings), the config's hash, and `rows`: one
 * line per row, a row being a flat record of numbers (a cell's measures, an MDCR field's map/ndcg/recall_5),
 * keyed by a path that names it as the results folder does (cells/bm25/dataset/800-r1, mdcr/bm25/all/AVG).
 * One number changed is one line changed in `git diff`.
 */
import { readFileSync } from 'node:fs';
import { fieldAbbrev } from '../corpus/fields.ts';
import { paramsText, type ResultsIndex } from './results.ts';
import { storedSignificance } from './significance.ts';
import { readJsonFile } from '../util/json.ts';
import { InputError } from '../util/errors.ts';
import { writeFileAtomic } from '../util/atomic.ts';

export type RegressionRows = Record<string, Record<string, number>>;

export interface RegressionFile {
  format: 'citebench-regressions';
  version: 1;
  about: string[];
  /** The config's name and hash (results.json's configHash: the config without its output folders). */
  config: string;
  configHash: string;
  rows: RegressionRows;
}

/** Every number of a results index, as rows (insertion order = results.json order, deterministic). */
export function regressionRows(r: ResultsIndex): RegressionRows {
  const rows: RegressionRows = {};
  const put = (key: string, values: Record<string, number>) => {
    if (key in rows) throw new Error(`regression row ${key} twice`); // a results index names each thing once
    rows[key] = { ...values };
  };
  put('corpus', { articles: r.corpus.articles, citations: r.corpus.citations });
  for (const t of r.tuning) {
    put(`tuning/${t.model}/chosen`, t.chosen);
    put(`tuning/${t.model}/grid`, Object.fromEntries(t.grid.map((p) => [`${t.measure} ${paramsText(p.params)}`, p.score])));
  }
  for (const c of r.cells) {
    put(c.file.replace(/\.json$/, ''), { queries: c.queries, poolMembers: c.poolMembers, ...c.means });
  }
  for (const [model, res] of Object.entries(r.mdcr?.results ?? {})) {
    for (const [type, s] of [['all', res.all] as const, ...Object.entries(res.types)]) {
      put(`mdcr/${model}/${type}/AVG`, s.avg);
      for (const f of s.fields) put(`mdcr/${model}/${type}/${f.field}`, f.values);
    }
  }
  const sig = storedSignificance(r);
  for (const s of sig?.rows ?? []) {
    const where = s.protocol === 'field' ? `field/${fieldAbbrev(s.field!)}` : `dataset/${s.poolSize}`; // keyed like the cell files
    // Rows against the first baseline keep the key they always had; others name their baseline.
    const vs = s.baseline === sig!.baselines[0] ? '' : ` vs ${s.baseline}`;
    put(`significance/${s.setting}/${where}/${s.model}/${s.measure}${vs}`, { queries: s.queries, meanDiff: s.meanDiff, pT: s.pT, pRandomization: s.pRandomization, pHolm: s.pHolm, pRandomizationHolm: s.pRandomizationHolm });
  }
  return rows;
}

export interface RegressionDiff {
  kind: 'changed' | 'missing' | 'extra' | 'config';
  row: string;
  /** The value's name within the row (a measure); absent when a whole row is missing or extra. */
  name?: string;
  expected?: number | string;
  got?: number | string;
}

/** Differences between expected and actual rows: changed values, missing and extra rows and values. */
export function compareRegressions(expected: Pick<RegressionFile, 'configHash' | 'rows'>, got: Pick<RegressionFile, 'configHash' | 'rows'>): RegressionDiff[] {
  const out: RegressionDiff[] = [];
  if (expected.configHash !== got.configHash) out.push({ kind: 'config', row: 'configHash', expected: expected.configHash, got: got.configHash });
  for (const [row, want] of Object.entries(expected.rows)) {
    const have = got.rows[row];
    if (!have) {
      out.push({ kind: 'missing', row });
      continue;
    }
    for (const [name, v] of Object.entries(want)) {
      if (!(name in have)) out.push({ kind: 'missing', row, name, expected: v });
      else if (!Object.is(have[name], v)) out.push({ kind: 'changed', row, name, expected: v, got: have[name] });
    }
    for (const [name, v] of Object.entries(have)) if (!(name in want)) out.push({ kind: 'extra', row, name, got: v });
  }
  for (const row of Object.keys(got.rows)) if (!(row in expected.rows)) out.push({ kind: 'extra', row });
  return out;
}

/** Full precision: the shortest decimal that reads back as the same double (what results.json writes). */
const exact = (v: number | string | undefined) => (typeof v === 'number' ? JSON.stringify(v) : String(v));

function values(rec: Record<string, number> | undefined): string {
  return rec ? Object.entries(rec).map(([k, v]) => `${k} ${exact(v)}`).join(', ') : '';
}

/**
 * A readable diff, one line per difference: which row, which value, expected vs got to full precision.
 * `expected`/`got` give the whole rows of missing and extra ones.
 */
export function formatRegressionDiff(diffs: RegressionDiff[], expected: RegressionRows, got: RegressionRows): string {
  return diffs
    .map((d) => {
      const where = d.name === undefined ? d.row : `${d.row}  ${d.name}`;
      switch (d.kind) {
        case 'config':
          return `config changed  configHash: expected ${d.expected}, got ${d.got} (values recorded for another config)`;
        case 'changed': {
          const delta = (d.got as number) - (d.expected as number);
          return `changed  ${where}: expected ${exact(d.expected)}, got ${exact(d.got)} (${delta > 0 ? '+' : ''}${delta.toPrecision(3)})`;
        }
        case 'missing':
          return `missing  ${where}: expected ${d.name === undefined ? values(expected[d.row]) : exact(d.expected)}, not in the results`;
        case 'extra':
          return `extra    ${where}: got ${d.name === undefined ? values(got[d.row]) : exact(d.got)}, not in the expected values`;
      }
    })
    .join('\n');
}

/** The file's text: the header keys, then one line per row, so that `git diff` shows one line per changed row. */
export function formatRegressionFile(f: RegressionFile): string {
  const rows = Object.entries(f.rows).map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)}`);
  return [
    '{',
    `  "format": ${JSON.stringify(f.format)},`,
    `  "version": ${f.version},`,
    `  "about": [\n${f.about.map((l) => `    ${JSON.stringify(l)}`).join(',\n')}\n  ],`,
    `  "config": ${JSON.stringify(f.config)},`,
    `  "configHash": ${JSON.stringify(f.configHash)},`,
    `  "rows": {\n${rows.join(',\n')}\n  }`,
    '}',
    '',
  ].join('\n');
}

export function writeRegressionFile(path: string, f: RegressionFile): void {
  writeFileAtomic(path, formatRegressionFile(f));
}

/** Read and check an expected-values file; a malformed one is one line naming the file, line and key. */
export function readRegressionFile(path: string): RegressionFile {
  const f = readJsonFile(path) as RegressionFile;
  const bad = (key: string | undefined, problem: string, row = key): never => {
    throw new InputError(path, lineOf(path, row), key, problem);
  };
  if (f?.format !== 'citebench-regressions' || f.version !== 1) bad(undefined, 'not a citebench regressions file (format citebench-regressions, version 1)');
  if (typeof f.configHash !== 'string') bad('configHash', 'must be a string');
  if (typeof f.rows !== 'object' || f.rows === null || Array.isArray(f.rows)) bad('rows', 'must be an object of rows');
  for (const [row, rec] of Object.entries(f.rows)) {
    if (typeof rec !== 'object' || rec === null || Array.isArray(rec)) bad(row, 'must be an object of numbers');
    for (const [name, v] of Object.entries(rec)) if (typeof v !== 'number') bad(`${row}.${name}`, `must be a number, got ${JSON.stringify(v)}`, row);
  }
  return f;
}

/** 1-based line of a key in the file (rows are one per line), if found. */
function lineOf(path: string, key: string | undefined): number | undefined {
  if (key === undefined) return undefined;
  const i = readFileSync(path, 'utf8').split('\n').findIndex((l) => l.includes(`${JSON.stringify(key)}:`));
  return i < 0 ? undefined : i + 1;
}
