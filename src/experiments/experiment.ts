/**
 * experiment(): the one way numbers are made, after PyTerrier's `Experiment`. Topics (query articles), a pool or
 * per-query candidate lists, qrels, retrievers and measures in; per retriever the means and per-query values
 * out. With a cache location every retriever's result is a cell: its TREC run and then its record written
 * atomically, the record last and holding a key that hashes everything that determines it (the retriever's
 * fingerprint among it), so a killed call resumes at the first retriever without a current record and a changed
 * retriever never reuses a stale number. While a cell is computed its lock file (<record>.lock, util/lock.ts)
 * keeps other workers sharing the folder off it. Records hold no timings: the same input gives the same bytes.
 *
 * The runner's pool groups (cells.ts), the tuner's grid points and a notebook's ad-hoc comparison are calls of it.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { evaluateRankedLists } from '../eval/index.ts';
import { parseMeasure } from '../eval/registry.ts';
import type { DocOrder, QrelsCsr } from '../eval/types.ts';
import { writeRun } from '../eval/trec-write.ts';
import type { RankedLists, Retriever, Setting } from '../retrieval/retriever.ts';
import { writeFileAtomic } from '../util/atomic.ts';
import { CitebenchError } from '../util/errors.ts';
import { staleReason, tryLock, type HeldLock } from '../util/lock.ts';
import { hashString } from '../util/rng.ts';

/** What a cell needs of a model: its name (file names, tables) and its retriever. */
export interface CellModel {
  name: string;
  retriever: Retriever;
}

/** One retriever's numbers on the topics. */
export interface ExperimentCell {
  key: string;
  model: string;
  queries: number;
  /** Queries whose ranked list came back empty (each counts 0 in every mean). */
  emptyLists: number;
  means: Record<string, number>;
  perQuery: Record<string, number[]>;
  /** Query ids in topic order: the rows of perQuery. */
  queryIds: string[];
}

/** Where and how cells are cached; without one, experiment() computes in memory and writes nothing. */
export interface ExperimentCache<R extends ExperimentCell = ExperimentCell> {
  /** Folder the files below are relative to. */
  dir: string;
  /** A model's record and TREC run (default cells/<model>/<name>.json, runs/<model>/<name>.trec). */
  name: string;
  /**
   * Everything besides the topics, pool, qrels and retriever that determines a cell (corpus identity, sampling
   * settings…), hashed into its key with them. Ignored where `key` is given.
   */
  keyParts?: unknown;
  /** The key of a retriever's cell, replacing the default hash (the runner's pool groups keep their historical key). */
  key?: (retriever: Retriever) => string;
  /** The stored record of a computed cell (default: the cell and its run file). */
  record?: (cell: ExperimentCell, runFile: string) => R;
  /** A cell whose lock a live worker holds: 'wait' (default) until it is written, or 'skip' it. */
  locked?: 'wait' | 'skip';
  lockStaleMs?: number;
}

export interface ExperimentInput<R extends ExperimentCell = ExperimentCell> {
  /** Article ids (run files, query ids) and trec_eval's tie order over them (a corpus store gives both). */
  docs: { id(i: number): string; idOrder: DocOrder };
  /** Corpus indices of the query articles. */
  topics: Uint32Array;
  /** The candidate pool every topic searches (sorted, distinct)… */
  pool?: Uint32Array;
  /** …or each topic's own candidate list (scored, not searched: MDCR-style). */
  candidates?: Uint32Array[];
  qrels: QrelsCsr;
  retrievers: CellModel[];
  /** Measure names as configs give them (MAP, nDCG, R@30…), one cutoff each. */
  measures: string[];
  /** Results per topic. */
  k: number;
  setting?: Setting;
  /** A topic whose list comes back empty: counts 0 in every mean ('zero', trec_eval -c) or fails the cell. */
  emptyLists?: 'zero' | 'error';
  cache?: ExperimentCache<R>;
  log?: (line: string) => void;
}

export interface ExperimentOutput<R extends ExperimentCell = ExperimentCell> {
  /** One per retriever, in the order given (models another live worker holds are left out: `skipped`). */
  cells: R[];
  /** The ranked lists of the retrievers searched now (cached cells are not read back). */
  lists: Map<string, RankedLists>;
  /** Retrievers whose cell another live worker holds (cache.locked 'skip' only). */
  skipped: string[];
}

/** Evaluate every retriever on the topics (reading back each cached cell that is current). */
export async function experiment<R extends ExperimentCell = ExperimentCell>(input: ExperimentInput<R>): Promise<ExperimentOutput<R>> {
  if (!input.pool === !input.candidates) throw new CitebenchError('experiment: give a pool or per-topic candidate lists (one of them)');
  if (input.candidates && input.candidates.length !== input.topics.length) throw new CitebenchError(`experiment: ${input.candidates.length} candidate lists for ${input.topics.length} topics`);
  const measures = input.measures.map((n) => {
    const m = parseMeasure(n);
    if (m.length !== 1) throw new CitebenchError(`experiment: measure '${n}' expands to ${m.length} measures; name one cutoff (e.g. R@30)`);
    return m[0];
  });
  const qids = Array.from(input.topics, (q) => input.docs.id(q));
  const cache = input.cache;
  const log = input.log ?? (() => {});
  const out: ExperimentOutput<R> = { cells: [], lists: new Map(), skipped: [] };
  const compute = async (model: CellModel, key: string, runFile: string | undefined): Promise<R> => {
    const label = `${model.name}${cache ? ` ${cache.name}` : ''}`;
    const t0 = performance.now();
    log(`${label}: ${input.topics.length} queries over ${input.pool ? `${input.pool.length} articles` : 'their candidate lists'}`);
    const run = await model.retriever.search({ queries: input.topics, pool: input.pool, candidates: input.candidates, k: input.k, excludeSelf: true, setting: input.setting ?? 'transductive' });
    let empty = 0;
    for (let q = 0; q < input.topics.length; q++) if (run.offsets[q + 1] === run.offsets[q]) empty++;
    if (empty && input.emptyLists === 'error') {
      const first = input.topics.find((_, q) => run.offsets[q + 1] === run.offsets[q])!;
      throw new CitebenchError(`${label}: ${empty} of ${input.topics.length} queries got an empty ranked list (first: ${input.docs.id(first)}); with emptyLists 'zero' they count 0`);
    }
    if (cache) writeRun(join(cache.dir, runFile!), { qids, docnos: (d) => input.docs.id(d), run, tag: model.name });
    // An empty list is a query that retrieved nothing: it counts 0 in every mean (trec_eval -c), never drops out.
    const res = evaluateRankedLists(run, input.qrels, measures, { docOrder: input.docs.idOrder, options: { missing: 'zero' } });
    const cell: ExperimentCell = {
      key, model: model.name, queries: input.topics.length, emptyLists: empty,
      means: Object.fromEntries(input.measures.map((n, m) => [n, res.summary[m]])),
      perQuery: Object.fromEntries(input.measures.map((n, m) => [n, Array.from(res.perQuery[m])])),
      queryIds: qids,
    };
    out.lists.set(model.name, run);
    const record = cache?.record ? cache.record(cell, runFile!) : (cache ? { ...cell, files: { run: runFile! } } : cell) as unknown as R;
    if (cache) writeFileAtomic(join(cache.dir, cellFileOf(cache, model.name)), JSON.stringify(record) + '\n');
    log(`${label}: ${input.measures.map((n) => `${n} ${(100 * cell.means[n]).toFixed(1)}`).join(', ')} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    return record;
  };
  for (const model of input.retrievers) {
    if (!cache) {
      out.cells.push(await compute(model, '', undefined));
      continue;
    }
    const key = cache.key ? cache.key(model.retriever) : defaultKey(input, cache.keyParts, model.retriever);
    const cellFile = cellFileOf(cache, model.name);
    const runFile = `runs/${model.name}/${cache.name}.trec`;
    const current = () => {
      const c = readIfCurrent<R>(join(cache.dir, cellFile), key);
      return c && existsSync(join(cache.dir, runFile)) ? c : undefined;
    };
    const lockPath = join(cache.dir, `${cellFile}.lock`);
    let cached = current();
    if (cached) {
      // A worker killed between writing its cell and releasing the lock leaves the lock behind: tidy it.
      if (existsSync(lockPath) && staleReason(lockPath, { staleMs: cache.lockStaleMs })) rmSync(lockPath, { force: true });
      out.cells.push(cached);
      continue;
    }
    const lock = await lockCell(cache, lockPath, `${model.name} ${cache.name}`, current, log);
    if (!lock) {
      out.skipped.push(model.name);
      continue;
    }
    try {
      // Another worker may have finished the cell between our check and our lock.
      cached = current();
      out.cells.push(cached ?? (await compute(model, key, runFile)));
    } finally {
      if (lock !== 'done') lock.release();
    }
  }
  return out;
}

const cellFileOf = (cache: { name: string }, model: string) => `cells/${model}/${cache.name}.json`;

/** The default cell key: the key parts, the retriever's fingerprint, and digests of the topics, candidates and qrels. */
function defaultKey<R extends ExperimentCell>(input: ExperimentInput<R>, parts: unknown, retriever: Retriever): string {
  const h = createHash('sha256');
  const add = (a: ArrayBufferView) => h.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  add(input.topics);
  if (input.pool) add(input.pool);
  for (const c of input.candidates ?? []) (add(Uint32Array.of(c.length)), add(c));
  add(input.qrels.offsets), add(input.qrels.docs), add(input.qrels.labels);
  return hashString(JSON.stringify({
    parts: parts ?? null, model: retriever.fingerprint, data: h.digest('hex'), candidates: !!input.candidates, k: input.k,
    measures: input.measures, setting: input.setting ?? 'transductive', emptyLists: input.emptyLists ?? 'zero',
  })).toString(16).padStart(8, '0');
}

/**
 * Take a cell's lock. A live holder: with locked 'skip' return undefined; with 'wait' poll until the cell is
 * written ('done') or the lock is free or stale (a dead worker's lock is taken over, util/lock.ts).
 */
async function lockCell(cache: Pick<ExperimentCache, 'lockStaleMs' | 'locked'>, path: string, label: string, done: () => unknown, log: (l: string) => void): Promise<HeldLock | 'done' | undefined> {
  let said = false;
  for (;;) {
    const held = tryLock(path, { staleMs: cache.lockStaleMs, onTakeover: (why, was) => log(`${label}: taking over a stale lock (${why}; was ${was})`) });
    if (held) return held;
    if (cache.locked === 'skip') {
      log(`${label}: another worker holds it; skipped`);
      return undefined;
    }
    if (!said) log(`${label}: another worker holds it; waiting`);
    said = true;
    await new Promise((r) => setTimeout(r, 500));
    if (done()) return 'done';
  }
}

function readIfCurrent<R>(path: string, key: string): R | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const c = JSON.parse(readFileSync(path, 'utf8')) as R & { key?: string };
    return c.key === key ? c : undefined;
  } catch {
    return undefined; // a damaged record is recomputed
  }
}
