import { fileURLToPath } from 'node:url';
import { parse } from '../args.ts';
import { optionSpec, runConfig } from './run.ts';

/** The paper's evaluation at 1/50 of its scale on a synthetic corpus: the configuration shipped with citebench. */
const DEFAULT_CONFIG = fileURLToPath(new URL('../../../configs/default.yaml', import.meta.url));

/** Where reproduce's HTML + PDF report goes (relative to the working directory). */
const DEFAULT_REPORT = 'reports/default';

export const usage = `usage: citebench reproduce [--dry-run] [--scale F] [--seed S] [--repeats R] [--articles N] [--store DIR]
                           [--work DIR] [--results DIR] [--report DIR] [run options]

The paper's evaluation: exactly \`citebench run configs/default.yaml\` with these options. On a synthetic S2ORC-shaped
corpus (420,000 articles at the default scale 0.02) prefiltered as in the paper (§3): the BM25 index, the
dataset level (§3.1: 76 queries of 2019, pools of 4k/10k/20k/40k × 3), the field level (§3.2: 19 fields × 4
queries, pools of 2k), MDCR built and evaluated (§4), and a Markdown report of Tables 1–4, 7 and 8 beside the
paper's numbers (data/default/results/report.md), then the HTML + PDF report (reports/default/index.html,
report.pdf; see citebench report). Every stage resumes; finished cells are not recomputed.

options:
  --scale F      fraction of the paper's setting (default 0.02; 1 = 3,800 queries, 200k–2M pools, 21 M articles)
  --seed S       seed of corpus, queries, pools and MDCR (default 1)
  --repeats R    pool samples per size (default 3, as in the paper)
  --articles N   synthetic corpus size before the prefilter (default 21 M × scale)
  --store DIR    run on an existing corpus store (e.g. real S2ORC, see citebench corpus build)
  --work DIR     working directory (default data/default)
  --results DIR  results folder (default <work>/results)
  --report DIR   where the HTML + PDF report goes (default reports/default)
  --no-pdf       the HTML report only
  --dry-run      print the plan and an estimate of time and memory
  --exclude-queries FILE   paper ids (one per line) never used as queries, e.g. SPECTER's and SciNCL's training
                 queries, which the paper left out; repeatable. Ids not in the store are counted, not an error

run options, as \`citebench run --help\` describes them: --profile P, --threads N, --device D, --allow-remote,
--stage prepare|encode|cells, --shard I/N, --worker`;

export async function run(args: string[]): Promise<number> {
  const { values } = parse(args, optionSpec, usage);
  // --work moves the results with it unless --results says otherwise.
  if (values.work && !values.results) values.results = `${values.work}/results`;
  // reproduce ends with the shareable report (the Markdown stays on stdout).
  values.report ??= DEFAULT_REPORT;
  return runConfig(DEFAULT_CONFIG, values);
}
