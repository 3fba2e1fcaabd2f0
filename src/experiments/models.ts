/**
 * What a run knows of a model once its kind's entry (kinds/) has built it: a ready model (its retriever, weights,
 * settings and summary, and what models built on it may use: an encoder, an embedding store, a BM25 index), or
 * a recorded skip with the reason (a missing model folder is not an error: the run says how to add it).
 */
import type { Retriever } from '../retrieval/retriever.ts';
import type { Bm25Index } from '../retrieval/bm25/index-format.ts';
import type { Encoder } from '../retrieval/dense/encoder.ts';
import type { ResolvedModel } from '../retrieval/dense/models.ts';
import type { EmbeddingStore, EncodeOptions } from '../retrieval/dense/store.ts';
import { CitebenchError } from '../util/errors.ts';

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

export interface ReadyModel extends ModelInfo {
  retriever: Retriever;
  /** Dense models: the loaded encoder (MDCR scores its pairs with it). */
  encoder?: Encoder;
  /** Dense models: their embedding store (the runner's encode stage fills it; a dense Profiler builds its profiles from it). */
  embeddings?: EmbeddingStore;
  /** Dense models whose query prompt differs from their document prompt: the store of their query vectors. */
  queryEmbeddings?: EmbeddingStore;
  /**
   * Dense models: encode what their stores lack, `queries` as queries and `pool` as documents (sorted corpus
   * indices; a one-store model encodes their union in one pass). Returns how many articles were encoded now.
   */
  encodeFor?: (queries: Uint32Array, pool: Uint32Array, opts?: EncodeOptions) => Promise<number>;
  /**
   * A first-stage model: it ranks a pool with its own encoder, vectors or BM25 parameters (not through other
   * models). MDCR's model-based negatives come from these models' lists (the paper's: BM25 and encoders).
   */
  firstStage?: boolean;
  /** BM25 models: the index and the parameters they search with (a sparse Profiler builds its profiles from them). */
  bm25?: { index: Bm25Index; k1: number; b: number; accurate: boolean };
  /** Vectors imported from a file (kind embeddings): no encoder; `strict` = a pool article without a vector is an error. */
  imported?: { file: string; strict: boolean };
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

/**
 * Imported vectors, before any cell: every query the plan searches must have a vector (an error naming the
 * first); pool articles without one are counted, the first few named, and said in the model's summary (strict:
 * an error).
 */
export function checkImportedCoverage(m: ReadyModel, queries: Uint32Array, pool: Uint32Array, paperId: (i: number) => string, log: (line: string) => void): void {
  if (!m.imported || !m.embeddings) return;
  const present = m.embeddings.presentMask();
  const lacking = (xs: Uint32Array) => xs.filter((x) => !present[x]);
  const { file, strict } = m.imported;
  const first = (xs: Uint32Array) => Array.from(xs.subarray(0, 5), paperId).join(', ') + (xs.length > 5 ? ', …' : '');
  const q = lacking(queries);
  if (q.length) throw new CitebenchError(`${file}: no vector for ${q.length} quer${q.length > 1 ? 'ies' : 'y'} of this run (${first(q)}); every query needs one (models.${m.name}): add them to the file`);
  const p = lacking(pool);
  if (p.length && strict) throw new CitebenchError(`${file}: no vector for ${p.length} pool article(s) of this run (${first(p)}); models.${m.name} has strict: true`);
  m.settings.poolWithoutVector = p.length;
  if (p.length) {
    m.summary = `${m.summary}; ${p.length} pool article(s) without a vector left out`;
    log(`[models] ${m.name}: ${p.length} pool article(s) of this run have no vector and are left out of the pools (${first(p)}); strict: true makes this an error`);
  }
}

export function isSkipped(x: ResolvedModel | SkippedModel): x is SkippedModel {
  return 'reason' in x;
}
