/**
 * Joining the runs of query shards (`bm25 search` / `dense search --shard I/N`) into the run one process would
 * have written: each query's lines are copied byte for byte, in the inputs' order (the shards' order) or in the
 * order of a query list. A qid found in two inputs, or lines of one qid split apart, is an error: shards of
 * one search never overlap.
 */
import { readFileSync } from 'node:fs';
import { InputError } from '../util/errors.ts';

interface RunBlock {
  qid: string;
  file: string;
  /** The query's lines, as read (latin1, with their newlines). */
  text: string;
}

/** The per-query blocks of one run file, in file order. */
function runBlocks(file: string): RunBlock[] {
  let text: string;
  try {
    text = readFileSync(file, 'latin1');
  } catch (e) {
    throw new InputError(file, undefined, undefined, `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (text.length && !text.endsWith('\n')) throw new InputError(file, undefined, undefined, 'does not end with a newline (an unfinished write?)');
  const blocks: RunBlock[] = [];
  const seen = new Map<string, number>();
  let start = 0;
  let line = 0;
  for (let i = 0; i < text.length; ) {
    const end = text.indexOf('\n', i) + 1;
    line++;
    const qid = text.slice(i, end).trim().split(/\s+/)[0];
    if (qid === '' || qid.startsWith('#')) throw new InputError(file, line, 'qid', 'blank or comment line: not a run written by citebench');
    const last = blocks[blocks.length - 1];
    if (!last || last.qid !== qid) {
      if (last) last.text = text.slice(start, i);
      if (seen.has(qid)) throw new InputError(file, line, 'qid', `query '${qid}' appears again after other queries (first at line ${seen.get(qid)})`);
      seen.set(qid, line);
      blocks.push({ qid, file, text: '' });
      start = i;
    }
    i = end;
  }
  if (blocks.length) blocks[blocks.length - 1].text = text.slice(start);
  return blocks;
}

/**
 * The merged run's bytes. With `order` (query ids, e.g. the search's --queries list), queries come in that
 * order and one not in it is an error; without, in input order. A query with no results appears in no input,
 * as in an unsharded run.
 */
export function mergeRuns(files: string[], order?: string[]): Buffer {
  const byQid = new Map<string, RunBlock>();
  const all: RunBlock[] = [];
  for (const f of files) {
    for (const b of runBlocks(f)) {
      const prev = byQid.get(b.qid);
      if (prev) throw new InputError(f, undefined, 'qid', `query '${b.qid}' is also in ${prev.file}: shards of one search never share a query`);
      byQid.set(b.qid, b);
      all.push(b);
    }
  }
  if (!order) return Buffer.from(all.map((b) => b.text).join(''), 'latin1');
  const known = new Set(order);
  for (const b of all) if (!known.has(b.qid)) throw new InputError(b.file, undefined, 'qid', `query '${b.qid}' is not in the query list`);
  return Buffer.from(order.map((q) => byQid.get(q)?.text ?? '').join(''), 'latin1');
}
