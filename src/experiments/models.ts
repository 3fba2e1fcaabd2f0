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
