/**
 * The paper's large-scale experiments (§3): for each (model, protocol, field, pool size, repeat) cell, sample
 * the queries and the pool, retrieve the top k, evaluate with trec_eval semantics. Every cell's result is a
 * small JSON file written atomically under `resultsDir` and keyed by everything that determines it, so a
 * killed run resumes at the first missing cell and a changed setting never reuses a stale number. Cell files
 * hold no timings: the same configuration and seed give byte-identical results.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CorpusStore } from '../corpus/store.ts';
import { FIELD_ABBREV, type Field } from '../corpus/fields.ts';
import type { Retriever } from '../retrieval/retriever.ts';
import { sampleQuerySet, samplePool, citationQrels } from '../sampling/pools.ts';
import { loadQueryExclusion, describeExclusion, type ExclusionFile } from '../sampling/exclusions.ts';
import { evaluateRankedLists, parseMeasure, type Measure } from '../eval/index.ts';
import { writeFileAtomic } from '../util/atomic.ts';
import { CitebenchError } from '../util/errors.ts';
import { hashString } from '../sampling/rng.ts';

export interface LargeScaleConfig {
  protocol: 'dataset' | 'field';
  /** Queries (dataset level: 3,800 in the paper; field level: 200 per field). */
  queries: number;
  /** Pool sizes (dataset level: 200 k, 500 k, 1 M, 2 M; field level: 100 k). */
  poolSizes: number[];
  repeats: number;
  seed: number;
  /** Retrieved per query (paper: 500). */
  k: number;
  /** Paper measure names (MAP, nDCG, R@30) or trec_eval names. */
  measures: string[];
  /** Field level: the fields to run (default all 19). */
  fields?: Field[];
  queryYear?: number;
  /**
   * A sampled query whose ranked list comes back empty: 'zero' (default) counts it as 0 in every mean, as
   * trec_eval -c does, so "MAP over 3,800 queries" averages 3,800 values; 'error' fails the cell instead.
   */
  emptyLists?: 'zero' | 'error';
  /**
   * Files of paper ids never used as queries (one per line): the paper left out SPECTER's and SciNCL's training
   * queries (§3.1). Part of the cell key through the files' sha256.
   */
  excludeQueries?: string[];
}

export const PAPER_DATASET_LEVEL: LargeScaleConfig = {
  protocol: 'dataset', queries: 3800, poolSizes: [200_000, 500_000, 1_000_000, 2_000_000], repeats: 3, seed: 1, k: 500,
  measures: ['MAP', 'nDCG', 'R@30'],
};

export interface CellResult {
  model: string;
  protocol: 'dataset' | 'field';
  field: Field | null;
  poolSize: number;
  /** Actual pool size (smaller than poolSize only for an exhausted field-cited set). */
  poolMembers: number;
  repeat: number;
  /** Queries averaged in the means (sampled queries with at least one relevant pool article). */
  queries: number;
  /** Queries sampled for the cell. */
  sampled: number;
  /** How sampled queries with an empty ranked list entered the means ('zero': as 0, like trec_eval -c). */
  emptyLists: 'zero' | 'error';
  /** Sampled queries whose ranked list was empty (each counted as 0 under 'zero'). */
  emptyListQueries: number;
  /** Measure name (as given in the config) → mean over queries. */
  means: Record<string, number>;
  /** Measure name → per-query values, in query order (for significance tests). */
  perQuery: Record<string, number[]>;
  /** The query exclusion applied (null: none; absent in cells written before exclusions existed). */
  queryExclusion?: {
    /** Articles eligible as queries (year, field, citing the corpus) before the exclusion. */
    candidates: number;
    /** Of those, how many the lists left out. */
    excluded: number;
    files: ExclusionFile[];
  } | null;
}

export interface RunLog {
  (line: string): void;
}

/** Run (or load from the cache) every cell of the config for one retriever. */
export async function runLargeScale(
  store: CorpusStore,
  retriever: Retriever,
  cfg: LargeScaleConfig,
  resultsDir: string,
  log: RunLog = () => {},
): Promise<CellResult[]> {
  checkConfig(cfg);
  const measures: Measure[] = cfg.measures.map((name) => {
    const m = parseMeasure(name);
    if (m.length !== 1) throw new CitebenchError(`measure ${name} expands to ${m.length} measures; name one cutoff`);
    return m[0];
  });
  const fields: (Field | null)[] = cfg.protocol === 'dataset' ? [null] : (cfg.fields ?? (Object.keys(FIELD_ABBREV) as Field[]));
  const exclusion = cfg.excludeQueries?.length ? loadQueryExclusion(store, cfg.excludeQueries) : undefined;
  if (exclusion) {
    for (const f of exclusion.files) log(`query exclusion ${f.path}: ${f.ids} ids, ${f.notInStore} not in the store`);
  }
  const out: CellResult[] = [];
  for (const field of fields) {
    const set = sampleQuerySet(store, { count: cfg.queries, seed: cfg.seed, field: field ?? undefined, queryYear: cfg.queryYear, exclude: exclusion?.indices });
    const queries = set.queries;
    const queryExclusion = exclusion ? { candidates: set.candidates, excluded: set.excluded, files: exclusion.files } : null;
    if (exclusion) log(`${field ?? 'dataset'}: ${describeExclusion(exclusion.files, set.excluded, set.candidates)}`);
    for (const size of cfg.poolSizes) {
      for (let repeat = 1; repeat <= cfg.repeats; repeat++) {
        const key = cellKey(store, retriever, cfg, field, size, repeat, exclusion?.files);
        const path = join(resultsDir, retriever.name, cfg.protocol, field ? FIELD_ABBREV[field] : 'all', `${size}-r${repeat}-${key}.json`);
        if (existsSync(path)) {
          out.push(JSON.parse(readFileSync(path, 'utf8')));
          continue;
        }
        const t0 = performance.now();
        const pool = samplePool(store, queries, { size, repeat, seed: cfg.seed, field: field ?? undefined, queryYear: cfg.queryYear });
        const label = `${retriever.name} ${field ?? 'dataset'} pool ${size} #${repeat}`;
        log(`${label}: ${queries.length} queries over ${pool.members.length} articles`);
        const lists = await retriever.search({ queries, pool: pool.members, k: cfg.k, excludeSelf: true });
        const rel = citationQrels(store, queries, pool.members);
        const qrels = { offsets: rel.offsets, docs: rel.docs, labels: new Int32Array(rel.docs.length).fill(1) };
        const emptyLists = cfg.emptyLists ?? 'zero';
        const res = evaluateRankedLists(lists, qrels, measures, { docOrder: store.idOrder, options: { missing: 'zero' } });
        if (emptyLists === 'error' && res.numMissingFromRun > 0) {
          const first = queries.findIndex((_, q) => lists.offsets[q + 1] === lists.offsets[q]);
          throw new CitebenchError(
            `${label}: ${res.numMissingFromRun} of ${queries.length} queries got an empty ranked list (first: ${store.id(queries[first])}); ` +
              `emptyLists 'zero' counts them as 0, as trec_eval -c`,
          );
        }
        const cell: CellResult = {
          model: retriever.name,
          protocol: cfg.protocol,
          field,
          poolSize: size,
          poolMembers: pool.members.length,
          repeat,
          queries: res.numAveraged,
          sampled: queries.length,
          emptyLists,
          emptyListQueries: res.numMissingFromRun,
          means: Object.fromEntries(cfg.measures.map((name, m) => [name, res.summary[m]])),
          perQuery: Object.fromEntries(cfg.measures.map((name, m) => [name, Array.from(res.perQuery[m])])),
          queryExclusion,
        };
        writeFileAtomic(path, JSON.stringify(cell) + '\n');
        log(`${label}: ${cfg.measures.map((n) => `${n} ${(100 * cell.means[n]).toFixed(1)}`).join(', ')} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
        out.push(cell);
        // Only one pool size exists when the field-cited set is exhausted: no repeats to draw.
        if (pool.exhausted) break;
      }
    }
  }
  return out;
}

/** Settings that would otherwise fail deep inside sampling, or silently give another experiment. */
function checkConfig(cfg: LargeScaleConfig): void {
  const bad = (what: string) => {
    throw new CitebenchError(`large-scale config: ${what}`);
  };
  const posInt = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 1;
  if (cfg.protocol !== 'dataset' && cfg.protocol !== 'field') bad(`protocol must be 'dataset' or 'field', got ${JSON.stringify(cfg.protocol)}`);
  if (!posInt(cfg.queries)) bad(`queries must be a positive integer, got ${cfg.queries}`);
  if (!Array.isArray(cfg.poolSizes) || cfg.poolSizes.length === 0 || !cfg.poolSizes.every(posInt)) bad(`poolSizes must be positive integers, got ${JSON.stringify(cfg.poolSizes)}`);
  if (!posInt(cfg.repeats)) bad(`repeats must be a positive integer, got ${cfg.repeats}`);
  if (!posInt(cfg.k)) bad(`k must be a positive integer, got ${cfg.k}`);
  // rngFor reads the seed as a 32-bit unsigned integer: 1.5 or 2³² + 1 would silently be seed 1.
  if (!(Number.isInteger(cfg.seed) && cfg.seed >= 0 && cfg.seed < 2 ** 32)) bad(`seed must be an integer in [0, 2^32), got ${cfg.seed}`);
  if (!Array.isArray(cfg.measures) || cfg.measures.length === 0) bad('measures: name at least one measure');
  if (cfg.queryYear !== undefined && !(Number.isInteger(cfg.queryYear) && cfg.queryYear > 0 && cfg.queryYear < 65535)) bad(`queryYear must be a year, got ${cfg.queryYear}`);
  for (const f of cfg.fields ?? []) if (!(f in FIELD_ABBREV)) bad(`unknown field ${JSON.stringify(f)} (fields are the 19 MAG names: ${Object.keys(FIELD_ABBREV).join(', ')})`);
  if (cfg.emptyLists !== undefined && cfg.emptyLists !== 'zero' && cfg.emptyLists !== 'error') bad(`emptyLists must be 'zero' or 'error', got ${JSON.stringify(cfg.emptyLists)}`);
}

/**
 * Everything that determines a cell's numbers, hashed: store identity, the retriever's name and fingerprint
 * (its parameters, model or index content), protocol settings.
 */
export function cellKey(store: CorpusStore, retriever: Retriever, cfg: LargeScaleConfig, field: Field | null, size: number, repeat: number, exclude?: ExclusionFile[]): string {
  const ident = JSON.stringify({
    store: [store.size, store.outTargets.length, store.meta.input, store.meta.version, store.meta.prefilter],
    model: retriever.name, retriever: retriever.fingerprint, protocol: cfg.protocol, emptyLists: cfg.emptyLists ?? 'zero', queries: cfg.queries, seed: cfg.seed, k: cfg.k, measures: cfg.measures,
    year: cfg.queryYear ?? 2019, field, size, repeat,
    // Absent (so keys of earlier cells stay valid) when nothing changed: no exclusion, dataset level.
    exclude: exclude ? [...new Set(exclude.map((f) => f.sha256))].sort() : undefined,
    // Field level: fill from field-cited sets over all input records (store version 2), not the store alone.
    fieldCited: cfg.protocol === 'field' ? 'all-input' : undefined,
  });
  return hashString(ident).toString(16).padStart(8, '0');
}

/** Mean over repeats per (model, field, pool size): the numbers the paper's tables print. */
export function meanOverRepeats(cells: CellResult[]): { model: string; field: Field | null; poolSize: number; repeats: number; means: Record<string, number> }[] {
  const groups = new Map<string, CellResult[]>();
  for (const c of cells) {
    const k = `${c.model}\u0000${c.field}\u0000${c.poolSize}`;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k)!.push(c);
  }
  return [...groups.values()].map((g) => {
    const names = Object.keys(g[0].means);
    return {
      model: g[0].model,
      field: g[0].field,
      poolSize: g[0].poolSize,
      repeats: g.length,
      means: Object.fromEntries(names.map((n) => [n, g.reduce((s, c) => s + c.means[n], 0) / g.length])),
    };
  });
}
