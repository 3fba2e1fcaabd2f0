/**
 * Paired significance of each model against the BM25 baseline, from the per-query values in cells/*.json.
 * A query's value is its mean over the pool repeats of its (model, protocol, field, pool size, setting) — every
 * repeat searches the same queries — so the pairs are the queries, never a query counted once per repeat. Both the
 * paired t-test and the randomization test run on every comparison; Holm's correction is applied within one
 * table and measure (one protocol and setting: every model × column compared there).
 */
import { pairedRandomizationTest, pairedTTest, holm } from '../eval/significance.ts';
import { readCell, type CellSummary, type ResultsIndex } from './results.ts';

export interface Significance {
  /** Queries paired. */
  n: number;
  /** Mean of model − baseline over the paired queries (fractions, not ×100). */
  meanDiff: number;
  tP: number;
  randP: number;
  /** Holm-adjusted within the table. */
  tHolm: number;
  randHolm: number;
}

/** The baseline every model is compared with: the model named bm25, else the first BM25 model. */
export function baselineModel(r: ResultsIndex): string | undefined {
  return r.models.find((m) => m.name === 'bm25')?.name ?? r.models.find((m) => m.kind === 'bm25')?.name;
}

/** The inductive setting, or undefined for the paper's (transductive): as cells record it. */
export type SettingTag = 'inductive' | undefined;

/** Key of one table cell: protocol, field (or ''), pool size, model, and the setting unless it is the paper's. */
export const cellId = (protocol: string, field: string | null, poolSize: number, model: string, setting?: SettingTag) =>
  `${protocol}|${field ?? ''}|${poolSize}|${model}${setting ? `|${setting}` : ''}`;

/** Per-query values averaged over the repeats of each (model, protocol, field, pool size, setting), test split only. */
export class PerQuery {
  private readonly cache = new Map<string, Map<string, Map<string, number>>>();
  constructor(
    private readonly dir: string,
    private readonly cells: CellSummary[],
  ) {}

  /** measure → query id → mean over repeats. */
  get(protocol: string, field: string | null, poolSize: number, model: string, setting?: SettingTag): Map<string, Map<string, number>> {
    const id = cellId(protocol, field, poolSize, model, setting);
    let m = this.cache.get(id);
    if (m) return m;
    const sums = new Map<string, Map<string, { s: number; n: number }>>();
    for (const c of this.cells) {
      if (c.split !== 'test' || c.protocol !== protocol || c.field !== field || c.poolSize !== poolSize || c.model !== model || c.setting !== setting) continue;
      const rec = readCell(this.dir, c);
      for (const [measure, vals] of Object.entries(rec.perQuery)) {
        if (!sums.has(measure)) sums.set(measure, new Map());
        const s = sums.get(measure)!;
        rec.queryIds.forEach((q, i) => {
          const e = s.get(q) ?? { s: 0, n: 0 };
          e.s += vals[i];
          e.n++;
          s.set(q, e);
        });
      }
    }
    m = new Map([...sums].map(([measure, s]) => [measure, new Map([...s].map(([q, e]) => [q, e.s / e.n]))]));
    this.cache.set(id, m);
    return m;
  }
}

export interface Comparison {
  protocol: string;
  field: string | null;
  poolSize: number;
  model: string;
  measure: string;
  setting?: SettingTag;
}

/**
 * Tests every comparison of one table against the baseline and Holm-corrects them together. Comparisons with
 * fewer than two shared queries are left out (undefined in the result).
 */
export function compareTable(pq: PerQuery, baseline: string, comps: Comparison[], opts: { trials?: number; seed?: number } = {}): Map<string, Significance> {
  const raw: { id: string; n: number; meanDiff: number; tP: number; randP: number }[] = [];
  for (const c of comps) {
    if (c.model === baseline) continue;
    const a = pq.get(c.protocol, c.field, c.poolSize, c.model, c.setting).get(c.measure);
    const b = pq.get(c.protocol, c.field, c.poolSize, baseline, c.setting).get(c.measure);
    if (!a || !b) continue;
    const qs = [...a.keys()].filter((q) => b.has(q)).sort();
    if (qs.length < 2) continue;
    const x = Float64Array.from(qs, (q) => a.get(q)!);
    const y = Float64Array.from(qs, (q) => b.get(q)!);
    const t = pairedTTest(x, y);
    const id = `${cellId(c.protocol, c.field, c.poolSize, c.model, c.setting)}|${c.measure}`;
    const rnd = pairedRandomizationTest(x, y, { trials: opts.trials ?? 10000, seed: `${opts.seed ?? 0}|${id}` });
    raw.push({ id, n: qs.length, meanDiff: t.meanDiff, tP: t.p, randP: rnd.p });
  }
  const tH = holm(raw.map((r) => r.tP));
  const rH = holm(raw.map((r) => r.randP));
  return new Map(raw.map((r, i) => [r.id, { n: r.n, meanDiff: r.meanDiff, tP: r.tP, randP: r.randP, tHolm: tH[i], randHolm: rH[i] }]));
}
