import { parse } from '../args.ts';
import { CorpusStore } from '../../corpus/store.ts';
import { FIELDS, FIELD_ABBREV } from '../../corpus/fields.ts';
import { describeStore } from '../../corpus/stats.ts';
import { formatPrefilterReport } from '../../corpus/prefilter.ts';
import { CitebenchError } from '../../util/errors.ts';

export const usage = `usage: citebench corpus info STORE [--json]

Summarise a corpus store: articles, citations, years, MAG fields, citation degrees, prefilter report.`;

export async function run(args: string[]) {
  const { values, positionals } = parse(args, { json: { type: 'boolean' } }, usage);
  if (positionals.length !== 1) throw new CitebenchError(`expected one STORE directory\n\n${usage}`);
  const store = CorpusStore.open(positionals[0]);
  const info = describeStore(store);
  if (values.json) {
    console.log(JSON.stringify(info, null, 1));
    return;
  }
  console.log(`${positionals[0]}: ${info.articles} articles, ${info.citations} citations inside the store`);
  console.log(`years: ${info.years.min}–${info.years.max}; articles from 2019: ${info.years.y2019}`);
  console.log(`mean outbound citations: all ${info.meanOutbound.toFixed(2)}, 2019 articles ${info.meanOutbound2019.toFixed(2)}`);
  console.log(`multi-field articles: ${info.multiField}`);
  console.log('field                      articles');
  for (const f of FIELDS) console.log(`  ${(f + ' (' + FIELD_ABBREV[f] + ')').padEnd(28)} ${info.fields[f]}`);
  if (store.meta.prefilter) console.log(formatPrefilterReport(store.meta.prefilter));
}
