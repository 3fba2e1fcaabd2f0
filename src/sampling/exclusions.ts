/**
 * Query exclusion lists. The paper left out of its query sets the articles used as queries in SPECTER's and
 * SciNCL's training sets (§3.1); citebench takes such lists as plain files of paper ids, one per line (blank
 * lines and lines starting with '#' ignored), any number of files. Ids that are not in the store are counted,
 * not an error: training sets span all of S2ORC, a store holds a prefiltered part of it.
 */
import { sha256 } from '../util/identity.ts';
import { existsSync, readFileSync } from 'node:fs';
import type { CorpusStore } from '../corpus/store.ts';
import { CitebenchError, InputError } from '../util/errors.ts';

export interface ExclusionFile {
  /** As given. */
  path: string;
  /** sha256 of the file's bytes (hex): identifies the list in cache keys and results. */
  sha256: string;
  /** Distinct ids in the file. */
  ids: number;
  /** Of those, ids the store does not hold. */
  notInStore: number;
}

export interface QueryExclusion {
  /** Sorted, distinct corpus indices of every listed id the store holds. */
  indices: Uint32Array;
  files: ExclusionFile[];
}

export function loadQueryExclusion(store: Pick<CorpusStore, 'size' | 'indexOf'>, paths: string[]): QueryExclusion {
  const mark = new Uint8Array(store.size);
  const files: ExclusionFile[] = [];
  for (const path of paths) {
    if (!existsSync(path)) throw new CitebenchError(`${path}: query exclusion file not found`);
    const bytes = readFileSync(path);
    const seen = new Set<string>();
    let notInStore = 0;
    bytes.toString('utf8').split('\n').forEach((raw, k) => {
      const id = raw.trim();
      if (id === '' || id.startsWith('#')) return;
      if (/\s/.test(id)) throw new InputError(path, k + 1, 'paper_id', `'${id.slice(0, 60)}' is not one paper id (one id per line)`);
      if (seen.has(id)) return;
      seen.add(id);
      const i = store.indexOf(id);
      if (i < 0) notInStore++;
      else mark[i] = 1;
    });
    files.push({ path, sha256: sha256().update(bytes).hex(), ids: seen.size, notInStore });
  }
  let n = 0;
  for (let i = 0; i < mark.length; i++) n += mark[i];
  const indices = new Uint32Array(n);
  n = 0;
  for (let i = 0; i < mark.length; i++) if (mark[i]) indices[n++] = i;
  return { indices, files };
}

/** One line for reports and logs. */
export function describeExclusion(files: ExclusionFile[], excluded: number, candidates: number): string {
  const list = files.map((f) => `${f.path} (sha256 ${f.sha256}, ${f.ids} ids, ${f.notInStore} not in the store)`).join('; ');
  return `${excluded} of ${candidates} query candidates excluded, listed in ${list}`;
}
