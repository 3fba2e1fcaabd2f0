/**
 * The evaluation module's entry points for the floors above it (experiments, the notebook API): evaluate typed
 * arrays or a Retriever's RankedLists, parse measures, write runs and qrels. Readers, formatters, MDCR and
 * significance tests are imported from their own modules.
 *
 *   const measures = selectMeasures(['MAP', 'nDCG', 'R@30']).measures;
 *   const r = evaluate({ qrels, run, measures, docOrder });        // typed arrays in, Float64Array per measure out
 *   const r2 = evaluateRankedLists(lists, qrels, measures, { docOrder });  // a Retriever's RankedLists directly
 */
import { evaluate, type EvalResult } from './evaluate.ts';
import type { Measure } from './measures/measure.ts';
import type { DocOrder, EvalOptions, QrelsCsr, RankedLists } from './types.ts';

export { evaluate } from './evaluate.ts';
export { parseMeasure, selectMeasures } from './registry.ts';
export { trecEvalText } from './trec-eval.ts';
export { writeRun, writeQrels } from './trec-write.ts';

/**
 * Evaluate a Retriever's RankedLists: list q (query position q of the SearchRequest) against qrels row q, doc ids
 * being corpus indices in both. The lists' own order is not trusted: docs are re-ranked by score with
 * trec_eval's rule, so the numbers equal trec_eval on the run file these lists would be written to.
 * docOrder (from the corpus store: docno byte order) is needed only when scores tie.
 */
export function evaluateRankedLists(
  lists: RankedLists,
  qrels: QrelsCsr,
  measures: Measure[],
  opts: { docOrder?: DocOrder; options?: EvalOptions } = {},
): EvalResult {
  return evaluate({ qrels, run: { offsets: lists.offsets, docs: lists.docs, scores: lists.scores }, measures, docOrder: opts.docOrder, options: opts.options });
}
