import { parse, num } from '../args.ts';
import { reproduce, REPRODUCE_DEFAULTS } from '../../experiments/reproduce.ts';
import { describeStore } from '../../corpus/stats.ts';

export const usage = `usage: citebench reproduce [--articles N] [--seed S] [--work DIR]

The main job on the built-in default: synthesize an S2ORC-shaped corpus, prefilter it as in the paper (§3) and
build the corpus store, then summarise it. Each stage resumes: outputs already there for the same
configuration are reused.

options:
  --articles N   synthetic corpus size before the prefilter (default ${REPRODUCE_DEFAULTS.articles})
  --seed S       seed (default ${REPRODUCE_DEFAULTS.seed})
  --work DIR     working directory (default ${REPRODUCE_DEFAULTS.workDir})`;

export async function run(args: string[]) {
  const { values } = parse(args, { articles: { type: 'string' }, seed: { type: 'string' }, work: { type: 'string' } }, usage);
  const { store } = await reproduce({
    articles: num('articles', values.articles, REPRODUCE_DEFAULTS.articles),
    seed: num('seed', values.seed, REPRODUCE_DEFAULTS.seed),
    workDir: values.work ?? REPRODUCE_DEFAULTS.workDir,
  });
  const info = describeStore(store);
  console.log(`corpus store ${store.dir}: ${info.articles} articles, ${info.citations} citations`);
  console.log(`articles from 2019 (query candidates): ${info.years.y2019}; their mean references in the store: ${info.meanOutbound2019.toFixed(1)}`);
  store.close();
}
