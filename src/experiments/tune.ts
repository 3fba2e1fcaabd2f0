/**
 * The one tuner: a grid of retrievers (BM25's k1 × b, a Profiler's β, whatever grid a kind's entry gives), each
 * evaluated by experiment() on one validation split — the dataset level's validation queries (disjoint from
 * every test query) over a pool of the first pool size, in the config's first setting — and the best chosen by
 * one rule: the highest mean of the tuning measure; ties go to the first grid point in the config's order.
 */
import type { QrelsCsr } from '../eval/types.ts';
import type { Retriever, Setting } from '../retrieval/retriever.ts';
import { bestOf } from '../util/best.ts';
import { CitebenchError } from '../util/errors.ts';
import { poolWithQrels } from '../sampling/pools.ts';
import { experiment } from './experiment.ts';
import { settingsOf, type BuildContext } from './kinds/types.ts';

/** The validation split tuning is scored on. */
export interface ValidationSplit {
  topics: Uint32Array;
  pool: Uint32Array;
  qrels: QrelsCsr;
  setting: Setting;
}

/** The one validation-split builder; `give` says what a config without a dataset level must name instead. */
export function validationSplit(ctx: Pick<BuildContext, 'cfg' | 'store' | 'splits'>, model: string, give: string): ValidationSplit {
  const { cfg } = ctx;
  const d = cfg.protocols.dataset;
  if (!d) throw new CitebenchError(`models.${model}.tune: tuning uses the dataset-level validation split; add protocols.dataset or give ${give}`);
  const setting = settingsOf(cfg)[0];
  const topics = ctx.splits.get('dataset', 'val', null, setting);
  const { pool, qrels } = poolWithQrels(ctx.store, topics, { size: d.pools[0], repeat: 1, seed: cfg.seed, queryYear: cfg.queryYear, split: 'val', ...(setting === 'inductive' ? { inductive: true } : {}) });
  return { topics, pool: pool.members, qrels, setting };
}

export interface Tuned<P> {
  /** Every grid point with its score, in the grid's order. */
  grid: (P & { score: number })[];
  best: P & { score: number };
}

/** Score every grid point on the split with experiment(); the best is the highest score, the first of equals. */
export async function tuneGrid<P extends object>(points: { params: P; retriever: Retriever }[], measure: string, split: ValidationSplit, ctx: Pick<BuildContext, 'store' | 'cfg'>): Promise<Tuned<P>> {
  if (!points.length) throw new CitebenchError('tuning grid: give at least one point');
  const grid: (P & { score: number })[] = [];
  for (const p of points) {
    const r = await experiment({ docs: ctx.store, topics: split.topics, pool: split.pool, qrels: split.qrels, retrievers: [{ name: 'grid', retriever: p.retriever }], measures: [measure], k: ctx.cfg.k, setting: split.setting });
    grid.push({ ...p.params, score: r.cells[0].means[measure] });
  }
  return { grid, best: bestOf(grid) };
}

export { bestOf };
