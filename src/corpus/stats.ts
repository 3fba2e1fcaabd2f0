/** Summary statistics of a corpus store: what `citebench corpus info` prints and notebooks tabulate. */
import { schemeFields } from './fields.ts';
import type { CorpusStore } from './store.ts';

export function describeStore(store: CorpusStore) {
  const names = schemeFields(store.fieldScheme);
  const fields: Record<string, number> = Object.fromEntries(names.map((f) => [f, 0]));
  const yearCounts: Record<number, number> = {};
  let min = Infinity, max = 0, y2019 = 0, multi = 0, out2019 = 0;
  for (let i = 0; i < store.size; i++) {
    const y = store.years[i];
    if (y) { min = Math.min(min, y); max = Math.max(max, y); yearCounts[y] = (yearCounts[y] ?? 0) + 1; }
    const m = store.fields[i];
    let bits = 0;
    for (let f = 0; f < names.length; f++) if (m & (1 << f)) { fields[names[f]]++; bits++; }
    if (bits > 1) multi++;
    if (y === 2019) { y2019++; out2019 += store.outOffsets[i + 1] - store.outOffsets[i]; }
  }
  return {
    articles: store.size,
    citations: store.outTargets.length,
    years: { min: min === Infinity ? null : min, max: max || null, y2019 },
    /** Articles per publication year (years with none left out). */
    yearCounts,
    meanOutbound: store.size ? store.outTargets.length / store.size : 0,
    meanOutbound2019: y2019 ? out2019 / y2019 : 0,
    multiField: multi,
    /** Which fields `fields` counts (fields.ts): MAG's 19, or OpenAlex Topics' 26. */
    fieldScheme: store.fieldScheme,
    fields,
    /** What the store was built from (name, format; for OpenAlex the snapshot's date); absent for older stores. */
    source: store.meta.source ?? null,
    prefilter: store.meta.prefilter,
  };
}

/** One bin of a citation-degree histogram: articles with lo ≤ degree ≤ hi citations inside the store. */
export interface DegreeBin {
  direction: 'inbound' | 'outbound';
  lo: number;
  hi: number;
  label: string;
  articles: number;
}

/**
 * Inbound (cited by) and outbound (citing) degrees inside the store, in power-of-two bins: 0, 1, 2–3, 4–7, …
 * (citation counts are heavy-tailed; the prefilter's "at least 3 citations" shows as the emptied low bins).
 */
export function degreeHistogram(store: CorpusStore): DegreeBin[] {
  const out: DegreeBin[] = [];
  for (const [direction, offsets] of [['inbound', store.inOffsets], ['outbound', store.outOffsets]] as const) {
    const counts: number[] = [];
    for (let i = 0; i < store.size; i++) {
      const d = offsets[i + 1] - offsets[i];
      const bin = 32 - Math.clz32(d); // 0 → 0, 1 → 1, 2–3 → 2, 4–7 → 3 …
      counts[bin] = (counts[bin] ?? 0) + 1;
    }
    for (let b = 0; b < counts.length; b++) {
      const lo = b === 0 ? 0 : 2 ** (b - 1), hi = b === 0 ? 0 : 2 ** b - 1;
      out.push({ direction, lo, hi, label: lo === hi ? String(lo) : `${lo}–${hi}`, articles: counts[b] ?? 0 });
    }
  }
  return out;
}
