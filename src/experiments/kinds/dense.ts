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
import { fileContentHash, resolveModelAsync, type ModelOverrides, type ResolvedModel } from '../../retrieval/dense/models.ts';
import { DenseRetriever } from '../../retrieval/dense/retriever.ts';
import { encodeRoles, openModelStores, supersededStores, vectorStoreDir } from '../../retrieval/dense/role-stores.ts';
import { poolingModes } from '../../retrieval/dense/pooling.ts';
import { DISTANCE_HELP, distanceOf, type Distance } from '../../retrieval/dense/similarity.ts';
import type { RolePrompts } from '../../retrieval/dense/prompts.ts';
import { knownModel } from '../../retrieval/dense/registry.ts';
import { CitebenchError } from '../../util/errors.ts';
import { isSkipped, weightsOf, type ReadyModel, type SkippedModel } from '../models.ts';
import type { KindEntry, Resource } from './types.ts';
import { UNIT, denseSeconds } from './cost.ts';
import { formatBytes } from '../../util/format.ts';
import { shardLabel } from '../../util/shard.ts';

export interface DenseModelConfig {
  kind: 'dense';
  name: string;
  /** Registry name (scibert, specter, scincl, aspire-biomed, aspire-compsci, specter2, …), Hugging Face id or model folder. */
  model: string;
  modelsDir?: string;
  pooling?: string;
  distance?: Distance;
  /** Prompts of the query and document roles, over the folder's ("" = none). */
  prompts?: Partial<RolePrompts>;
  /** A task adapter (adapters library format): a folder or a hub id, over the registry's. */
  adapter?: string;
  /** Hub revisions to download with --allow-remote (default main). */
  revision?: string;
  adapterRevision?: string;
  layers?: 'all' | 'last';
  maxLength?: number;
  /** Matryoshka: the first N dimensions of each vector, over the folder's truncate_dim. */
  truncateDim?: number;
  quantized: boolean;
  /** Load onnx/model_fp16.onnx (float16 compute, for GPUs) where the folder has it; else model.onnx. */
  fp16?: boolean;
  hnsw?: { M: number; efConstruction: number; efSearch: number };
}

/** An encode stage: the ready model's `prepare` encodes the plan's articles (nothing to make beforehand on a store of its own). */
export const encodeResource: Resource = { name: 'encode', about: 'an encode stage (embedding stores of the articles the plan searches)' };

export const dense: KindEntry<DenseModelConfig> = {
  kind: 'dense',
  about: 'a transformer encoder (registry name, hub id or folder), exact or HNSW search over its embedding store',
  needs: [encodeResource],
  fallback: true,
  skipHint: 'docs/dense.md says how to add it',
  parse(r: Reader, p: string[], name: string): DenseModelConfig {
    r.checkKeys(p, ['kind', 'model', 'modelsDir', 'pooling', 'distance', 'prompts', 'adapter', 'revision', 'adapterRevision', 'layers', 'maxLength', 'truncateDim', 'quantized', 'fp16', 'hnsw']);
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
    const pooling = r.str([...p, 'pooling']);
    if (pooling !== undefined && !poolingModes(pooling)) r.fail([...p, 'pooling'], `must be aspire or cls, mean, max, lasttoken, mean_sqrt_len_tokens, weightedmean (several joined by '+'), got '${pooling}'`);
    const dist = r.str([...p, 'distance']);
    if (dist !== undefined && !distanceOf(dist)) r.fail([...p, 'distance'], `must be one of ${DISTANCE_HELP}, got '${dist}'`);
    let prompts: Partial<RolePrompts> | undefined;
    if (r.has([...p, 'prompts'])) {
      r.checkKeys([...p, 'prompts'], ['query', 'document']);
      prompts = {};
      for (const role of ['query', 'document'] as const) {
        if (!r.has([...p, 'prompts', role])) continue;
        const v = r.raw([...p, 'prompts', role]);
        if (typeof v !== 'string') r.fail([...p, 'prompts', role], `must be a string (the text in front of a ${role} article; '' for none), got ${JSON.stringify(v)}`);
        prompts[role] = v;
      }
    }
    return {
      kind: 'dense', name,
      model: r.str([...p, 'model'], name)!,
      modelsDir: r.str([...p, 'modelsDir']),
      pooling,
      distance: dist === undefined ? undefined : distanceOf(dist),
      ...(prompts ? { prompts } : {}),
      adapter: r.str([...p, 'adapter']),
      revision: r.str([...p, 'revision']),
      adapterRevision: r.str([...p, 'adapterRevision']),
      layers: oneOf('layers', ['all', 'last'] as const),
      maxLength: r.has([...p, 'maxLength']) ? r.num([...p, 'maxLength'], undefined, (n) => Number.isInteger(n) && n >= 8, 'an integer ≥ 8') : undefined,
      ...(r.has([...p, 'truncateDim']) ? { truncateDim: r.num([...p, 'truncateDim'], undefined, posInt, 'a positive integer') } : {}),
      quantized: r.bool([...p, 'quantized'], false),
      ...precision(r, p),
      hnsw,
    };
  },
  describe: (c) => `, ${c.model}`,
  async build(c, ctx) {
    const resolved = await resolveDense(c, ctx.cfg.modelsDir, { log: (line) => ctx.log(`[models] ${c.name}: ${line}`), allowRemote: ctx.allowRemote });
    if (isSkipped(resolved)) return resolved;
    return denseRetriever(c, resolved, ctx.store, ctx.corpusKey, ctx.cfg.work, ctx.threads, ctx.device, (line) => ctx.log(`[models] ${c.name}: ${line}`));
  },
  cost: {
    perQuery: (c, _env, pool) => denseSeconds(pool) * (encodeProfile(c).dim / UNIT.dim),
    // The pool's vectors in memory while a cell searches them.
    perGroup: (c, _env, pool) => ({ seconds: 0, bytes: pool * encodeProfile(c).dim * 4 }),
    rescore: (c) => denseSeconds(1) * (encodeProfile(c).dim / UNIT.dim),
    // Encoding holds the model and a batch; the vectors go to disk chunk by chunk.
    stages: (c, _env, poolArticles) => {
      const p = encodeProfile(c);
      return [{ stage: `encode ${c.name}: ${poolArticles} articles, ${p.label} on CPU (${formatBytes(poolArticles * p.dim * 4)} on disk)`, seconds: poolArticles * p.perArticle, bytes: p.bytes }];
    },
  },
};

/**
 * What encoding with a model costs on the development machine's CPU: a registry entry's measured rate in tokens/s
 * (registry.ts `encodeRate`, float32 or int8 as the config asks) over an article's tokens, else BERT-base's
 * measured rate (UNIT); and its memory: the process and a batch plus the weights as the session holds them.
 */
export function encodeProfile(c: Pick<DenseModelConfig, 'model' | 'quantized'>): { label: string; perArticle: number; bytes: number; dim: number } {
  const known = knownModel(c.model);
  if (!known?.encodeRate || !known.params) return { label: 'BERT-base', perArticle: UNIT.encodePerArticle, bytes: UNIT.bertBytes, dim: UNIT.dim };
  const rate = c.quantized ? known.encodeRate.int8 : known.encodeRate.fp32;
  return {
    label: `${known.name} (${known.params >= 1000 ? `${(known.params / 1000).toFixed(1)} B` : `${known.params} M`} parameters, ${c.quantized ? 'int8' : 'float32'}, ${Math.round(rate)} tokens/s${known.encodeRate.estimated ? ' estimated' : ''})`,
    perArticle: UNIT.articleTokens / rate,
    bytes: UNIT.encodeFixedBytes + known.params * 1e6 * (c.quantized ? 1 : 4) * UNIT.encodeWeightCopies,
    dim: known.dim ?? UNIT.dim,
  };
}

/** Resolve a dense model; a folder that is not there yet is a skip with the way to add it, not an error. */
/**
 * `log` is told when a checkpoint is converted (seconds for BERT-base, once per checkpoint) or downloaded;
 * `allowRemote` downloads a registry model or hub id whose folder is missing (`citebench run --allow-remote`).
 */
async function resolveDense(cfg: DenseModelConfig, modelsDir: string | undefined, opts: { log?: (line: string) => void; allowRemote?: boolean } = {}): Promise<ResolvedModel | SkippedModel> {
  const overrides: ModelOverrides = {};
  if (cfg.pooling) overrides.pooling = cfg.pooling;
  if (cfg.distance) overrides.distance = cfg.distance;
  if (cfg.layers) overrides.layers = cfg.layers;
  if (cfg.maxLength) overrides.maxLength = cfg.maxLength;
  if (cfg.truncateDim) overrides.truncateDim = cfg.truncateDim;
  if (cfg.prompts) overrides.prompts = cfg.prompts;
  if (cfg.adapter) overrides.adapter = cfg.adapter;
  try {
    return await resolveModelAsync(cfg.model, {
      modelsDir: cfg.modelsDir ?? modelsDir, overrides, quantized: cfg.quantized, fp16: cfg.fp16, log: opts.log, allowRemote: opts.allowRemote,
      ...(opts.allowRemote ? { revision: cfg.revision, adapterRevision: cfg.adapterRevision } : {}),
    });
  } catch (e) {
    if (!(e instanceof CitebenchError)) throw e;
    return { name: cfg.name, reason: e.message };
  }
}

async function denseRetriever(cfg: DenseModelConfig, model: ResolvedModel, store: CorpusStore, corpusKey: string | undefined, workDir: string, threads: number, device?: Device, log?: (line: string) => void): Promise<ReadyModel> {
  const encoder = await Encoder.load(model, { threads, device });
  // Stores per (corpus, model fingerprint), one per role when the prompts differ: a changed model folder or
  // prompt can never reuse stale vectors, and a query vector never serves as a document vector.
  const embDir = vectorStoreDir(join(workDir, 'embeddings'), cfg.name, model.fingerprint);
  const older = supersededStores(embDir);
  if (older.length) log?.(`vectors encoded again into ${embDir}: ${older.join(', ')} hold${older.length === 1 ? 's' : ''} another fingerprint of the model (its files or settings changed, or an older citebench fingerprinted them)`);
  const stores = openModelStores(embDir, model, { corpusSize: store.size, corpusKey, chunkSize: 4096 });
  const hnsw = cfg.hnsw ? { connectivity: cfg.hnsw.M, expansionAdd: cfg.hnsw.efConstruction, expansionSearch: cfg.hnsw.efSearch } : undefined;
  const retriever = new DenseRetriever({ name: cfg.name, store: stores.document, queryStore: stores.query, distance: model.distance, encoder, texts: store, hnsw, threads, tieKey: store.idOrder });
  return {
    name: cfg.name, kind: 'dense', weights: weightsOf(model),
    settings: {
      model: cfg.model, dir: resolve(model.dir), onnx: model.onnxFile.replace(/^.*\//, ''), weightFiles: weightFilesOf(model), pooling: model.pooling, distance: model.distance, layers: model.layers, maxLength: model.maxLength, hnsw: cfg.hnsw ?? false, fingerprint: model.fingerprint,
      ...(model.architecture !== undefined ? { architecture: model.architecture } : {}),
      dim: model.dim,
      ...(model.folder === 'sentence-transformers' ? { folder: model.folder, normalize: model.normalize, includePrompt: model.includePrompt } : {}),
      ...(model.dense?.length ? { dense: model.dense.map((d) => `${d.inFeatures}→${d.outFeatures}${d.bias ? '+b' : ''} ${d.activation.split('.').pop()}`) } : {}),
      ...(model.truncateDim !== undefined ? { truncateDim: model.truncateDim } : {}),
      ...(model.prompts.query || model.prompts.document ? { prompts: model.prompts, promptSource: model.promptSource } : {}),
      ...(model.sources ? { sources: model.sources } : {}),
    },
    summary: denseSummary(model),
    retriever, firstStage: true, release: () => encoder.release(),
    // Every article the plan searches, encoded before any cell (a shard: chunks c mod N = I of each store):
    // queries in the query role, pool articles in the document role (one pass over the union for one store).
    async prepare(plan, opts) {
      const now = await opts.timed(`encode ${cfg.name}`, () => encodeRoles(stores, encoder, store, plan.queries, plan.pool, { shard: opts.shard }));
      opts.log(`[encode] ${cfg.name}: ${now} articles encoded now (${shardLabel(opts.shard)} of the ${plan.all.length} the plan searches)`);
      return now;
    },
  };
}

/** What a reader of the report needs to know of a dense model: architecture, pooling and modules, dimension, distance, prompts. */
export function denseSummary(m: ResolvedModel): string {
  const modules = [m.pooling === 'aspire' ? `ASPIRE sentence vectors (${m.layers} layers)` : `${m.pooling} pooling`, ...(m.dense ?? []).map((d) => `Dense ${d.inFeatures}→${d.outFeatures}`), ...(m.normalize ? ['Normalize'] : [])];
  const quote = (t: string) => (t ? JSON.stringify(t.length > 60 ? `${t.slice(0, 57)}…` : t) : 'none');
  const prompts = m.prompts.query || m.prompts.document ? `, prompts query ${quote(m.prompts.query)} / document ${quote(m.prompts.document)}` : '';
  return `${m.architecture ?? 'onnx'}, ${modules.join(' → ')}, dim ${m.dim}${m.truncateDim !== undefined ? ' (truncated)' : ''}, ${m.distance}${prompts}`;
}

/**
 * The files a dense model's weights come from, with their SHA-256 (the report's metadata names them): the
 * checkpoint it was converted from, else its ONNX file.
 */
function weightFilesOf(model: ResolvedModel): { file: string; sha256: string }[] {
  const own = model.checkpoint ?? [{ file: basename(model.onnxFile), sha256: fileContentHash(model.onnxFile) }];
  return model.adapter ? [...own, ...model.adapter.files.map((f) => ({ file: `adapter ${f.file}`, sha256: f.sha256 }))] : own;
}
