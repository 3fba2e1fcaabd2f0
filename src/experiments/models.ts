/**
 * The models of a run: each config entry becomes a Retriever, or a recorded skip when its weights are not on
 * this machine (a dense model folder that is missing is not an error: the run says which models were skipped
 * and how to add them). Dense models share one embedding store per model under the work folder, so every
 * article is encoded once per model whatever the number of cells.
 */
import { basename, join, resolve } from 'node:path';
import type { CorpusStore } from '../corpus/store.ts';
import type { Retriever } from '../retrieval/retriever.ts';
import type { Bm25Index } from '../retrieval/bm25/index-format.ts';
import { Encoder, type Device } from '../retrieval/dense/encoder.ts';
import { fileContentHash, resolveModelAsync, type ModelOptions, type ResolvedModel } from '../retrieval/dense/models.ts';
import { EmbeddingStore } from '../retrieval/dense/store.ts';
import { DenseRetriever } from '../retrieval/dense/retriever.ts';
import { CitebenchError } from '../util/errors.ts';

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
