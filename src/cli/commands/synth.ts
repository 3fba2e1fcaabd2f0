import { parse, num, required } from '../args.ts';
import { synthesize, SYNTH_DEFAULTS, SYNTH_PROFILES, type SynthProfile } from '../../corpus/synth.ts';
import { CitebenchError } from '../../util/errors.ts';

export const usage = `usage: citebench synth --articles N --seed S --out DIR [options]

Generate a synthetic corpus in the S2ORC metadata schema (gzip'd jsonl shards; or as OpenAlex works) with topic-structured text,
realistic fields, years and citation graph (see src/corpus/synth.ts). Same N and seed ⇒ byte-identical shards.
A killed run resumes: shards already written for the same configuration are kept.

options:
  --articles N       number of articles (required), e.g. 200000, 2000000
  --seed S           random seed (default 1)
  --out DIR          output directory (required)
  --shard-size N     articles per shard (default ${SYNTH_DEFAULTS.shardSize})
  --topics N         topics (default: one per 1,000 articles, at least 50)
  --refs-2019 X      mean in-corpus references of a 2019 article (default ${SYNTH_DEFAULTS.refs2019})
  --profile P        s2orc-raw: records shaped like the raw S2ORC release, of which the paper's prefilter keeps
                     ~20 % (half without an abstract, most cited fewer than 3 times); openalex: the same records
                     written as OpenAlex works in a snapshot's layout (updated_date=…/part_NNNN.gz and a manifest;
                     see src/corpus/synth-openalex.ts); default: records shaped like the prefiltered store (~77 % kept)
  --threads N        worker threads writing shards (default 2; the output does not depend on it)`;

export async function run(args: string[]) {
  const { values } = parse(args, {
    articles: { type: 'string' }, seed: { type: 'string' }, out: { type: 'string' },
    'shard-size': { type: 'string' }, topics: { type: 'string' }, 'refs-2019': { type: 'string' },
    profile: { type: 'string' }, threads: { type: 'string' },
  }, usage);
  const profile = values.profile;
  if (profile !== undefined && profile !== 'openalex' && !SYNTH_PROFILES.includes(profile as SynthProfile)) {
    throw new CitebenchError(`--profile ${profile}: unknown profile (known: ${[...SYNTH_PROFILES, 'openalex'].join(', ')})`);
  }
  const t0 = performance.now();
  const s = await synthesize({
    ...SYNTH_DEFAULTS,
    articles: num('articles', values.articles),
    seed: num('seed', values.seed, 1),
    shardSize: num('shard-size', values['shard-size'], SYNTH_DEFAULTS.shardSize),
    topics: values.topics === undefined ? undefined : num('topics', values.topics),
    refs2019: num('refs-2019', values['refs-2019'], SYNTH_DEFAULTS.refs2019),
    ...(profile === 'openalex' ? { profile: 's2orc-raw' as const, format: 'openalex' as const } : profile ? { profile: profile as SynthProfile } : {}),
    ...(values.threads === undefined ? {} : { threads: num('threads', values.threads) }),
  }, required('out', values.out));
  console.log(`wrote ${s.shards.length} shards, ${s.articles} articles, ${s.citations} in-corpus citations to ${values.out} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
}
