/**
 * Paired significance of the models beyond the paper (navigation, profiler, rerank) against BM25, at the
 * dataset level, per setting and pool size: each query's value averaged over the repeats (the queries are the
 * same in every repeat), then a paired t-test and a seeded paired randomization test over the queries, and
 * Holm's correction over the comparisons of one setting and measure. Nothing is computed (and results.json is
 * unchanged) for a config without such models or without a BM25 model.
 */
import { pairedRandomizationTest, pairedTTest, holm } from '../eval/significance.ts';
import { readCell, type CellSummary, type SignificanceRecord, type SignificanceRow } from '../report/results.ts';
import { CitebenchError } from '../util/errors.ts';
import type { ExperimentConfig } from './config.ts';
import type { ModelInfo } from './models.ts';

const TRIALS = 10_000;

export function significanceStage(cfg: ExperimentConfig, dir: string, models: ModelInfo[], cells: CellSummary[]): SignificanceRecord | undefined {
  const beyond = models.filter((m) => m.kind === 'navigation' || m.kind === 'profiler' || m.kind === 'rerank');
  const baseline = models.find((m) => m.name === 'bm25' && m.kind === 'bm25') ?? models.find((m) => m.kind === 'bm25');
  if (!beyond.length || !baseline) return undefined;
  const ds = cells.filter((c) => c.protocol === 'dataset' && c.split === 'test');
  // Per (setting, pool size, model): per-query values averaged over repeats.
  const perQuery = (setting: string, size: number, model: string): { ids: string[]; values: Record<string, Float64Array> } | undefined => {
    const cs = ds.filter((c) => (c.setting ?? 'transductive') === setting && c.poolSize === size && c.model === model);
    if (!cs.length) return undefined;
    const recs = cs.map((c) => readCell(dir, c));
    const ids = recs[0].queryIds;
    for (const r of recs) if (r.queryIds.join('\n') !== ids.join('\n')) throw new CitebenchError(`${model} ${setting} ${size}: repeats disagree on their queries; cannot pair them`);
    const values: Record<string, Float64Array> = {};
    for (const m of cfg.measures) {
      const v = new Float64Array(ids.length);
      for (const r of recs) r.perQuery[m].forEach((x, i) => (v[i] += x / recs.length));
      values[m] = v;
    }
    return { ids, values };
  };
  const rows: SignificanceRow[] = [];
  const settings = [...new Set(ds.map((c) => c.setting ?? 'transductive'))];
  for (const setting of settings) {
    const sizes = [...new Set(ds.filter((c) => (c.setting ?? 'transductive') === setting).map((c) => c.poolSize))].sort((a, b) => a - b);
    for (const measure of cfg.measures) {
      const part: SignificanceRow[] = [];
      for (const size of sizes) {
        const base = perQuery(setting, size, baseline.name);
        if (!base) continue;
        for (const m of beyond) {
          const x = perQuery(setting, size, m.name);
          if (!x) continue;
          if (x.ids.join('\n') !== base.ids.join('\n')) throw new CitebenchError(`${m.name} and ${baseline.name} (${setting}, pool ${size}) were evaluated on different queries`);
          const a = x.values[measure];
          const b = base.values[measure];
          const t = pairedTTest(a, b);
          const rnd = pairedRandomizationTest(a, b, { trials: TRIALS, seed: `${cfg.seed}/${setting}/${size}/${m.name}/${measure}` });
          part.push({ setting: setting as SignificanceRow['setting'], poolSize: size, model: m.name, measure, queries: a.length, meanDiff: t.meanDiff, pT: t.p, pRandomization: rnd.p, pHolm: NaN });
        }
      }
      const adj = holm(part.map((r) => r.pT));
      part.forEach((r, i) => (r.pHolm = adj[i]));
      rows.push(...part);
    }
  }
  return { baseline: baseline.name, trials: TRIALS, seed: cfg.seed, rows };
}
