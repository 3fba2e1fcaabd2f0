/**
 * An ad-hoc comparison in a notebook cell: any retrievers (a config's ready models or ones built in the cell) on
 * one pool group of a config's protocol — the same topics, pool and qrels the run's cells use — through
 * experiment(), with frames back:
 *   const r = await compareRetrievers({ store, retrievers: [{ name: 'bm25', retriever: bm25 }, …], poolSize: 4000 });
 *   show(r.means); show(r.perQuery)
 * `r.significance` tests every retriever against the baseline (default: the first) exactly as a run tests its
 * cells (significance-stage.ts: paired t-test and randomization test, Holm per measure, the config's seed).
 */
import type { CorpusStore } from '../corpus/store.ts';
import type { Field } from '../corpus/fields.ts';
import { aq, type Frame } from '../report/frames.ts';
import type { Setting } from '../retrieval/retriever.ts';
import { loadQueryExclusion } from '../sampling/exclusions.ts';
import { CitebenchError } from '../util/errors.ts';
import type { ExperimentConfig } from './config.ts';
import { experiment, type CellModel, type ExperimentCell } from './experiment.ts';
import type { PoolGroup } from './plan.ts';
import { QuerySplits } from './splits.ts';
import { significanceFrame } from './significance-stage.ts';
import { TopicSets } from './topic-sets.ts';

/**
 * A config's topic sets over a corpus store, by name (topic-sets.ts): `topicSetsOf(cfg, store).list()` gives every
 * id, `.get('dataset/4k-r1')` the topics, pool and qrels the run's cells of that id use.
 */
export function topicSetsOf(cfg: ExperimentConfig, store: CorpusStore): TopicSets {
  return new TopicSets(cfg, store, new QuerySplits(cfg, store, loadQueryExclusion(store, cfg.excludeQueries).indices));
}

export interface CompareOptions {
  cfg: ExperimentConfig;
  store: CorpusStore;
  retrievers: CellModel[];
  protocol?: 'dataset' | 'field';
  /** Field-level protocol: which field (default the config's first). */
  field?: Field;
  /** Dataset level: which pool size (default the config's first). */
  poolSize?: number;
  repeat?: number;
  setting?: Setting;
  /** Default: the config's measures and k. */
  measures?: string[];
  k?: number;
  /** Keep each retriever's cell under DIR (cells/<model>/adhoc/<group>.json): a second call reads it back. */
  cacheDir?: string;
  /** The retriever every other is tested against (default: the first). */
  baseline?: string;
  log?: (line: string) => void;
}

export interface Comparison {
  /** One row per retriever: model, then each measure's mean. */
  means: Frame;
  /** One row per retriever and query: model, query, then each measure's value. */
  perQuery: Frame;
  cells: ExperimentCell[];
  /** Each other retriever against the baseline, per measure (the columns of `res.significance`). */
  significance: Frame;
}

export async function compareRetrievers(o: CompareOptions): Promise<Comparison> {
  const { cfg, store } = o;
  const protocol = o.protocol ?? (cfg.protocols.dataset ? 'dataset' : 'field');
  const p = protocol === 'dataset' ? cfg.protocols.dataset : cfg.protocols.field;
  if (!p) throw new CitebenchError(`${cfg.name}: has no ${protocol} protocol`);
  const field = protocol === 'field' ? (o.field ?? cfg.protocols.field!.fields[0]) : null;
  const poolSize = o.poolSize ?? ('pools' in p ? p.pools[0] : p.pool);
  const group: PoolGroup = { protocol, split: 'test', field, poolSize, repeat: o.repeat ?? 1, queries: p.queries, ...(o.setting === 'inductive' ? { setting: 'inductive' as const } : {}) };
  const set = topicSetsOf(cfg, store).ofGroup(group);
  const measures = o.measures ?? cfg.measures;
  const name = `adhoc/${protocol}${o.setting === 'inductive' ? '-inductive' : ''}/${field ?? poolSize}-r${group.repeat}`;
  const r = await experiment({
    docs: store, topics: set.topics, pool: set.pool, qrels: set.qrels, retrievers: o.retrievers, measures, k: o.k ?? cfg.k, setting: o.setting, log: o.log,
    ...(o.cacheDir ? { cache: { dir: o.cacheDir, name, keyParts: { config: cfg.name, seed: cfg.seed } } } : {}),
  });
  const means = aq.from(r.cells.map((c) => ({ model: c.model, ...c.means })));
  const rows = r.cells.flatMap((c) => c.queryIds.map((query, i) => ({ model: c.model, query, ...Object.fromEntries(measures.map((m) => [m, c.perQuery[m][i]])) })));
  const baseline = o.baseline ?? o.retrievers[0]?.name;
  if (o.baseline !== undefined && !o.retrievers.some((x) => x.name === o.baseline)) throw new CitebenchError(`compareRetrievers: baseline '${o.baseline}' is not one of the retrievers (${o.retrievers.map((x) => x.name).join(', ')})`);
  const significance = significanceFrame(rows, { baseline, measures, seed: cfg.seed });
  return { means, perQuery: aq.from(rows), cells: r.cells, significance };
}
