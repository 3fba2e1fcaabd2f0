import { parse, required } from '../args.ts';
import { evaluateMdcr, formatEvaluatePy, formatMdcrTable, parseCandidateType, MDCR_METRICS } from '../../eval/mdcr.ts';
import { readJsonFile } from '../../util/json.ts';
import { CitebenchError } from '../../util/errors.ts';

export const usage = `usage: citebench mdcr-eval --benchmark MDCR.json --scores SCORES.json [--candidate-type TYPE] [--lenient]
                         [--official] [--format table|json|evaluate.py]

The MDCR benchmark's official evaluation (zoranmedic/mdcr evaluate.py): per field, map, ndcg and recall_5
(trec_eval 9.0.8 via pytrec_eval semantics: float32 scores, ties by candidate id descending) averaged over the
field's queries, x100, rounded to 4 decimals; AVG = mean of the rounded per-field values, rounded to 4 decimals.

  --benchmark FILE        mdcr_val.json / mdcr_test.json: { field: { query_id: { "true": [ids], "bm25": [...], ... } } }
  --scores FILE           { "<query_id>_<candidate_id>": score } for every query-candidate pair (higher = better)
  --candidate-type TYPE   evaluate 5 positives + the negatives of one type only (paper Table 4):
                          any key of the benchmark but 'true' (official files: bm25, graph,
                          most_cited, random, scincl, specter)
  --lenient               a query lacking a negative candidate list is evaluated as if the list were empty
                          (with a warning); default: an error naming the field, query and list
  --official              evaluate exactly what evaluate.py evaluates: its keys (bm25, graph, most_cited,
                          random, scincl, specter, true) in its order, other keys ignored, all 19 fields
                          required; where evaluate.py would stop with a KeyError, an error names the key
  --format F              table (default), json, or evaluate.py: evaluate.py's own lines (header, one
                          'Field<TAB>map: v<TAB>ndcg: v<TAB>recall_5: v' per field, blank line, AVG), values
                          printed as numpy prints them, to diff against its output; implies --official
  --json                  same as --format json`;

const FORMATS = ['table', 'json', 'evaluate.py'] as const;

export async function run(args: string[]): Promise<number> {
  const { values } = parse(
    args,
    {
      benchmark: { type: 'string' },
      scores: { type: 'string' },
      'candidate-type': { type: 'string' },
      lenient: { type: 'boolean' },
      official: { type: 'boolean' },
      format: { type: 'string' },
      json: { type: 'boolean' },
    },
    usage,
  );
  const benchmarkPath = required('benchmark', values.benchmark);
  const scoresPath = required('scores', values.scores);
  const format = values.format ?? (values.json ? 'json' : 'table');
  if (!(FORMATS as readonly string[]).includes(format)) throw new CitebenchError(`--format must be one of ${FORMATS.join(', ')}, got '${format}'`);
  if (values.json && format !== 'json') throw new CitebenchError(`--json and --format ${format} disagree: give one of them`);
  const official = values.official === true || format === 'evaluate.py';
  if (official && values.lenient) throw new CitebenchError('--lenient and --official disagree: evaluate.py stops at a missing list (drop one)');
  const candidateType = values['candidate-type'] === undefined ? undefined : parseCandidateType(values['candidate-type']);
  const result = evaluateMdcr(readJsonFile(benchmarkPath), readJsonFile(scoresPath), { candidateType, lenient: values.lenient, official, benchmarkPath, scoresPath });
  if (format === 'json') {
    const fields = Object.fromEntries(result.fields.map((f) => [f.field, { queries: f.queries, ...f.values }]));
    process.stdout.write(JSON.stringify({ candidateType: result.candidateType ?? 'all', ...(official ? { official } : {}), fields, AVG: result.avg, metrics: MDCR_METRICS }, null, 2) + '\n');
  } else if (format === 'evaluate.py') {
    process.stdout.write(formatEvaluatePy(result, benchmarkPath, scoresPath));
  } else {
    process.stdout.write(formatMdcrTable(result));
  }
  if (result.missingLists > 0) {
    process.stderr.write(`warning: ${result.missingLists} candidate lists missing from ${benchmarkPath} were treated as empty\n`);
  }
  return 0;
}
