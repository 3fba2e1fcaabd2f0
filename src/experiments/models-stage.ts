/**
 * The models stage of a run: every configured model built by its kind's entry, in config order (a model may use
 * those above it); a model whose config asks for tuning is tuned first by the one tuner (tune.ts) on the tuning
 * split (topic-sets.ts: the dataset level's validation queries), then built at the chosen point. Tuning knows
 * parameters, not kinds: it varies the retriever's tunable parameters (Retriever.withParams).
 */
import { poolLabel } from '../report/tables.ts';
import type { TuningRecord } from '../report/results.ts';
import { CitebenchError } from '../util/errors.ts';
import type { ExperimentConfig } from './config.ts';
import { entryOf, type BuildContext } from './kinds/index.ts';
import type { ReadyModel, SkippedModel } from './models.ts';
import { groupPath } from './plan.ts';
import { tuningGroup, type TopicSets } from './topic-sets.ts';
import { gridPoints } from '../util/best.ts';
import { tune } from './tune.ts';

export interface BuiltModels {
  ready: ReadyModel[];
  skipped: SkippedModel[];
  /** One record per tuned model, in config order. */
  tuning: TuningRecord[];
}

/** Build (and tune) every model of the config; `ctx.ready` fills as they become ready. */
export async function buildModels(cfg: ExperimentConfig, ctx: BuildContext, topicSets: TopicSets, sampleKey: string): Promise<BuiltModels> {
  const out: BuiltModels = { ready: ctx.ready, skipped: [], tuning: [] };
  for (const m of cfg.models) {
    const entry = entryOf(m);
    const spec = entry.tuning?.(m);
    let built = await entry.build(m, ctx);
    if (spec && !('reason' in built)) {
      const group = tuningGroup(cfg);
      if (!group) throw new CitebenchError(`models.${m.name}.tune: tuning uses the dataset-level validation split; add protocols.dataset or give ${Object.keys(spec.grid).join(' and ')} instead`);
      const split = topicSets.ofGroup(group);
      const names = Object.keys(spec.grid);
      ctx.log(`[tune] ${m.name}: ${gridPoints(spec.grid).length} points (${names.map((n) => `${spec.grid[n].length} ${n}`).join(' × ')}) on ${split.topics.length} validation queries, pool ${poolLabel(split.pool!.length)}, ${groupPath(group)} (${spec.measure})`);
      const probe = built;
      const record = await ctx.timed(`tune ${m.name}`, () => tune({
        model: m.name, retriever: probe.retriever, spec, split, k: cfg.k, cache: { dir: cfg.work, keyParts: { sample: sampleKey } }, log: (l) => ctx.log(`[tune] ${l}`),
      }));
      await probe.release();
      out.tuning.push(record);
      built = await entry.build(m, ctx, record.chosen);
    }
    if ('reason' in built) {
      out.skipped.push(built);
      ctx.log(`[models] ${m.name}: skipped — ${built.reason.split('\n')[0]}${entry.skipHint ? ` (${entry.skipHint})` : ''}`);
    } else ctx.ready.push(built);
  }
  return out;
}
