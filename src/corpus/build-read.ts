/**
 * The store build's read step (store-build.ts): every record of the input validated, its prefilter rules 1–3
 * decided, encoded and put into the external sort by id. Units (input files) are read one after the other on the
 * main thread, or by worker threads, each unit into sort runs of its own, which the main thread takes over in unit
 * order. The runs' merge is a total order (id, then rank, file number and line: build-records.ts) and a unit's
 * file number is its index, so the store does not depend on the number of threads; the validation report is added
 * in unit order, as the sequential read adds it.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { CorpusSource } from './build-source.ts';
import type { UnitDone, UnitFailed, WorkerJob } from './build-read-unit.ts';
import { ValidationReport } from './validation.ts';
import { CitebenchError, InputError } from '../util/errors.ts';
import { tsWorker } from '../util/ts-worker.ts';

/** Worker threads for `source` (default: one per core, at most 8, never more than the units left; 1 = none). */
export function readThreads(source: CorpusSource, unitsLeft: number, threads?: number): number {
  if (!source.spec || unitsLeft < 2) return 1;
  const want = threads ?? Math.min(8, availableParallelism());
  if (!Number.isInteger(want) || want < 1) throw new CitebenchError(`threads must be a positive integer, got ${threads}`);
  return Math.min(want, unitsLeft);
}

function raise(e: UnitFailed['error']): never {
  if (e.name === 'InputError') throw new InputError(e.file!, e.line, e.field, e.problem!);
  if (e.name === 'CitebenchError') throw new CitebenchError(e.message);
  throw new Error(`corpus build: a reading worker failed: ${e.stack ?? e.message}`);
}

/**
 * Units `from`..end read by `threads` workers; `commit` is called for each in unit order with the unit's run files
 * (in the temporary folder) and its report. Each worker holds at most one sort run in memory.
 */
export async function readUnitsInWorkers(
  source: CorpusSource,
  from: number,
  threads: number,
  job: WorkerJob,
  tick: (n: number) => void,
  commit: (u: number, runs: string[], report: ValidationReport) => void,
): Promise<void> {
  const n = source.units.length;
  const results = new Map<number, UnitDone | UnitFailed>();
  let wake: (() => void) | undefined;
  let fatal: Error | undefined;
  let next = from;
  const workers: Worker[] = [];
  const give = (w: Worker) => {
    if (next < n) w.postMessage({ unit: next++ });
    else w.postMessage({ unit: -1 });
  };
  for (let t = 0; t < threads; t++) {
    const w = tsWorker(new URL('./build-read-worker.ts', import.meta.url), { workerData: job });
    workers.push(w);
    w.on('message', (m: { tick: number } | UnitDone | UnitFailed) => {
      if ('tick' in m) return tick(m.tick);
      results.set(m.unit, m);
      if ('runs' in m) give(w);
      wake?.();
    });
    w.on('error', (e) => {
      fatal ??= e;
      wake?.();
    });
    w.on('exit', (code) => {
      if (code !== 0) fatal ??= new Error(`corpus build: a reading worker exited with code ${code}`);
      wake?.();
    });
    give(w);
  }
  try {
    for (let u = from; u < n; u++) {
      while (!results.has(u)) {
        if (fatal) throw fatal;
        await new Promise<void>((r) => (wake = r));
      }
      const m = results.get(u)!;
      results.delete(u);
      if ('error' in m) raise(m.error);
      commit(u, m.runs.map((f) => join(job.tmp, f)), ValidationReport.fromJSON(m.report, false, job.maxExamples));
    }
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
