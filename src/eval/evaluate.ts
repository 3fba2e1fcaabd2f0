/**
 * The in-memory evaluator: qrels + run as typed-array CSR over shared query positions and integer doc ids,
 * per-query values as Float64Array per measure, plus the "all" values exactly as trec_eval forms them.
 * The missing-query policy (trec_eval -c) is decided here and only here.
 */
import { CitebenchError } from '../util/errors.ts';
import type { Measure } from './measures/measure.ts';
import { Ranker } from './ranking.ts';
import { MIN_GEO_MEAN } from './measures/gm-map.ts';
import type { DocOrder, EvalOptions, QrelsCsr, RunCsr } from './types.ts';

export interface EvalResult {
  measures: Measure[];
  /**
   * perQuery[m][q]: value of measures[m] for query position q. Queries evaluated (in both qrels and run) hold
   * their value; qrels queries missing from the run hold 0 under missing='zero' (-c) and NaN under 'skip';
   * queries without qrels hold NaN.
   */
  perQuery: Float64Array[];
  /** Per-query text of 'string' measures (relstring), else undefined. */
  perQueryText: (string[] | undefined)[];
  /** 1 where the query was in both qrels and run (trec_eval prints a per-query line for it). */
  evaluated: Uint8Array;
  /** The "all" value per measure (mean, sum or count as trec_eval prints it). */
  summary: Float64Array;
  /** Queries in both qrels and run. */
  numEvaluated: number;
  /** Queries with at least one qrels entry. */
  numQrelsQueries: number;
  /** Qrels queries absent from the run (0 under -c, left out otherwise). */
  numMissingFromRun: number;
  /** Run queries without any qrels entry: never evaluated (trec_eval ignores them). */
  numWithoutQrels: number;
  /** The denominator of the means. */
  numAveraged: number;
}

interface EvaluateArgs {
  qrels: QrelsCsr;
  run: RunCsr;
  measures: Measure[];
  /** Tie-breaking docno order; required only when scores tie. */
  docOrder?: DocOrder;
  options?: EvalOptions;
  /** Skip the duplicate-doc check when the caller has done it (the TREC reader reports file and line). */
  runChecked?: boolean;
  /**
   * Order in which per-query values are summed (trec_eval sums in qid strcmp order; floating-point sums
   * depend on order). Default: query positions ascending.
   */
  queryOrder?: Uint32Array;
}

export function evaluate(args: EvaluateArgs): EvalResult {
  const { qrels, run, measures } = args;
  const opts = args.options ?? {};
  const numQueries = qrels.offsets.length - 1;
  if (run.offsets.length - 1 !== numQueries) {
    throw new CitebenchError(`qrels has ${numQueries} query positions but the run has ${run.offsets.length - 1}`);
  }
  if (run.docs.length !== run.scores.length || run.docs.length !== run.offsets[numQueries]) {
    throw new CitebenchError('run: offsets, docs and scores disagree in length');
  }
  if (qrels.docs.length !== qrels.labels.length || qrels.docs.length !== qrels.offsets[numQueries]) {
    throw new CitebenchError('qrels: offsets, docs and labels disagree in length');
  }
  for (let i = 0; i < run.scores.length; i++) {
    if (!Number.isFinite(run.scores[i])) throw new CitebenchError(`run: score of entry ${i} is ${run.scores[i]}, not a finite number`);
  }
  const missing = opts.missing ?? 'skip';
  const ranker = new Ranker(qrels, run, args.docOrder, opts);

  let maxDoc = 0;
  if (!args.runChecked) for (let i = 0; i < run.docs.length; i++) if (run.docs[i] > maxDoc) maxDoc = run.docs[i];
  const seen = args.runChecked ? undefined : new Int32Array(maxDoc + 1);

  const perQuery = measures.map(() => new Float64Array(numQueries).fill(NaN));
  const perQueryText = measures.map((m) => (m.kind === 'string' ? new Array<string>(numQueries).fill('') : undefined));
  const evaluated = new Uint8Array(numQueries);
  let numEvaluated = 0;
  let numQrelsQueries = 0;
  let numMissingFromRun = 0;
  let numWithoutQrels = 0;
  let positiveLabels = 0; // every label > 0 in the qrels: trec_eval's num_rel under -c
  for (let q = 0; q < numQueries; q++) {
    const inQrels = qrels.offsets[q + 1] > qrels.offsets[q];
    const inRun = run.offsets[q + 1] > run.offsets[q];
    if (inQrels) {
      numQrelsQueries++;
      for (let i = qrels.offsets[q]; i < qrels.offsets[q + 1]; i++) if (qrels.labels[i] > 0) positiveLabels++;
    }
    if (!inQrels) {
      if (inRun) numWithoutQrels++;
      continue;
    }
    if (!inRun) {
      numMissingFromRun++;
      if (missing === 'zero') for (const values of perQuery) values[q] = 0;
      continue;
    }
    if (seen) ranker.checkRunDuplicates(q, seen);
    const view = ranker.rank(q);
    for (let m = 0; m < measures.length; m++) {
      perQuery[m][q] = measures[m].compute(view);
      const text = perQueryText[m];
      if (text) text[q] = measures[m].text!(view);
    }
    evaluated[q] = 1;
    numEvaluated++;
  }

  const numAveraged = missing === 'zero' ? numQrelsQueries : numEvaluated;
  const order = args.queryOrder ?? identity(numQueries);
  const summary = new Float64Array(measures.length);
  for (let m = 0; m < measures.length; m++) {
    const meas = measures[m];
    if (meas.summary === 'num_q') {
      summary[m] = numAveraged;
      continue;
    }
    if (meas.summary === 'num_rel' && missing === 'zero') {
      summary[m] = positiveLabels;
      continue;
    }
    let sum = 0;
    const values = perQuery[m];
    for (let i = 0; i < order.length; i++) if (evaluated[order[i]]) sum += values[order[i]];
    if (meas.summary === 'gm') {
      // Missing queries (-c) count as the floor value, log(1e-5), as trec_eval's te_calc_avg_meas_s_gm.
      if (numAveraged) sum += (numAveraged - numEvaluated) * Math.log(MIN_GEO_MEAN);
      summary[m] = numAveraged ? Math.exp(sum / numAveraged) : 0;
    } else summary[m] = meas.summary === 'mean' ? (numAveraged ? sum / numAveraged : 0) : sum;
  }
  return { measures, perQuery, perQueryText, evaluated, summary, numEvaluated, numQrelsQueries, numMissingFromRun, numWithoutQrels, numAveraged };
}

function identity(n: number): Uint32Array {
  const a = new Uint32Array(n);
  for (let i = 0; i < n; i++) a[i] = i;
  return a;
}
