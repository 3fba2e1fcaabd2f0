/**
 * Fusing TREC run files (`citebench fuse`): the runs read by the evaluator's reader (trec-io.ts, scores as
 * doubles), each query fused as ranx.fuse fuses it (index.ts). Queries come out in ranx's order (ids sorted), each
 * list in ranx's order, every document of the union.
 */
import { newTrecTables, readRun, type TrecEntries } from '../../eval/trec-io.ts';
import { lineNumbersOf } from '../../eval/line-scan.ts';
import type { RunCsr } from '../../eval/types.ts';
import { CitebenchError, InputError } from '../../util/errors.ts';
import { fuseQuery, prepareQuery, type FusionSpec } from './index.ts';

export interface FusedRun {
  qids: string[];
  docnos: (doc: number) => string;
  run: RunCsr;
}

/** Fuse the runs `inputs` (files of the same queries); each run's lists cut to their first `depth`. */
export function fuseRunFiles(inputs: string[], spec: FusionSpec, depth = Infinity): FusedRun {
  const tables = newTrecTables();
  const runs = inputs.map((f) => byQuery(readRun(f, tables, { float64: true })));
  // ranx fuses runs of the same queries only.
  for (let i = 1; i < runs.length; i++) {
    for (const [a, b] of [[0, i], [i, 0]]) {
      for (const q of runs[a].keys()) if (!runs[b].has(q)) throw new CitebenchError(`${inputs[b]}: has no line of query ${tables.queries.get(q)}, which ${inputs[a]} has (fused runs must have the same queries)`);
    }
  }
  // Queries in ranx's order: ids sorted (code point order; the ids are latin1).
  const qs = [...runs[0].keys()].map((q) => ({ q, qid: tables.queries.get(q) })).sort((a, b) => (a.qid < b.qid ? -1 : a.qid > b.qid ? 1 : 0));
  const qids = qs.map((x) => x.qid);
  const docnos: string[] = [];
  const offsets = new Uint32Array(qids.length + 1);
  const docs: number[] = [];
  const scores: number[] = [];
  qs.forEach(({ q }, qi) => {
    const { query, keys } = prepareQuery(runs.map((r, i) => checkedList(inputs[i], r.get(q)!)), depth);
    const fused = fuseQuery(query, spec);
    const base = docnos.length;
    for (const k of keys) docnos.push(k);
    for (const d of fused.order) {
      docs.push(base + d);
      scores.push(fused.scores[d]);
    }
    offsets[qi + 1] = docs.length;
  });
  return { qids, docnos: (d) => docnos[d], run: { offsets, docs: Uint32Array.from(docs), scores: Float64Array.from(scores) } };
}

interface QueryLines {
  entries: TrecEntries;
  /** Content-line ordinals of the query's lines, in file order. */
  at: number[];
}

/** A run's lines grouped by query id (a query's lines need not be consecutive). */
function byQuery(e: TrecEntries): Map<number, QueryLines> {
  const m = new Map<number, QueryLines>();
  for (let k = 0; k < e.segQuery.length; k++) {
    const end = k + 1 < e.segStart.length ? e.segStart[k + 1] : e.count;
    let g = m.get(e.segQuery[k]);
    if (!g) m.set(e.segQuery[k], (g = { entries: e, at: [] }));
    for (let i = e.segStart[k]; i < end; i++) g.at.push(i);
  }
  return m;
}

/** A query's list of one run as docnos and scores in file order; a docno twice is an error naming its second line. */
function checkedList(file: string, g: QueryLines): { keys: string[]; scores: Float64Array } {
  const keys = g.at.map((i) => g.entries.docnos!.get(g.entries.doc[i]));
  const seen = new Set<string>();
  keys.forEach((k, j) => {
    if (seen.has(k)) throw new InputError(file, lineNumbersOf(file, [g.at[j]])[0], 'docno', `${k} is retrieved twice for this query`);
    seen.add(k);
  });
  return { keys, scores: Float64Array.from(g.at, (i) => g.entries.value[i]) };
}
