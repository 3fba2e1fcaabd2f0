/**
 * What one model kind is, in one place (one file per kind; index.ts is the registry): how its YAML node is read
 * and checked, which parameters it tunes, how it becomes a ready model (its Retriever, what the runner must
 * prepare for it), what it costs in the dry run, and how it is described. The runner, the tuner, the planner and
 * the report ask the entry and the ready model's capabilities (retrieval/capabilities.ts); none of them switches
 * on a kind.
 */
import type { CorpusStore } from '../../corpus/store.ts';
import type { Device } from '../../retrieval/dense/encoder.ts';
import type { Field } from '../../corpus/fields.ts';
import type { Setting } from '../../retrieval/retriever.ts';
import type { Reader } from '../config-reader.ts';
import type { ReadyModel, SkippedModel } from '../models.ts';

/** Every model config has these two; the rest is its kind's. */
export interface ModelConfigBase {
  kind: string;
  name: string;
}

/** What entries read of a run's config (an ExperimentConfig is one). */
export interface RunConfig {
  seed: number;
  k: number;
  queryYear: number;
  /** Cache folder: tuning results, embedding stores. */
  work: string;
  modelsDir?: string;
  validation: { queries: number };
  protocols: { dataset?: { queries: number; pools: number[]; repeats: number } };
  settings?: Setting[];
}

/** The settings a config runs, in order (absent: transductive only). */
export function settingsOf(cfg: Pick<RunConfig, 'settings'>): Setting[] {
  return cfg.settings ?? ['transductive'];
}

export interface Estimate {
  stage: string;
  seconds: number;
  bytes: number;
  /** Disk the stage holds at its peak, and what stays after it (corpus and index stages). */
  disk?: { peak: number; kept: number };
  /** The assumption behind a number that was not measured as such (printed under the stage). */
  assumption?: string;
}

/** What an entry's `build` gets: the run so far. */
export interface BuildContext {
  cfg: RunConfig;
  store: CorpusStore;
  /** Identity of the corpus store (store-key.ts): dense embedding stores are keyed on it. */
  corpusKey?: string;
  /** Models ready so far (those configured above this one). */
  ready: ReadyModel[];
  /** Why a model configured above is not among `ready` (default: skipped on this machine). */
  notReady?(name: string): string | undefined;
  threads: number;
  /** cpu | cuda | auto for encoders. */
  device?: Device;
  /** Download a missing model folder from the hub (`--allow-remote`). */
  allowRemote?: boolean;
  log: (line: string) => void;
  /** Time a step under `stage` in timings.json. */
  timed<T>(stage: string, f: () => Promise<T>): Promise<T>;
}

/**
 * What an entry's costs may ask of the rest of the config (dispatched through the registry). A kind's own fields
 * of BuildContext and CostEnv (BM25's index, its processes) are declared in its file (kinds/bm25.ts).
 */
export interface CostEnv {
  /** Articles of the (prefiltered) corpus. */
  articles: number;
  /** Bytes of the outbound citation graph (navigation's and the Profiler's CSR). */
  graphBytes: number;
  model(name: string): ModelConfigBase;
  /** Whether a model searches vectors of an encoder (its kind `needs` an encode stage): a Profiler over it adds vectors. */
  dense(m: ModelConfigBase): boolean;
  perQuery(m: ModelConfigBase, pool: number): number;
  perGroup(m: ModelConfigBase, pool: number): { seconds: number; bytes: number };
  modelBytes(m: ModelConfigBase): number;
  /** Seconds to re-score one candidate with `m` as a scorer (navigation's ranking phase, re-ranking). */
  rescore(m: ModelConfigBase): number;
  /** How many citation-graph CSRs a model's cells hold (its cost's graphCsrs, default 2). */
  graphCsrs(m: ModelConfigBase): number;
}

/** A kind's share of the dry-run estimate (plan.ts sums them per pool group and setting). */
export interface KindCost<C> {
  /** Search seconds per query at a pool size. */
  perQuery(c: C, env: CostEnv, pool: number): number;
  /** One-off work per pool group (profile builds, sampling) and what it holds at a pool (default none). */
  perGroup?(c: C, env: CostEnv, pool: number): { seconds: number; bytes: number };
  /** What the model holds besides the pool's structures: index, graph, encoder (default 0). */
  modelBytes?(c: C, env: CostEnv): number;
  /** Seconds to re-score one candidate with this model as a scorer (default: BM25's re-scoring rate). */
  rescore?(c: C, env: CostEnv): number;
  /** How many of the citation graph's CSRs (outbound, inbound) its cells hold while sampling pools (default 2). */
  graphCsrs?(c: C, env: CostEnv): number;
  /** The assumption behind a number not measured as such, printed under the estimate. */
  assumption?(c: C, env: CostEnv): string | undefined;
  /** Appended to its cells' stage name (e.g. ", 12 profile builds"). */
  cellsNote?(c: C, groups: number): string;
  /** Stages of its own before the cells (encoding); `poolArticles` = the expected union of all pools. */
  stages?(c: C, env: CostEnv, poolArticles: number): Estimate[];
}

/** What a kind tunes: a grid per parameter and the measure that chooses (on the tuning split). */
export interface TuneSpec {
  grid: Record<string, number[]>;
  measure: string;
}

/** A store models are built on other than the run's corpus (offTask). */
export interface OwnStore {
  /** Its words in a reason: 'a BEIR task', 'an MDCR data file'. */
  what: string;
  /** Its articles have the corpus's paper ids (an MDCR data file's S2 ids), so vectors imported for those cover them. */
  corpusIds: boolean;
}

/** What a resource's preparation for the run's corpus gets (run.ts, under the prepare lock). */
export interface CorpusEnv {
  cfg: RunConfig;
  store: CorpusStore;
  /** The corpus store's folder and identity (corpus-stage.ts CorpusInfo). */
  info: { dir: string; stamp: { key: string } };
  threads: number;
  log: (line: string) => void;
  timed<T>(stage: string, f: () => Promise<T>): Promise<T>;
}

/**
 * Something prepared before the models that need it are built (an entry's `needs`), once however many kinds
 * name it: for the run's corpus (`onCorpus`, under the prepare lock: the corpus's BM25 index, or pool indexes
 * with `bm25Index: pools`), or over a store of its own (`onStore`: a BEIR task's, an MDCR data file's papers);
 * either fills its fields of the BuildContext. Absent: nothing to make beforehand (an encode stage is the ready
 * model's `prepare`).
 */
export interface Resource {
  name: string;
  /** What it is, for the docs. */
  about: string;
  /** Its fields of the BuildContext (cleared where models are built on a store of their own). */
  fields?: readonly (keyof BuildContext)[];
  onCorpus?(env: CorpusEnv): Promise<Partial<BuildContext>>;
  onStore?(ctx: BuildContext): Promise<void>;
  /** End what onCorpus started (search processes). */
  release?(ctx: BuildContext): void;
}

export interface KindEntry<C extends ModelConfigBase> {
  kind: C['kind'];
  /** One line for `docs`-style help: what the kind is. */
  about: string;
  /** A model beyond the paper (navigation, Profiler, re-ranking): its dataset-level tests get their own report table. */
  beyondPaper?: boolean;
  /**
   * Read and check the model's YAML node at `p` (['models', name]); `earlier` = the models configured above it
   * (the only ones it may name). Errors through `r.fail` (file, line, key).
   */
  parse(r: Reader, p: string[], name: string, earlier: string[]): C;
  /**
   * What must be prepared before its models are built (an open set: each resource declared once, by the kind
   * file that owns it, and named here): the corpus's BM25 index (kinds/bm25.ts), an encode stage (kinds/dense.ts).
   */
  needs?: readonly Resource[];
  /**
   * Why its models cannot run on a store of their own — a BEIR task's documents and queries (beir-stage.ts), an
   * MDCR data file's papers (`citebench mdcr score`), neither with a citation graph — said in results.json, the
   * report or the error. Absent or undefined: they run, built on that store and on the models above them as run
   * there.
   */
  offTask?(c: C, on: OwnStore): string | undefined;
  /**
   * The model tuned on the kind's default grid (a notebook's `tune: true` adds it as NAME-tuned); undefined where
   * the model tunes already. Absent: the kind has nothing to tune that way.
   */
  tunedVariant?(c: C, name: string): C | undefined;
  /**
   * Why this model cannot run with `bm25Index: pools` (no corpus BM25 index), given the models configured with it;
   * undefined where it can (config.ts fails the config at bm25Index with the reason).
   */
  needsCorpusIndex?(c: C, models: readonly ModelConfigBase[]): string | undefined;
  /** The parameters the config asks it to tune on the validation split, and the measure (tune.ts); absent: none. */
  tuning?(c: C): TuneSpec | undefined;
  /** The dry run's words after the kind: `bm25 (bm25, k1 0.9 b 0.4)`. */
  describe(c: C): string;
  /** A model without `kind:` whose node has this key is of this kind (`{ embeddings: FILE }`)… */
  impliedBy?: string;
  /** …or whose name is this one (`bm25:`)… */
  impliedByName?: string;
  /** …and otherwise of the kind that says `fallback` (a dense encoder named like the model). */
  fallback?: boolean;
  /** Said after a skip's reason in the log (e.g. where the docs say how to add the model). */
  skipHint?: string;
  /**
   * Its ready model (retriever, settings record, summary), or a recorded skip with the reason. `params`: the
   * values its tuning chose (tune.ts), which replace the config's and are recorded as tuned.
   */
  build(c: C, ctx: BuildContext, params?: Readonly<Record<string, number>>): Promise<ReadyModel | SkippedModel>;
  cost: KindCost<C>;
}
