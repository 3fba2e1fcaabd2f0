/**
 * What loading a reranker takes (load.ts loadReranker, causal-lm.ts loadCausalReranker): its own file, so the
 * loaders of each form import it without importing load.ts back.
 */
import type { Device } from '../dense/encoder.ts';

export interface RerankerOptions {
  /** Folder of registry models and ORG--NAME hub folders (default ./models, or $CITEBENCH_MODELS). */
  modelsDir?: string;
  /** Token budget of a pair with its special tokens (over the registry's and the folder's). */
  maxLength?: number;
  /** The task instruction of an LLM reranker (causal-lm.ts); a cross-encoder takes none. */
  instruction?: string;
  /** Pairs per forward pass (default 16). */
  batchSize?: number;
  threads?: number;
  device?: Device;
  /** int8 weights (onnx/model_quantized.onnx, or the checkpoint's graph quantized as the encoders' are). */
  quantized?: boolean;
  /** onnx/model_fp16.onnx where the folder has it. */
  fp16?: boolean;
  /** Download a missing registry model or ORG/NAME from the hub (with its commit recorded). */
  allowRemote?: boolean;
  log?: (line: string) => void;
}
