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
import { Bm25Retriever } from '../retrieval/bm25/retriever.ts';
import { Encoder, type Device } from '../retrieval/dense/encoder.ts';
import { fileContentHash, resolveModelAsync, type ModelOptions, type ResolvedModel } from '../retrieval/dense/models.ts';
import { EmbeddingStore } from '../retrieval/dense/store.ts';
import { DenseRetriever } from '../retrieval/dense/retriever.ts';
import { CitebenchError } from '../util/errors.ts';
import type { Bm25ModelConfig, DenseModelConfig, ModelConfig } from './config.ts';

/**
 * What a report must say about a model's weights: only `trained` numbers can be findings; `imported` vectors
 * (computed outside citebench, provenance unknown) are said to be so.
 */
export type Weights = 'lexical' | 'trained' | 'random' | 'imported';

export interface ModelInfo {
  name: string;
  kind: 'bm25' | 'dense' | 'navigation' | 'profiler' | 'rerank';
  weights: Weights;
  /** Settings that determine its output (BM25 parameters after tuning; dense pooling, distance, folder). */
  settings: Record<string, unknown>;
}

export interface ReadyModel extends ModelInfo {
  retriever: Retriever;
  /** Dense models: the loaded encoder (MDCR scores its pairs with it). */
  encoder?: Encoder;
  /** Dense models: their embedding store (the runner's encode stage fills it; a dense Profiler builds its profiles from it). */
  embeddings?: EmbeddingStore;
  /** Vectors imported from a file (kind embeddings): no encoder; `strict` = a pool article without a vector is an error. */
  imported?: { file: string; strict: boolean };
  release(): Promise<void>;
}

export interface SkippedModel {
  name: string;
  reason: string;
}

export function bm25Retriever(cfg: Bm25ModelConfig, params: { k1: number; b: number }, index: Bm25Index, store: CorpusStore, indexDir: string, threads: number): ReadyModel {
  const retriever = new Bm25Retriever(index, store, { params: { ...params, accurate: cfg.accurate }, tieKey: store.idOrder, threads, indexDir, name: cfg.name });
  return {
    name: cfg.name, kind: 'bm25', weights: 'lexical',
    settings: { k1: params.k1, b: params.b, accurate: cfg.accurate, ...(cfg.tune ? { tuned: true } : {}) },
    retriever, release: async () => {},
  };
}

/**
 * Random-weight folders (the test models of this project) must never pass for trained encoders: a folder
 * whose name says `random` is marked so, and so is one whose config.json says so.
 */
export function weightsOf(model: ResolvedModel): Weights {
  return /random/i.test(model.dir) ? 'random' : 'trained';
}

/** Resolve a dense model; a folder that is not there yet is a skip with the way to add it, not an error. */
/**
 * `log` is told when a checkpoint is converted (seconds for BERT-base, once per checkpoint) or downloaded;
 * `allowRemote` downloads a registry model or hub id whose folder is missing (`citebench run --allow-remote`).
 */
export async function resolveDense(cfg: DenseModelConfig, modelsDir: string | undefined, opts: { log?: (line: string) => void; allowRemote?: boolean } = {}): Promise<ResolvedModel | SkippedModel> {
  const overrides: Partial<ModelOptions> = {};
  if (cfg.pooling) overrides.pooling = cfg.pooling;
  if (cfg.distance) overrides.distance = cfg.distance;
  if (cfg.layers) overrides.layers = cfg.layers;
  if (cfg.maxLength) overrides.maxLength = cfg.maxLength;
  try {
    return await resolveModelAsync(cfg.model, { modelsDir: cfg.modelsDir ?? modelsDir, overrides, quantized: cfg.quantized, fp16: cfg.fp16, log: opts.log, allowRemote: opts.allowRemote });
  } catch (e) {
    if (!(e instanceof CitebenchError)) throw e;
    return { name: cfg.name, reason: e.message };
  }
}

export async function denseRetriever(cfg: DenseModelConfig, model: ResolvedModel, store: CorpusStore, corpusKey: string | undefined, workDir: string, threads: number, device?: Device): Promise<ReadyModel> {
  const encoder = await Encoder.load(model, { threads, device });
  // One store per (corpus, model fingerprint): a changed model folder can never reuse stale vectors.
  const embDir = join(workDir, 'embeddings', `${cfg.name}-${model.fingerprint.slice(0, 12)}`);
  const emb = EmbeddingStore.openOrCreate(embDir, {
    model: model.name, fingerprint: model.fingerprint, dim: encoder.dim, dtype: 'float32',
    kind: model.pooling === 'aspire' ? 'multi' : 'single', chunkSize: 4096,
    corpusSize: store.size, corpusKey, distance: model.distance,
  });
  const hnsw = cfg.hnsw ? { connectivity: cfg.hnsw.M, expansionAdd: cfg.hnsw.efConstruction, expansionSearch: cfg.hnsw.efSearch } : undefined;
  const retriever = new DenseRetriever({ name: cfg.name, store: emb, distance: model.distance, encoder, texts: store, hnsw, threads, tieKey: store.idOrder });
  return {
    name: cfg.name, kind: 'dense', weights: weightsOf(model),
    settings: { model: cfg.model, dir: resolve(model.dir), onnx: model.onnxFile.replace(/^.*\//, ''), weightFiles: weightFilesOf(model), pooling: model.pooling, distance: model.distance, layers: model.layers, maxLength: model.maxLength, hnsw: cfg.hnsw ?? false, fingerprint: model.fingerprint },
    retriever, encoder, embeddings: emb, release: () => encoder.release(),
  };
}

/**
 * The files a dense model's weights come from, with their SHA-256 (the report's metadata names them): the
 * checkpoint it was converted from, else its ONNX file.
 */
export function weightFilesOf(model: ResolvedModel): { file: string; sha256: string }[] {
  return model.checkpoint ?? [{ file: basename(model.onnxFile), sha256: fileContentHash(model.onnxFile) }];
}

export function isSkipped(x: ResolvedModel | SkippedModel): x is SkippedModel {
  return 'reason' in x;
}

export function modelKinds(models: ModelConfig[]): { bm25: boolean; dense: boolean } {
  return { bm25: models.some((m) => m.kind === 'bm25'), dense: models.some((m) => m.kind === 'dense') };
}

/** Models that rank with their own encoder or BM25 parameters (MDCR scores pairs with those alone). */
export function isBaseModel(m: ModelInfo): boolean {
  return m.kind === 'bm25' || m.kind === 'dense';
}


