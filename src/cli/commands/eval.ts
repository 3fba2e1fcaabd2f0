import { parse, num } from '../args.ts';
import { CitebenchError } from '../../util/errors.ts';
import { trecEvalText } from '../../eval/trec-eval.ts';
import { comparisonJson, compareTrecRecord, formatComparison, readSliceLabels } from '../../eval/compare.ts';
import { TRIALS } from '../../eval/significance.ts';
import { CORRECTIONS, parseCorrection } from '../../eval/statistics.ts';
import { writeFileAtomic } from '../../util/atomic.ts';

export const usage = `usage: citebench eval QRELS RUN [-m MEASURE]... [-q] [-c] [-M N] [-l N] [--trec-eval-10]
       citebench eval QRELS BASELINE_RUN RUN... [-m MEASURE]... [-c] [--trials N] [--seed N]
                      [--correction C] [--all-pairs] [--slices FILE] [--json FILE]

Evaluate a TREC run against TREC qrels exactly as trec_eval 9.0.8 does, printing its text format
(measure<TAB>qid<TAB>value; -q adds per-query lines before the 'all' lines). With several runs: a table
comparing each run with the first over the same queries (default measure map): the mean difference with
its 95 % t-interval and effect size d_z, paired t-test and randomization-test p-values, corrected over the
runs compared in one measure (the family results.json uses: docs/significance.md, docs/statistics.md).

  QRELS                 qrels file: 'qid iter docno relevance' per line
  RUN                   run file: 'qid Q0 docno rank score tag' per line (rank is ignored: docs are
                        ranked by score, float32-rounded, ties by docno descending; a score beyond
                        float32's range is an error without --trec-eval-10). Both files are read by the
                        compiled reader that npm ci builds (CITEBENCH_TREC_READER=off: the TypeScript one;
                        same results)
  -m, --measure M       measure to print (repeatable; printed in trec_eval's order). trec names: map, ndcg,
                        ndcg_cut[.k,..], P[.k,..], recall[.k,..], recip_rank, Rprec, num_q, num_ret,
                        num_rel, num_rel_ret, map_cut[.k,..], success[.k,..], relative_P[.k,..], gm_map,
                        bpref, gm_bpref, iprec_at_recall[.x,..], 11pt_avg, Rprec_mult[.x,..], utility,
                        set_P, set_relative_P, set_recall, set_map, set_F, num_nonrel_judged_ret,
                        relstring[.n], infAP, binG, G, ndcg_rel, Rndcg, F1[.k,..] (ours: harmonic mean
                        of P@k and recall@k); all_trec, official (the default)
                        Paper names: MAP, nDCG, nDCG@10, R@30, P@5, MRR, F1@20
  -q, --per-query       also print each query's values
  -c, --complete        average over every qrels query; queries missing from the run score 0
  -M, --max-docs N      evaluate only the top N docs of each query
  -l, --level N         relevance level: labels >= N are relevant (default 1; nDCG uses the labels as gains)
      --trec-eval-10    rank by double-precision scores (trec_eval 10) instead of float32 (9.0.8)
      --trials N        randomization test: sign-flip trials (default ${TRIALS})
      --seed N          randomization test: seed (default 0; same seed => same p-values)
      --correction C    correction over the runs of one measure: ${CORRECTIONS.join(', ')} (default holm)
      --all-pairs       also the randomised Tukey HSD over all pairs of runs, with letter groups
      --slices FILE     'qid<TAB>label' lines: per label each run's n, mean and 95 % interval and the
                        difference to the baseline
      --json FILE       write the machine-readable record (means, comparisons with intervals and d_z,
                        allPairs and groups, slices) to FILE ('-': standard output, instead of the table)`;

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parse(
    args,
    {
      measure: { type: 'string', short: 'm', multiple: true },
      'per-query': { type: 'boolean', short: 'q' },
      complete: { type: 'boolean', short: 'c' },
      'max-docs': { type: 'string', short: 'M' },
      level: { type: 'string', short: 'l' },
      'trec-eval-10': { type: 'boolean' },
      trials: { type: 'string' },
      seed: { type: 'string' },
      correction: { type: 'string' },
      'all-pairs': { type: 'boolean' },
      slices: { type: 'string' },
      json: { type: 'string' },
    },
    usage,
  );
  if (positionals.length < 2) throw new CitebenchError(`eval needs QRELS and RUN files\n\n${usage}`);
  const maxDocs = values['max-docs'] === undefined ? undefined : num('max-docs', values['max-docs']);
  if (maxDocs !== undefined && (!Number.isInteger(maxDocs) || maxDocs < 1)) throw new CitebenchError('--max-docs must be a positive integer');
  const level = num('level', values.level, 1);
  if (!Number.isInteger(level)) throw new CitebenchError('--level must be an integer');
  const options = {
    missing: values.complete ? ('zero' as const) : ('skip' as const),
    maxDocsPerQuery: maxDocs,
    relevanceLevel: level,
    trecEval10: values['trec-eval-10'],
  };
  if (positionals.length > 2) {
    const trials = num('trials', values.trials, TRIALS);
    const seed = num('seed', values.seed, 0);
    if (!Number.isInteger(trials) || trials < 1) throw new CitebenchError('--trials must be a positive integer');
    const correction = values.correction === undefined ? undefined : parseCorrection(values.correction, '--correction');
    const slices = values.slices === undefined ? undefined : { file: values.slices, labels: readSliceLabels(values.slices) };
    const { rows, record } = compareTrecRecord(positionals[0], positionals.slice(1), values.measure ?? [], options, { trials, seed, correction, allPairs: values['all-pairs'], slices });
    if (values.json === '-') process.stdout.write(comparisonJson(record));
    else {
      if (values.json !== undefined) writeFileAtomic(values.json, comparisonJson(record));
      process.stdout.write(formatComparison(rows));
    }
    return 0;
  }
  for (const flag of ['correction', 'all-pairs', 'slices', 'json'] as const) {
    if (values[flag] !== undefined) throw new CitebenchError(`--${flag} compares runs: give a baseline run and at least one other (citebench eval QRELS BASELINE_RUN RUN...)`);
  }
  const text = trecEvalText(positionals[0], positionals[1], values.measure ?? [], { ...options, perQuery: values['per-query'] });
  process.stdout.write(Buffer.from(text, 'latin1'));
  return 0;
}
