import { existsSync, readFileSync } from 'node:fs';
import { parse } from '../args.ts';
import { mergeRuns } from '../../eval/trec-merge.ts';
import { writeFileAtomic } from '../../util/atomic.ts';
import { CitebenchError } from '../../util/errors.ts';

export const usage = `usage: citebench merge-runs OUT.trec SHARD.trec… [--queries FILE]

Join the TREC runs of query shards (\`bm25 search --shard I/N\`, \`dense search --shard I/N\`, I = 0…N−1) into one run,
byte for byte the run an unsharded search writes. Give the shard runs in shard order (0/N first), or give
--queries (the search's query list) to order the queries by it. A query in two inputs, or an input whose
search has not finished (its .partial journal is still there), is an error.`;

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { queries: { type: 'string' } }, usage);
  if (positionals.length < 2) throw new CitebenchError(`give the output run and at least one shard run\n\n${usage}`);
  const [out, ...inputs] = positionals;
  for (const f of inputs) {
    if (!existsSync(f)) throw new CitebenchError(`${f}: no such run (has its shard run yet?)`);
    if (existsSync(`${f}.partial`)) throw new CitebenchError(`${f}: its search has not finished (${f}.partial is still there); run that shard again first`);
  }
  if (inputs.some((f) => f === out)) throw new CitebenchError(`${out}: the output is also an input`);
  const order = values.queries
    ? readFileSync(values.queries, 'utf8').split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'))
    : undefined;
  const bytes = mergeRuns(inputs, order);
  writeFileAtomic(out, bytes);
  const lines = bytes.length ? bytes.toString('latin1').split('\n').length - 1 : 0;
  console.log(`${out}: ${lines} lines from ${inputs.length} shard runs`);
  return 0;
}
