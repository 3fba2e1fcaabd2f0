/**
 * The store build's read step (store-build.ts): every record of the input validated, its prefilter rules 1–3
 * decided, encoded and put into the external sort by id. Units (input files) are read one after the other on the
 * main thread, or by worker threads, each unit into sort runs of its own, which the main thread takes over in unit
 * order. The runs' merge is a total order (id, then rank, file number and line: build-records.ts) and a unit's
 * file number is its index, so the store does not depend on the number of threads; the validation report and the
 * source's counts are added in unit order, as the sequential read adds them.
 */
import { availableParallelism } from 'node:os';
import { basename, join } from 'node:path';
import { rmSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { compareRecords, encodeRecord } from './build-records.ts';
import type { CorpusSource, SourceSpec } from './build-source.ts';
import { textRuleFlags, type PrefilterConfig } from './prefilter.ts';
import { ValidationReport } from './validation.ts';
import { RecordSorter } from '../util/external-sort.ts';
import { CitebenchError, InputError } from '../util/errors.ts';
import { tsWorker } from '../util/ts-worker.ts';

export interface UnitReadOptions {
  cfg: PrefilterConfig;
  allowTruncated?: boolean;
  sortRunBytes?: number;
  /** Folder for the bulk datasets' own sort runs (removed after the unit). */
  scratch: string;
  progress?: boolean;
}

/**
 * Read unit `u` of `source` into `sorter`; `fileNo` numbers the files records come from (messages name them);
 * `tick` hears of every record read.
 */
export async function readUnit(
  source: CorpusSource,
  u: number,
  sorter: RecordSorter,
  report: ValidationReport,
  o: UnitReadOptions,
  fileNo: (file: string) => number,
  tick: () => void,
): Promise<void> {
  for await (const a of source.read(u, { report, allowTruncated: o.allowTruncated, scratch: o.scratch, sortRunBytes: o.sortRunBytes, progress: o.progress })) {
    tick();
    const { key, payload } = encodeRecord(a, fileNo(a.file), a.file, a.line, textRuleFlags(o.cfg, a.title, a.abstract, a.year));
    sorter.add(key, payload);
  }
  rmSync(o.scratch, { recursive: true, force: true });
  sorter.spill();
}

/** Worker threads for `source` (default: one per core, at most 8, never more than the units left; 1 = none). */
export function readThreads(source: CorpusSource, unitsLeft: number, threads?: number): number {
  if (!source.spec || unitsLeft < 2) return 1;
  const want = threads ?? Math.min(8, availableParallelism());
  if (!Number.isInteger(want) || want < 1) throw new CitebenchError(`threads must be a positive integer, got ${threads}`);
  return Math.min(want, unitsLeft);
}

/** What a worker sends for a unit it has read. */
interface UnitDone {
  unit: number;
  runs: string[];
  report: ReturnType<ValidationReport['toJSON']>;
  state?: unknown;
}

/** An error a worker met, as data (the main thread raises it when it reaches that unit). */
interface UnitFailed {
  unit: number;
  error: { name: string; message: string; stack?: string; file?: string; line?: number; field?: string; problem?: string };
}

export interface WorkerJob {
  spec: SourceSpec;
  tmp: string;
  strict: boolean;
  maxExamples: number;
  opts: Omit<UnitReadOptions, 'scratch' | 'progress'>;
}

function raise(e: UnitFailed['error']): never {
  if (e.name === 'InputError') throw new InputError(e.file!, e.line, e.field, e.problem!);
  if (e.name === 'CitebenchError') throw new CitebenchError(e.message);
  throw new Error(`corpus build: a reading worker failed: ${e.stack ?? e.message}`);
}

/**
 * Units `from`..end read by `threads` workers; `commit` is called for each in unit order with the unit's run files
 * (in the temporary folder), its report and its source state. Each worker holds at most one sort run in memory.
 */
export async function readUnitsInWorkers(
  source: CorpusSource,
  from: number,
  threads: number,
  job: WorkerJob,
  tick: (n: number) => void,
  commit: (u: number, runs: string[], report: ValidationReport, state: unknown) => void,
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
      commit(u, m.runs.map((f) => join(job.tmp, f)), ValidationReport.fromJSON(m.report, false, job.maxExamples), m.state);
    }
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/** The worker's side: read each unit it is given into runs named after the unit (a unit read again overwrites them). */
export async function serveUnits(job: WorkerJob, open: (spec: SourceSpec) => CorpusSource, post: (m: unknown) => void, nextUnit: () => Promise<number>): Promise<void> {
  for (let u = await nextUnit(); u >= 0; u = await nextUnit()) {
    // A fresh source per unit: what it counts (OpenAlex's exclusions) is the unit's alone.
    const source = open(job.spec);
    const report = new ValidationReport(job.strict, job.maxExamples);
    const sorter = new RecordSorter(job.tmp, `rec.u${u}`, job.opts.sortRunBytes, compareRecords);
    let pending = 0;
    try {
      await readUnit(source, u, sorter, report, { ...job.opts, scratch: join(job.tmp, `sort.u${u}`) }, () => u, () => {
        if (++pending === 4096) {
          post({ tick: pending });
          pending = 0;
        }
      });
      if (pending) post({ tick: pending });
      post({ unit: u, runs: sorter.runFiles.map((f) => basename(f)), report: report.toJSON(), state: source.state?.() } satisfies UnitDone);
    } catch (e) {
      sorter.dispose();
      const err = e as Error & Partial<InputError>;
      post({ unit: u, error: { name: err.name ?? 'Error', message: err.message ?? String(e), stack: err.stack, file: err.file, line: err.line, field: err.field, problem: err.problem } } satisfies UnitFailed);
      return;
    }
  }
}
