/**
 * What a run knows of a model once its kind's entry (kinds/) has built it: a ready model (its retriever, weights,
 * settings and summary, and what models built on it may use: an encoder, an embedding store, a BM25 index), or
 * a recorded skip with the reason (a missing model folder is not an error: the run says how to add it).
 */
import type { Retriever } from '../retrieval/retriever.ts';
import type { Bm25Index } from '../retrieval/bm25/index-format.ts';
import type { Encoder } from '../retrieval/dense/encoder.ts';
import type { ResolvedModel } from '../retrieval/dense/models.ts';
import type { EmbeddingStore } from '../retrieval/dense/store.ts';

/** What a report must say about a model's weights: only `trained` numbers can be findings. */
export type Weights = 'lexical' | 'trained' | 'random';

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

export interface ReadyModel extends ModelInfo {
  retriever: Retriever;
  /** Dense models: the loaded encoder (MDCR scores its pairs with it). */
  encoder?: Encoder;
  /** Dense models: their embedding store (the runner's encode stage fills it; a dense Profiler builds its profiles from it). */
  embeddings?: EmbeddingStore;
  /** BM25 models: the index and the parameters they search with (a sparse Profiler builds its profiles from them). */
  bm25?: { index: Bm25Index; k1: number; b: number; accurate: boolean };
  release(): Promise<void>;
}

export interface SkippedModel {
  name: string;
  reason: string;
}

/**
 * Random-weight folders (the test models of this project) must never pass for trained encoders: a folder
 * whose name says `random` is marked so, and so is one whose config.json says so.
 */
export function weightsOf(model: ResolvedModel): Weights {
  return /random/i.test(model.dir) ? 'random' : 'trained';
}

export function isSkipped(x: ResolvedModel | SkippedModel): x is SkippedModel {
  return 'reason' in x;
}
