/**
 * Convert a model folder's PyTorch/safetensors BERT checkpoint to the ONNX encoder citebench runs, once: the file
 * is cached inside the model folder under a key of the weights' and config's content and the converter version,
 * so a changed checkpoint converts again and an unchanged one never does. The file is written atomically (temp
 * file + rename): a killed conversion leaves only a temp file, which is never taken for a converted model.
 */
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { CitebenchError } from '../../util/errors.ts';
import { buildBertOnnx, parseBertConfig } from './bert-graph.ts';
import { checkpointFiles, readCheckpoint } from './checkpoint/index.ts';
import { fileContentHash } from './file-hash.ts';
import { writeModel } from './onnx-graph.ts';

/** Bump when the graph bert-graph.ts builds changes: converted files of older versions are then rebuilt. */
export const CONVERTER_VERSION = 1;

/** Where converted models live inside a model folder. */
export const CONVERT_CACHE = join('.citebench', 'onnx');

export interface ConvertOptions {
  /** int8 weights as onnxruntime's quantize_dynamic(weight_type=QInt8) makes them: `model_quantized.onnx`. */
  quantize?: boolean;
  /** Told when a conversion runs (it takes seconds for a BERT-base checkpoint). */
  log?: (line: string) => void;
  /** A task adapter's folder (adapters library format) to add to the graph. */
  adapter?: string;
}

/** The cache key of a model folder's checkpoint: config.json and weight files by content, and the converter version. */
export function conversionKey(dir: string, weightFiles: readonly string[]): string {
  const h = createHash('sha256').update(`citebench-bert-convert\u0000${CONVERTER_VERSION}\u0000`);
  h.update(`config.json\u0000${fileContentHash(join(dir, 'config.json'))}\u0000`);
  for (const f of weightFiles) h.update(`${basename(f)}\u0000${fileContentHash(f)}\u0000`);
  return `${h.digest('hex').slice(0, 16)}-v${CONVERTER_VERSION}`;
}

/**
 * Path of the ONNX encoder converted from `dir`'s config.json and checkpoint; converts only when the cache has no
 * complete file for this exact checkpoint.
 */
export function convertCheckpoint(dir: string, opts: ConvertOptions = {}): string {
  if (opts.adapter) throw new CitebenchError(`${opts.adapter}: this converter does not add adapters to a checkpoint`);
  const config = parseBertConfig(join(dir, 'config.json'));
  const files = checkpointFiles(dir);
  if (!files) throw new CitebenchError(`${dir}: no checkpoint to convert (model.safetensors, pytorch_model.bin or their sharded index)`);
  const out = join(dir, CONVERT_CACHE, conversionKey(dir, files), opts.quantize ? 'model_quantized.onnx' : 'model.onnx');
  // A cached file needs nothing read: not even the checkpoint's header (a pickle for pytorch_model.bin).
  if (existsSync(out)) return out;
  const checkpoint = readCheckpoint(dir);
  // Every tensor is looked up and shape-checked here, before anything is written.
  const graph = buildBertOnnx(config, checkpoint, { quantize: opts.quantize });
  try {
    mkdirSync(join(dir, CONVERT_CACHE), { recursive: true });
    accessSync(join(dir, CONVERT_CACHE), constants.W_OK);
  } catch (e) {
    throw new CitebenchError(`${dir}: cannot write the converted model into ${CONVERT_CACHE} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); copy the model folder somewhere writable`);
  }
  opts.log?.(`converting ${checkpoint.files.map((f) => basename(f)).join(', ')} (${checkpoint.format}) to ONNX${opts.quantize ? ' (int8)' : ''}: ${out}`);
  writeModel(out, graph);
  return out;
}
