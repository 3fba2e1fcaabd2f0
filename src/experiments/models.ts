/**
 * What a run knows of a model once its kind's entry (kinds/) has built it: a ready model (its retriever, weights,
 * settings and summary, and the work it asks of the runner before any cell), or a recorded skip with the reason
 * (a missing model folder is not an error: the run says how to add it). What it offers models built on it (a
 * BM25 index, an embedding store and its encoder) its retriever says (retrieval/capabilities.ts).
 */
import type { Retriever } from '../retrieval/retriever.ts';
import type { ResolvedModel } from '../retrieval/dense/models.ts';
import type { Shard } from '../util/shard.ts';

/**
 * What a report must say about a model's weights: only `trained` numbers can be findings; `imported` vectors
 * (computed outside citebench, provenance unknown) are said to be so.
 */
export type Weights = 'lexical' | 'trained' | 'random' | 'imported';

export interface ModelInfo {
  name: string;
  /** Its kind's name in the registry (kinds/index.ts). */
  kind: string;
  weights: Weights;
  /** Settings that determine its output (BM25 parameters after tuning; dense pooling, distance, folder). */
  settings: Record<string, unknown>;
  /** What the dry run and the report say of it beside its name (its entry's words), e.g. "k1 0.9, b 0.4". */
  summary?: string;
}

/** The articles a run's plan searches: its queries, its pools' members, and both together (sorted). */
export interface PlanArticles {
  queries: Uint32Array;
  pool: Uint32Array;
  all: Uint32Array;
  paperId(i: number): string;
}

export interface ReadyModel extends ModelInfo {
  retriever: Retriever;
  /**
   * A first-stage model: it ranks a pool with its own encoder, vectors or BM25 parameters (not through other
   * models). MDCR's model-based negatives come from these models' lists (the paper's: BM25 and encoders).
   */
  firstStage?: boolean;
  /**
   * Work before any cell on the articles the plan searches (the encode stage): an encoder encodes them (a shard of
   * its store's chunks), imported vectors check they cover them. Returns the articles encoded now.
   */
  prepare?(plan: PlanArticles, opts: { shard?: Shard; log: (line: string) => void; timed<T>(stage: string, f: () => Promise<T>): Promise<T> }): Promise<number>;
  /** MDCR: which of these articles it cannot score (imported vectors lacking one); they rank last and are said. */
  unscorable?(articles: Uint32Array): Uint32Array;
  release(): Promise<void>;
}

export interface SkippedModel {
  name: string;
  reason: string;
}

/**
 * Random-weight folders (the test models of this project) must never pass for trained encoders: a folder whose
 * name says `random` is marked so.
 */
export function weightsOf(model: ResolvedModel): Weights {
  return /random/i.test(model.dir) ? 'random' : 'trained';
}

export function isSkipped(x: ResolvedModel | SkippedModel): x is SkippedModel {
  return 'reason' in x;
}
