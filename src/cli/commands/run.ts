import { parse, num } from '../args.ts';
import { loadConfig, type ConfigOverrides } from '../../experiments/config.ts';
import { dryRun, runExperiment, runStage, type RunStage } from '../../experiments/run.ts';
import { CitebenchError } from '../../util/errors.ts';
import { writeReport } from '../../report/write-report.ts';
import { parseShard, shardLabel } from '../../util/shard.ts';
import { parseDevice } from '../../retrieval/dense/encoder.ts';

export const usage = `usage: citebench run CONFIG.yaml [--dry-run] [--scale F] [--seed S] [--repeats R] [--articles N] [--profile P]
                     [--store DIR] [--work DIR] [--results DIR] [--threads N]
                     [--stage prepare|encode|cells [--shard I/N]] [--worker]

Run every protocol × model × pool size × repeat of a configuration (configs/default.yaml, configs/paper.yaml,
configs/ci.yaml are examples; the file's comments say what each key means): the corpus, the BM25 index, BM25
tuning, dense encoders, the dataset level (§3.1), the field level (§3.2), MDCR (§4). Everything goes into one
results folder: the resolved config, every TREC run and qrels file, per-query values, results.json and a
Markdown report (Tables 1–4, 7, 8 beside the paper's). Every stage and cell is reused when its output exists
for the same inputs, so a killed run resumes where it stopped; the same config and seed give the same bytes.

options:
  --dry-run      print the cells, the pool sizes and an estimate of time and memory; touch nothing
  --scale F      override the config's scale (every paper-sized count × F; 1 = the paper's full setting)
  --seed S       override the seed (queries, pools, MDCR, synthetic corpus)
  --repeats R    override the pool samples per size
  --articles N   synthetic corpus size before the prefilter (default: the config's, × scale)
  --profile P    synthetic corpus profile: s2orc-raw = records shaped like the raw S2ORC release (~20 % kept)
  --store DIR    run on this corpus store (e.g. real S2ORC) instead of the config's corpus
  --work DIR     cache folder (corpus, index, embeddings)
  --results DIR  results folder
  --exclude-queries FILE   paper ids (one per line) never used as queries, added to the config's list; repeatable
  --report DIR   also write the HTML + PDF report there (as \`citebench report RESULTS --out DIR\` does)
  --no-pdf       with --report: the HTML only
  --threads N    searcher/encoder threads (default: all cores; on a cluster: the task's CPUs)
  --device D     dense encoders on cpu (default) | cuda (onnxruntime's CUDA provider; an error when absent) | auto
  --allow-remote download a dense model whose folder is missing from the Hugging Face hub ($HF_ENDPOINT, $HF_TOKEN)
                 into its models folder; its checkpoint is converted once (docs/dense.md). Default: no network

cluster stages (docs/cluster.md; \`citebench slurm CONFIG\` writes the SLURM jobs): several processes, on one
machine or several sharing the work and results folders, split one run; a final plain \`citebench run CONFIG\`
then finds every cell done, runs MDCR and writes results.json and the report — the bytes one process writes.
  --stage prepare  corpus, BM25 index (none with bm25Index: pools), BM25 tuning, embedding-store manifests (one task first)
  --stage encode   dense models: encode the articles the plan searches; with --shard I/N only the store chunks
                   c with c mod N = I (0 ≤ I < N), so N tasks encode at once
  --stage cells    the cells of pool groups g with g mod N = I (plan order; all without --shard); a lock per cell
                   (cells/<model>/<group>.json.lock: pid, host, time) keeps workers apart, a cell another live
                   worker holds is skipped, a dead worker's lock (pid gone on this host, or no heartbeat for
                   $CITEBENCH_LOCK_STALE_S, default 600 s) is taken over
  --worker         = --stage cells`;

export const optionSpec = {
  'dry-run': { type: 'boolean' }, scale: { type: 'string' }, seed: { type: 'string' }, repeats: { type: 'string' },
  articles: { type: 'string' }, profile: { type: 'string' }, store: { type: 'string' }, work: { type: 'string' }, results: { type: 'string' },
  'exclude-queries': { type: 'string', multiple: true }, report: { type: 'string' }, 'no-pdf': { type: 'boolean' },
  threads: { type: 'string' }, device: { type: 'string' }, 'allow-remote': { type: 'boolean' }, stage: { type: 'string' }, shard: { type: 'string' }, worker: { type: 'boolean' },
} as const;

type Values = { [K in keyof typeof optionSpec]?: string | boolean | string[] };

export function overridesOf(values: Values): ConfigOverrides {
  const n = (k: 'scale' | 'seed' | 'repeats' | 'articles') => (values[k] === undefined ? undefined : num(k, values[k] as string));
  return {
    scale: n('scale'), seed: n('seed'), repeats: n('repeats'), articles: n('articles'), profile: values.profile as ConfigOverrides['profile'],
    store: values.store as string | undefined, work: values.work as string | undefined, results: values.results as string | undefined,
    excludeQueries: values['exclude-queries'] as string[] | undefined,
  };
}

/** Shared by `run` and `reproduce`: load, then print the plan or run and print the Markdown report. */
export async function runConfig(path: string, values: Values): Promise<number> {
  const cfg = loadConfig(path, overridesOf(values));
  if (values['dry-run']) {
    console.log(dryRun(cfg));
    return 0;
  }
  const threads = values.threads === undefined ? undefined : num('threads', values.threads as string);
  if (threads !== undefined && (!Number.isInteger(threads) || threads < 1)) throw new CitebenchError(`--threads must be a positive integer, got ${values.threads}`);
  const shard = parseShard(values.shard as string | undefined);
  const device = parseDevice(values.device as string | undefined);
  const stage = values.worker ? 'cells' : (values.stage as string | undefined);
  if (values.worker && values.stage !== undefined && values.stage !== 'cells') throw new CitebenchError(`--worker is --stage cells; it cannot go with --stage ${values.stage}`);
  if (stage !== undefined) {
    if (stage !== 'prepare' && stage !== 'encode' && stage !== 'cells') throw new CitebenchError(`--stage must be prepare, encode or cells, got '${stage}'`);
    if (stage === 'prepare' && shard) throw new CitebenchError(`--stage prepare is one task; --shard is for encode and cells`);
    const o = await runStage(cfg, { stage: stage as RunStage, shard, threads, device, allowRemote: values['allow-remote'] === true });
    console.error(
      `citebench: stage ${o.stage} (${shardLabel(o.shard)}) done` +
        (o.stage === 'encode' ? `: ${o.encoded} articles encoded now` : '') +
        (o.stage === 'cells' ? `: ${o.cells.done} cells done (${o.cells.computed} now), ${o.cells.skipped} held by other workers` : ''),
    );
    return 0;
  }
  if (shard) throw new CitebenchError(`--shard needs --stage encode or --stage cells (a plain run does every cell)`);
  const { report, reportPath, resultsDir, store } = await runExperiment(cfg, { threads, device, allowRemote: values['allow-remote'] === true });
  console.log(report);
  console.error(`citebench: results in ${resultsDir} (report: ${reportPath})`);
  try {
    if (values.report) {
      const o = await writeReport(resultsDir, { out: values.report as string, pdf: !values['no-pdf'], store: store.dir });
      console.error(`citebench: HTML report ${o.html}${o.pdf ? `, PDF ${o.pdf}` : ''}`);
    }
  } finally {
    store.close();
  }
  return 0;
}

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, optionSpec, usage);
  if (positionals.length !== 1) throw new CitebenchError(`give one config file\n\n${usage}`);
  return runConfig(positionals[0], values);
}
