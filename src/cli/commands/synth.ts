import { parse, num, required } from '../args.ts';
import { synthesize, SYNTH_DEFAULTS } from '../../corpus/synth.ts';

export const usage = `usage: citebench synth --articles N --seed S --out DIR [options]

Generate a synthetic corpus in the S2ORC metadata schema (gzip'd jsonl shards) with topic-structured text,
realistic fields, years and citation graph (see src/corpus/synth.ts). Same N and seed ⇒ byte-identical shards.
A killed run resumes: shards already written for the same configuration are kept.

options:
  --articles N       number of articles (required), e.g. 200000, 2000000
  --seed S           random seed (default 1)
  --out DIR          output directory (required)
  --shard-size N     articles per shard (default ${SYNTH_DEFAULTS.shardSize})
  --topics N         topics (default: one per 1,000 articles, at least 50)
  --refs-2019 X      mean in-corpus references of a 2019 article (default ${SYNTH_DEFAULTS.refs2019})`;

export async function run(args: string[]) {
  const { values } = parse(args, {
    articles: { type: 'string' }, seed: { type: 'string' }, out: { type: 'string' },
    'shard-size': { type: 'string' }, topics: { type: 'string' }, 'refs-2019': { type: 'string' },
  }, usage);
  const t0 = performance.now();
  const s = await synthesize({
    ...SYNTH_DEFAULTS,
    articles: num('articles', values.articles),
    seed: num('seed', values.seed, 1),
    shardSize: num('shard-size', values['shard-size'], SYNTH_DEFAULTS.shardSize),
    topics: values.topics === undefined ? undefined : num('topics', values.topics),
    refs2019: num('refs-2019', values['refs-2019'], SYNTH_DEFAULTS.refs2019),
  }, required('out', values.out));
  console.log(`wrote ${s.shards.length} shards, ${s.articles} articles, ${s.citations} in-corpus citations to ${values.out} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
}
