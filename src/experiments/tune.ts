/**
 * The one tuner, after PyTerrier's GridScan: any retriever that exposes tunable parameters (Retriever.tunable,
 * withParams — BM25's k1 and b, a Profiler's β) is evaluated at every point of a grid by experiment() on one
 * topic set, and the best point is chosen by one rule (util/best.ts): the highest mean of the tuning measure;
 * among equal means, the first point in grid order (the first parameter varying slowest, each parameter's values
 * in the order given). Means follow trec_eval -c: a query whose list comes back empty counts 0. The run's tuner
 * (a config's `tune:`) and `citebench bm25 tune` are both this function. With a cache every grid point is a
 * record of the one cache (result-cache.ts), so an interrupted tuning resumes at the first point not yet done.
 */
import { paramsText, type TuningRecord } from '../report/results.ts';
import type { Retriever } from '../retrieval/retriever.ts';
import { bestOf, gridPoints } from '../util/best.ts';
import { Progress } from '../util/progress.ts';
import { CitebenchError } from '../util/errors.ts';
import { experiment, type ExperimentCache } from './experiment.ts';
import type { TopicSet } from './topic-sets.ts';
import type { TuneSpec } from './kinds/types.ts';

/** What a config's `tune:` asks: each parameter's grid (in the order given) and the measure to maximise. */

/** A grid point as file names show it: `k1=0.9,b=0.4`. */
const pointLabel = (p: Record<string, number>) => paramsText(p, ',');

export interface TuneInput {
  /** The model's name (tuning files, the record). */
  model: string;
  retriever: Retriever;
  spec: TuneSpec;
  /** The split it is tuned on (topics, pool, judgements). */
  split: TopicSet;
  /** Results per query. */
  k: number;
  /** Cache the grid points (records under tuning/<model>/<split id>/<point>.json of `dir`; no run files). */
  cache?: Pick<ExperimentCache, 'dir' | 'keyParts' | 'lockStaleMs'>;
  /** Told each point's score as it is known. */
  onPoint?: (params: Record<string, number>, score: number) => void;
  log?: (line: string) => void;
}

/** Evaluate every grid point and choose the best: the tuning record results.json keeps. */
export async function tune(t: TuneInput): Promise<TuningRecord> {
  const { retriever, spec, split } = t;
  const names = Object.keys(spec.grid);
  const tunable = retriever.tunable ?? {};
  const unknown = names.find((n) => !(n in tunable));
  if (!retriever.withParams || unknown !== undefined) {
    const have = Object.keys(tunable);
    throw new CitebenchError(`models.${t.model}.tune: ${unknown ?? names[0]} is not a parameter this model can tune (${have.length ? `it has ${have.join(', ')}` : 'it has none'})`);
  }
  const points = gridPoints(spec.grid);
  if (points.length === 0) throw new CitebenchError(`models.${t.model}.tune: the grid has no point (give each parameter at least one value)`);
  const retrievers = points.map((p) => ({ name: pointLabel(p), retriever: retriever.withParams!(p) }));
  const dir = `tuning/${t.model}/${split.id}`;
  const progress = new Progress({ label: `tune ${t.model}`, total: points.length, unit: 'grid points' });
  const r = await experiment({
    docs: split.docs, topics: split.topics, pool: split.pool, qrels: split.qrels, measures: [spec.measure], k: t.k, setting: split.setting, retrievers,
    ...(t.cache ? { cache: { ...t.cache, name: dir, cellFile: (p: string) => `${dir}/${p}.json`, runFile: false as const } } : {}),
    ...(t.log ? { log: t.log } : {}), onCell: () => progress.tick(),
  });
  progress.finish();
  // Points searched now have ranked lists; the others were read back from the cache.
  const cached = points.length - r.lists.size;
  const grid = r.cells.map((c, i) => {
    t.onPoint?.(points[i], c.means[spec.measure]);
    return { params: points[i], score: c.means[spec.measure] };
  });
  const best = bestOf(grid);
  t.log?.(`${t.model}: ${paramsText(best.params)} (${spec.measure} ${best.score.toFixed(4)} on ${split.topics.length} validation queries, ${split.id}${cached ? `; ${cached} of ${points.length} points from the cache` : ''})`);
  return {
    model: t.model, measure: spec.measure, topics: split.id, queries: split.topics.length, poolSize: split.pool?.length ?? 0,
    params: Object.fromEntries(names.map((n) => [n, spec.grid[n]])), grid, chosen: best.params,
  };
}
