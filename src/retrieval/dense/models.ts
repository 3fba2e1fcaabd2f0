/**
 * The article encoders of the paper (Medić & Šnajder 2022, §3) and how each turns `title [SEP] abstract` into
 * vectors. Real weights are not shipped: a model resolves to a local folder in Hugging Face layout with ONNX
 * weights (`config.json`, `tokenizer.json`, `onnx/model.onnx` or `onnx/model_quantized.onnx`).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, openSync, readSync, closeSync } from 'node:fs';
import { join, resolve, basename } from 'node:path';
import { CitebenchError } from '../../util/errors.ts';

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
];

export interface ResolvedModel extends ModelOptions {
  /** Registry name, or the folder's base name for custom models. */
  name: string;
  dir: string;
  onnxFile: string;
  hiddenSize: number;
  /** Hash of weights, tokenizer and options: an embedding store only accepts vectors from the same fingerprint. */
  fingerprint: string;
}

export function exportHint(hfId: string, dir: string): string {
  return (
    `To make an ONNX folder for citebench (on a machine with internet and Python):\n` +
    `  pip install "optimum[exporters]"\n` +
    `  optimum-cli export onnx --model ${hfId} --task feature-extraction ${dir}/\n` +
    `ASPIRE with --layers all (the paper's pooling) also needs a 'mean_hidden_states' output: see docs/dense.md\n` +
    `(or use --layers last with the plain export). Then pass --model ${dir}, or put the folder at\n` +
    `<models-dir>/<name>/ (default ./models, or $CITEBENCH_MODELS) and pass the name.\n` +
    `citebench never downloads models: the paper's models are not published with ONNX weights.`
  );
}

function pickOnnx(dir: string, preferQuantized: boolean): string | undefined {
  const names = preferQuantized ? ['model_quantized.onnx', 'model.onnx'] : ['model.onnx', 'model_quantized.onnx'];
  for (const n of names) {
    for (const p of [join(dir, 'onnx', n), join(dir, n)]) if (existsSync(p)) return p;
  }
  return undefined;
}

/** Fast, content-based: size + SHA-256 of the first and last 4 MiB (the whole file when smaller than 8 MiB). */
function fileDigest(path: string): string {
  const size = statSync(path).size;
  const h = createHash('sha256').update(String(size));
  const fd = openSync(path, 'r');
  try {
    const span = 4 << 20;
    const readAt = (pos: number, len: number) => {
      const b = Buffer.alloc(len);
      let o = 0;
      while (o < len) {
        const r = readSync(fd, b, o, len - o, pos + o);
        if (r === 0) break;
        o += r;
      }
      h.update(b.subarray(0, o));
    };
    if (size <= 2 * span) readAt(0, size);
    else {
      readAt(0, span);
      readAt(size - span, span);
    }
  } finally {
    closeSync(fd);
  }
  return h.digest('hex');
}

export interface ResolveOptions {
  /** Folder that holds one sub-folder per registry name (default: ./models, or $CITEBENCH_MODELS). */
  modelsDir?: string;
  /** Overrides of the registry's (or the custom model's) options. */
  overrides?: Partial<ModelOptions>;
  /** Prefer onnx/model_quantized.onnx when both exist (default false: fp32 first). */
  quantized?: boolean;
}

/**
 * Resolve a registry name or a model folder to a loadable model. Throws a CitebenchError with export
 * instructions when nothing usable is found.
 */
export function resolveModel(nameOrDir: string, opts: ResolveOptions = {}): ResolvedModel {
  const known = KNOWN_MODELS.find((m) => m.name === nameOrDir);
  const modelsDir = opts.modelsDir ?? process.env.CITEBENCH_MODELS ?? 'models';
  let dir: string;
  let base: ModelOptions & { name: string };
  if (known) {
    dir = resolve(modelsDir, known.name);
    base = known;
  } else {
    dir = resolve(nameOrDir);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      throw new CitebenchError(
        `unknown model '${nameOrDir}': not one of ${KNOWN_MODELS.map((m) => m.name).join(', ')} and not a folder.\n` +
          exportHint('allenai/specter', 'specter-onnx'),
      );
    }
    base = { name: basename(dir), pooling: 'cls', distance: 'l2', maxLength: 512, layers: 'all' };
  }
  const hf = known?.hfId ?? 'ORG/MODEL';
  const configPath = join(dir, 'config.json');
  const tokPath = join(dir, 'tokenizer.json');
  const onnxFile = existsSync(dir) ? pickOnnx(dir, opts.quantized ?? false) : undefined;
  if (!existsSync(dir) || !existsSync(configPath) || !existsSync(tokPath) || !onnxFile) {
    const missing = !existsSync(dir)
      ? `folder ${dir} does not exist`
      : `folder ${dir} lacks ${[
          !existsSync(configPath) && 'config.json',
          !existsSync(tokPath) && 'tokenizer.json',
          !onnxFile && 'onnx/model.onnx',
        ]
          .filter(Boolean)
          .join(', ')}`;
    throw new CitebenchError(`model '${nameOrDir}' (${hf}) is not available locally: ${missing}.\n` + exportHint(hf, dir));
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
    .update(fileDigest(tokPath))
    .update(fileDigest(configPath))
    .update(JSON.stringify({ pooling: o.pooling, layers, maxLength: o.maxLength }))
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
  };
}
