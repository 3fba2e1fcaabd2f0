/**
 * Scores many queries over worker threads. Index arrays live in SharedArrayBuffers (loadIndex puts them there;
 * others are copied once), so each worker holds only its own score accumulator (12 bytes per document).
 * Queries go out in small batches on demand; results are assembled in query order, so the output does not
 * depend on the number of threads.
 */
import type { ProcessInit } from './search-process.ts';
import type { RankedLists } from '../retriever.ts';
import { QueryScorer, queryGroup } from './query-scorer.ts';
import { SLICE_BELOW, slicePool } from './pool-slice.ts';
import type { PreparedQuery, ScoringArrays, TopK } from './scoring-arrays.ts';
import type { ChildProcess } from 'node:child_process';
import type { WorkerBatch } from './search-worker.ts';
import { memoryLimit } from '../../util/memory.ts';
import { tsFork, tsWorker } from '../../util/ts-worker.ts';

interface BatchSearch {
  /**
   * The queries, or a function that prepares query q — called once per query, as its batch is handed out, so
   * that child processes start and search while this process analyses the texts of later queries (then
   * `queryCount` is required).
   */
  queries: PreparedQuery[] | ((q: number) => PreparedQuery);
  queryCount?: number;
  k: number;
  /** Per query: corpus index to leave out (the query article), or -1. */
  exclude?: Int32Array;
  /** Per query: fixed candidates to rank instead of the pool. */
  candidates?: Uint32Array[];
  threads?: number;
  /** Called with the number of queries finished so far. */
  onProgress?: (done: number) => void;
  /** Called with each query's final list (query position, any order). */
  onResult?: (query: number, top: TopK) => void;
  /**
   * Use child processes that load the index from this directory instead of worker threads (threads of one
   * process slowed each other down here; see search-process.ts). This process is one of the searchers (a one-off
   * search): `threads` − 1 child processes, each a copy of the index.
   */
  indexDir?: string;
  /**
   * Persistent search processes (see SearchProcesses) to use instead of starting processes for this search
   * alone: a run's many pool groups then load the index once per process, not once per group.
   */
  processes?: SearchProcesses;
  /**
   * Bytes the search may hold (default: PROCESS_MEMORY_SHARE of the memory this process may use, util/memory.ts). Child processes are used
   * only when this process's index plus one copy per process fit in it; otherwise worker threads share the one
   * copy (slower on this machine, but a 16 M-article index does not fit three times in 24 GiB).
   */
  memoryBudget?: number;
  /** Told which way the batch is searched (for logs and tests). */
  onMode?: (mode: SearchMode) => void;
}

type SearchMode = 'single' | 'threads' | 'processes';

/** Share of the machine's memory that the index copies of process-mode search may take. */
export const PROCESS_MEMORY_SHARE = 0.75;

/** Bytes of the postings a search process loads (its own copy of the index). */
export function indexCopyBytes(a: Pick<ScoringArrays, 'offsets' | 'docs' | 'tfNorms' | 'tfBigPos' | 'tfBigVal'>): number {
  return a.offsets.byteLength + a.docs.byteLength + a.tfNorms.byteLength + a.tfBigPos.byteLength + a.tfBigVal.byteLength;
}

/**
 * Can `procs` child processes each load the index beside this process's copy within `budget` bytes? A
 * persistent process keeps its copy while it searches a pool sliced out of it (at most SLICE_BELOW of the
 * postings), so it counts 1.5 copies.
 */
export function processCopiesFit(indexBytes: number, procs: number, budget = PROCESS_MEMORY_SHARE * memoryLimit(), persistent = false): boolean {
  return (1 + procs * (persistent ? 1 + SLICE_BELOW : 1)) * indexBytes <= budget;
}

/**
 * Search processes that stay alive between searches, each with the index of `indexDir` loaded once (started on
 * first use). A run searches dozens of pool groups of one index: starting two processes that each load a
 * 2 M-article index cost about 3 s per group, paid once here. Every search sends its pool's statistics and
 * membership; the lists are the ones one-off processes give (the same QueryScorer over the same arrays).
 * Idle processes do not keep this process alive; close() ends them (a failed search ends them too, so a later
 * search starts afresh).
 */
export class SearchProcesses {
  private readonly procs: ChildProcess[] = [];
  private readonly tieKeys = new WeakMap<ChildProcess, Uint32Array | null>();
  /** Processes started so far (for tests and logs). */
  started = 0;
  /** A search is using the processes (a concurrent one starts processes of its own). */
  busy = false;

  constructor(readonly indexDir: string) {}

  /** A searcher on process `t` for one search; stop() detaches it and leaves the process idle. */
  searcher(t: number, init: Omit<ProcessInit, 'indexDir' | 'keep'>, on: SearcherEvents): Searcher {
    let c = this.procs[t];
    if (!c || c.exitCode !== null || c.signalCode !== null || !c.connected) {
      // --expose-gc: a process collects the previous pool's slice before it cuts the next one (search-process.ts).
      c = tsFork(new URL('./search-process.ts', import.meta.url), { execArgv: ['--expose-gc'] });
      this.procs[t] = c;
      this.started++;
    }
    const child = c;
    const detach = listen(child, on);
    child.ref();
    child.channel?.ref();
    // The tie-break key (4 bytes per article) is sent only when it changed since this process last had one.
    const sameTieKey = this.tieKeys.has(child) && this.tieKeys.get(child) === init.tieKey;
    this.tieKeys.set(child, init.tieKey ?? null);
    child.send({ init: { ...init, indexDir: this.indexDir, keep: true, tieKey: sameTieKey ? undefined : init.tieKey } });
    return {
      post: (batch) => child.send({ batch }),
      stop: () => {
        detach();
        child.unref();
        child.channel?.unref();
      },
    };
  }

  /** End every process (idempotent; a later search starts new ones). */
  close(): void {
    for (const c of this.procs.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill();
  }
}

/** Child processes of a one-off search started ahead of it (startSearchProcesses), by index directory. */
const startedAhead = new Map<string, ChildProcess[]>();

/**
 * Start the `count` child processes of a one-off process-mode search of `indexDir` now, each loading the index,
 * so that they are ready when the search comes (a command calls this before it reads its own inputs). The next
 * search of that index takes them; idle, they keep nothing alive, and a search that does not use them (threads,
 * or a single searcher) ends them.
 */
export function startSearchProcesses(indexDir: string, count: number): ChildProcess[] {
  const procs = startedAhead.get(indexDir) ?? [];
  const started: ChildProcess[] = [];
  for (let t = 0; t < count; t++) {
    const c = tsFork(new URL('./search-process.ts', import.meta.url));
    c.send({ preload: indexDir });
    c.unref();
    c.channel?.unref();
    started.push(c);
  }
  startedAhead.set(indexDir, procs.concat(started));
  return started;
}

/** A child process started ahead for `indexDir`, or a new one. */
function searchProcess(indexDir: string): ChildProcess {
  const ahead = startedAhead.get(indexDir)?.shift();
  if (ahead && ahead.exitCode === null && ahead.signalCode === null && ahead.connected) {
    ahead.ref();
    ahead.channel?.ref();
    return ahead;
  }
  return tsFork(new URL('./search-process.ts', import.meta.url));
}

/** End the processes started ahead for `indexDir` that no search took. */
function endStartedAhead(indexDir: string | undefined): void {
  if (indexDir === undefined) return;
  for (const c of startedAhead.get(indexDir)?.splice(0) ?? []) if (c.exitCode === null && c.signalCode === null) c.kill();
}

function shared<T extends Uint8Array | Uint16Array | Uint32Array | Float32Array | Float64Array>(a: T): T {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const C = a.constructor as { new (b: SharedArrayBuffer): T };
  const copy = new C(new SharedArrayBuffer(a.byteLength));
  copy.set(a as never);
  return copy;
}

function toRanked(results: TopK[]): RankedLists {
  const offsets = new Uint32Array(results.length + 1);
  for (let q = 0; q < results.length; q++) offsets[q + 1] = offsets[q] + results[q].docs.length;
  const docs = new Uint32Array(offsets[results.length]);
  const scores = new Float32Array(offsets[results.length]);
  for (let q = 0; q < results.length; q++) {
    docs.set(results[q].docs, offsets[q]);
    scores.set(results[q].scores, offsets[q]);
  }
  return { offsets, docs, scores };
}

export async function searchBatch(all: ScoringArrays, batch: BatchSearch): Promise<RankedLists> {
  const given = batch.queries;
  if (typeof given === 'function' && batch.queryCount === undefined) throw new Error('searchBatch: prepared-on-demand queries need queryCount');
  const n = typeof given === 'function' ? batch.queryCount! : given.length;
  const req: ResolvedBatch = { ...batch, queryAt: typeof given === 'function' ? given : (q) => given[q] };
  const exclude = (q: number) => (req.exclude ? req.exclude[q] : -1);
  const threads = Math.max(1, Math.min(req.threads ?? 1, Math.ceil(n / 8)));
  const results: TopK[] = new Array(n);
  // A small pool is searched over its own postings; child processes slice their own copy after loading it.
  const persistent = req.processes && !req.processes.busy ? req.processes : undefined;
  // One-off processes: this process searches beside threads − 1 of them, on the index it already holds.
  const copies = persistent ? threads : threads - 1;
  if (threads > 1 && (req.indexDir || persistent) && processCopiesFit(indexCopyBytes(all), copies, req.memoryBudget, persistent !== undefined)) {
    req.onMode?.('processes');
    try {
      return toRanked(await searchOnProcesses(all, req, threads, results, persistent));
    } finally {
      endStartedAhead(req.indexDir); // (more were started than this search wanted)
    }
  }
  endStartedAhead(req.indexDir);
  req.onMode?.(threads > 1 ? 'threads' : 'single');
  const arrays = req.candidates ? all : slicePool(all);
  if (threads <= 1) {
    const scorer = new QueryScorer(arrays);
    const group = queryGroup();
    for (let from = 0; from < n; from += group) {
      const to = Math.min(n, from + group);
      const queries = [];
      for (let q = from; q < to; q++) queries.push({ q: req.queryAt(q), exclude: exclude(q), candidates: req.candidates?.[q] });
      scorer.searchMany(queries, req.k).forEach((top, i) => {
        results[from + i] = top;
        req.onResult?.(from + i, top);
      });
      req.onProgress?.(to);
    }
    return toRanked(results);
  }
  const sharedArrays: ScoringArrays = {
    ...arrays,
    offsets: shared(arrays.offsets),
    docs: shared(arrays.docs),
    tfNorms: shared(arrays.tfNorms),
    tfBigPos: shared(arrays.tfBigPos),
    tfBigVal: shared(arrays.tfBigVal),
    normInv: shared(arrays.normInv),
    normCache: arrays.normCache,
    member: arrays.member && shared(arrays.member),
    tieKey: arrays.tieKey && shared(arrays.tieKey),
  };
  await dispatchBatches(req, n, threads, results, (on) => {
    const w = tsWorker(new URL('./search-worker.ts', import.meta.url), { workerData: sharedArrays });
    w.on('message', on.result);
    w.on('error', on.fail);
    w.on('exit', (code) => on.fail(new Error(`bm25 search worker exited with code ${code} before finishing`)));
    queueMicrotask(on.ready); // a worker queues messages until it is up
    return { post: (batch) => w.postMessage(batch), stop: () => w.terminate() };
  });
  return toRanked(results);
}

type ResolvedBatch = BatchSearch & { queryAt: (q: number) => PreparedQuery };

async function searchOnProcesses(arrays: ScoringArrays, req: ResolvedBatch, procs: number, results: TopK[], persistent?: SearchProcesses): Promise<TopK[]> {
  const pool = { normCache: arrays.normCache, normInv: arrays.normInv, member: arrays.member, tieKey: arrays.tieKey, poolTokens: arrays.poolTokens, slice: !req.candidates };
  if (persistent) {
    let t = 0;
    persistent.busy = true;
    try {
      await dispatchBatches(req, results.length, procs, results, (on) => persistent.searcher(t++, pool, on));
    } catch (e) {
      persistent.close(); // a process may still be answering this search: none is reused
      throw e;
    } finally {
      persistent.busy = false;
    }
    return results;
  }
  const init: ProcessInit = { ...pool, indexDir: req.indexDir!, keep: false };
  let spawned = 0;
  await dispatchBatches(req, results.length, procs, results, (on) => {
    // The last searcher is this process itself: it holds the index already, so one process fewer starts, loads
    // a copy and holds it, and it searches while the others start (their start-up was most of a small search).
    if (++spawned === procs) return localSearcher(() => new QueryScorer(req.candidates ? arrays : slicePool(arrays)), on);
    const c = searchProcess(req.indexDir!);
    listen(c, on);
    c.send({ init });
    return { post: (batch) => c.send({ batch }), stop: () => void c.kill() };
  });
  return results;
}

/**
 * A searcher in this process: one group of queries (queryGroup(), scored together) per turn of the event loop, so
 * that the other searchers' answers are taken (and they are fed) between its groups, not after its whole batch.
 */
function localSearcher(make: () => QueryScorer, on: SearcherEvents): Searcher {
  let scorer: QueryScorer | undefined;
  let stopped = false;
  queueMicrotask(on.ready); // once every searcher is spawned
  return {
    post: (batch) => {
      const results: TopK[] = [];
      const step = () => {
        if (stopped) return;
        try {
          scorer ??= make(); // built on first use: the child processes are forked first
          results.push(...scorer.searchMany(batch.queries.slice(results.length, results.length + queryGroup()), batch.k));
        } catch (e) {
          return on.fail(e as Error);
        }
        if (results.length === batch.queries.length) on.result({ id: batch.id, results });
        else setImmediate(step);
      };
      setImmediate(step);
    },
    stop: () => {
      stopped = true;
    },
  };
}

interface BatchResult {
  id: number;
  results: TopK[];
}

interface Searcher {
  post(batch: WorkerBatch): void;
  stop(): unknown;
}

interface SearcherEvents {
  ready: () => void;
  result: (msg: BatchResult) => void;
  fail: (e: Error) => void;
}

/** Route a search process's messages, errors and exit to one search's events; returns the detach. */
function listen(child: ChildProcess, on: SearcherEvents): () => void {
  const message = (msg: { ready?: boolean } & BatchResult) => (msg.ready ? on.ready() : on.result(msg));
  const exit = (code: number | null) => on.fail(new Error(`bm25 search process exited with code ${code} before finishing`));
  child.on('message', message);
  child.on('error', on.fail);
  child.on('exit', exit);
  return () => {
    child.off('message', message);
    child.off('error', on.fail);
    child.off('exit', exit);
  };
}

/** Batches a searcher holds at once (see dispatchBatches). */
const BATCHES_AHEAD = 2;
/** Queries per batch at most: one group of the compiled kernel at its 16 lanes, so that the tail is short. */
const MAX_BATCH = 16;

/**
 * Hands out `n` queries in small batches, on demand, to `count` searchers (threads or processes) made by
 * `spawn`, and puts each answer at its queries' positions in `results`. A batch's queries are prepared
 * (req.queryAt) as it is handed out. A searcher calls `ready` once it can take work; a failure before every
 * query is answered — a query that cannot be prepared included — rejects. All searchers are stopped at the end.
 * Each searcher holds BATCHES_AHEAD batches: it starts the next as soon as it answers one, instead of waiting
 * until this process, busy with a group of its own queries, reads the answer and prepares more (a child process
 * idled a third of a 1,000-query search that way).
 */
async function dispatchBatches(
  req: ResolvedBatch,
  n: number,
  count: number,
  results: TopK[],
  spawn: (on: SearcherEvents) => Searcher,
): Promise<void> {
  const batchSize = Math.max(1, Math.min(MAX_BATCH, Math.ceil(n / (count * 8))));
  const pending = new Map<number, number>(); // batch id → first query
  const searchers: Searcher[] = [];
  let next = 0;
  let done = 0;
  let batchId = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      for (let t = 0; t < count; t++) {
        const feed = () => {
          if (next >= n) return;
          const from = next;
          const to = Math.min(n, from + batchSize);
          next = to;
          const id = batchId++;
          pending.set(id, from);
          const batch: WorkerBatch = { id, k: req.k, queries: [] };
          try {
            for (let q = from; q < to; q++) {
              batch.queries.push({ q: req.queryAt(q), exclude: req.exclude ? req.exclude[q] : -1, candidates: req.candidates?.[q] });
            }
          } catch (e) {
            return reject(e);
          }
          searcher.post(batch);
        };
        const searcher: Searcher = spawn({
          ready: () => {
            for (let b = 0; b < BATCHES_AHEAD; b++) feed();
          },
          result: (msg) => {
            const from = pending.get(msg.id)!;
            pending.delete(msg.id);
            msg.results.forEach((r, i) => {
              results[from + i] = r;
              req.onResult?.(from + i, r);
            });
            done += msg.results.length;
            req.onProgress?.(done);
            if (done === n) resolve();
            else feed();
          },
          fail: (e) => {
            if (done < n) reject(e);
          },
        });
        searchers.push(searcher);
      }
    });
  } finally {
    await Promise.all(searchers.map((s) => s.stop()));
  }
}
