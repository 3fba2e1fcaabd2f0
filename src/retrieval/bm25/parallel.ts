/**
 * Scores many queries over worker threads. Index arrays live in SharedArrayBuffers (loadIndex puts them there;
 * others are copied once), so each worker holds only its own score accumulator (12 bytes per document).
 * Queries go out in small batches on demand; results are assembled in query order, so the output does not
 * depend on the number of threads.
 */
import { Worker } from 'node:worker_threads';
import { fork, type ChildProcess } from 'node:child_process';
import type { ProcessInit } from './search-process.ts';
import type { RankedLists } from '../retriever.ts';
import { QueryScorer, type PreparedQuery, type ScoringArrays, type TopK } from './search.ts';
import type { WorkerBatch } from './search-worker.ts';
import { tsWorker } from '../../util/ts-worker.ts';

export interface BatchSearch {
  queries: PreparedQuery[];
  k: number;
  /** Per query: corpus index to leave out (the query article), or -1. */
  exclude?: Int32Array;
  /** Per query: fixed candidates to rank instead of the pool. */
  candidates?: Uint32Array[];
  threads?: number;
  /** Called with the number of queries finished so far. */
  onProgress?: (done: number) => void;
  /**
   * Use child processes that load the index from this directory instead of worker threads (threads of one
   * process slowed each other down here; see search-process.ts). Costs one index copy per process.
   */
  indexDir?: string;
}


function shared<T extends Uint8Array | Uint32Array | Float32Array | Float64Array>(a: T): T {
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

export async function searchBatch(arrays: ScoringArrays, req: BatchSearch): Promise<RankedLists> {
  const n = req.queries.length;
  const exclude = (q: number) => (req.exclude ? req.exclude[q] : -1);
  const threads = Math.max(1, Math.min(req.threads ?? 1, Math.ceil(n / 8)));
  const results: TopK[] = new Array(n);
  if (threads <= 1) {
    const scorer = new QueryScorer(arrays);
    for (let q = 0; q < n; q++) {
      results[q] = scorer.search(req.queries[q], req.k, exclude(q), req.candidates?.[q]);
      req.onProgress?.(q + 1);
    }
    return toRanked(results);
  }
  if (req.indexDir) return toRanked(await searchOnProcesses(arrays, req, threads, results));
  const sharedArrays: ScoringArrays = {
    ...arrays,
    offsets: shared(arrays.offsets),
    docs: shared(arrays.docs),
    tfs: shared(arrays.tfs),
    tfBigPos: shared(arrays.tfBigPos),
    tfBigVal: shared(arrays.tfBigVal),
    normInv: shared(arrays.normInv),
    postNorms: shared(arrays.postNorms),
    normCache: arrays.normCache,
    member: arrays.member && shared(arrays.member),
    tieKey: arrays.tieKey && shared(arrays.tieKey),
  };
  const batchSize = Math.max(1, Math.min(32, Math.ceil(n / (threads * 8))));
  let next = 0;
  let done = 0;
  let batchId = 0;
  const pending = new Map<number, number>(); // batch id → first query
  const workers: Worker[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const feed = (w: Worker) => {
        if (next >= n) return;
        const from = next;
        const to = Math.min(n, from + batchSize);
        next = to;
        const id = batchId++;
        pending.set(id, from);
        const batch: WorkerBatch = { id, k: req.k, queries: [] };
        for (let q = from; q < to; q++) batch.queries.push({ q: req.queries[q], exclude: exclude(q), candidates: req.candidates?.[q] });
        w.postMessage(batch);
      };
      for (let t = 0; t < threads; t++) {
        const w = tsWorker(new URL('./search-worker.ts', import.meta.url), { workerData: sharedArrays });
        workers.push(w);
        w.on('message', (msg: { id: number; results: TopK[] }) => {
          const from = pending.get(msg.id)!;
          pending.delete(msg.id);
          msg.results.forEach((r, i) => (results[from + i] = r));
          done += msg.results.length;
          req.onProgress?.(done);
          if (done === n) resolve();
          else feed(w);
        });
        w.on('error', reject);
        w.on('exit', (code) => {
          if (done < n) reject(new Error(`bm25 search worker exited with code ${code} before finishing`));
        });
        feed(w);
      }
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return toRanked(results);
}

async function searchOnProcesses(arrays: ScoringArrays, req: BatchSearch, procs: number, results: TopK[]): Promise<TopK[]> {
  const n = req.queries.length;
  const exclude = (q: number) => (req.exclude ? req.exclude[q] : -1);
  const batchSize = Math.max(1, Math.min(32, Math.ceil(n / (procs * 8))));
  const init: ProcessInit = {
    indexDir: req.indexDir!, normCache: arrays.normCache, normInv: arrays.normInv, member: arrays.member, tieKey: arrays.tieKey,
  };
  const children: ChildProcess[] = [];
  let next = 0;
  let done = 0;
  let batchId = 0;
  const pending = new Map<number, number>();
  try {
    await new Promise<void>((resolve, reject) => {
      const feed = (c: ChildProcess) => {
        if (next >= n) return;
        const from = next;
        const to = Math.min(n, from + batchSize);
        next = to;
        const id = batchId++;
        pending.set(id, from);
        const batch: WorkerBatch = { id, k: req.k, queries: [] };
        for (let q = from; q < to; q++) batch.queries.push({ q: req.queries[q], exclude: exclude(q), candidates: req.candidates?.[q] });
        c.send({ batch });
      };
      for (let t = 0; t < procs; t++) {
        const c = fork(new URL('./search-process.ts', import.meta.url).pathname, [], {
          execArgv: ['--import', import.meta.resolve('tsx')],
          serialization: 'advanced',
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        });
        children.push(c);
        c.on('message', (msg: { ready?: boolean; id: number; results: TopK[] }) => {
          if (msg.ready) return feed(c);
          const from = pending.get(msg.id)!;
          pending.delete(msg.id);
          msg.results.forEach((r, i) => (results[from + i] = r));
          done += msg.results.length;
          req.onProgress?.(done);
          if (done === n) resolve();
          else feed(c);
        });
        c.on('error', reject);
        c.on('exit', (code) => {
          if (done < n) reject(new Error(`bm25 search process exited with code ${code} before finishing`));
        });
        c.send({ init });
      }
    });
  } finally {
    for (const c of children) c.kill();
  }
  return results;
}
