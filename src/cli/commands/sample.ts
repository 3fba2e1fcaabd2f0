import { join } from 'node:path';
import { parse, num, required } from '../args.ts';
import { CorpusStore } from '../../corpus/store.ts';
import { parseSchemeField, schemeFieldHint } from '../../corpus/fields.ts';
import { sampleQuerySet, samplePool, citationQrels, type FieldName } from '../../sampling/pools.ts';
import { loadQueryExclusion, describeExclusion } from '../../sampling/exclusions.ts';
import { writeQrels } from '../../eval/trec-write.ts';
import { writeFileAtomic } from '../../util/atomic.ts';
import { CitebenchError } from '../../util/errors.ts';

export const usage = `usage: citebench sample --corpus STORE --out DIR [--field F] [--queries N] [--pool-size S]
                        [--repeat R] [--seed S] [--query-year Y] [--exclude-queries FILE]...

Sample a query set and a candidate pool with the paper's protocol (§3) and write them as files that
\`citebench bm25 search\`, \`citebench dense search\` and \`citebench eval\` read:
  DIR/queries.txt   query paper ids, one per line (articles of Y that cite the corpus)
  DIR/pool.txt      candidate pool paper ids, one per line (every cited article + random fill)
  DIR/qrels.txt     TREC qrels: each query's cited articles, relevance 1
Dataset level by default (fill: any article of Y or before); --field F gives the field level (queries labelled
with F, fill from F's "field-cited" articles). Same arguments ⇒ same files.

options:
  --queries N      queries (default 3800 dataset level, 200 field level)
  --pool-size S    pool size (default 200000 dataset level, 100000 field level)
  --repeat R       pool sample number (default 1): repeats of one size differ, queries do not
  --seed S         seed (default 1)
  --query-year Y   year of the query articles (default 2019)
  --field F        a field of the store's scheme: a MAG field name or the paper's abbreviation (CS, Med, …);
                   for a store of OpenAlex topic fields (\`citebench corpus build … --fields topics\`), a topic
                   field (Medicine, Neuroscience, …)
  --exclude-queries FILE
                   paper ids (one per line) never used as queries — the paper left out SPECTER's and SciNCL's
                   training queries; repeatable; ids not in the store are counted and reported`;

export async function run(args: string[]) {
  const { values } = parse(args, {
    corpus: { type: 'string' }, out: { type: 'string' }, field: { type: 'string' }, queries: { type: 'string' },
    'pool-size': { type: 'string' }, repeat: { type: 'string' }, seed: { type: 'string' }, 'query-year': { type: 'string' },
    'exclude-queries': { type: 'string', multiple: true },
  }, usage);
  const store = CorpusStore.open(required('corpus', values.corpus));
  const field = values.field === undefined ? undefined : (parseSchemeField(store.fieldScheme, values.field) as FieldName | undefined);
  if (values.field !== undefined && !field) {
    throw new CitebenchError(`unknown field '${values.field}' (this store's fields are ${schemeFieldHint(store.fieldScheme)})`);
  }
  const out = required('out', values.out);
  const seed = num('seed', values.seed, 1);
  const queryYear = num('query-year', values['query-year'], 2019);
  const exclusion = values['exclude-queries'] ? loadQueryExclusion(store, values['exclude-queries']) : undefined;
  const set = sampleQuerySet(store, { count: num('queries', values.queries, field ? 200 : 3800), seed, field, queryYear, exclude: exclusion?.indices });
  const queries = set.queries;
  const pool = samplePool(store, queries, {
    size: num('pool-size', values['pool-size'], field ? 100_000 : 200_000), repeat: num('repeat', values.repeat, 1), seed, field, queryYear,
  });
  const rel = citationQrels(store, queries, pool.members);
  const ids = (xs: Uint32Array) => Array.from(xs, (i) => store.id(i)).join('\n') + '\n';
  writeFileAtomic(join(out, 'queries.txt'), ids(queries));
  writeFileAtomic(join(out, 'pool.txt'), ids(pool.members));
  const qids = Array.from(queries, (q) => store.id(q));
  writeQrels(join(out, 'qrels.txt'), qids, (d) => store.id(d), { ...rel, labels: new Int32Array(rel.docs.length).fill(1) });
  if (exclusion) console.log(`query exclusion: ${describeExclusion(exclusion.files, set.excluded, set.candidates)}`);
  console.log(`${out}: ${queries.length} queries, pool of ${pool.members.length} (${pool.cited} cited${pool.exhausted ? '; the whole field-cited set' : ''}), ${rel.docs.length} relevance judgements`);
  store.close();
}
