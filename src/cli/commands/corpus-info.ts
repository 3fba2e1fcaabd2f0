import { parse } from '../args.ts';
import { CorpusStore } from '../../corpus/store.ts';
import { SCHEME_LABEL, fieldAbbrev, schemeFields } from '../../corpus/fields.ts';
import { describeStore } from '../../corpus/stats.ts';
import { formatPrefilterReport } from '../../corpus/prefilter.ts';
import { CitebenchError } from '../../util/errors.ts';

export const usage = `usage: citebench corpus info STORE [--json]

Summarise a corpus store: its source, articles, citations, years, fields, prefilter report.`;

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
  if (info.source) console.log(`source: ${describeSource(info.source)}`);
  console.log(`years: ${info.years.min}–${info.years.max}; articles from 2019: ${info.years.y2019}`);
  console.log(`mean outbound citations: all ${info.meanOutbound.toFixed(2)}, 2019 articles ${info.meanOutbound2019.toFixed(2)}`);
  console.log(`multi-field articles: ${info.multiField}`);
  console.log(`fields: ${SCHEME_LABEL[info.fieldScheme]}`);
  console.log('field                      articles');
  for (const f of schemeFields(info.fieldScheme)) console.log(`  ${(f + ' (' + fieldAbbrev(f) + ')').padEnd(28)} ${info.fields[f]}`);
  if (store.meta.prefilter) console.log(formatPrefilterReport(store.meta.prefilter));
}

/** One line on what the store was built from (OpenAlex: the snapshot's date and how works were chosen). */
function describeSource(s: NonNullable<ReturnType<typeof describeStore>['source']>): string {
  if (!s.openalex) return s.name;
  const o = s.openalex;
  const date = s.release ? `snapshot of ${s.release}${s.releaseFrom === 'partitions' ? ' (its newest partition; no manifest)' : ''}` : 'no snapshot date (no manifest or partitions)';
  const types = o.types === 'all' ? 'every type' : `types ${o.types.join(', ')}`;
  const fields = s.fieldScheme === 'topics' ? 'fields of the primary topic' : `level-0 concepts scored ≥ ${o.conceptThreshold}`;
  const left = Object.entries(o.excluded.types).map(([t, n]) => `${n} ${t}`).concat(o.excluded.paratext ? [`${o.excluded.paratext} paratext`] : [], o.excluded.retracted ? [`${o.excluded.retracted} retracted`] : []);
  return `${s.name}, ${date}; ${types}${o.keepParatext ? ', paratext kept' : ''}${o.keepRetracted ? ', retracted kept' : ''}; ${fields}${left.length ? `; left out: ${left.join(', ')}` : ''}`;
}
