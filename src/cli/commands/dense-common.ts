/** Shared option handling of `citebench encode` and `citebench dense search`. */
import { basename, join, resolve } from 'node:path';
import { CitebenchError } from '../../util/errors.ts';
import { hubFolderName } from '../../retrieval/dense/hub.ts';
import { KNOWN_MODELS, hubRepoOf, resolveModelAsync, type ModelOptions, type Pooling, type Distance, type ResolvedModel } from '../../retrieval/dense/models.ts';

export const modelOptionsUsage = `model options:
  --model NAME|DIR   ${KNOWN_MODELS.map((m) => m.name).join(', ')} (looked up as <models-dir>/<NAME>/), a model
                     folder in Hugging Face layout (config.json, vocab.txt or tokenizer.json, and the weights: a
                     BERT checkpoint as the hub publishes it, model.safetensors or pytorch_model.bin, converted
                     in-process once and cached in the folder, no Python or ONNX export step; other
                     architectures: onnx/model.onnx), or a Hugging Face id ORG/NAME (<models-dir>/ORG--NAME/)
  --allow-remote     download a model missing from <models-dir> from the Hugging Face hub ($HF_ENDPOINT,
                     $HF_TOKEN), resumably: config.json, tokenizer files and the repo's weights (an ONNX export,
                     else its PyTorch checkpoint, converted in-process as above; docs/dense.md). Off: nothing
                     is downloaded
  --revision REV     with --allow-remote: hub branch, tag or commit to download (default main)
  --models-dir DIR   where named models live (default: $CITEBENCH_MODELS or ./models)
  --pooling P        cls | mean | aspire (default: the registry's; custom folders: cls)
  --layers L         aspire only: all (mean over layers, the paper) | last (final layer, ASPIRE's example code)
  --distance D       l2 | ip (default: the registry's; custom folders: l2)
  --max-length N     tokens incl. [CLS]/[SEP] (default 512)
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
  quantized: { type: 'boolean' },
  'fp16-model': { type: 'boolean' },
  'allow-remote': { type: 'boolean' },
  revision: { type: 'string' },
} as const;

export interface ModelValues {
  model?: string;
  'models-dir'?: string;
  pooling?: string;
  layers?: string;
  distance?: string;
  'max-length'?: string;
  quantized?: boolean;
  'fp16-model'?: boolean;
  'allow-remote'?: boolean;
  revision?: string;
}

function modelOverrides(v: ModelValues): Partial<ModelOptions> {
  const o: Partial<ModelOptions> = {};
  if (v.pooling !== undefined) {
    if (!['cls', 'mean', 'aspire'].includes(v.pooling)) throw new CitebenchError(`--pooling must be cls, mean or aspire, got '${v.pooling}'`);
    o.pooling = v.pooling as Pooling;
  }
  if (v.layers !== undefined) {
    if (!['all', 'last'].includes(v.layers)) throw new CitebenchError(`--layers must be all or last, got '${v.layers}'`);
    o.layers = v.layers as 'all' | 'last';
  }
  if (v.distance !== undefined) {
    if (!['l2', 'ip'].includes(v.distance)) throw new CitebenchError(`--distance must be l2 or ip, got '${v.distance}'`);
    o.distance = v.distance as Distance;
  }
  if (v['max-length'] !== undefined) {
    const n = Number(v['max-length']);
    if (!Number.isInteger(n) || n < 8) throw new CitebenchError(`--max-length must be an integer ≥ 8, got '${v['max-length']}'`);
    o.maxLength = n;
  }
  return o;
}

/** Resolve --model; with --allow-remote a missing model is downloaded first (progress on a TTY). */
export async function resolveFromValues(v: ModelValues): Promise<ResolvedModel> {
  if (!v.model) throw new CitebenchError('--model is required');
  if (v.revision !== undefined && !v['allow-remote']) throw new CitebenchError('--revision needs --allow-remote');
  return resolveModelAsync(v.model, {
    modelsDir: v['models-dir'],
    overrides: modelOverrides(v),
    quantized: v.quantized,
    fp16: v['fp16-model'],
    allowRemote: v['allow-remote'] ?? false,
    revision: v.revision,
    log: (line) => console.error(`citebench: ${line}`),
  });
}

/** Short model name for folder names: registry name, ORG--NAME for a hub id, or the custom folder's base name. */
export function modelLabel(model: string): string {
  if (KNOWN_MODELS.some((m) => m.name === model)) return model;
  const repo = hubRepoOf(model);
  return repo ? hubFolderName(repo) : basename(resolve(model));
}

/** Default embedding folder: data/embeddings/<corpus folder name>/<model> (data/ is git-ignored). */
export function defaultEmbDir(corpusDir: string, model: string): string {
  return join('data', 'embeddings', basename(resolve(corpusDir)), modelLabel(model));
}
