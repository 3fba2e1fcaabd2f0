/** Summary statistics of a corpus store: what `citebench corpus info` prints and notebooks tabulate. */
import { FIELDS } from './fields.ts';
import type { CorpusStore } from './store.ts';

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
