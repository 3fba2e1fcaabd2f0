/**
 * Parsed TREC entries grouped by query into the evaluator's CSR, with the duplicate checks (a doc judged or
 * retrieved twice for one query is an error naming file and line).
 */
import { InputError } from '../util/errors.ts';
import { lineNumbersOf } from './line-scan.ts';
import type { TrecEntries, TrecTables } from './trec-io.ts';
import type { QrelsCsr, RunCsr } from './types.ts';

/** Group qrels entries by query (positions 0..numQueries-1); a doc judged twice for a query is an error. */
export function qrelsToCsr(e: TrecEntries, numQueries: number, tables: TrecTables): QrelsCsr {
  const grouped = groupByQuery(e, numQueries);
  const { offsets } = grouped;
  const perm = grouped.perm ?? identity(e.count);
  const docs = new Uint32Array(e.count);
  const labels = new Int32Array(e.count);
  for (let i = 0; i < e.count; i++) {
    docs[i] = e.doc[perm[i]];
    labels[i] = e.value[perm[i]];
  }
  checkDuplicates(e, offsets, perm, docs, tables, 'judged');
  return { offsets, docs, labels };
}

/**
 * Group run entries by query; a docno retrieved twice for a query is an error. When the file already lists
 * queries in query-id order (the usual case: run and qrels sorted alike) the entry arrays are used as they are,
 * with no copy.
 */
export function runToCsr(e: TrecEntries, numQueries: number, tables: TrecTables): RunCsr {
  const { offsets, perm } = groupByQuery(e, numQueries);
  let docs: Uint32Array;
  let scores: Float32Array | Float64Array;
  if (!perm) {
    docs = e.doc;
    scores = e.value as Float32Array | Float64Array;
  } else {
    docs = new Uint32Array(e.count);
    scores = e.value instanceof Float64Array ? new Float64Array(e.count) : new Float32Array(e.count);
    for (let i = 0; i < e.count; i++) {
      docs[i] = e.doc[perm[i]];
      scores[i] = e.value[perm[i]];
    }
  }
  checkRunDuplicates(e, offsets, perm, docs, tables);
  return { offsets, docs, scores };
}

/** Per query, a small hash set over the docno hashes (fresh ids) plus stamps on qrels ids. */
function checkRunDuplicates(e: TrecEntries, offsets: Uint32Array, perm: Uint32Array | undefined, docs: Uint32Array, tables: TrecTables): void {
  const docnos = e.docnos!;
  const stamp = new Int32Array(docnos.base);
  let table = new Int32Array(1024);
  for (let q = 0; q + 1 < offsets.length; q++) {
    const start = offsets[q];
    const n = offsets[q + 1] - start;
    let size = 1024;
    while (size < 2 * n) size *= 2;
    if (table.length < size) table = new Int32Array(size);
    table.fill(0, 0, size);
    const mask = size - 1;
    for (let i = start; i < start + n; i++) {
      const d = docs[i];
      let dup = -1;
      if (d < docnos.base) {
        if (stamp[d] === q + 1) dup = d;
        stamp[d] = q + 1;
      } else {
        const h = docnos.hash(d);
        let slot = h & mask;
        for (;;) {
          const other = table[slot] - 1;
          if (other < 0) {
            table[slot] = i + 1;
            break;
          }
          if (docnos.compare(docs[other], d) === 0) {
            dup = d;
            break;
          }
          slot = (slot + 1) & mask;
        }
      }
      if (dup >= 0) {
        let firstEntry = start;
        while (docnos.compare(docs[firstEntry], d) !== 0) firstEntry++;
        const [line, first] = lineNumbersOf(e.file, perm ? [perm[i], perm[firstEntry]] : [i, firstEntry]);
        throw new InputError(
          e.file,
          line,
          'docno',
          `query '${tables.queries.get(q)}' has docno '${docnos.get(d)}' retrieved twice (first at line ${first})`,
        );
      }
    }
  }
}

/**
 * Stable counting sort of entries by query: offsets, and the entry permutation — none when the entries are
 * already in query order (each query one segment, ascending), as in runs written by sorting on the qid.
 */
export function groupByQuery(e: TrecEntries, numQueries: number): { offsets: Uint32Array; perm?: Uint32Array } {
  const nseg = e.segQuery.length;
  const segEnd = (k: number) => (k + 1 < nseg ? e.segStart[k + 1] : e.count);
  const offsets = new Uint32Array(numQueries + 1);
  let sorted = true;
  for (let k = 0; k < nseg; k++) {
    offsets[e.segQuery[k] + 1] += segEnd(k) - e.segStart[k];
    if (k > 0 && e.segQuery[k - 1] >= e.segQuery[k]) sorted = false;
  }
  for (let q = 0; q < numQueries; q++) offsets[q + 1] += offsets[q];
  if (sorted) return { offsets };
  const fill = offsets.slice(0, numQueries);
  const perm = new Uint32Array(e.count);
  for (let k = 0; k < nseg; k++) for (let i = e.segStart[k]; i < segEnd(k); i++) perm[fill[e.segQuery[k]]++] = i;
  return { offsets, perm };
}

function identity(n: number): Uint32Array {
  const a = new Uint32Array(n);
  for (let i = 0; i < n; i++) a[i] = i;
  return a;
}

function checkDuplicates(
  e: TrecEntries,
  offsets: Uint32Array,
  perm: Uint32Array,
  docs: Uint32Array,
  tables: TrecTables,
  verb: string,
): void {
  const stamp = new Int32Array(tables.docs.size);
  const first = new Uint32Array(tables.docs.size);
  for (let q = 0; q + 1 < offsets.length; q++) {
    for (let i = offsets[q]; i < offsets[q + 1]; i++) {
      const d = docs[i];
      if (stamp[d] === q + 1) {
        throw new InputError(
          e.file,
          e.line![perm[i]],
          'docno',
          `query '${tables.queries.get(q)}' has docno '${tables.docs.get(d)}' ${verb} twice (first at line ${first[d]})`,
        );
      }
      stamp[d] = q + 1;
      first[d] = e.line![perm[i]];
    }
  }
}
