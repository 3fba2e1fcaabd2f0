/**
 * One pool group of a run — its topic set (topic-sets.ts: queries, pool and qrels), every model on it —
 * evaluated by experiment() into the one cache (result-cache.ts: cells keyed, written atomically, locked while
 * computed). The cell key is experiment()'s one recipe (cellIdentity: the content of the topics, pool and qrels,
 * the retriever's fingerprint …) with the corpus and sampling identity and the group's protocol settings as key
 * parts; cell files hold no timings, so the same configuration and seed give byte-identical results.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CorpusStore } from '../corpus/store.ts';
import { writeQrels } from '../eval/trec-write.ts';
import type { RankedLists, Retriever } from '../retrieval/retriever.ts';
import type { Pool } from '../sampling/pools.ts';
import type { CellRecord, CellSummary } from '../report/results.ts';
import type { PoolGroup } from './plan.ts';
import { cellIdentity, experiment, type CellCost, type CellModel, type ExperimentCell } from './experiment.ts';
import type { SampledTopicSet, TopicSet } from './topic-sets.ts';

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
  /** What each cell computed now cost, by its record's file (the runner writes them to timings.json). */
  costs?: Map<string, CellCost>;
}

export interface GroupResult {
  pool: Pool;
  cells: CellRecord[];
  /** Each model's lists in memory when it was searched now (cached cells are read back on demand). */
  lists: Map<string, RankedLists>;
  /** Models whose cell another live worker holds (locked: 'skip' only); not in `cells`. */
  skipped: string[];
}


type KeyContext = Pick<GroupContext, 'sampleKey' | 'seed' | 'k' | 'measureNames' | 'queryYear' | 'emptyLists'>;

/** A pool group's key parts besides what experiment() keys itself: the corpus and sampling identity, the group. */
export function groupKeyParts(ctx: Pick<KeyContext, 'sampleKey' | 'seed' | 'queryYear'>, group: PoolGroup): Record<string, unknown> {
  return {
    corpus: ctx.sampleKey, seed: ctx.seed, year: ctx.queryYear,
    group: { protocol: group.protocol, split: group.split, field: group.field, size: group.poolSize, repeat: group.repeat, queries: group.queries, setting: group.setting, task: group.task },
  };
}

/** The key of a retriever's cell on a group's topic set (as runGroup stores it). */
export function cellKey(ctx: KeyContext, set: Pick<TopicSet, 'topics' | 'pool' | 'qrels' | 'setting'> & { group: PoolGroup }, retriever: Retriever): string {
  return cellIdentity({ ...set, k: ctx.k, measures: ctx.measureNames, emptyLists: ctx.emptyLists }, groupKeyParts(ctx, set.group), retriever).key;
}

/** The stored record of a group's cell: the one shape of a cell file (pool groups and the BEIR task alike). */
export function groupCellRecord(group: PoolGroup, poolMembers: number, qrelsFile: string): (c: ExperimentCell, run: string | undefined) => CellRecord {
  return (c, run) => ({
    key: c.key, ...(c.inputs ? { inputs: c.inputs } : {}), model: c.model, protocol: group.protocol as CellRecord['protocol'], split: group.split, field: group.field, ...(group.task ? { task: group.task } : {}),
    poolSize: group.poolSize, ...(group.setting ? { setting: group.setting } : {}), poolMembers, repeat: group.repeat, queries: c.queries, emptyLists: c.emptyLists,
    means: c.means, perQuery: c.perQuery, queryIds: c.queryIds, files: { run: run!, qrels: qrelsFile },
  });
}

/** A cell's line in results.json: its record without the per-query values and the key's inputs, and its file. */
export function cellSummary(c: CellRecord, file: string): CellSummary {
  const { perQuery: _p, queryIds: _q, inputs: _i, ...rest } = c;
  return { ...rest, file };
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
      dir: ctx.resultsDir, name: path, keyParts: groupKeyParts(ctx, group), locked: ctx.locked, lockStaleMs: ctx.lockStaleMs,
      record: groupCellRecord(group, set.pool.length, qrelsFile), costs: (file, c) => ctx.costs?.set(file, c),
    },
  });
  return { pool: set.sampled, ...r };
}
