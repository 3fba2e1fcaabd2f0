/**
 * The article encoders of the paper (Medić & Šnajder 2022, §3) and how each turns `title [SEP] abstract` into
 * vectors. Real weights are not shipped: a model resolves to a local folder in Hugging Face layout with ONNX
 * weights (`config.json`, `tokenizer.json` or a BERT `vocab.txt`, `onnx/model.onnx` or
 * `onnx/model_quantized.onnx`). Only with `allowRemote` (`--allow-remote`) does `resolveModelAsync` download a
 * missing folder from the hub (hub.ts).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, openSync, readSync, closeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { CitebenchError } from '../../util/errors.ts';
import { DOWNLOAD_RECORD, downloadModel, hubFolderName, isHubId, PYTORCH_WEIGHT_FILES } from './hub.ts';
import { onnxNames, type OnnxVariant } from './onnx-variant.ts';
import { fileContentHash, fileDigest } from './file-hash.ts';
import { convertCheckpoint } from './convert.ts';
import { checkpointFiles } from './checkpoint/index.ts';

export { fileContentHash } from './file-hash.ts';
import { tokenizerFiles } from './wordpiece.ts';

/**
 * - `cls`: final-layer [CLS] vector (SciBERT, SPECTER, SciNCL as the paper uses them).
 * - `mean`: mean of final-layer token vectors over the attention mask (for custom models).
 * - `aspire`: one vector per abstract sentence = mean over the sentence's tokens of the hidden states; with
 *   `layers: 'all'` the per-token states are first averaged over all layers (the paper, §3: "mean-pooled token
 *   embeddings across all layers for each sentence"), with `'last'` only the final layer is used (allenai/aspire
 *   examples/ex_aspire_consent.py). The title (and its [SEP]) is context only, never a sentence of its own.
 */
export type Pooling = 'cls' | 'mean' | 'aspire';
/** `l2`: score = −squared L2 distance (as faiss IndexFlatL2 reports it); `ip`: score = inner product. */
export type Distance = 'l2' | 'ip';

export interface ModelOptions {
  pooling: Pooling;
  distance: Distance;
  /** Token budget including [CLS] and [SEP]; longer inputs are truncated at the end. */
  maxLength: number;
  /** ASPIRE only: which hidden states are averaged per token. */
  layers?: 'all' | 'last';
}

export interface KnownModel extends ModelOptions {
  name: string;
  hfId: string;
  note: string;
}

/** The paper's encoders. Pooling and distance as used in the paper / stated on each model card. */
export const KNOWN_MODELS: KnownModel[] = [
  {
    name: 'scibert',
    hfId: 'allenai/scibert_scivocab_uncased',
    pooling: 'cls',
    distance: 'l2',
    maxLength: 512,
    note: 'masked-LM baseline; paper: final-layer [CLS], Faiss exact search (no distance stated; L2 like the TAEs)',
  },
  {
    name: 'specter',
    hfId: 'allenai/specter',
    pooling: 'cls',
    distance: 'l2',
    maxLength: 512,
    note: 'trained with a triplet loss on L2 distance between [CLS] vectors (Cohan et al. 2020)',
  },
  {
    name: 'scincl',
    hfId: 'malteos/scincl',
    pooling: 'cls',
    distance: 'l2',
    maxLength: 512,
    note: 'SPECTER objective (L2 triplet loss) with graph-embedding negatives (Ostendorff et al. 2022)',
  },
  {
    name: 'aspire-biomed',
    hfId: 'allenai/aspire-contextualsentence-singlem-biomed',
    pooling: 'aspire',
    layers: 'all',
    distance: 'l2',
    maxLength: 512,
    note: 'ts-ASPIRE: contextual sentence vectors; pair score = best sentence pair (min L2 distance)',
  },
  {
    name: 'aspire-compsci',
    hfId: 'allenai/aspire-contextualsentence-singlem-compsci',
    pooling: 'aspire',
    layers: 'all',
    distance: 'l2',
    maxLength: 512,
    note: 'ts-ASPIRE, computer-science variant',
  },
  {
    name: 'specter2-base',
    hfId: 'allenai/specter2_base',
    pooling: 'cls',
    distance: 'l2',
    maxLength: 512,
    note: 'SPECTER2 base model without a task adapter (Singh et al. 2023); final-layer [CLS] as its model card; beyond the paper',
  },
];

export interface ResolvedModel extends ModelOptions {
  /** Registry name, or the folder's base name for custom models. */
  name: string;
  dir: string;
  onnxFile: string;
  hiddenSize: number;
  /** Hash of weights, tokenizer and options: an embedding store only accepts vectors from the same fingerprint. */
  fingerprint: string;
  /** Set when `onnxFile` was converted from the folder's PyTorch/safetensors checkpoint: its files and their SHA-256. */
  checkpoint?: { file: string; sha256: string }[];
}

export function exportHint(hfId: string, dir: string): string {
  return (
    `A model folder holds config.json, tokenizer.json or vocab.txt, and weights: a BERT checkpoint as the hub\n` +
    `publishes it (model.safetensors or pytorch_model.bin, converted by citebench itself) or an ONNX export.\n` +
    `--allow-remote downloads ${hfId} into ${dir}. For architectures other than BERT, export ONNX\n` +
    `(on a machine with Python): pip install "optimum[exporters]" &&\n` +
    `  optimum-cli export onnx --model ${hfId} --task feature-extraction ${dir}/\n` +
    `Then pass --model ${dir}, or put the folder at <models-dir>/<name>/ (default ./models, or $CITEBENCH_MODELS)\n` +
    `and pass the name (docs/dense.md).`
  );
}

function pickOnnx(dir: string, prefer: OnnxVariant): string | undefined {
  const names = onnxNames(prefer);
  for (const n of names) {
    for (const p of [join(dir, 'onnx', n), join(dir, n)]) if (existsSync(p)) return p;
  }
  return undefined;
}

export interface ResolveOptions {
  /** Folder that holds one sub-folder per registry name (default: ./models, or $CITEBENCH_MODELS). */
  modelsDir?: string;
  /** Overrides of the registry's (or the custom model's) options. */
  overrides?: Partial<ModelOptions>;
  /** Prefer onnx/model_quantized.onnx when both exist (default false: fp32 first). */
  quantized?: boolean;
  /**
   * Prefer onnx/model_fp16.onnx (float16 weights and compute, for GPUs) when the folder has it, else fp32.
   * Not with `quantized`.
   */
  fp16?: boolean;
  /**
   * Download a missing model from the Hugging Face hub (`resolveModelAsync` only; default false: nothing
   * touches the network). Endpoint: $HF_ENDPOINT or https://huggingface.co; $HF_TOKEN is sent as a bearer token.
   */
  allowRemote?: boolean;
  /** Hub revision to download (default `main`); with allowRemote only. */
  revision?: string;
  /** Download progress on stderr (default: stderr is a TTY). */
  progress?: boolean;
  /** Download start/end lines. */
  log?: (line: string) => void;
}

interface Location {
  dir: string;
  base: ModelOptions & { name: string };
  /** Hub repo the folder can be downloaded from: a registry name's hfId or an `ORG/NAME` argument. */
  repo?: string;
  /** Hub id for messages. */
  hf: string;
}

const CUSTOM_DEFAULTS: ModelOptions = { pooling: 'cls', distance: 'l2', maxLength: 512, layers: 'all' };

function modelsDirOf(opts: ResolveOptions): string {
  return opts.modelsDir ?? process.env.CITEBENCH_MODELS ?? 'models';
}

/**
 * The hub repo named by a `--model` argument that is `ORG/NAME` and not a local path, else undefined.
 * Such a model lives in `<models-dir>/ORG--NAME/`.
 */
export function hubRepoOf(nameOrDir: string): string | undefined {
  if (KNOWN_MODELS.some((m) => m.name === nameOrDir)) return undefined;
  return isHubId(nameOrDir) && !existsSync(resolve(nameOrDir)) ? nameOrDir : undefined;
}

/** Where a registry name, folder or `ORG/NAME` hub id lives on disk, and its default options. */
function locate(nameOrDir: string, modelsDir: string): Location {
  const known = KNOWN_MODELS.find((m) => m.name === nameOrDir);
  if (known) return { dir: resolve(modelsDir, known.name), base: known, repo: known.hfId, hf: known.hfId };
  const repo = hubRepoOf(nameOrDir);
  if (repo) {
    // A paper model named by its hub id keeps the registry's pooling and distance.
    const same = KNOWN_MODELS.find((m) => m.hfId === repo);
    const name = hubFolderName(repo);
    return { dir: resolve(modelsDir, name), base: { ...(same ?? CUSTOM_DEFAULTS), name }, repo, hf: repo };
  }
  const dir = resolve(nameOrDir);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new CitebenchError(
      `unknown model '${nameOrDir}': not one of ${KNOWN_MODELS.map((m) => m.name).join(', ')}, not a folder ` +
        `and not a Hugging Face id ORG/NAME.\n` +
        exportHint('allenai/specter', 'specter-onnx'),
    );
  }
  return { dir, base: { ...CUSTOM_DEFAULTS, name: basename(dir) }, hf: 'ORG/MODEL' };
}

/**
 * Resolve a registry name, a model folder or a hub id `ORG/NAME` (looked up as `<models-dir>/ORG--NAME/`) to a
 * loadable local model. Never touches the network. Throws a CitebenchError with export instructions when
 * nothing usable is found.
 */
export function resolveModel(nameOrDir: string, opts: ResolveOptions = {}): ResolvedModel {
  const { dir, base, repo, hf } = locate(nameOrDir, modelsDirOf(opts));
  const configPath = join(dir, 'config.json');
  // tokenizer.json, or vocab.txt (+ its configs) from which encoder.ts builds BertTokenizerFast's tokenizer.
  const tok = existsSync(dir) ? tokenizerFiles(dir) : undefined;
  if (opts.fp16 && opts.quantized) throw new CitebenchError(`model '${nameOrDir}': fp16 and quantized exclude each other`);
  const present = existsSync(dir);
  let onnxFile = present ? pickOnnx(dir, opts.fp16 ? 'fp16' : opts.quantized ? 'quantized' : 'fp32') : undefined;
  // No ONNX file: a BERT checkpoint as the hub publishes it (safetensors or pytorch_model.bin) is converted once
  // into the folder's cache (convert.ts); a non-BERT config is refused there in one line.
  const checkpoint = present && !onnxFile && existsSync(configPath) && tok ? checkpointFiles(dir) : undefined;
  if (checkpoint) onnxFile = convertCheckpoint(dir, { quantize: opts.quantized, log: opts.log });
  if (!present || !existsSync(configPath) || !tok || !onnxFile) {
    const missing = !present
      ? `${repo === nameOrDir ? `no local folder '${nameOrDir}', and ` : ''}folder ${dir} does not exist`
      : `folder ${dir} lacks ${[
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
  let hiddenSize: number;
  try {
    const cfg = JSON.parse(readFileSync(configPath, 'utf8')) as { hidden_size?: unknown };
    if (typeof cfg.hidden_size !== 'number') throw new Error('no numeric hidden_size');
    hiddenSize = cfg.hidden_size;
  } catch (e) {
    throw new CitebenchError(`${configPath}: cannot read hidden_size (${(e as Error).message})`);
  }
  const o = { ...base, ...opts.overrides };
  if (!['cls', 'mean', 'aspire'].includes(o.pooling)) throw new CitebenchError(`unknown pooling '${o.pooling}' (cls, mean, aspire)`);
  if (!['l2', 'ip'].includes(o.distance)) throw new CitebenchError(`unknown distance '${o.distance}' (l2, ip)`);
  if (!Number.isInteger(o.maxLength) || o.maxLength < 8 || o.maxLength > 8192)
    throw new CitebenchError(`max length must be an integer in 8..8192, got ${o.maxLength}`);
  const layers = o.pooling === 'aspire' ? (o.layers ?? 'all') : undefined;
  const fp = createHash('sha256')
    .update(fileDigest(onnxFile))
    // A converted model: its cache key holds the checkpoint files' SHA-256 and the converter version.
    .update(checkpoint ? basename(dirname(onnxFile)) : '')
    .update(tok.kind === 'tokenizer.json' ? fileDigest(tok.files[0]) : tok.files.map((f) => `${basename(f)}:${fileDigest(f)}`).join('\n'))
    .update(fileDigest(configPath))
    // tokenizerRules: 2 = BERT parity rewrites (wordpiece.ts bertParityRewrite): ids changed for capital Σ and
    // astral CJK, so vectors encoded before them must not mix with new ones.
    .update(JSON.stringify({ pooling: o.pooling, layers, maxLength: o.maxLength, tokenizerRules: 2 }))
    .digest('hex')
    .slice(0, 32);
  return {
    name: o.name,
    dir,
    onnxFile,
    hiddenSize,
    pooling: o.pooling,
    distance: o.distance,
    maxLength: o.maxLength,
    layers,
    fingerprint: fp,
    ...(checkpoint ? { checkpoint: checkpoint.map((f) => ({ file: basename(f), sha256: fileContentHash(f) })) } : {}),
  };
}

/**
 * `resolveModel`, but with `allowRemote` a registry model or `ORG/NAME` whose folder does not exist yet is
 * first downloaded from the Hugging Face hub (config, tokenizer files and the repo's weights: an ONNX export,
 * else its PyTorch checkpoint; hub.ts) into `<models-dir>/<name>/`, atomically and resumably. Without
 * `allowRemote` it is exactly `resolveModel`.
 */
export async function resolveModelAsync(nameOrDir: string, opts: ResolveOptions = {}): Promise<ResolvedModel> {
  if (opts.allowRemote) {
    const { dir, repo } = locate(nameOrDir, modelsDirOf(opts));
    if (repo && !existsSync(dir)) {
      await downloadModel(repo, dir, {
        revision: opts.revision,
        variant: opts.fp16 ? 'fp16' : opts.quantized ? 'quantized' : 'fp32',
        progress: opts.progress,
        log: opts.log,
        hint: exportHint(repo, dir),
      });
    } else if (repo && opts.revision !== undefined && existsSync(join(dir, DOWNLOAD_RECORD))) {
      let had: unknown;
      try {
        had = (JSON.parse(readFileSync(join(dir, DOWNLOAD_RECORD), 'utf8')) as { revision?: unknown }).revision;
      } catch {
        had = undefined;
      }
      if (typeof had === 'string' && had !== opts.revision)
        throw new CitebenchError(`${dir} holds ${repo} at revision '${had}', not '${opts.revision}': remove the folder to download '${opts.revision}'`);
    }
  }
  return resolveModel(nameOrDir, opts);
}
