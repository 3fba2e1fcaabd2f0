/**
 * One pool group of a run — its topic set (topic-sets.ts: queries, pool and qrels), every model on it —
 * evaluated by experiment() into the one cache (result-cache.ts: cells keyed, written atomically, locked while
 * computed). The cell key hashes the corpus and sampling identity, the retriever's fingerprint and the group's
 * protocol settings; cell files hold no timings, so the same configuration and seed give byte-identical results.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CorpusStore } from '../corpus/store.ts';
import { writeQrels } from '../eval/trec-write.ts';
import type { RankedLists, Retriever } from '../retrieval/retriever.ts';
import type { Pool } from '../sampling/pools.ts';
import type { CellRecord } from '../report/results.ts';
import type { PoolGroup } from './plan.ts';
import { experiment, type CellModel } from './experiment.ts';
import { cacheKey } from './result-cache.ts';
import type { SampledTopicSet } from './topic-sets.ts';

export interface GroupContext {
  store: CorpusStore;
  resultsDir: string;
  seed: number;
  queryYear: number;
  k: number;
  measureNames: string[];
  /** Identity of the corpus and of everything sampling depends on (exclusion lists …). */
  sampleKey: string;
  /**
   * A query whose ranked list comes back empty: 'zero' (default) counts it 0 in every mean, as trec_eval -c
   * does, so "MAP over 3,800 queries" averages 3,800 values; 'error' fails the cell instead.
   */
  emptyLists?: 'zero' | 'error';
  log: (line: string) => void;
  /**
   * A cell whose lock a live worker holds: 'wait' (default) until that worker finishes it or dies; 'skip' it
   * (a `--worker` moves on to other cells; the final run picks up whatever is left).
   */
  locked?: 'wait' | 'skip';
  /** Lock staleness timeout (default: util/lock.ts). */
  lockStaleMs?: number;
}

export interface GroupResult {
  pool: Pool;
  cells: CellRecord[];
  /** Each model's lists in memory when it was searched now (cached cells are read back on demand). */
  lists: Map<string, RankedLists>;
  /** Models whose cell another live worker holds (locked: 'skip' only); not in `cells`. */
  skipped: string[];
}


/**
 * Everything that determines a cell's numbers, hashed: the corpus and sampling identity, the retriever's
 * fingerprint (its parameters, model or index content), the protocol settings of the group.
 */
export function cellKey(ctx: Pick<GroupContext, 'sampleKey' | 'seed' | 'k' | 'measureNames' | 'queryYear' | 'emptyLists'>, group: PoolGroup, retriever: Retriever): string {
  return cacheKey({
    sample: ctx.sampleKey, model: retriever.fingerprint, protocol: group.protocol, split: group.split, field: group.field,
    size: group.poolSize, repeat: group.repeat, queries: group.queries, seed: ctx.seed, k: ctx.k, measures: ctx.measureNames,
    year: ctx.queryYear, emptyLists: ctx.emptyLists ?? 'zero', ...(group.setting ? { setting: group.setting } : {}),
  });
}

/** Run (or load) every model's cell of one pool group's topic set: its qrels file written, then experiment(). */
export async function runGroup(ctx: GroupContext, set: SampledTopicSet, models: CellModel[]): Promise<GroupResult> {
  const { store } = ctx;
  const { group, id: path } = set;
  const qrelsFile = `qrels/${path}.qrels`;
  if (!existsSync(join(ctx.resultsDir, qrelsFile))) writeQrels(join(ctx.resultsDir, qrelsFile), Array.from(set.topics, (q) => store.id(q)), (d) => store.id(d), set.qrels);
  const r = await experiment<CellRecord>({
    docs: store, topics: set.topics, pool: set.pool, qrels: set.qrels, retrievers: models, measures: ctx.measureNames, k: ctx.k,
    setting: set.setting, emptyLists: ctx.emptyLists, log: ctx.log,
    cache: {
      dir: ctx.resultsDir, name: path, key: (retriever) => cellKey(ctx, group, retriever), locked: ctx.locked, lockStaleMs: ctx.lockStaleMs,
      record: (c, run) => ({
        key: c.key, model: c.model, protocol: group.protocol, split: group.split, field: group.field, poolSize: group.poolSize, ...(group.setting ? { setting: group.setting } : {}),
        poolMembers: set.pool.length, repeat: group.repeat, queries: c.queries, emptyLists: c.emptyLists, means: c.means, perQuery: c.perQuery, queryIds: c.queryIds,
        files: { run: run!, qrels: qrelsFile },
      }),
    },
  });
  return { pool: set.sampled, ...r };
}
