/**
 * One pool group of a run — its queries, its pool, every model on them. Each model's cell writes its TREC run
 * and then its cell record, each atomically; the cell record is written last and holds a key hashing everything
 * that determines it, so a killed run resumes at the first cell without a current record, and a changed
 * setting (k1, a model folder, the corpus…) never reuses a stale number. Cell files hold no timings: the same
 * configuration and seed give byte-identical results. While a cell is computed its lock file
 * (cells/<model>/<group>.json.lock, util/lock.ts) keeps other workers sharing the results folder off it.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { CorpusStore } from '../corpus/store.ts';
import { evaluateRankedLists, type Measure } from '../eval/index.ts';
import { writeQrels, writeRun } from '../eval/trec-write.ts';
import type { RankedLists } from '../retrieval/retriever.ts';
import { citationQrels, samplePool, type Pool } from '../sampling/pools.ts';
import type { CellRecord } from '../report/results.ts';
import { writeFileAtomic } from '../util/atomic.ts';
import { hashString } from '../util/rng.ts';
import { groupPath, type PoolGroup } from './plan.ts';
import type { Retriever } from '../retrieval/retriever.ts';
import { CitebenchError } from '../util/errors.ts';
import { staleReason, tryLock, type HeldLock } from '../util/lock.ts';

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

/**
 * A group whose queries, pool and judgements are given rather than sampled from the citation graph (a BEIR
 * task: beir-stage.ts): `qids` name the queries in run and qrels files.
 */
export interface GivenTopics {
  pool: Pool;
  qrels: { offsets: Uint32Array; docs: Uint32Array; labels: Int32Array };
  qids: string[];
}

/** What a cell needs of a model: its name (file names, tables) and its retriever. */
export interface CellModel {
  name: string;
  retriever: Retriever;
}

/**
 * Everything that determines a cell's numbers, hashed: the corpus and sampling identity, the retriever's
 * fingerprint (its parameters, model or index content), the protocol settings of the group.
 */
export function cellKey(ctx: Pick<GroupContext, 'sampleKey' | 'seed' | 'k' | 'measureNames' | 'queryYear' | 'emptyLists'>, group: PoolGroup, retriever: Retriever): string {
  return hashString(JSON.stringify({
    sample: ctx.sampleKey, model: retriever.fingerprint, protocol: group.protocol, split: group.split, field: group.field,
    size: group.poolSize, repeat: group.repeat, queries: group.queries, seed: ctx.seed, k: ctx.k, measures: ctx.measureNames,
    year: ctx.queryYear, emptyLists: ctx.emptyLists ?? 'zero', ...(group.setting ? { setting: group.setting } : {}), ...(group.task ? { task: group.task } : {}),
  })).toString(16).padStart(8, '0');
}

/** Run (or load) every model's cell of one pool group. */
export async function runGroup(ctx: GroupContext, group: PoolGroup, queries: Uint32Array, models: CellModel[], given?: GivenTopics): Promise<GroupResult> {
  const { store } = ctx;
  const path = groupPath(group);
  const inductive = group.setting === 'inductive';
  const pool = given?.pool ?? samplePool(store, queries, { size: group.poolSize, repeat: group.repeat, seed: ctx.seed, field: group.field ?? undefined, queryYear: ctx.queryYear, split: group.split, ...(inductive ? { inductive } : {}) });
  const rel = given ? undefined : citationQrels(store, queries, pool.members);
  const qrels = given?.qrels ?? { offsets: rel!.offsets, docs: rel!.docs, labels: new Int32Array(rel!.docs.length).fill(1) };
  const qids = given?.qids ?? Array.from(queries, (q) => store.id(q));
  const qrelsFile = `qrels/${path}.qrels`;
  if (!existsSync(join(ctx.resultsDir, qrelsFile))) writeQrels(join(ctx.resultsDir, qrelsFile), qids, (d) => store.id(d), qrels);

  const cells: CellRecord[] = [];
  const lists = new Map<string, RankedLists>();
  const skipped: string[] = [];
  for (const model of models) {
    const key = cellKey(ctx, group, model.retriever);
    const cellFile = `cells/${model.name}/${path}.json`;
    const runFile = `runs/${model.name}/${path}.trec`;
    const current = () => {
      const c = readCellIfCurrent(join(ctx.resultsDir, cellFile), key);
      return c && existsSync(join(ctx.resultsDir, runFile)) ? c : undefined;
    };
    const lockPath = join(ctx.resultsDir, `${cellFile}.lock`);
    let cached = current();
    if (cached) {
      // A worker killed between writing its cell and releasing the lock leaves the lock behind: tidy it.
      if (existsSync(lockPath) && staleReason(lockPath, { staleMs: ctx.lockStaleMs })) rmSync(lockPath, { force: true });
      cells.push(cached);
      continue;
    }
    const lock = await lockCell(ctx, lockPath, `${model.name} ${path}`, current);
    if (!lock) {
      skipped.push(model.name);
      continue;
    }
    try {
      // Another worker may have finished the cell between our check and our lock.
      cached = current();
      if (cached) {
        cells.push(cached);
        continue;
      }
      const r = await computeCell(ctx, group, model, key, queries, pool, qids, qrels, qrelsFile, cellFile, runFile);
      cells.push(r.cell);
      lists.set(model.name, r.run);
    } finally {
      if (lock !== 'done') lock.release();
    }
  }
  return { pool, cells, lists, skipped };
}

/**
 * Take a cell's lock. A live holder: with locked 'skip' return undefined; with 'wait' poll until the cell is
 * written ('done') or the lock is free or stale (a dead worker's lock is taken over, util/lock.ts).
 */
async function lockCell(ctx: GroupContext, path: string, label: string, done: () => CellRecord | undefined): Promise<HeldLock | 'done' | undefined> {
  let said = false;
  for (;;) {
    const held = tryLock(path, { staleMs: ctx.lockStaleMs, onTakeover: (why, was) => ctx.log(`${label}: taking over a stale lock (${why}; was ${was})`) });
    if (held) return held;
    if (ctx.locked === 'skip') {
      ctx.log(`${label}: another worker holds it; skipped`);
      return undefined;
    }
    if (!said) ctx.log(`${label}: another worker holds it; waiting`);
    said = true;
    await new Promise((r) => setTimeout(r, 500));
    if (done()) return 'done';
  }
}

async function computeCell(
  ctx: GroupContext, group: PoolGroup, model: CellModel, key: string, queries: Uint32Array, pool: Pool, qids: string[],
  qrels: { offsets: Uint32Array; docs: Uint32Array; labels: Int32Array }, qrelsFile: string, cellFile: string, runFile: string,
): Promise<{ cell: CellRecord; run: RankedLists }> {
  const { store } = ctx;
  const path = groupPath(group);
  const t0 = performance.now();
  const label = `${model.name} ${path}`;
  ctx.log(`${label}: ${queries.length} queries over ${pool.members.length} articles`);
  const run = await model.retriever.search({ queries, pool: pool.members, k: ctx.k, excludeSelf: true, setting: group.setting ?? 'transductive' });
  let empty = 0;
  for (let q = 0; q < queries.length; q++) if (run.offsets[q + 1] === run.offsets[q]) empty++;
  if (empty && ctx.emptyLists === 'error') {
    const first = queries.find((_, q) => run.offsets[q + 1] === run.offsets[q])!;
    throw new CitebenchError(`${label}: ${empty} of ${queries.length} queries got an empty ranked list (first: ${store.id(first)}); with emptyLists 'zero' they count 0`);
  }
  writeRun(join(ctx.resultsDir, runFile), { qids, docnos: (d) => store.id(d), run, tag: model.name });
  // An empty list is a query that retrieved nothing: it counts 0 in every mean (trec_eval -c), never drops out.
  const res = evaluateRankedLists(run, qrels, ctx.measures, { docOrder: store.idOrder, options: { missing: 'zero' } });
  const cell: CellRecord = {
    key, model: model.name, protocol: group.protocol, split: group.split, field: group.field, ...(group.task ? { task: group.task } : {}), poolSize: group.poolSize, ...(group.setting ? { setting: group.setting } : {}),
    poolMembers: pool.members.length, repeat: group.repeat, queries: queries.length, emptyLists: empty,
    means: Object.fromEntries(ctx.measureNames.map((n, m) => [n, res.summary[m]])),
    perQuery: Object.fromEntries(ctx.measureNames.map((n, m) => [n, Array.from(res.perQuery[m])])),
    queryIds: qids,
    files: { run: runFile, qrels: qrelsFile },
  };
  writeFileAtomic(join(ctx.resultsDir, cellFile), JSON.stringify(cell) + '\n');
  ctx.log(`${label}: ${ctx.measureNames.map((n) => `${n} ${(100 * cell.means[n]).toFixed(1)}`).join(', ')} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  return { cell, run };
}

function readCellIfCurrent(path: string, key: string): CellRecord | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const c = JSON.parse(readFileSync(path, 'utf8')) as CellRecord;
    return c.key === key ? c : undefined;
  } catch {
    return undefined; // a damaged record is recomputed
  }
}
