/**
 * Dense encoders (retrieval/dense/): a registry name, Hugging Face id or model folder, encoded into an
 * embedding store per (corpus, model fingerprint) that the runner's encode stage fills before any cell. A folder
 * not on this machine is a recorded skip with the way to add it (docs/dense.md), not an error.
 */
import type { Reader } from '../config-reader.ts';
import { posInt, precision } from '../config-reader.ts';
import { basename, join, resolve } from 'node:path';
import type { CorpusStore } from '../../corpus/store.ts';
import { Encoder, type Device } from '../../retrieval/dense/encoder.ts';
import { fileContentHash, resolveModelAsync, type ModelOptions, type ResolvedModel } from '../../retrieval/dense/models.ts';
import { EmbeddingStore } from '../../retrieval/dense/store.ts';
import { DenseRetriever } from '../../retrieval/dense/retriever.ts';
import { CitebenchError } from '../../util/errors.ts';
import { isSkipped, weightsOf, type ReadyModel, type SkippedModel } from '../models.ts';
import type { KindEntry } from './types.ts';
import { UNIT, denseSeconds } from './cost.ts';
import { formatBytes } from '../../util/format.ts';
import { shardLabel } from '../../util/shard.ts';

export interface DenseModelConfig {
  kind: 'dense';
  name: string;
  /** Registry name (scibert, specter, scincl, aspire-bm, aspire-cs), Hugging Face id or model folder. */
  model: string;
  modelsDir?: string;
  pooling?: 'cls' | 'mean' | 'aspire';
  distance?: 'l2' | 'ip';
  layers?: 'all' | 'last';
  maxLength?: number;
  quantized: boolean;
  /** Load onnx/model_fp16.onnx (float16 compute, for GPUs) where the folder has it; else model.onnx. */
  fp16?: boolean;
  hnsw?: { M: number; efConstruction: number; efSearch: number };
}

export const dense: KindEntry<DenseModelConfig> = {
  kind: 'dense',
  about: 'a transformer encoder (registry name, hub id or folder), exact or HNSW search over its embedding store',
  needs: { encode: true },
  fallback: true,
  skipHint: 'docs/dense.md says how to add it',
  parse(r: Reader, p: string[], name: string): DenseModelConfig {
    r.checkKeys(p, ['kind', 'model', 'modelsDir', 'pooling', 'distance', 'layers', 'maxLength', 'quantized', 'fp16', 'hnsw']);
    const oneOf = <T extends string>(key: string, allowed: readonly T[]): T | undefined => {
      const v = r.str([...p, key]);
      if (v !== undefined && !allowed.includes(v as T)) r.fail([...p, key], `must be one of ${allowed.join(', ')}, got '${v}'`);
      return v as T | undefined;
    };
    let hnsw: DenseModelConfig['hnsw'];
    if (r.has([...p, 'hnsw']) && r.raw([...p, 'hnsw']) !== false) {
      const h = [...p, 'hnsw'];
      if (r.raw(h) !== true) r.checkKeys(h, ['M', 'efConstruction', 'efSearch']);
      hnsw = {
        M: r.num([...h, 'M'], 32, posInt, 'a positive integer'),
        efConstruction: r.num([...h, 'efConstruction'], 200, posInt, 'a positive integer'),
        efSearch: r.num([...h, 'efSearch'], 1000, posInt, 'a positive integer'),
      };
    }
    return {
      kind: 'dense', name,
      model: r.str([...p, 'model'], name)!,
      modelsDir: r.str([...p, 'modelsDir']),
      pooling: oneOf('pooling', ['cls', 'mean', 'aspire'] as const),
      distance: oneOf('distance', ['l2', 'ip'] as const),
      layers: oneOf('layers', ['all', 'last'] as const),
      maxLength: r.has([...p, 'maxLength']) ? r.num([...p, 'maxLength'], undefined, (n) => Number.isInteger(n) && n >= 8, 'an integer ≥ 8') : undefined,
      quantized: r.bool([...p, 'quantized'], false),
      ...precision(r, p),
      hnsw,
    };
  },
  describe: (c) => `, ${c.model}`,
  async build(c, ctx) {
    const resolved = await resolveDense(c, ctx.cfg.modelsDir, { log: (line) => ctx.log(`[models] ${c.name}: ${line}`), allowRemote: ctx.allowRemote });
    if (isSkipped(resolved)) return resolved;
    return denseRetriever(c, resolved, ctx.store, ctx.corpusKey, ctx.cfg.work, ctx.threads, ctx.device);
  },
  cost: {
    perQuery: (_c, _env, pool) => denseSeconds(pool),
    // The pool's vectors in memory while a cell searches them.
    perGroup: (_c, _env, pool) => ({ seconds: 0, bytes: pool * UNIT.dim * 4 }),
    rescore: () => denseSeconds(1),
    // Encoding holds the model and a batch (~1.9 GB measured for BERT-base); the vectors go to disk chunk by chunk.
    stages: (c, _env, poolArticles) => [{ stage: `encode ${c.name}: ${poolArticles} articles, BERT-base on CPU (${formatBytes(poolArticles * UNIT.dim * 4)} on disk)`, seconds: poolArticles * UNIT.encodePerArticle, bytes: UNIT.bertBytes }],
  },
};

/** Resolve a dense model; a folder that is not there yet is a skip with the way to add it, not an error. */
/**
 * `log` is told when a checkpoint is converted (seconds for BERT-base, once per checkpoint) or downloaded;
 * `allowRemote` downloads a registry model or hub id whose folder is missing (`citebench run --allow-remote`).
 */
async function resolveDense(cfg: DenseModelConfig, modelsDir: string | undefined, opts: { log?: (line: string) => void; allowRemote?: boolean } = {}): Promise<ResolvedModel | SkippedModel> {
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

async function denseRetriever(cfg: DenseModelConfig, model: ResolvedModel, store: CorpusStore, corpusKey: string | undefined, workDir: string, threads: number, device?: Device): Promise<ReadyModel> {
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
    retriever, firstStage: true, release: () => encoder.release(),
    // Every article the plan searches, encoded before any cell (a shard: chunks c mod N = I of the store).
    async prepare(plan, opts) {
      const now = await opts.timed(`encode ${cfg.name}`, () => emb.encodeMissing(encoder, store, plan.all, { shard: opts.shard }));
      opts.log(`[encode] ${cfg.name}: ${now} articles encoded now (${shardLabel(opts.shard)} of the ${plan.all.length} the plan searches)`);
      return now;
    },
  };
}

/**
 * The files a dense model's weights come from, with their SHA-256 (the report's metadata names them): the
 * checkpoint it was converted from, else its ONNX file.
 */
function weightFilesOf(model: ResolvedModel): { file: string; sha256: string }[] {
  return model.checkpoint ?? [{ file: basename(model.onnxFile), sha256: fileContentHash(model.onnxFile) }];
}
