/**
 * One pool group of a run — its queries, its pool and qrels, every model on them — evaluated by experiment()
 * (experiment.ts: cells cached under a key, written atomically, locked while computed). The cell key hashes the
 * corpus and sampling identity, the retriever's fingerprint and the group's protocol settings; cell files hold
 * no timings, so the same configuration and seed give byte-identical results.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CorpusStore } from '../corpus/store.ts';
import type { Measure } from '../eval/index.ts';
import { writeQrels } from '../eval/trec-write.ts';
import type { RankedLists, Retriever } from '../retrieval/retriever.ts';
import { poolWithQrels, type Pool } from '../sampling/pools.ts';
import type { CellRecord } from '../report/results.ts';
import { hashString } from '../util/rng.ts';
import { groupPath, type PoolGroup } from './plan.ts';
import { experiment, type CellModel } from './experiment.ts';

export interface GroupContext {
  store: CorpusStore;
  resultsDir: string;
  seed: number;
  queryYear: number;
  k: number;
  measureNames: string[];
  measures: Measure[];
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

export type { CellModel } from './experiment.ts';

/**
 * Everything that determines a cell's numbers, hashed: the corpus and sampling identity, the retriever's
 * fingerprint (its parameters, model or index content), the protocol settings of the group.
 */
export function cellKey(ctx: Pick<GroupContext, 'sampleKey' | 'seed' | 'k' | 'measureNames' | 'queryYear' | 'emptyLists'>, group: PoolGroup, retriever: Retriever): string {
  return hashString(JSON.stringify({
    sample: ctx.sampleKey, model: retriever.fingerprint, protocol: group.protocol, split: group.split, field: group.field,
    size: group.poolSize, repeat: group.repeat, queries: group.queries, seed: ctx.seed, k: ctx.k, measures: ctx.measureNames,
    year: ctx.queryYear, emptyLists: ctx.emptyLists ?? 'zero', ...(group.setting ? { setting: group.setting } : {}),
  })).toString(16).padStart(8, '0');
}

/** The sampling options of a group's pool: the one place a pool group's pool is defined. */
export function groupPoolOptions(s: { seed: number; queryYear: number }, g: PoolGroup) {
  return { size: g.poolSize, repeat: g.repeat, seed: s.seed, field: g.field ?? undefined, queryYear: s.queryYear, split: g.split, ...(g.setting === 'inductive' ? { inductive: true } : {}) };
}

/** Run (or load) every model's cell of one pool group: its pool and qrels sampled, then experiment(). */
export async function runGroup(ctx: GroupContext, group: PoolGroup, queries: Uint32Array, models: CellModel[]): Promise<GroupResult> {
  const { store } = ctx;
  const path = groupPath(group);
  const { pool, qrels } = poolWithQrels(store, queries, groupPoolOptions(ctx, group));
  const qrelsFile = `qrels/${path}.qrels`;
  if (!existsSync(join(ctx.resultsDir, qrelsFile))) writeQrels(join(ctx.resultsDir, qrelsFile), Array.from(queries, (q) => store.id(q)), (d) => store.id(d), qrels);
  const r = await experiment<CellRecord>({
    docs: store, topics: queries, pool: pool.members, qrels, retrievers: models, measures: ctx.measureNames, k: ctx.k,
    setting: group.setting ?? 'transductive', emptyLists: ctx.emptyLists, log: ctx.log,
    cache: {
      dir: ctx.resultsDir, name: path, key: (retriever) => cellKey(ctx, group, retriever), locked: ctx.locked, lockStaleMs: ctx.lockStaleMs,
      record: (c, run) => ({
        key: c.key, model: c.model, protocol: group.protocol, split: group.split, field: group.field, poolSize: group.poolSize, ...(group.setting ? { setting: group.setting } : {}),
        poolMembers: pool.members.length, repeat: group.repeat, queries: c.queries, emptyLists: c.emptyLists, means: c.means, perQuery: c.perQuery, queryIds: c.queryIds,
        files: { run, qrels: qrelsFile },
      }),
    },
  });
  return { pool, ...r };
}
