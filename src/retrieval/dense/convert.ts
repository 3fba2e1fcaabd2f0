/**
 * Convert a model folder's PyTorch/safetensors checkpoint (BERT, RoBERTa, XLM-RoBERTa, ModernBERT; optionally with
 * an adapters-library adapter) to the ONNX encoder citebench runs, once: the file is cached inside the model folder
 * under a key of the config's, weights' and adapter files' content and the converter version, so a changed
 * checkpoint or adapter converts again and an unchanged one never does. The file is written atomically (temp file
 * + rename): a killed conversion leaves only a temp file, which is never taken for a converted model.
 */
import { sha256 } from '../../util/identity.ts';
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { CitebenchError } from '../../util/errors.ts';
import { checkpointFiles, readCheckpoint } from './checkpoint/index.ts';
import { adapterFiles, ADAPTER_CONFIG, ADAPTER_WEIGHTS, buildEncoderGraph, readAdapter, readClassifierHead, readEncoderConfig, type GraphTask } from './encoder-graph/index.ts';
import { fileContentHash } from './file-hash.ts';
import { writeModel } from './onnx-graph.ts';

/** Bump when the graph encoder-graph/ builds for a given checkpoint changes: converted files of older versions are then rebuilt. */
const CONVERTER_VERSION = 1;

/** Where converted models live inside a model folder. */
export const CONVERT_CACHE = join('.citebench', 'onnx');

export interface ConvertOptions {
  /** int8 weights as onnxruntime's quantize_dynamic(weight_type=QInt8) makes them: `model_quantized.onnx`. */
  quantize?: boolean;
  /**
   * A folder saved by the adapters library (`adapter_config.json` + `adapter.safetensors` or `pytorch_adapter.bin`)
   * whose bottleneck adapter goes into the graph; its files' content is part of the cache key.
   */
  adapter?: string;
  /**
   * A causal LM's scoring head (encoder-graph causalLmHead): the graph outputs `logits` of only these token ids at
   * the last real position. Part of the cache key (head and ids), so a scorer's graph never meets an embedder's.
   */
  causalLmHead?: { tokenIds: readonly number[] };
  /**
   * sequence-classification: a cross-encoder's graph (the head on the encoder, output `logits`); its cache key
   * differs from the encoder graph's of the same folder. Default feature-extraction (the encoder).
   */
  task?: GraphTask;
  /** Told when a conversion runs (it takes seconds for a BERT-base checkpoint). */
  log?: (line: string) => void;
}

/** The adapter folder's files that make its content: config and weights (undefined weights: none there). */
function adapterKeyFiles(adapterDir: string): string[] {
  const f = adapterFiles(adapterDir);
  if (!existsSync(f.config)) throw new CitebenchError(`${adapterDir}: not an adapter folder (no ${ADAPTER_CONFIG})`);
  if (!f.weights) throw new CitebenchError(`${adapterDir}: no adapter weights (${ADAPTER_WEIGHTS.join(' or ')}) beside ${ADAPTER_CONFIG}`);
  return [f.config, f.weights];
}

/**
 * The cache key of a model folder's checkpoint: config.json and weight files by content, the converter version,
 * and with an adapter its config and weight file by content (a model without one keeps the key it always had).
 */
function conversionKey(dir: string, weightFiles: readonly string[], adapterDir?: string, task: GraphTask = 'feature-extraction', head?: { tokenIds: readonly number[] }): string {
  const h = sha256().update(`citebench-bert-convert\u0000${CONVERTER_VERSION}\u0000`);
  // An encoder graph keeps the key it always had; a head graph of the same checkpoint gets its own.
  if (task !== 'feature-extraction') h.update(`task\u0000${task}\u0000`);
  h.update(`config.json\u0000${fileContentHash(join(dir, 'config.json'))}\u0000`);
  for (const f of weightFiles) h.update(`${basename(f)}\u0000${fileContentHash(f)}\u0000`);
  if (adapterDir !== undefined) {
    h.update('adapter\u0000');
    for (const f of adapterKeyFiles(adapterDir)) h.update(`${basename(f)}\u0000${fileContentHash(f)}\u0000`);
  }
  if (head !== undefined) h.update(`causal-lm-head\u0000${head.tokenIds.join(',')}\u0000`);
  return `${h.hex(16)}-v${CONVERTER_VERSION}`;
}

/**
 * Path of the ONNX encoder converted from `dir`'s config.json and checkpoint (with `opts.adapter`'s adapter);
 * converts only when the cache has no complete file for exactly these files.
 */
export function convertCheckpoint(dir: string, opts: ConvertOptions = {}): string {
  const task = opts.task ?? 'feature-extraction';
  const config = readEncoderConfig(join(dir, 'config.json'), task);
  const head = task === 'sequence-classification' ? readClassifierHead(join(dir, 'config.json'), config) : undefined;
  if (head && opts.adapter !== undefined) throw new CitebenchError(`${dir}: adapters are added to encoders, not to a cross-encoder`);
  const files = checkpointFiles(dir);
  if (!files) throw new CitebenchError(`${dir}: no checkpoint to convert (model.safetensors, pytorch_model.bin or their sharded index)`);
  const out = join(dir, CONVERT_CACHE, conversionKey(dir, files, opts.adapter, task, opts.causalLmHead), opts.quantize ? 'model_quantized.onnx' : 'model.onnx');
  // A cached file needs nothing read: not even the checkpoint's header (a pickle for pytorch_model.bin).
  if (existsSync(out)) return out;
  const adapter = opts.adapter === undefined ? undefined : readAdapter(opts.adapter, config);
  const checkpoint = readCheckpoint(dir);
  // config.json is checked against the weights and every tensor looked up and shape-checked here, before anything is written.
  const graph = buildEncoderGraph(config, checkpoint, { quantize: opts.quantize, adapter, causalLmHead: opts.causalLmHead, ...(head ? { head } : {}) });
  try {
    mkdirSync(join(dir, CONVERT_CACHE), { recursive: true });
    accessSync(join(dir, CONVERT_CACHE), constants.W_OK);
  } catch (e) {
    throw new CitebenchError(`${dir}: cannot write the converted model into ${CONVERT_CACHE} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); copy the model folder somewhere writable`);
  }
  const what = [...checkpoint.files.map((f) => basename(f)), ...(adapter ? [`adapter ${basename(adapter.weightsFile)}`] : [])].join(', ');
  opts.log?.(`converting ${what} (${checkpoint.format}${config.modelType === 'bert' ? '' : `, ${config.modelType}`})${head ? ' with its sequence-classification head' : ''}${opts.causalLmHead ? ` with a causal-LM scoring head (token ids ${opts.causalLmHead.tokenIds.join(', ')})` : ''} to ONNX${opts.quantize ? ' (int8)' : ''}: ${out}`);
  writeModel(out, graph);
  return out;
}
