/** Shared option handling of `citebench encode` and `citebench dense search`. */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { CitebenchError } from '../../util/errors.ts';
import { KNOWN_MODELS, resolveModel, type ModelOptions, type Pooling, type Distance, type ResolvedModel } from '../../retrieval/dense/models.ts';

export const modelOptionsUsage = `model options:
  --model NAME|DIR   ${KNOWN_MODELS.map((m) => m.name).join(', ')} (looked up as <models-dir>/<NAME>/), or a model folder
                     in Hugging Face layout with ONNX weights (config.json, tokenizer.json, onnx/model.onnx)
  --models-dir DIR   where named models live (default: $CITEBENCH_MODELS or ./models)
  --pooling P        cls | mean | aspire (default: the registry's; custom folders: cls)
  --layers L         aspire only: all (mean over layers, the paper) | last (final layer, ASPIRE's example code)
  --distance D       l2 | ip (default: the registry's; custom folders: l2)
  --max-length N     tokens incl. [CLS]/[SEP] (default 512)
  --quantized        prefer onnx/model_quantized.onnx when both exist`;

export const modelOptionSpec = {
  model: { type: 'string' },
  'models-dir': { type: 'string' },
  pooling: { type: 'string' },
  layers: { type: 'string' },
  distance: { type: 'string' },
  'max-length': { type: 'string' },
  quantized: { type: 'boolean' },
} as const;

export interface ModelValues {
  model?: string;
  'models-dir'?: string;
  pooling?: string;
  layers?: string;
  distance?: string;
  'max-length'?: string;
  quantized?: boolean;
}

export function modelOverrides(v: ModelValues): Partial<ModelOptions> {
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

export function resolveFromValues(v: ModelValues): ResolvedModel {
  if (!v.model) throw new CitebenchError('--model is required');
  return resolveModel(v.model, { modelsDir: v['models-dir'], overrides: modelOverrides(v), quantized: v.quantized });
}

/** Short model name for folder names: registry name, or the custom folder's base name. */
export function modelLabel(model: string): string {
  return KNOWN_MODELS.some((m) => m.name === model) ? model : basename(resolve(model));
}

/** Default embedding folder: data/embeddings/<corpus folder name>/<model> (data/ is git-ignored). */
export function defaultEmbDir(corpusDir: string, model: string): string {
  return join('data', 'embeddings', basename(resolve(corpusDir)), modelLabel(model));
}

/** Identity of a corpus store's index ↔ paper id mapping: SHA-256 of its id column. */
export function corpusKey(corpusDir: string): string | undefined {
  const p = join(corpusDir, 'ids.bin');
  const o = join(corpusDir, 'ids.off');
  if (!existsSync(p) || !existsSync(o)) return undefined;
  return createHash('sha256').update(readFileSync(o)).update(readFileSync(p)).digest('hex').slice(0, 32);
}
