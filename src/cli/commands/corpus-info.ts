import { parse } from '../args.ts';
import { CorpusStore } from '../../corpus/store.ts';
import { FIELDS, FIELD_ABBREV } from '../../corpus/fields.ts';
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

export function describeStore(store: CorpusStore) {
  const fields: Record<string, number> = Object.fromEntries(FIELDS.map((f) => [f, 0]));
  let min = Infinity, max = 0, y2019 = 0, multi = 0, out2019 = 0;
  for (let i = 0; i < store.size; i++) {
    const y = store.years[i];
    if (y) { min = Math.min(min, y); max = Math.max(max, y); }
    const m = store.fields[i];
    let bits = 0;
    for (let f = 0; f < FIELDS.length; f++) if (m & (1 << f)) { fields[FIELDS[f]]++; bits++; }
    if (bits > 1) multi++;
    if (y === 2019) { y2019++; out2019 += store.outOffsets[i + 1] - store.outOffsets[i]; }
  }
  return {
    articles: store.size,
    citations: store.outTargets.length,
    years: { min: min === Infinity ? null : min, max: max || null, y2019 },
    meanOutbound: store.size ? store.outTargets.length / store.size : 0,
    meanOutbound2019: y2019 ? out2019 / y2019 : 0,
    multiField: multi,
    fields,
    prefilter: store.meta.prefilter,
  };
}
