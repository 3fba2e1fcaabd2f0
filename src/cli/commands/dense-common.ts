/** Shared option handling of `citebench encode` and `citebench dense search`. */
import { existsSync, readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { holdsModel, supersededStores, vectorStoreDir } from '../../retrieval/dense/role-stores.ts';
import { CitebenchError } from '../../util/errors.ts';
import { hubFolderName } from '../../retrieval/dense/hub/ids.ts';
import { hubRepoOf, resolveModelAsync, type ModelOverrides, type ResolvedModel } from '../../retrieval/dense/models.ts';
import { KNOWN_MODELS } from '../../retrieval/dense/registry.ts';
import { DECODER_ARCHITECTURES } from '../../retrieval/dense/encoder-graph/decoder-config.ts';
import { parsePooling } from '../../retrieval/dense/pooling.ts';
import { DISTANCE_HELP, parseDistance } from '../../retrieval/dense/similarity.ts';

/** The decoder classes whose checkpoints citebench converts, by model_type (from decoder-config.ts, so the help never lags it). */
function decoderClasses(): string {
  const pad = ' '.repeat(21);
  return Object.entries(DECODER_ARCHITECTURES)
    .map(([type, re]) => {
      const m = /^\^(\w+)\((.*)\)\$$/.exec(re.source);
      return `${pad}  ${type}: ${m ? m[2].split('|').map((c) => m[1] + c).join(', ') : re.source}`;
    })
    .join('\n');
}

export const modelOptionsUsage = `model options:
  --model NAME|DIR   ${KNOWN_MODELS.map((m) => m.name).join(', ')} (looked up as <models-dir>/<NAME>/),
                     or a model folder in Hugging Face layout (config.json, tokenizer.json or a BERT vocab.txt,
                     and weights: a BERT, RoBERTa, XLM-RoBERTa or ModernBERT checkpoint, or a decoder's
${decoderClasses()}
                     as the hub publishes it,
                     model.safetensors or pytorch_model.bin, converted in-process once and cached in the folder,
                     no Python or export step; or ONNX weights; a sentence-transformers folder with its modules.json),
                     or a Hugging Face id ORG/NAME (looked up as <models-dir>/ORG--NAME/)
  --adapter DIR|ORG/NAME  a task adapter saved by the adapters library (adapter_config.json + weights), added
                     to the model's checkpoint (specter2: allenai/specter2, the proximity adapter, by default)
  --allow-remote     download a model or adapter missing from <models-dir> from the Hugging Face hub
                     ($HF_ENDPOINT, $HF_TOKEN), resumably: the folder's config, sentence-transformers and
                     tokenizer files and the repo's weights (ONNX, else its PyTorch checkpoint; docs/dense.md).
                     Off: nothing is downloaded
  --revision REV     with --allow-remote: hub branch, tag or commit of the model (default main)
  --adapter-revision REV  with --allow-remote: the same for the adapter
  --models-dir DIR   where named models live (default: $CITEBENCH_MODELS or ./models)
  --pooling P        cls | mean | max | lasttoken | mean_sqrt_len_tokens | weightedmean (several joined by '+') |
                     aspire (default: the folder's Pooling module, the registry's; other folders: cls)
  --layers L         aspire only: all (mean over layers, the paper) | last (final layer, ASPIRE's example code)
  --distance D       ${DISTANCE_HELP}
                     (default: the folder's similarity_fn_name, the registry's; other folders: l2)
  --query-prompt T   text in front of a query article (default: the folder's \`query\` prompt; '' for none)
  --document-prompt T  text in front of a pool or candidate article (default: the folder's \`document\` prompt)
  --max-length N     tokens incl. the special tokens (default: the folder's max_seq_length, else 512)
  --truncate-dim N   Matryoshka: keep the first N dimensions of each vector, after every module (Normalize
                     included, not normalised again), as sentence-transformers' truncate_dim (default: the
                     folder's truncate_dim, else all)
  --quantized        prefer onnx/model_quantized.onnx when both exist
  --fp16-model       prefer onnx/model_fp16.onnx (float16 weights and compute, for a GPU) where the folder has
                     it, else onnx/model.onnx`;

export const modelOptionSpec = {
  model: { type: 'string' },
  'models-dir': { type: 'string' },
  pooling: { type: 'string' },
  layers: { type: 'string' },
  distance: { type: 'string' },
  'max-length': { type: 'string' },
  'truncate-dim': { type: 'string' },
  quantized: { type: 'boolean' },
  'fp16-model': { type: 'boolean' },
  'allow-remote': { type: 'boolean' },
  revision: { type: 'string' },
  adapter: { type: 'string' },
  'adapter-revision': { type: 'string' },
  'query-prompt': { type: 'string' },
  'document-prompt': { type: 'string' },
} as const;

export interface ModelValues {
  model?: string;
  'models-dir'?: string;
  pooling?: string;
  layers?: string;
  distance?: string;
  'max-length'?: string;
  'truncate-dim'?: string;
  quantized?: boolean;
  'fp16-model'?: boolean;
  'allow-remote'?: boolean;
  revision?: string;
  adapter?: string;
  'adapter-revision'?: string;
  'query-prompt'?: string;
  'document-prompt'?: string;
}

function modelOverrides(v: ModelValues): ModelOverrides {
  const o: ModelOverrides = {};
  if (v.pooling !== undefined) o.pooling = parsePooling(v.pooling, '--pooling');
  if (v.layers !== undefined) {
    if (!['all', 'last'].includes(v.layers)) throw new CitebenchError(`--layers must be all or last, got '${v.layers}'`);
    o.layers = v.layers as 'all' | 'last';
  }
  if (v.distance !== undefined) o.distance = parseDistance(v.distance, '--distance');
  if (v['max-length'] !== undefined) {
    const n = Number(v['max-length']);
    if (!Number.isInteger(n) || n < 8) throw new CitebenchError(`--max-length must be an integer ≥ 8, got '${v['max-length']}'`);
    o.maxLength = n;
  }
  if (v['truncate-dim'] !== undefined) {
    const n = Number(v['truncate-dim']);
    if (!Number.isInteger(n) || n < 1) throw new CitebenchError(`--truncate-dim must be a positive integer, got '${v['truncate-dim']}'`);
    o.truncateDim = n;
  }
  if (v['query-prompt'] !== undefined || v['document-prompt'] !== undefined)
    o.prompts = { ...(v['query-prompt'] !== undefined ? { query: v['query-prompt'] } : {}), ...(v['document-prompt'] !== undefined ? { document: v['document-prompt'] } : {}) };
  if (v.adapter !== undefined) o.adapter = v.adapter;
  return o;
}

/** Resolve --model; with --allow-remote a missing model is downloaded first (progress on a TTY). */
export async function resolveFromValues(v: ModelValues): Promise<ResolvedModel> {
  if (!v.model) throw new CitebenchError('--model is required');
  if (v.revision !== undefined && !v['allow-remote']) throw new CitebenchError('--revision needs --allow-remote');
  if (v['adapter-revision'] !== undefined && !v['allow-remote']) throw new CitebenchError('--adapter-revision needs --allow-remote');
  return resolveModelAsync(v.model, {
    modelsDir: v['models-dir'],
    overrides: modelOverrides(v),
    quantized: v.quantized,
    fp16: v['fp16-model'],
    allowRemote: v['allow-remote'] ?? false,
    revision: v.revision,
    adapterRevision: v['adapter-revision'],
    log: (line) => console.error(`citebench: ${line}`),
  });
}

/** Short model name for folder names: registry name, ORG--NAME for a hub id, or the custom folder's base name. */
export function modelLabel(model: string): string {
  if (KNOWN_MODELS.some((m) => m.name === model)) return model;
  const repo = hubRepoOf(model);
  return repo ? hubFolderName(repo) : basename(resolve(model));
}

/**
 * Default embedding folder: data/embeddings/<corpus folder name>/<model>-<12 hex of its fingerprint> (data/ is
 * git-ignored), named as a run names its stores (role-stores.ts vectorStoreDir). Given the resolved model, its
 * folder — or the folder an earlier citebench named without the fingerprint (…/<model>) when that holds this
 * model's vectors; without it (a command that does not load the model), the one folder of the model there.
 */
export function defaultEmbDir(corpusDir: string, model: string, resolved?: ResolvedModel): string {
  const root = join('data', 'embeddings', basename(resolve(corpusDir)));
  const label = modelLabel(model);
  const earlier = join(root, label);
  if (resolved) {
    const dir = vectorStoreDir(root, label, resolved.fingerprint);
    if (!existsSync(dir) && holdsModel(earlier, resolved)) return earlier;
    const older = supersededStores(dir);
    if (older.length) console.error(`citebench: ${dir}: a new vector store; ${older.join(', ')} hold${older.length === 1 ? 's' : ''} vectors of another fingerprint of ${label} (its weights, tokenizer or settings changed, or an older citebench fingerprinted them) and ${older.length === 1 ? 'is' : 'are'} not reused`);
    return dir;
  }
  const found = existsSync(root) ? readdirSync(root).filter((n) => n.startsWith(`${label}-`) && /^[0-9a-f]{12}$/.test(n.slice(label.length + 1))).sort() : [];
  if (found.length > 1) throw new CitebenchError(`${root}: ${found.length} embedding stores of ${model} (${found.join(', ')}): name one`);
  return found.length ? join(root, found[0]) : earlier;
}
