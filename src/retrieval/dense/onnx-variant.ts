/**
 * Which ONNX export of a model folder to load. File names are those optimum and transformers.js write under
 * `onnx/`: model.onnx (float32), model_fp16.onnx (float16 weights and compute), model_quantized.onnx (int8).
 */
export type OnnxVariant = 'fp32' | 'fp16' | 'quantized';

/**
 * File names in the order they are tried. fp16 falls back to fp32, never to int8: float16 compute is used
 * where the model allows it, i.e. where the folder has a float16 export.
 */
export function onnxNames(prefer: OnnxVariant): string[] {
  if (prefer === 'quantized') return ['model_quantized.onnx', 'model.onnx'];
  if (prefer === 'fp16') return ['model_fp16.onnx', 'model.onnx', 'model_quantized.onnx'];
  return ['model.onnx', 'model_quantized.onnx'];
}
