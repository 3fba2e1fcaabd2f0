/**
 * Paired significance of the models beyond the paper (navigation, profiler, rerank) against BM25, at the
 * dataset level, per setting and pool size, for results.json. The tests are the report's (report/compare.ts):
 * each query's value averaged over the repeats, a paired t-test and a seeded paired randomization test over the
 * queries, Holm's correction over the comparisons of one setting and measure — so results.json and the report's
 * marks are the same numbers. Nothing is computed (and results.json is unchanged) for a config without such
 * models or without a BM25 model.
 */
import { compareTable, cellId, PerQuery, type Comparison } from '../report/compare.ts';
import type { CellSummary, SignificanceRecord, SignificanceRow } from '../report/results.ts';
import type { ExperimentConfig } from './config.ts';
import type { ModelInfo } from './models.ts';

const TRIALS = 10_000;

export function significanceStage(cfg: ExperimentConfig, dir: string, models: ModelInfo[], cells: CellSummary[]): SignificanceRecord | undefined {
  const beyond = models.filter((m) => m.kind === 'navigation' || m.kind === 'profiler' || m.kind === 'rerank');
  const baseline = models.find((m) => m.name === 'bm25' && m.kind === 'bm25') ?? models.find((m) => m.kind === 'bm25');
  if (!beyond.length || !baseline) return undefined;
  const ds = cells.filter((c) => c.protocol === 'dataset' && c.split === 'test');
  const pq = new PerQuery(dir, ds);
  const rows: SignificanceRow[] = [];
  for (const setting of [...new Set(ds.map((c) => c.setting))]) {
    const sizes = [...new Set(ds.filter((c) => c.setting === setting).map((c) => c.poolSize))].sort((a, b) => a - b);
    for (const measure of cfg.measures) {
      // One Holm family: every pool size × model of this setting and measure.
      const comps: Comparison[] = sizes.flatMap((poolSize) => beyond.map((m) => ({ protocol: 'dataset', field: null, poolSize, model: m.name, measure, setting })));
      const sig = compareTable(pq, baseline.name, comps, { trials: TRIALS, seed: cfg.seed });
      for (const c of comps) {
        const s = sig.get(`${cellId(c.protocol, c.field, c.poolSize, c.model, c.setting)}|${measure}`);
        if (s) rows.push({ setting: setting ?? 'transductive', poolSize: c.poolSize, model: c.model, measure, queries: s.n, meanDiff: s.meanDiff, pT: s.tP, pRandomization: s.randP, pHolm: s.tHolm });
      }
    }
  }
  return { baseline: baseline.name, trials: TRIALS, seed: cfg.seed, rows };
}
