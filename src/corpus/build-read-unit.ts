/**
 * One unit (input file) of the store build's read step (build-read.ts): its records validated, their prefilter
 * rules 1–3 decided, encoded and put into the external sort by id — on the main thread (readUnit) or in a worker
 * thread (serveUnits, build-read-worker.ts), and the messages a worker sends back. Apart from build-read.ts so that
 * the worker module does not import the module that starts it.
 */
import { basename, join } from 'node:path';
import { rmSync } from 'node:fs';
import { compareRecords, encodeRecord } from './build-records.ts';
import type { CorpusSource, SourceSpec } from './build-source.ts';
import { textRuleFlags, type PrefilterConfig } from './prefilter.ts';
import { ValidationReport } from './validation.ts';
import { RecordSorter } from '../util/external-sort.ts';
import type { InputError } from '../util/errors.ts';

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

/** What a worker sends for a unit it has read. */
export interface UnitDone {
  unit: number;
  runs: string[];
  report: ReturnType<ValidationReport['toJSON']>;
}

/** An error a worker met, as data (the main thread raises it when it reaches that unit). */
export interface UnitFailed {
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

/** The worker's side: read each unit it is given into runs named after the unit (a unit read again overwrites them). */
export async function serveUnits(job: WorkerJob, open: (spec: SourceSpec) => CorpusSource, post: (m: unknown) => void, nextUnit: () => Promise<number>): Promise<void> {
  for (let u = await nextUnit(); u >= 0; u = await nextUnit()) {
    // A fresh source per unit: nothing one unit's reading leaves in it carries over to the next.
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
      post({ unit: u, runs: sorter.runFiles.map((f) => basename(f)), report: report.toJSON() } satisfies UnitDone);
    } catch (e) {
      sorter.dispose();
      const err = e as Error & Partial<InputError>;
      post({ unit: u, error: { name: err.name ?? 'Error', message: err.message ?? String(e), stack: err.stack, file: err.file, line: err.line, field: err.field, problem: err.problem } } satisfies UnitFailed);
      return;
    }
  }
}
