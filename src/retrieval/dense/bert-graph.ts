/**
 * The BERT encoder as an ONNX graph, built from a model folder's config.json and checkpoint tensors, so the paper's
 * encoders (SciBERT, SPECTER, SciNCL, ASPIRE, SPECTER2 base: all plain BERT) load as published, without an ONNX
 * export. The graph computes what transformers' BertModel computes with its default attention (sdpa), pooler left
 * out; outputs `last_hidden_state` and `mean_hidden_states` (mean of the layers' outputs, embeddings excluded, as
 * the project's exported models define it for ASPIRE-style pooling). Anything outside that — another
 * architecture, relative position embeddings, an activation other than exact GELU — is refused, pointing at the
 * optimum-cli export route.
 */
import { readFileSync } from 'node:fs';
import { CitebenchError } from '../../util/errors.ts';
import type { Checkpoint, CheckpointTensor } from './checkpoint/tensors.ts';
import { ElemType, floatInitializer, int64Initializer, scalarInitializer, type GraphSpec, type Initializer, type NodeSpec } from './onnx-graph.ts';
import { quantizeInt8Symmetric, quantizeUint8Asymmetric, type Quantized } from './quantize.ts';

export interface BertConfig {
  /** The config.json read, for messages. */
  file: string;
  vocabSize: number;
  hiddenSize: number;
  numLayers: number;
  numHeads: number;
  intermediateSize: number;
  layerNormEps: number;
  maxPositions: number;
  typeVocabSize: number;
}

const EXPORT_HINT = 'export the model to ONNX with optimum-cli instead (docs/dense.md, "Getting a real model into citebench")';

/** Read and check a BERT config.json; anything the graph would not compute exactly is refused in one line. */
export function parseBertConfig(configPath: string): BertConfig {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(configPath, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new CitebenchError(`${configPath}: cannot read the model config (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new CitebenchError(`${configPath}: not a JSON object`);
  const bad = (field: string, why: string): never => {
    throw new CitebenchError(`${configPath} [${field}]: ${why}; citebench builds plain BERT encoders only — ${EXPORT_HINT}`);
  };
  if (raw.model_type !== 'bert') bad('model_type', `${JSON.stringify(raw.model_type)} is not "bert"`);
  const arch = raw.architectures;
  if (arch !== undefined && arch !== null) {
    if (!Array.isArray(arch) || !arch.every((a) => typeof a === 'string' && /^Bert(Model|ForPreTraining|ForMaskedLM)$/.test(a)))
      bad('architectures', `${JSON.stringify(arch)} is not BertModel, BertForPreTraining or BertForMaskedLM`);
  }
  const int = (field: string, dflt?: number): number => {
    const v = raw[field] ?? dflt;
    if (!Number.isSafeInteger(v) || (v as number) <= 0) bad(field, `${JSON.stringify(raw[field])} is not a positive integer`);
    return v as number;
  };
  // Defaults are BertConfig's, for fields older configs leave out.
  const act = raw.hidden_act ?? 'gelu';
  if (act !== 'gelu') bad('hidden_act', `${JSON.stringify(act)} is not "gelu" (the exact erf form, the only activation the graph computes)`);
  const pos = raw.position_embedding_type ?? 'absolute';
  if (pos !== 'absolute') bad('position_embedding_type', `${JSON.stringify(pos)} is not "absolute"`);
  if (raw.is_decoder === true) bad('is_decoder', 'a decoder (causal attention) is not an article encoder');
  const eps = raw.layer_norm_eps ?? 1e-12;
  if (typeof eps !== 'number' || !(eps > 0)) bad('layer_norm_eps', `${JSON.stringify(eps)} is not a positive number`);
  const c: BertConfig = {
    file: configPath,
    vocabSize: int('vocab_size'),
    hiddenSize: int('hidden_size'),
    numLayers: int('num_hidden_layers'),
    numHeads: int('num_attention_heads'),
    intermediateSize: int('intermediate_size'),
    layerNormEps: eps as number,
    maxPositions: int('max_position_embeddings', 512),
    typeVocabSize: int('type_vocab_size', 2),
  };
  if (c.hiddenSize % c.numHeads !== 0) bad('num_attention_heads', `hidden_size ${c.hiddenSize} is not a multiple of ${c.numHeads} heads`);
  return c;
}

/** Name prefixes a BERT body carries in the checkpoints transformers saves (BertModel; BertFor* wrap it in `bert`). */
const PREFIXES = ['', 'bert.'];

/** The checkpoint's tensor for a BertModel parameter name, under any accepted spelling, with its shape checked. */
function tensorFor(ck: Checkpoint, config: BertConfig, name: string, shape: number[]): CheckpointTensor {
  const spellings = [name];
  // Checkpoints converted from the original TensorFlow BERT (SciBERT's among them) name LayerNorm gamma/beta.
  if (name.endsWith('LayerNorm.weight')) spellings.push(name.replace(/weight$/, 'gamma'));
  if (name.endsWith('LayerNorm.bias')) spellings.push(name.replace(/bias$/, 'beta'));
  const where = ck.files.join(', ');
  for (const p of PREFIXES)
    for (const s of spellings) {
      const t = ck.tensors.get(p + s);
      if (!t) continue;
      if (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i]))
        throw new CitebenchError(`${where}: tensor '${p + s}' has shape [${t.shape.join(', ')}], ${config.file} implies [${shape.join(', ')}]; the checkpoint and its config.json do not belong together`);
      if (!['F32', 'F16', 'BF16'].includes(t.dtype)) throw new CitebenchError(`${where}: tensor '${p + s}' is ${t.dtype}, not a floating-point weight`);
      return t;
    }
  throw new CitebenchError(`${where}: tensor '${name}' is missing (looked for ${PREFIXES.flatMap((p) => spellings.map((s) => `'${p + s}'`)).join(', ')}); not a BERT checkpoint, or an incomplete one`);
}

/** PyTorch Linear stores [out, in]; MatMul wants [in, out]. */
function transposed(t: CheckpointTensor): () => Float32Array {
  return () => {
    const [rows, cols] = t.shape as [number, number];
    const a = t.float32();
    const out = new Float32Array(a.length);
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = a[r * cols + c];
    return out;
  };
}

/** float32's most negative finite value: transformers' additive mask value (torch.finfo(float32).min). */
const FLOAT32_MIN = -3.4028234663852886e38;

export interface BertGraphOptions {
  /**
   * int8 weights as onnxruntime's quantize_dynamic(weight_type=QInt8) writes them (quantize.ts): MatMul weights
   * int8 with activations quantized at run time (DynamicQuantizeLinear + MatMulInteger), embedding tables uint8.
   */
  quantize?: boolean;
}

/**
 * A quantized tensor as three initializers, named as onnxruntime's quantizer names them (`_quantized`, `_scale`,
 * `_zero_point`). The scale is written first and quantizes the tensor; the values, written last, release it.
 */
function quantizedInitializers(name: string, dims: number[], data: () => Float32Array, signed: boolean): Initializer[] {
  let q: Quantized<Int8Array | Uint8Array> | undefined;
  const get = () => (q ??= signed ? quantizeInt8Symmetric(data()) : quantizeUint8Asymmetric(data()));
  const type = signed ? ElemType.INT8 : ElemType.UINT8;
  const n = dims.reduce((a, b) => a * b, 1);
  return [
    { name: `${name}_scale`, type: ElemType.FLOAT, dims: [], byteLength: 4, data: () => new Uint8Array(Float32Array.of(get().scale).buffer) },
    { name: `${name}_zero_point`, type, dims: [], byteLength: 1, data: () => Uint8Array.of(get().zeroPoint & 0xff) },
    {
      name: `${name}_quantized`,
      type,
      dims,
      byteLength: n,
      data: () => {
        const v = get().values;
        q = undefined;
        return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
      },
    },
  ];
}

/**
 * The encoder graph for `config` with the checkpoint's weights (BertModel keys, or BertForPreTraining /
 * BertForMaskedLM keys with the `bert.` prefix; heads and pooler ignored). Every tensor is checked now; weights are
 * read (and float16/bfloat16 widened exactly to float32) only when the model is written.
 */
export function buildBertOnnx(config: BertConfig, ck: Checkpoint, opts: BertGraphOptions = {}): GraphSpec {
  const { hiddenSize: H, numHeads: NH, intermediateSize: I, numLayers: L } = config;
  const headDim = H / NH;
  const nodes: NodeSpec[] = [];
  const inits: Initializer[] = [];
  const node = (op: string, inputs: string[], output: string, attrs?: NodeSpec['attrs']): string => {
    nodes.push({ op, inputs, outputs: [output], attrs });
    return output;
  };
  const weight = (name: string, shape: number[]): string => {
    const t = tensorFor(ck, config, name, shape);
    inits.push(floatInitializer(name, shape, () => t.float32()));
    return name;
  };
  // Quantized activations, one DynamicQuantizeLinear per tensor (query, key and value share theirs).
  const dynQuant = new Map<string, string[]>();
  const quantizedInput = (x: string): string[] => {
    let q = dynQuant.get(x);
    if (!q) {
      q = [`${x}_quantized`, `${x}_scale`, `${x}_zero_point`];
      nodes.push({ op: 'DynamicQuantizeLinear', inputs: [x], outputs: q });
      dynQuant.set(x, q);
    }
    return q;
  };
  const linear = (x: string, name: string, nIn: number, nOut: number, out: string): string => {
    const t = tensorFor(ck, config, `${name}.weight`, [nOut, nIn]);
    const w = `${name}.weight.T`;
    const b = weight(`${name}.bias`, [nOut]);
    if (!opts.quantize) {
      inits.push(floatInitializer(w, [nIn, nOut], transposed(t)));
      return node('Add', [node('MatMul', [x, w], `${out}.mm`), b], out);
    }
    // The nodes onnxruntime's quantizer writes for a MatMul with a constant weight.
    inits.push(...quantizedInitializers(w, [nIn, nOut], transposed(t), true));
    const [xq, xs, xzp] = quantizedInput(x);
    const scales = node('Mul', [xs!, `${w}_scale`], `${out}.scales`);
    const acc = node('MatMulInteger', [xq!, `${w}_quantized`, xzp!, `${w}_zero_point`], `${out}.mmi`);
    const mm = node('Mul', [node('Cast', [acc], `${out}.mmi_f`, { to: { i: ElemType.FLOAT } }), scales], `${out}.mm`);
    return node('Add', [mm, b], out);
  };
  /** An embedding table, as a float32 initializer or (quantized) uint8 values dequantized after the lookup. */
  const table = (name: string, shape: number[]): { name: string; dequantize: (x: string) => string } => {
    if (!opts.quantize) return { name: weight(name, shape), dequantize: (x) => x };
    const t = tensorFor(ck, config, name, shape);
    inits.push(...quantizedInitializers(name, shape, () => t.float32(), false));
    return { name: `${name}_quantized`, dequantize: (x) => node('DequantizeLinear', [x, `${name}_scale`, `${name}_zero_point`], `${x}.dq`) };
  };
  const layerNorm = (x: string, name: string, out: string): string =>
    node('LayerNormalization', [x, weight(`${name}.weight`, [H]), weight(`${name}.bias`, [H])], out, { axis: { i: -1 }, epsilon: { f: config.layerNormEps } });

  inits.push(
    int64Initializer('c.zero', [0]),
    int64Initializer('c.axes12', [1, 2]),
    int64Initializer('c.heads', [0, 0, NH, headDim]),
    int64Initializer('c.merge', [0, 0, H]),
    scalarInitializer('c.f1', 1),
    scalarInitializer('c.fmin', FLOAT32_MIN),
    scalarInitializer('c.scale', 1 / Math.sqrt(headDim)),
    scalarInitializer('c.sqrt2', Math.SQRT2),
    scalarInitializer('c.half', 0.5),
  );

  // Embeddings: word + token type, then + position (0..seq-1), in transformers' order of addition; LayerNorm.
  const wordTable = table('embeddings.word_embeddings.weight', [config.vocabSize, H]);
  const word = wordTable.dequantize(node('Gather', [wordTable.name, 'input_ids'], 'emb.word'));
  const typeTable = table('embeddings.token_type_embeddings.weight', [config.typeVocabSize, H]);
  const type = typeTable.dequantize(node('Gather', [typeTable.name, 'token_type_ids'], 'emb.type'));
  const seqLen = node('Shape', ['input_ids'], 'seq_len', { start: { i: 1 }, end: { i: 2 } });
  const posTable = table('embeddings.position_embeddings.weight', [config.maxPositions, H]);
  const pos = posTable.dequantize(node('Slice', [posTable.name, 'c.zero', seqLen, 'c.zero'], 'emb.pos'));
  const sum = node('Add', [node('Add', [word, type], 'emb.word_type'), pos], 'emb.sum');
  let x = layerNorm(sum, 'embeddings.LayerNorm', 'emb.out');

  // Attention mask as sdpa applies it: masked keys get no weight (an additive float32-min bias makes their exp()
  // exactly 0), and a sequence whose mask is all zeros gets attention output 0 (sdpa's safe softmax), not the
  // uniform average an additive mask alone would give.
  const maskF = node('Cast', ['attention_mask'], 'mask.f', { to: { i: ElemType.FLOAT } });
  const bias = node('Unsqueeze', [node('Mul', [node('Sub', ['c.f1', maskF], 'mask.inv'), 'c.fmin'], 'mask.bias2d'), 'c.axes12'], 'mask.bias');
  const anyKey = node('Unsqueeze', [node('ReduceMax', [maskF], 'mask.any1', { axes: { ints: [1] }, keepdims: { i: 1 } }), 'c.axes12'], 'mask.any');

  const layerOutputs: string[] = [];
  for (let l = 0; l < L; l++) {
    const p = `encoder.layer.${l}`;
    const heads = (name: string, perm: number[]): string =>
      node('Transpose', [node('Reshape', [linear(x, `${p}.attention.self.${name}`, H, H, `${p}.${name}`), 'c.heads'], `${p}.${name}.heads`)], `${p}.${name}.t`, { perm: { ints: perm } });
    const q = heads('query', [0, 2, 1, 3]);
    const kT = heads('key', [0, 2, 3, 1]);
    const v = heads('value', [0, 2, 1, 3]);
    const scores = node('Add', [node('Mul', [node('MatMul', [q, kT], `${p}.qk`), 'c.scale'], `${p}.qk_scaled`), bias], `${p}.scores`);
    const probs = node('Softmax', [scores], `${p}.probs`, { axis: { i: -1 } });
    const ctx = node('Mul', [node('MatMul', [probs, v], `${p}.ctx_raw`), anyKey], `${p}.ctx`);
    const merged = node('Reshape', [node('Transpose', [ctx], `${p}.ctx_t`, { perm: { ints: [0, 2, 1, 3] } }), 'c.merge'], `${p}.ctx_merged`);
    const attnOut = linear(merged, `${p}.attention.output.dense`, H, H, `${p}.attn_dense`);
    const a = layerNorm(node('Add', [attnOut, x], `${p}.attn_res`), `${p}.attention.output.LayerNorm`, `${p}.attn_out`);
    // GELU, exact erf form, written as transformers' exports write it (onnxruntime fuses it into one Gelu op).
    const h = linear(a, `${p}.intermediate.dense`, H, I, `${p}.inter`);
    const erf = node('Erf', [node('Div', [h, 'c.sqrt2'], `${p}.gelu_div`)], `${p}.gelu_erf`);
    const gelu = node('Mul', [node('Mul', [h, node('Add', [erf, 'c.f1'], `${p}.gelu_add`)], `${p}.gelu_mul`), 'c.half'], `${p}.gelu`);
    const o = linear(gelu, `${p}.output.dense`, I, H, `${p}.out_dense`);
    x = layerNorm(node('Add', [o, a], `${p}.out_res`), `${p}.output.LayerNorm`, `${p}.out`);
    layerOutputs.push(x);
  }
  node('Identity', [x], 'last_hidden_state');
  // The mean over the layers exactly as the project's exported models compute it: stacked, then ReduceMean.
  const stacked = layerOutputs.map((t, l) => node('Unsqueeze', [t, 'c.zero'], `stack.${l}`));
  node('ReduceMean', [node('Concat', stacked, 'stack', { axis: { i: 0 } })], 'mean_hidden_states', { axes: { ints: [0] }, keepdims: { i: 0 } });

  const io = (name: string) => ({ name, type: ElemType.INT64, shape: ['batch', 'seq'] });
  const out = (name: string) => ({ name, type: ElemType.FLOAT, shape: ['batch', 'seq', H] });
  return {
    inputs: [io('input_ids'), io('attention_mask'), io('token_type_ids')],
    outputs: [out('last_hidden_state'), out('mean_hidden_states')],
    nodes,
    initializers: inits,
    opset: 17,
  };
}
