/**
 * A TREC run file as ranked lists in trec_eval's order, for code that needs a run's order rather than its
 * evaluation (MDCR's model lists, the report's drill-down pages). Parsed by readRun (trec-io.ts: its field,
 * comment and number rules and its errors) and ordered by the evaluator's Ranker (ranking.ts): score
 * descending as trec_eval 9.0.8 sees it (float32; doubles with trecEval10), ties by docno descending
 * (byte-wise), the rank column ignored; a docno retrieved twice for one query is an error naming the line.
 */
import { Ranker } from './ranking.ts';
import { newTrecTables, readQrels, readRun } from './trec-io.ts';
import { groupByQuery, runToCsr } from './trec-csr.ts';

interface RankedRunEntry {
  docno: string;
  /** The score as trec_eval ranks by it (float32-rounded unless trecEval10). */
  score: number;
  /** Content-line ordinal of the entry in the file (blank and # lines not counted): lineNumbersOf gives its line. */
  entry: number;
}

interface RankedRun {
  /** Run tag of the last line. */
  runId: string;
  /** Query id → its entries, best first; queries in order of first appearance in the file. */
  lists: Map<string, RankedRunEntry[]>;
}

export function readRankedRun(path: string, opts: { queries?: ReadonlySet<string>; trecEval10?: boolean } = {}): RankedRun {
  const tables = newTrecTables();
  const entries = readRun(path, tables, { float64: opts.trecEval10 });
  const numQueries = tables.queries.size;
  const run = runToCsr(entries, numQueries, tables);
  const perm = groupByQuery(entries, numQueries).perm;
  const noQrels = { offsets: new Uint32Array(numQueries + 1), docs: new Uint32Array(0), labels: new Int32Array(0) };
  const ranker = new Ranker(noQrels, run, (a, b) => entries.docnos!.compare(a, b), { trecEval10: opts.trecEval10 });
  const lists = new Map<string, RankedRunEntry[]>();
  for (let q = 0; q < numQueries; q++) {
    const qid = tables.queries.get(q);
    if (opts.queries && !opts.queries.has(qid)) continue;
    lists.set(qid, Array.from(ranker.ranked(q), (i) => ({
      docno: entries.docnos!.get(run.docs[i]),
      score: run.scores[i],
      entry: perm ? perm[i] : i,
    })));
  }
  return { runId: entries.runId ?? '', lists };
}

/**
 * The judged-relevant docnos (label > 0) of each query of a qrels file, in file order, for code that needs the
 * judgements as ids rather than an evaluation (the report's drill-down pages). Parsed by readQrels (its field,
 * comment and number rules and its errors); `queries` keeps only those.
 */
export function readRelevant(path: string, opts: { queries?: ReadonlySet<string> } = {}): Map<string, string[]> {
  const tables = newTrecTables();
  const e = readQrels(path, tables);
  const out = new Map<string, string[]>();
  for (let k = 0; k < e.segQuery.length; k++) {
    const qid = tables.queries.get(e.segQuery[k]);
    if (opts.queries && !opts.queries.has(qid)) continue;
    const end = k + 1 < e.segStart.length ? e.segStart[k + 1] : e.count;
    for (let i = e.segStart[k]; i < end; i++) {
      if (e.value[i] <= 0) continue;
      let l = out.get(qid);
      if (!l) out.set(qid, (l = []));
      l.push(tables.docs.get(e.doc[i]));
    }
  }
  return out;
}
