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
 * search); MDCR's and BEIR's are read from their files (BEIR's from the task's store, once the run built it).
 *
 * Every set also has a full name that says where it comes from (TopicSet.name), its id after its origin:
 *   corpus-<12 hex of the store's id column>/seed-<seed>/<id>   sampled sets, and MDCR (built from them)
 *   beir-<12 hex of the task's three files>/<id>                 a BEIR task
 *   corpus-<…>/files-<12 hex of the files' content>             a split given as files (`citebench bm25 tune`)
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beirTopics, checkBeirFolder, BEIR_FILES, BEIR_QUERY_PREFIX } from '../corpus/beir.ts';
import { CorpusStore } from '../corpus/store.ts';
import { corpusKey } from '../corpus/store-key.ts';
import { fileContentHash } from '../retrieval/dense/file-hash.ts';
import { identity, sha256 as newSha256 } from '../util/identity.ts';
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
  /** The id after where the set comes from (its corpus and seed, or its task's files): see the top of this file. */
  name?: string;
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
  /** Close what the set holds open (a BEIR task's store). */
  release?(): void;
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

/** The origin part of a set's name drawn from a corpus store: its id column's identity, and the seed. */
export function corpusOrigin(store: Pick<CorpusStore, 'dir'>, seed?: number): string {
  const key = corpusKey(store.dir) ?? identity(store.dir);
  return `corpus-${key.slice(0, 12)}${seed === undefined ? '' : `/seed-${seed}`}`;
}

/** The origin part of a name for topics given as files: the corpus, and the files' content. */
export function filesOrigin(store: Pick<CorpusStore, 'dir'>, files: string[]): string {
  return `${corpusOrigin(store)}/files-${identity(files.map((f) => fileContentHash(f))).slice(0, 12)}`;
}

/** A BEIR task's three files (corpus, queries, judgements of the split) and their SHA-256. */
export function beirTaskFiles(task: { path: string; split: string }): { files: string[]; sha256: string[] } {
  const files = [BEIR_FILES.corpus, BEIR_FILES.queries, BEIR_FILES.qrels(task.split)].map((f) => join(task.path, f));
  checkBeirFolder(task.path, task.split);
  return { files, sha256: files.map((f) => fileContentHash(f)) };
}

/** The work folder of a BEIR task: its store and embeddings depend on the documents and queries only. */
export function beirTaskDir(work: string, task: { name: string }, sha256: string[]): string {
  return join(work, 'beir', `${task.name}-${newSha256().update(sha256[0]).update(sha256[1]).hex(12)}`);
}

/** A BEIR task as a topic set over its store: its judged queries, the task's corpus as the pool, graded judgements. */
export interface BeirTopicSet extends SampledTopicSet {
  /** The queries' BEIR ids, in topic order. */
  queryIds: string[];
  judgements: number;
}

export function beirTopicSet(store: CorpusStore, task: { name: string; path: string; split: string }, sha256: string[]): BeirTopicSet {
  const t = beirTopics(store, task.path, task.split);
  const group: PoolGroup = { protocol: 'beir', split: 'test', field: null, poolSize: t.pool.length, repeat: 1, queries: t.queries.length, task: task.name };
  const id = groupPath(group);
  // Runs and qrels name the queries by their BEIR ids.
  const docs = { id: (i: number) => { const d = store.id(i); return d.startsWith(BEIR_QUERY_PREFIX) ? d.slice(BEIR_QUERY_PREFIX.length) : d; }, idOrder: store.idOrder };
  return {
    id, name: `beir-${identity(sha256).slice(0, 12)}/${id}`, docs, topics: t.queries, pool: t.pool, qrels: t.qrels, setting: 'transductive', group,
    sampled: { members: t.pool, cited: t.pool.length, exhausted: false } as Pool, queryIds: t.queryIds, judgements: t.judgements,
  };
}

export class TopicSets {
  private readonly groups = new Map<string, PoolGroup>();
  private origin_: string | undefined;

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

  /** Where the config's sampled sets come from: the corpus and the seed (the first part of their names). */
  origin(): string {
    return (this.origin_ ??= corpusOrigin(this.store, this.cfg.seed));
  }

  /** The set of a sampled pool group. */
  ofGroup(g: PoolGroup): SampledTopicSet {
    const topics = this.splits.get(g.protocol, g.split, g.field, g.setting);
    const { pool, qrels } = poolWithQrels(this.store, topics, groupPoolOptions(this.cfg, g));
    const id = groupPath(g);
    return { id, name: `${this.origin()}/${id}`, docs: this.store, topics, pool: pool.members, qrels, setting: g.setting ?? 'transductive', group: g, sampled: pool };
  }

  /** A set by its id (dataset/4k-r1) or its full name (corpus-…/seed-3/dataset/4k-r1). A BEIR task's set holds its store open: release() it. */
  get(idOrName: string): TopicSet {
    const id = idOrName.startsWith(`${this.origin()}/`) ? idOrName.slice(this.origin().length + 1) : idOrName;
    const g = this.groups.get(id);
    if (g) return this.ofGroup(g);
    const m = /^mdcr\/(test|val)(?:\/([^/]+))?$/.exec(id);
    if (m && this.cfg.protocols.mdcr) return { ...mdcrTopicSet(this.store, join(this.cfg.results, 'mdcr'), m[1] as 'test' | 'val', m[2]), name: `${this.origin()}/${id}` };
    const task = this.cfg.protocols.beir;
    if (task && (id === `beir/${task.name}` || /^beir-[0-9a-f]{12}\//.test(idOrName))) {
      const { sha256 } = beirTaskFiles(task);
      const storeDir = join(beirTaskDir(this.cfg.work, task, sha256), 'store');
      if (!existsSync(join(storeDir, 'meta.json'))) throw new CitebenchError(`beir/${task.name}: the task's store is not built yet (citebench run builds it in ${storeDir})`);
      const store = CorpusStore.open(storeDir);
      const set = beirTopicSet(store, task, sha256);
      if (idOrName !== set.id && idOrName !== set.name) (store.close(), this.fail(idOrName));
      return { ...set, release: () => store.close() };
    }
    this.fail(idOrName);
  }

  private fail(id: string): never {
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
