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
import { sampleQueries, samplePool, citationQrels } from '../sampling/pools.ts';
import { evaluateRankedLists, parseMeasure, type Measure } from '../eval/index.ts';
import { writeFileAtomic } from '../util/atomic.ts';
import { hashString } from '../util/rng.ts';
import type { CellResult, MeanRow } from '../report/results-format.ts';

export type { CellResult, MeanRow } from '../report/results-format.ts';

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
}

export const PAPER_DATASET_LEVEL: LargeScaleConfig = {
  protocol: 'dataset', queries: 3800, poolSizes: [200_000, 500_000, 1_000_000, 2_000_000], repeats: 3, seed: 1, k: 500,
  measures: ['MAP', 'nDCG', 'R@30'],
};

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
  const measures: Measure[] = cfg.measures.map((name) => {
    const m = parseMeasure(name);
    if (m.length !== 1) throw new Error(`measure ${name} expands to ${m.length} measures; name one cutoff`);
    return m[0];
  });
  const fields: (Field | null)[] = cfg.protocol === 'dataset' ? [null] : (cfg.fields ?? (Object.keys(FIELD_ABBREV) as Field[]));
  const out: CellResult[] = [];
  for (const field of fields) {
    const queries = sampleQueries(store, { count: cfg.queries, seed: cfg.seed, field: field ?? undefined, queryYear: cfg.queryYear });
    for (const size of cfg.poolSizes) {
      for (let repeat = 1; repeat <= cfg.repeats; repeat++) {
        const key = cellKey(store, retriever.name, cfg, field, size, repeat);
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
        const res = evaluateRankedLists(lists, qrels, measures, { docOrder: store.idOrder });
        const cell: CellResult = {
          model: retriever.name,
          protocol: cfg.protocol,
          field,
          poolSize: size,
          poolMembers: pool.members.length,
          repeat,
          queries: queries.length,
          means: Object.fromEntries(cfg.measures.map((name, m) => [name, res.summary[m]])),
          perQuery: Object.fromEntries(cfg.measures.map((name, m) => [name, Array.from(res.perQuery[m])])),
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

/** Everything that determines a cell's numbers, hashed: store identity, model, protocol settings. */
function cellKey(store: CorpusStore, model: string, cfg: LargeScaleConfig, field: Field | null, size: number, repeat: number): string {
  const ident = JSON.stringify({
    store: [store.size, store.outTargets.length, store.meta.input],
    model, protocol: cfg.protocol, queries: cfg.queries, seed: cfg.seed, k: cfg.k, measures: cfg.measures,
    year: cfg.queryYear ?? 2019, field, size, repeat,
  });
  return hashString(ident).toString(16).padStart(8, '0');
}

/** Mean over repeats per (model, field, pool size): the numbers the paper's tables print. */
export function meanOverRepeats(cells: CellResult[]): MeanRow[] {
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
