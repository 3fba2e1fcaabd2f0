/**
 * Topic sets by name, after ir_datasets: one id names the query articles, the pool or candidate lists, and the
 * judgements of one unit of evaluation, and everything keyed on that unit shares the id — its cells' and runs'
 * file names (cells/<model>/<id>.json), its qrels file, its regression rows, its tuning points. The ids are
 * the runner's folder names (plan.ts groupPath):
 *   dataset/4k-r1, dataset-inductive/4k-r2      the dataset level's test pools (§3.1), per size and repeat
 *   field/Bio/r1, field-val/Bio/r1              the field level (§3.2); -val: the validation split (MDCR's val)
 *   dataset-val/4k-r1                           the tuning split: validation queries over the first pool size
 *   mdcr/test, mdcr/test/Bio, mdcr/val          MDCR's benchmark (§4), whole or one field, once it is built
 *   beir/scidocs                                a BEIR-format task, once its store is built (beir-stage.ts)
 * A sampled set is drawn from the corpus by the config's seed each time it is asked for (cheap next to any
 * search); MDCR's and BEIR's are read from their files.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CorpusStore } from '../corpus/store.ts';
import { fieldAbbrev, schemeFields } from '../corpus/fields.ts';
import { mdcrNegativeTypes, type MdcrBenchmark } from '../eval/mdcr.ts';
import { mdcrPairs, readMdcrData } from '../eval/mdcr-data.ts';
import type { DocOrder, QrelsCsr } from '../eval/types.ts';
import type { Setting } from '../retrieval/retriever.ts';
import { poolWithQrels, type Pool } from '../sampling/pools.ts';
import { CitebenchError } from '../util/errors.ts';
import { readJsonFile } from '../util/json.ts';
import type { ExperimentConfig } from './config.ts';
import type { MdcrEvaluation } from './experiment.ts';
import { settingsOf } from './kinds/types.ts';
import { groupPath, planGroups, type PoolGroup } from './plan.ts';
import type { QuerySplits } from './splits.ts';

/** What experiment() evaluates: the topics and what they search or score, and how they are judged. */
export interface TopicSet {
  id: string;
  /** Article ids and trec_eval's tie order (the corpus store, or a BEIR task's store with its query ids). */
  docs: { id(i: number): string; idOrder: DocOrder };
  topics: Uint32Array;
  /** The pool searched (sorted); with candidates, the articles whose statistics a scorer uses. */
  pool?: Uint32Array;
  candidates?: Uint32Array[];
  /** trec_eval judgements (rows in topic order), or MDCR's benchmark. */
  qrels?: QrelsCsr;
  mdcr?: MdcrEvaluation;
  setting: Setting;
  /** A sampled set: its pool group and the pool as drawn (its size, whether the field-cited set was exhausted). */
  group?: PoolGroup;
  sampled?: Pool;
}

/** A set sampled from the corpus for a pool group: always a pool and judgements. */
export interface SampledTopicSet extends TopicSet {
  pool: Uint32Array;
  qrels: QrelsCsr;
  group: PoolGroup;
  sampled: Pool;
}

/** The sampling options of a group's pool: the one place a pool group's pool is defined. */
export function groupPoolOptions(s: { seed: number; queryYear: number }, g: PoolGroup) {
  return { size: g.poolSize, repeat: g.repeat, seed: s.seed, field: g.field ?? undefined, queryYear: s.queryYear, split: g.split, ...(g.setting === 'inductive' ? { inductive: true } : {}) };
}

/** The tuning split's group: the dataset level's validation queries over a pool of its first size, repeat 1. */
export function tuningGroup(cfg: Pick<ExperimentConfig, 'protocols' | 'validation' | 'settings'>): PoolGroup | undefined {
  const d = cfg.protocols.dataset;
  if (!d) return undefined;
  const setting = settingsOf(cfg)[0];
  return { protocol: 'dataset', split: 'val', field: null, poolSize: d.pools[0], repeat: 1, queries: cfg.validation.queries, ...(setting === 'inductive' ? { setting } : {}) };
}

export class TopicSets {
  private readonly groups = new Map<string, PoolGroup>();

  constructor(
    private readonly cfg: ExperimentConfig,
    private readonly store: CorpusStore,
    private readonly splits: QuerySplits,
  ) {
    for (const g of planGroups(cfg)) this.groups.set(groupPath(g), g);
    const t = tuningGroup(cfg);
    if (t) this.groups.set(groupPath(t), t);
  }

  /** Every id the config defines (MDCR's and a BEIR task's too, whether or not their files exist yet). */
  list(): string[] {
    const out = [...this.groups.keys()];
    if (this.cfg.protocols.mdcr) {
      for (const split of ['test', 'val']) out.push(`mdcr/${split}`, ...schemeFields(this.store.fieldScheme).filter((f) => (this.cfg.protocols.field!.fields as readonly string[]).includes(f)).map((f) => `mdcr/${split}/${fieldAbbrev(f)}`));
    }
    if (this.cfg.protocols.beir) out.push(`beir/${this.cfg.protocols.beir.name}`);
    return out;
  }

  /** The set of a sampled pool group. */
  ofGroup(g: PoolGroup): SampledTopicSet {
    const topics = this.splits.get(g.protocol, g.split, g.field, g.setting);
    const { pool, qrels } = poolWithQrels(this.store, topics, groupPoolOptions(this.cfg, g));
    return { id: groupPath(g), docs: this.store, topics, pool: pool.members, qrels, setting: g.setting ?? 'transductive', group: g, sampled: pool };
  }

  get(id: string): TopicSet {
    const g = this.groups.get(id);
    if (g) return this.ofGroup(g);
    const m = /^mdcr\/(test|val)(?:\/([^/]+))?$/.exec(id);
    if (m && this.cfg.protocols.mdcr) return mdcrTopicSet(this.store, join(this.cfg.results, 'mdcr'), m[1] as 'test' | 'val', m[2]);
    if (id.startsWith('beir/')) throw new CitebenchError(`${id}: a BEIR task's topics are on its own store (the run's BEIR stage builds it); read them with beirTopics`);
    throw new CitebenchError(`no topic set '${id}' in ${this.cfg.name} (have: ${this.list().slice(0, 8).join(', ')}${this.list().length > 8 ? ', …' : ''})`);
  }
}

/**
 * MDCR's test or val benchmark as a topic set over the corpus store: every distinct query with the candidates it
 * has in any field and type, scored over the data file's papers as the pool (so BM25's statistics are those of
 * the data file, as over the published files), judged by evaluate.py's rules. `field` (an abbreviation, e.g.
 * Bio) keeps one field.
 */
export function mdcrTopicSet(store: CorpusStore, dir: string, split: 'test' | 'val', field?: string): TopicSet {
  const benchmarkPath = join(dir, `mdcr_${split}.json`);
  const dataPath = join(dir, `mdcr_${split}_data.jsonl`);
  if (!existsSync(benchmarkPath)) throw new CitebenchError(`${benchmarkPath}: MDCR is not built yet (citebench run builds it from the field level)`);
  let benchmark = readJsonFile(benchmarkPath) as MdcrBenchmark;
  if (field !== undefined) {
    const name = schemeFields(store.fieldScheme).find((f) => fieldAbbrev(f) === field || f === field);
    if (!name || !benchmark[name]) throw new CitebenchError(`mdcr/${split}/${field}: no such field in ${benchmarkPath}`);
    benchmark = { [name]: benchmark[name] };
  }
  const data = readMdcrData(dataPath);
  const pairs = mdcrPairs(benchmark, data, { benchmark: benchmarkPath, data: dataPath });
  const corpus = Int32Array.from(data.ids, (id) => store.indexOf(id));
  const missing = corpus.indexOf(-1);
  if (missing >= 0) throw new CitebenchError(`${dataPath}: paper ${data.ids[missing]} is not in the corpus store`);
  const toCorpus = (l: Uint32Array) => Uint32Array.from(l, (i) => corpus[i]);
  return {
    id: `mdcr/${split}${field !== undefined ? `/${field}` : ''}`, docs: store, setting: 'transductive',
    topics: toCorpus(pairs.queries), candidates: pairs.candidates.map(toCorpus), pool: Uint32Array.from(corpus).sort(),
    // Candidate types with candidates: an official key left empty (its model not given) has no Table 4 column.
    mdcr: { benchmark, types: mdcrNegativeTypes(benchmark, { nonEmpty: true }), benchmarkPath },
  };
}
