/**
 * Resolving a `--model` argument — a registry name (registry.ts), a model folder, or a hub id `ORG/NAME` — to a
 * loadable local model: its folder (a plain transformers folder or a sentence-transformers one, st-folder.ts),
 * weights (an ONNX file, or a checkpoint converted once, optionally with a task adapter), pooling, distance,
 * length, and the prompts of its query and document roles (prompts.ts). Only with `allowRemote`
 * (`--allow-remote`) does `resolveModelAsync` download a missing folder or adapter from the hub (hub/).
 */
import { identity } from '../../util/identity.ts';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { CitebenchError, InputError } from '../../util/errors.ts';
import { downloadAdapter, downloadModel, ADAPTER_WEIGHT_FILES, PYTORCH_WEIGHT_FILES } from './hub/download.ts';
import { hubFolderName, isHubId } from './hub/ids.ts';
import { DOWNLOAD_RECORD, readDownloadRecord } from './hub/record.ts';
import { onnxNames, type OnnxVariant } from './onnx-variant.ts';
import { fileContentHash } from './file-hash.ts';
import { convertCheckpoint } from './convert.ts';
import { checkpointFiles } from './checkpoint/index.ts';
import { tokenizerFiles } from './wordpiece.ts';
import { KNOWN_MODELS, knownModel, type KnownModel, type ModelOptions } from './registry.ts';
import { parsePooling, poolingModes, pooledDim, type PoolingSpec } from './pooling.ts';
import { rolePrompts, symmetric, type PromptSource, type Role, type RolePrompts } from './prompts.ts';
import { readStFolder } from './st-folder.ts';
import { loadDense, type DenseSpec } from './st-dense.ts';
import { DISTANCES, type Distance } from './similarity.ts';

export { fileContentHash } from './file-hash.ts';
export type { Distance } from './similarity.ts';
export type { Pooling } from './pooling.ts';

/** Overrides of a model's defaults (flags, a config's keys). */
export interface ModelOverrides extends Partial<ModelOptions> {
  /** Prompts of either role, over the folder's (an empty string: no prompt). */
  prompts?: Partial<RolePrompts>;
  /** A task adapter (adapters library format): a folder or a hub id ORG/NAME, over the registry's. */
  adapter?: string;
}

export interface ResolvedModel extends ModelOptions {
  /** Registry name, or the folder's base name for custom models. */
  name: string;
  /** The folder named (a sentence-transformers folder's root). */
  dir: string;
  /** Where config.json, the tokenizer and the weights are: `dir`, or the Transformer module's subfolder. */
  transformerDir: string;
  /** How the folder was read: its modules (sentence-transformers) or as a plain transformers folder. */
  folder: 'sentence-transformers' | 'transformers';
  onnxFile: string;
  hiddenSize: number;
  /** Dimensions of an article vector (pooling modes × hidden size, or truncate_dim). */
  dim: number;
  /** config.json's model_type (bert, qwen3, gemma3_text, …): for reports. */
  architecture?: string;
  /** Dense modules after pooling (sentence-transformers; weights read when an encoder is made). */
  dense?: DenseSpec[];
  /** Normalize module, include_prompt, truncate_dim and do_lower_case (sentence-transformers; defaults otherwise). */
  normalize: boolean;
  includePrompt: boolean;
  truncateDim?: number;
  lowercase: boolean;
  /** The prompt in front of each role's text ("" = none) and where it came from. */
  prompts: RolePrompts;
  promptSource: PromptSource;
  /** Hash of weights, tokenizer, text and pooling settings and both prompts: vectors of another fingerprint never mix. */
  fingerprint: string;
  /** The store key of each role's vectors: the fingerprint itself for a model whose two prompts are equal. */
  roleFingerprint: Record<Role, string>;
  /** Set when `onnxFile` was converted from the folder's PyTorch/safetensors checkpoint: its files and their SHA-256. */
  checkpoint?: { file: string; sha256: string }[];
  /** The task adapter added to the checkpoint: its folder and files with their SHA-256. */
  adapter?: { dir: string; files: { file: string; sha256: string }[] };
  /** Hub downloads the model and adapter came from (citebench-download.json): repo, revision, commit. */
  sources?: { of: 'model' | 'adapter'; repo: string; revision: string; commit?: string }[];
}

function exportHint(hfId: string, dir: string): string {
  return (
    `A model folder holds config.json, tokenizer.json or vocab.txt, and weights: a checkpoint as the hub\n` +
    `publishes it (model.safetensors or pytorch_model.bin, converted by citebench itself) or an ONNX export;\n` +
    `a sentence-transformers folder adds its modules.json. --allow-remote downloads ${hfId} into ${dir}.\n` +
    `For architectures citebench does not convert, export ONNX (on a machine with Python):\n` +
    `  pip install "optimum[exporters]" && optimum-cli export onnx --model ${hfId} --task feature-extraction ${dir}/\n` +
    `Then pass --model ${dir}, or put the folder at <models-dir>/<name>/ (default ./models, or $CITEBENCH_MODELS)\n` +
    `and pass the name (docs/dense.md).`
  );
}

export function pickOnnx(dir: string, prefer: OnnxVariant): string | undefined {
  for (const n of onnxNames(prefer)) for (const p of [join(dir, 'onnx', n), join(dir, n)]) if (existsSync(p)) return p;
  return undefined;
}

export interface ResolveOptions {
  /** Folder that holds one sub-folder per registry name (default: ./models, or $CITEBENCH_MODELS). */
  modelsDir?: string;
  /** Overrides of the registry's (or the folder's) settings. */
  overrides?: ModelOverrides;
  /** Prefer onnx/model_quantized.onnx when both exist (default false: fp32 first). */
  quantized?: boolean;
  /** Prefer onnx/model_fp16.onnx (float16 weights and compute, for GPUs) when the folder has it. Not with `quantized`. */
  fp16?: boolean;
  /**
   * Download a missing model or adapter from the Hugging Face hub (`resolveModelAsync` only; default false:
   * nothing touches the network). Endpoint: $HF_ENDPOINT or https://huggingface.co; $HF_TOKEN is sent as a bearer token.
   */
  allowRemote?: boolean;
  /** Hub revision of the model to download (default `main`); with allowRemote only. */
  revision?: string;
  /** Hub revision of the adapter to download (default `main`); with allowRemote only. */
  adapterRevision?: string;
  /** Download progress on stderr (default: stderr is a TTY). */
  progress?: boolean;
  /** Download and conversion lines. */
  log?: (line: string) => void;
}

interface Location {
  dir: string;
  /** A registry entry's settings over the folder's (registry.ts `presets`). */
  presets?: KnownModel['presets'];
  base: ModelOptions & { name: string };
  /** Hub repo the folder can be downloaded from: a registry name's hfId or an `ORG/NAME` argument. */
  repo?: string;
  /** Hub id for messages. */
  hf: string;
  /** The registry's adapter (a hub id). */
  adapter?: string;
}

const CUSTOM_DEFAULTS: ModelOptions = { pooling: 'cls', distance: 'l2', maxLength: 512, layers: 'all' };

export function modelsDirOf(opts: Pick<ResolveOptions, 'modelsDir'>): string {
  return opts.modelsDir ?? process.env.CITEBENCH_MODELS ?? 'models';
}

/**
 * The hub repo named by a `--model` argument that is `ORG/NAME` and not a local path, else undefined.
 * Such a model lives in `<models-dir>/ORG--NAME/`.
 */
export function hubRepoOf(nameOrDir: string): string | undefined {
  if (knownModel(nameOrDir)) return undefined;
  return isHubId(nameOrDir) && !existsSync(resolve(nameOrDir)) ? nameOrDir : undefined;
}

/** Where a registry name, folder or `ORG/NAME` hub id lives on disk, and its default options. */
function locate(nameOrDir: string, modelsDir: string): Location {
  const known = knownModel(nameOrDir);
  if (known) return { dir: resolve(modelsDir, known.folder ?? known.name), base: known, repo: known.hfId, hf: known.hfId, adapter: known.adapter, presets: known.presets };
  const at = locateModelFolder(nameOrDir, modelsDir, { names: KNOWN_MODELS.map((m) => m.name), find: () => undefined, hint: exportHint('allenai/specter', 'specter-onnx') });
  if (at.repo) {
    // A paper model named by its hub id keeps the registry's pooling and distance.
    const same = KNOWN_MODELS.find((m) => m.hfId === at.repo && !m.adapter);
    return { dir: at.dir, base: { ...(same ?? CUSTOM_DEFAULTS), name: at.name }, repo: at.repo, hf: at.repo };
  }
  return { dir: at.dir, base: { ...CUSTOM_DEFAULTS, name: at.name }, hf: 'ORG/MODEL' };
}

/** A registry for locateModelFolder: its names (for the message), lookup, and what to say when nothing is found. */
export interface FolderRegistry<T extends { name: string; hfId: string; folder?: string }> {
  names: string[];
  find(name: string): T | undefined;
  hint?: string;
}

/**
 * The one rule for where a model argument lives (encoders here, rerankers in rerank/load.ts): a registry name in
 * `<modelsDir>/<folder or name>/`, a hub id `ORG/NAME` that is not a local path in `<modelsDir>/ORG--NAME/`, else a
 * folder that must exist. `repo`: the hub repo it can be downloaded from.
 */
export function locateModelFolder<T extends { name: string; hfId: string; folder?: string }>(
  nameOrDir: string,
  modelsDir: string,
  registry: FolderRegistry<T>,
): { dir: string; name: string; repo?: string; known?: T } {
  const known = registry.find(nameOrDir);
  if (known) return { dir: resolve(modelsDir, known.folder ?? known.name), name: known.name, repo: known.hfId, known };
  if (isHubId(nameOrDir) && !existsSync(resolve(nameOrDir))) {
    const name = hubFolderName(nameOrDir);
    return { dir: resolve(modelsDir, name), name, repo: nameOrDir };
  }
  const dir = resolve(nameOrDir);
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new CitebenchError(`unknown model '${nameOrDir}': not one of ${registry.names.join(', ')}, not a folder and not a Hugging Face id ORG/NAME.` + (registry.hint ? `\n${registry.hint}` : ''));
  return { dir, name: basename(dir) };
}

/**
 * With allowRemote, download hub `repo` into `dir` when the folder does not exist yet (atomically, resumably;
 * its citebench-download.json records repo, revision and commit); an existing download of another revision is
 * refused. Without allowRemote nothing happens.
 */
export async function fetchModelFolder(
  repo: string | undefined,
  dir: string,
  opts: Pick<ResolveOptions, 'allowRemote' | 'revision' | 'progress' | 'log' | 'fp16' | 'quantized'> & { checkpoint?: boolean; hint?: string },
): Promise<void> {
  if (!opts.allowRemote || !repo) return;
  if (!existsSync(dir))
    await downloadModel(repo, dir, {
      progress: opts.progress,
      log: opts.log,
      revision: opts.revision,
      variant: opts.fp16 ? 'fp16' : opts.quantized ? 'quantized' : 'fp32',
      checkpoint: opts.checkpoint ?? false,
      hint: opts.hint ?? exportHint(repo, dir),
    });
  else checkRevision(dir, repo, opts.revision);
}

/** An adapter argument (folder or ORG/NAME) as a folder, and the hub repo it can be downloaded from. */
function locateAdapter(arg: string, modelsDir: string): { dir: string; repo?: string } {
  const local = resolve(arg);
  if (existsSync(local)) return { dir: local };
  if (isHubId(arg)) return { dir: resolve(modelsDir, hubFolderName(arg)), repo: arg };
  throw new CitebenchError(`adapter '${arg}': no such folder, and not a Hugging Face id ORG/NAME`);
}

/** An adapter folder's files (adapters library format), checked to be there. */
function adapterFiles(dir: string, repo: string | undefined, allowRemote: boolean): string[] {
  const why = !existsSync(dir)
    ? 'does not exist'
    : !existsSync(join(dir, 'adapter_config.json'))
      ? 'has no adapter_config.json'
      : !ADAPTER_WEIGHT_FILES.some((f) => existsSync(join(dir, f)))
        ? `has no adapter weights (${ADAPTER_WEIGHT_FILES.join(' or ')})`
        : undefined;
  if (why)
    throw new CitebenchError(
      `adapter folder ${dir} ${why}` + (repo ? (allowRemote ? '' : ` (--allow-remote downloads ${repo} from the Hugging Face hub)`) : ' (an adapter saved by the adapters library holds adapter_config.json and adapter.safetensors or pytorch_adapter.bin)'),
    );
  const weights = ADAPTER_WEIGHT_FILES.map((f) => join(dir, f)).find((f) => existsSync(f))!;
  return [join(dir, 'adapter_config.json'), weights];
}

function readHiddenSize(configPath: string): { hiddenSize: number; architecture?: string } {
  try {
    const cfg = JSON.parse(readFileSync(configPath, 'utf8')) as { hidden_size?: unknown; model_type?: unknown };
    if (typeof cfg.hidden_size !== 'number' || !Number.isInteger(cfg.hidden_size) || cfg.hidden_size < 1) throw new Error('no positive integer hidden_size');
    return { hiddenSize: cfg.hidden_size, ...(typeof cfg.model_type === 'string' ? { architecture: cfg.model_type } : {}) };
  } catch (e) {
    throw new CitebenchError(`${configPath}: cannot read hidden_size (${(e as Error).message})`);
  }
}

/**
 * A sentence-transformers folder's length when sentence_bert_config.json sets none: the tokenizer's
 * model_max_length capped by config.json max_position_embeddings (6.x base/modules/transformer.py).
 */
export function tokenizerLimit(transformerDir: string): number | undefined {
  const num = (path: string, key: string): number | undefined => {
    try {
      const v = (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>)[key];
      return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
    } catch {
      return undefined;
    }
  };
  const tok = num(join(transformerDir, 'tokenizer_config.json'), 'model_max_length');
  const pos = num(join(transformerDir, 'config.json'), 'max_position_embeddings');
  const lim = Math.min(tok !== undefined && tok < 1e29 ? tok : Infinity, pos ?? Infinity);
  return Number.isFinite(lim) ? lim : undefined;
}

/**
 * Resolve a registry name, a model folder or a hub id `ORG/NAME` (looked up as `<models-dir>/ORG--NAME/`) to a
 * loadable local model. Never touches the network. Throws a CitebenchError with export instructions when
 * nothing usable is found.
 */
export function resolveModel(nameOrDir: string, opts: ResolveOptions = {}): ResolvedModel {
  const modelsDir = modelsDirOf(opts);
  const { dir, base, repo, hf, adapter: knownAdapter, presets } = locate(nameOrDir, modelsDir);
  const over = opts.overrides ?? {};
  if (opts.fp16 && opts.quantized) throw new CitebenchError(`model '${nameOrDir}': fp16 and quantized exclude each other`);
  const present = existsSync(dir);
  const st = present ? readStFolder(dir) : undefined;
  const tdir = st?.transformerDir ?? dir;
  const configPath = join(tdir, 'config.json');
  // tokenizer.json, or vocab.txt (+ its configs) from which tokenizer.ts builds BertTokenizerFast's tokenizer.
  const tok = existsSync(tdir) ? tokenizerFiles(tdir) : undefined;
  const adapterArg = over.adapter ?? knownAdapter;
  const adapter = adapterArg !== undefined ? locateAdapter(adapterArg, modelsDir) : undefined;
  const adapterList = adapter ? adapterFiles(adapter.dir, adapter.repo, opts.allowRemote ?? false) : undefined;
  if (adapter && opts.fp16) throw new CitebenchError(`model '${nameOrDir}': an adapter is added to the checkpoint's float32 graph; --fp16-model does not apply`);
  // Gemma's activations overflow float16 (NaN vectors, transformers #36822): it is computed in float32 (or int8 weights).
  if (opts.fp16 && present && existsSync(configPath)) {
    const type = (() => {
      try {
        return (JSON.parse(readFileSync(configPath, 'utf8')) as { model_type?: unknown }).model_type;
      } catch {
        return undefined;
      }
    })();
    if (typeof type === 'string' && /^gemma/.test(type))
      throw new InputError(configPath, undefined, 'model_type', `${type}: Gemma models are computed in float32 (or with int8 weights), never float16 — their activations overflow it (NaN vectors; transformers #36822); drop --fp16-model / fp16: true`);
  }
  // An adapter is added while converting the checkpoint: an ONNX export in the folder cannot take it.
  let onnxFile = present && !adapter ? pickOnnx(tdir, opts.fp16 ? 'fp16' : opts.quantized ? 'quantized' : 'fp32') : undefined;
  // No ONNX file: a checkpoint as the hub publishes it (safetensors or pytorch_model.bin) is converted once
  // into the folder's cache (convert.ts); an architecture it does not build is refused there in one line.
  const checkpoint = present && !onnxFile && existsSync(configPath) && tok ? checkpointFiles(tdir) : undefined;
  if (adapter && present && existsSync(configPath) && !checkpoint)
    throw new CitebenchError(`model '${nameOrDir}': ${tdir} has no checkpoint (${PYTORCH_WEIGHT_FILES.join(', ')}) to add the adapter ${adapter.dir} to`);
  if (checkpoint) onnxFile = convertCheckpoint(tdir, { quantize: opts.quantized, log: opts.log, ...(adapter ? { adapter: adapter.dir } : {}) });
  if (!present || !existsSync(configPath) || !tok || !onnxFile) {
    const missing = !present
      ? `${repo === nameOrDir ? `no local folder '${nameOrDir}', and ` : ''}folder ${dir} does not exist`
      : `folder ${tdir} lacks ${[
          !existsSync(configPath) && 'config.json',
          !tok && 'tokenizer.json or vocab.txt',
          !onnxFile && `weights (onnx/model.onnx, or a checkpoint: ${PYTORCH_WEIGHT_FILES.join(', ')})`,
        ]
          .filter(Boolean)
          .join(', ')}`;
    const remote = !repo
      ? ''
      : !opts.allowRemote
        ? ` (--allow-remote downloads ${repo} from the Hugging Face hub)`
        : present
          ? ` (--allow-remote downloads only into a folder that does not exist: remove ${dir} to download ${repo})`
          : ` (resolveModel never downloads: use resolveModelAsync with allowRemote)`;
    throw new CitebenchError(`model '${nameOrDir}' (${hf}) is not available locally: ${missing}${remote}.\n` + exportHint(hf, dir));
  }
  const { hiddenSize, architecture } = readHiddenSize(configPath);

  // Settings: overrides, else the sentence-transformers folder's, else the registry's (or custom defaults).
  const pooling = parsePooling(over.pooling ?? (st ? st.pooling.modes.join('+') : base.pooling), over.pooling !== undefined ? 'pooling' : `${dir}: pooling`);
  const distance = over.distance ?? (st ? st.similarity : base.distance);
  if (!DISTANCES.includes(distance)) throw new CitebenchError(`unknown distance '${distance}' (${DISTANCES.join(', ')})`);
  const maxLength = over.maxLength ?? presets?.maxLength ?? (st ? (st.maxSeqLength ?? tokenizerLimit(tdir) ?? base.maxLength) : base.maxLength);
  if (!Number.isInteger(maxLength) || maxLength < 8 || maxLength > 32768) throw new CitebenchError(`max length must be an integer in 8..32768, got ${maxLength}`);
  const modes = poolingModes(pooling)!;
  const layers = modes === 'aspire' ? (over.layers ?? base.layers ?? 'all') : undefined;
  const dense = modes === 'aspire' ? [] : (st?.dense ?? []);
  // Each Dense module takes the previous one's output (the first, the pooled vector).
  dense.reduce((width, d) => {
    if (d.inFeatures !== width) throw new InputError(join(d.dir, 'config.json'), undefined, 'in_features', `${d.inFeatures}, but the module before it outputs ${width} dimensions`);
    return d.outFeatures;
  }, modes === 'aspire' ? hiddenSize : modes.length * hiddenSize);
  const truncateDim = over.truncateDim ?? base.truncateDim ?? st?.pooling.truncateDim;
  const spec: PoolingSpec | undefined =
    modes === 'aspire'
      ? undefined
      : { modes, includePrompt: st?.pooling.includePrompt ?? true, normalize: st?.pooling.normalize ?? false, ...(truncateDim !== undefined ? { truncateDim } : {}) };
  if (truncateDim !== undefined) {
    if (!spec) throw new CitebenchError(`model '${nameOrDir}': truncate dim applies to single-vector models, not ASPIRE's sentence vectors`);
    const full = pooledDim({ modes: spec.modes, dense }, hiddenSize);
    if (!Number.isInteger(truncateDim) || truncateDim < 1 || truncateDim > full)
      throw new CitebenchError(`model '${nameOrDir}': truncate dim ${truncateDim} is not an integer in 1..${full} (the model's vectors have ${full} dimensions)`);
  }
  const lowercase = st?.doLowerCase ?? false;
  const record = present ? readDownloadRecord(dir) : undefined;
  const { prompts, source: promptSource } = rolePrompts(st?.prompts, repo ?? record?.repo, over.prompts, presets?.prompts);
  if (modes === 'aspire' && (prompts.query || prompts.document)) throw new CitebenchError(`model '${nameOrDir}': ASPIRE's sentence vectors take no prompt`);

  const adapterHashes = adapterList?.map((f) => ({ file: basename(f), sha256: fileContentHash(f) }));
  // Settings beyond the paper's models enter the fingerprint only when set.
  const extra: Record<string, unknown> = {};
  if (spec?.normalize) extra.normalize = true;
  if (spec && !spec.includePrompt) extra.includePrompt = false;
  if (spec?.truncateDim !== undefined) extra.truncateDim = spec.truncateDim;
  if (lowercase) extra.lowercase = true;
  if (tdir !== dir) extra.transformerPath = basename(tdir);
  // Dense modules by their config and weights' content.
  if (dense.length) extra.dense = dense.map((d) => ({ path: basename(d.dir), config: fileContentHash(join(d.dir, 'config.json')), weights: (checkpointFiles(d.dir) ?? []).map((f) => fileContentHash(f)) }));
  if (adapterHashes) extra.adapter = adapterHashes;
  // One identity of the weights everywhere (vector stores here, result cells through the retriever): the whole
  // files' SHA-256 (file-hash.ts), in a canonical serialisation (util/identity.ts).
  const encoderFp = identity({
    fingerprint: 2,
    onnx: fileContentHash(onnxFile),
    // A converted model: its cache folder's name holds the checkpoint files' SHA-256 and the converter version.
    converted: checkpoint ? basename(dirname(onnxFile)) : undefined,
    tokenizer: tok.files.map((f) => ({ file: basename(f), sha256: fileContentHash(f) })),
    config: fileContentHash(configPath),
    // tokenizerRules: 2 = BERT parity rewrites (wordpiece.ts bertParityRewrite): ids changed for capital Σ and
    // astral CJK, so vectors encoded before them must not mix with new ones.
    settings: { pooling, layers: layers ?? null, maxLength, tokenizerRules: 2 },
    ...extra,
  }, 32);
  const withPrompts = prompts.query || prompts.document;
  const fingerprint = withPrompts ? identity({ encoder: encoderFp, prompts }, 32) : encoderFp;
  const roleFp = (role: Role) => identity({ encoder: encoderFp, role, prompt: prompts[role] }, 32);
  const roleFingerprint = symmetric(prompts) ? { query: fingerprint, document: fingerprint } : { query: roleFp('query'), document: roleFp('document') };

  const sources: NonNullable<ResolvedModel['sources']> = [];
  if (record) sources.push({ of: 'model', repo: record.repo, revision: record.revision, ...(record.commit ? { commit: record.commit } : {}) });
  const arecord = adapter ? readDownloadRecord(adapter.dir) : undefined;
  if (arecord) sources.push({ of: 'adapter', repo: arecord.repo, revision: arecord.revision, ...(arecord.commit ? { commit: arecord.commit } : {}) });
  return {
    name: base.name,
    dir,
    transformerDir: tdir,
    folder: st ? 'sentence-transformers' : 'transformers',
    onnxFile,
    hiddenSize,
    dim: spec ? pooledDim({ ...spec, dense }, hiddenSize) : hiddenSize,
    pooling,
    distance,
    maxLength,
    layers,
    ...(architecture !== undefined ? { architecture } : {}),
    ...(dense.length ? { dense } : {}),
    normalize: spec?.normalize ?? false,
    includePrompt: spec?.includePrompt ?? true,
    ...(spec?.truncateDim !== undefined ? { truncateDim: spec.truncateDim } : {}),
    lowercase,
    prompts,
    promptSource,
    fingerprint,
    roleFingerprint,
    ...(checkpoint ? { checkpoint: checkpoint.map((f) => ({ file: basename(f), sha256: fileContentHash(f) })) } : {}),
    ...(adapter && adapterHashes ? { adapter: { dir: adapter.dir, files: adapterHashes } } : {}),
    ...(sources.length ? { sources } : {}),
  };
}

/** The pooling spec of a resolved single-vector model (undefined for ASPIRE). */
export function poolingSpecOf(m: ResolvedModel): PoolingSpec | undefined {
  const modes = poolingModes(m.pooling);
  if (!modes || modes === 'aspire') return undefined;
  return {
    modes,
    includePrompt: m.includePrompt,
    normalize: m.normalize,
    ...(m.dense?.length ? { dense: m.dense.map(loadDense) } : {}),
    ...(m.truncateDim !== undefined ? { truncateDim: m.truncateDim } : {}),
  };
}

/** Refuse a folder holding another revision than the one asked for. */
function checkRevision(dir: string, repo: string, revision: string | undefined): void {
  if (revision === undefined || !existsSync(join(dir, DOWNLOAD_RECORD))) return;
  let had: unknown;
  try {
    had = (JSON.parse(readFileSync(join(dir, DOWNLOAD_RECORD), 'utf8')) as { revision?: unknown }).revision;
  } catch {
    had = undefined;
  }
  if (typeof had === 'string' && had !== revision)
    throw new CitebenchError(`${dir} holds ${repo} at revision '${had}', not '${revision}': remove the folder to download '${revision}'`);
}

/**
 * `resolveModel`, but with `allowRemote` a registry model or `ORG/NAME` whose folder does not exist yet is
 * first downloaded from the Hugging Face hub (hub/download.ts) into `<models-dir>/<folder>/`, atomically and
 * resumably, and so is an adapter named by its hub id. Without `allowRemote` it is exactly `resolveModel`.
 */
export async function resolveModelAsync(nameOrDir: string, opts: ResolveOptions = {}): Promise<ResolvedModel> {
  if (opts.allowRemote) {
    const modelsDir = modelsDirOf(opts);
    const { dir, repo, adapter: knownAdapter } = locate(nameOrDir, modelsDir);
    const adapterArg = opts.overrides?.adapter ?? knownAdapter;
    const adapter = adapterArg !== undefined ? locateAdapter(adapterArg, modelsDir) : undefined;
    const common = { progress: opts.progress, log: opts.log };
    await fetchModelFolder(repo, dir, { ...opts, checkpoint: adapter !== undefined });
    if (adapter?.repo && !existsSync(adapter.dir)) await downloadAdapter(adapter.repo, adapter.dir, { ...common, revision: opts.adapterRevision });
    else if (adapter?.repo) checkRevision(adapter.dir, adapter.repo, opts.adapterRevision);
  }
  return resolveModel(nameOrDir, opts);
}
