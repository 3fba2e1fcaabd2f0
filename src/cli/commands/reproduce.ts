import { parse, num } from '../args.ts';
import { reproduce, REPRODUCE_DEFAULTS, ARTICLES_PER_SCALE } from '../../experiments/reproduce.ts';
import { CitebenchError } from '../../util/errors.ts';

export const usage = `usage: citebench reproduce [--articles N] [--seed S] [--scale F] [--repeats R] [--store DIR] [--work DIR]
                          [--exclude-queries FILE]...

The main job on the built-in default: synthesize an S2ORC-shaped corpus, prefilter it as in the paper (§3),
build the corpus store and the BM25 index, run the dataset-level protocol (§3.1: 2019 queries, pools that hold
every cited article plus random ones, top 500, MAP / nDCG / R@30 with trec_eval semantics, mean over pool
samples) and write a Markdown report in Table 1's layout. Every stage resumes: outputs already there for the
same configuration are reused, finished cells are not recomputed.

options:
  --articles N   synthetic corpus size before the prefilter (default: 21 M × scale, the paper's 16 M
                 prefiltered S2ORC articles at that scale; ${REPRODUCE_DEFAULTS.articles} for the default scale)
  --seed S       seed of corpus, queries and pools (default ${REPRODUCE_DEFAULTS.seed})
  --scale F      fraction of the paper's setting: 3,800 queries, 200k/500k/1M/2M pools, 16 M-article corpus
                 (default ${REPRODUCE_DEFAULTS.scale}: 76 queries, pools of 4k–40k; 1 = the paper's full setting)
  --repeats R    pool samples per size (default ${REPRODUCE_DEFAULTS.repeats}, as in the paper)
  --store DIR    run on an existing corpus store (e.g. real S2ORC, see citebench corpus build) instead of
                 synthesizing one
  --work DIR     working directory (default ${REPRODUCE_DEFAULTS.workDir})
  --exclude-queries FILE
                 paper ids (one per line) never used as queries, e.g. SPECTER's and SciNCL's training queries,
                 which the paper left out; repeatable. Ids not in the store are counted, not an error; the report
                 says how many query candidates each run left out and names the files (path, sha256)`;

export async function run(args: string[]) {
  const { values } = parse(args, {
    articles: { type: 'string' }, seed: { type: 'string' }, work: { type: 'string' }, scale: { type: 'string' }, repeats: { type: 'string' }, store: { type: 'string' },
    'exclude-queries': { type: 'string', multiple: true },
  }, usage);
  const scale = num('scale', values.scale, REPRODUCE_DEFAULTS.scale);
  if (!(scale > 0 && scale <= 1)) throw new CitebenchError(`--scale must be in (0, 1], got ${values.scale}`);
  if (Math.round(3800 * scale) < 1) throw new CitebenchError(`--scale ${values.scale} leaves no queries (3,800 × scale rounds to 0)`);
  const seed = num('seed', values.seed, REPRODUCE_DEFAULTS.seed);
  if (!(Number.isInteger(seed) && seed >= 0 && seed < 2 ** 32)) throw new CitebenchError(`--seed must be an integer in [0, 2^32), got ${values.seed}`);
  const repeats = num('repeats', values.repeats, REPRODUCE_DEFAULTS.repeats);
  if (!(Number.isInteger(repeats) && repeats >= 1)) throw new CitebenchError(`--repeats must be a positive integer, got ${values.repeats}`);
  const { store, report } = await reproduce({
    ...REPRODUCE_DEFAULTS,
    articles: num('articles', values.articles, Math.round(scale * ARTICLES_PER_SCALE)),
    seed,
    scale,
    repeats,
    workDir: values.work ?? REPRODUCE_DEFAULTS.workDir,
    store: values.store,
    excludeQueries: values['exclude-queries'],
  });
  console.log(report);
  store.close();
}
