/**
 * Paper-id list files shared by the search and encode commands (bm25 and dense): query lists and pools, with
 * errors naming file, line and field.
 */
import { readFileSync } from 'node:fs';
import { InputError } from '../../util/errors.ts';
import type { CorpusStore } from '../../corpus/store.ts';

function readLines(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new InputError(path, undefined, undefined, `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return text.split(/\r?\n/);
}

/** A file of paper ids, one per line (blank lines and #-comments skipped) → corpus indices, in file order. */
export function readIdList(path: string, store: CorpusStore): { indices: Uint32Array; ids: string[] } {
  const indices: number[] = [];
  const ids: string[] = [];
  const lineOf = new Map<number, number>();
  readLines(path).forEach((raw, i) => {
    const id = raw.trim();
    if (id === '' || id.startsWith('#')) return;
    if (/\s/.test(id)) throw new InputError(path, i + 1, 'paper_id', `expected one paper id per line, got '${id}'`);
    const idx = store.indexOf(id);
    if (idx < 0) throw new InputError(path, i + 1, 'paper_id', `unknown paper id '${id}' (not in the corpus store ${store.dir})`);
    // A repeated query would put two ranked lists under one qid in the run, which trec_eval rejects.
    const prev = lineOf.get(idx);
    if (prev !== undefined) throw new InputError(path, i + 1, 'paper_id', `paper id '${id}' repeats line ${prev}`);
    lineOf.set(idx, i + 1);
    indices.push(idx);
    ids.push(id);
  });
  if (indices.length === 0) throw new InputError(path, undefined, undefined, 'no paper ids in the file');
  return { indices: Uint32Array.from(indices), ids };
}

/** A pool file (paper ids) → sorted distinct corpus indices; a repeated id is an error naming both lines. */
export function readPool(path: string, store: CorpusStore): Uint32Array {
  const seen = new Map<number, number>();
  readLines(path).forEach((raw, i) => {
    const id = raw.trim();
    if (id === '' || id.startsWith('#')) return;
    const idx = store.indexOf(id);
    if (idx < 0) throw new InputError(path, i + 1, 'paper_id', `unknown paper id '${id}' (not in the corpus store ${store.dir})`);
    const prev = seen.get(idx);
    if (prev !== undefined) throw new InputError(path, i + 1, 'paper_id', `paper id '${id}' repeats line ${prev}`);
    seen.set(idx, i + 1);
  });
  if (seen.size === 0) throw new InputError(path, undefined, undefined, 'empty pool');
  return Uint32Array.from([...seen.keys()].sort((a, b) => a - b));
}
