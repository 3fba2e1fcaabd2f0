/**
 * Where a store build stands, kept in its temporary folder so that a killed build resumes: after each input
 * file the records read so far are on disk (sort runs) and the checkpoint names them; after each later step its
 * outputs are. A build whose input files (sizes, modification times) or options differ from the checkpoint's
 * starts afresh. Every step writes only files derived from the step before it, in an order that does not depend
 * on where an earlier run stopped, so a resumed build writes the same bytes as an uninterrupted one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic.ts';
import { identity } from '../util/identity.ts';
import type { ValidationReport } from './validation.ts';

export type BuildPhase = 'read' | 'merged' | 'joined' | 'graph';

export interface Checkpoint {
  format: 'citebench-build-checkpoint';
  version: 1;
  /** The options and the input's fingerprint the work was done for. */
  key: string;
  phase: BuildPhase;
  /** Input units (files) read completely, in order. */
  unitsDone: number;
  /** Files named by number in the records (validation examples need their paths). */
  files: string[];
  /** Run files of the record sort (the store's order), relative to the temporary folder. */
  recordRuns: string[];
  report: ReturnType<ValidationReport['toJSON']>;
  /** What the source counted beside the report (OpenAlex exclusions by type). */
  sourceState?: unknown;
  /** After the merge: accepted records, and the citation sort's runs. */
  accepted?: number;
  citationRuns?: string[];
  /** After the join: the resolved edges' sort runs. */
  edgeRuns?: string[];
  /** After the graph step: kept articles, citations and the prefilter's report. */
  graph?: { kept: number; citations: number; prefilter: unknown };
}

const FILE = 'checkpoint.json';

/** The key of a build: its options and inputs in the canonical serialisation (util/identity.ts: key order never counts). */
export function buildKey(what: Record<string, unknown>): string {
  return identity(what);
}

/** Whether `tmp` holds a checkpoint at all (to say why one that does not match is not resumed). */
export function hasCheckpoint(tmp: string): boolean {
  return existsSync(join(tmp, FILE));
}

export function readCheckpoint(tmp: string, key: string): Checkpoint | undefined {
  const p = join(tmp, FILE);
  if (!existsSync(p)) return undefined;
  try {
    const c = JSON.parse(readFileSync(p, 'utf8')) as Checkpoint;
    return c.format === 'citebench-build-checkpoint' && c.version === 1 && c.key === key ? c : undefined;
  } catch {
    return undefined;
  }
}

export function writeCheckpoint(tmp: string, c: Checkpoint): void {
  writeFileAtomic(join(tmp, FILE), JSON.stringify(c) + '\n');
}
