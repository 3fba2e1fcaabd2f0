/**
 * trec_eval on files: read qrels + run (strings → integer ids), evaluate with the in-memory core, and format
 * exactly as trec_eval 9.0.8 prints. A thin layer: every number comes from evaluate().
 */
import { CitebenchError } from '../util/errors.ts';
import { evaluate, type EvalResult } from './evaluate.ts';
import { selectMeasures } from './registry.ts';
import { formatTrecEval } from './trec-format.ts';
import { newTrecTables, readQrels, readRun, type TrecTables } from './trec-io.ts';
import { qrelsToCsr, runToCsr } from './trec-csr.ts';
import type { EvalOptions } from './types.ts';

interface TrecFileEvaluation {
  result: EvalResult;
  tables: TrecTables;
  /** Query positions in qid strcmp order. */
  queryOrder: Uint32Array;
  runId: string;
  /** Whether the selection asks for the runid line (all_trec / official). */
  printRunId: boolean;
}

export function evaluateTrecFiles(qrelsPath: string, runPath: string, measureSpecs: string[], options: EvalOptions = {}): TrecFileEvaluation {
  // Without -m trec_eval prints its "official" measures.
  const selection = selectMeasures(measureSpecs.length ? measureSpecs : ['official']);
  const tables = newTrecTables();
  const qrelsEntries = readQrels(qrelsPath, tables);
  const runEntries = readRun(runPath, tables, { float64: options.trecEval10 });
  const numQueries = tables.queries.size;
  const qrels = qrelsToCsr(qrelsEntries, numQueries, tables);
  const run = runToCsr(runEntries, numQueries, tables);
  const queryOrder = tables.queries.sortedIds();
  const result = evaluate({
    qrels,
    run,
    measures: selection.measures,
    docOrder: (a, b) => runEntries.docnos!.compare(a, b),
    options,
    queryOrder,
    runChecked: true,
  });
  if (result.numEvaluated === 0) {
    throw new CitebenchError(`${runPath}: no queries with both results and relevance info (qrels: ${qrelsPath})`);
  }
  return { result, tables, queryOrder, runId: runEntries.runId ?? '', printRunId: selection.runid };
}

/** trec_eval's printed output for files. */
export function trecEvalText(
  qrelsPath: string,
  runPath: string,
  measureSpecs: string[],
  options: EvalOptions & { perQuery?: boolean } = {},
): string {
  const ev = evaluateTrecFiles(qrelsPath, runPath, measureSpecs, options);
  return formatTrecEval(ev.result, {
    perQuery: options.perQuery,
    queryOrder: ev.queryOrder,
    qid: (q) => ev.tables.queries.get(q),
    runId: ev.printRunId ? ev.runId : undefined,
  });
}
