/**
 * The encoder as an ONNX graph, built from a model folder's config.json and checkpoint tensors, so encoders load
 * as published, without an ONNX export. One builder; a model is its parts in order, each architecture naming its
 * own: embeddings → (masks, rotary tables) → N layers → optional final norm. It computes what transformers 5.18
 * computes with sdpa attention (BertModel, RobertaModel, XLMRobertaModel, ModernBertModel, and the decoder-style
 * embedders' Qwen3Model, Qwen2Model, LlamaModel, MistralModel, Gemma3TextModel; pooler and heads left out — except
 * the cross-encoders' sequence-classification heads, `head`, whose graph outputs `logits` alone), adapters where an adapters-library adapter is given. Outputs: `last_hidden_state` and
 * `mean_hidden_states`, the mean of transformers' hidden_states[1:] (every layer's output, the last one as
 * `last_hidden_state`; embeddings excluded), which ASPIRE-style pooling reads. Pooling stays outside the graph.
 */
import { CitebenchError } from '../../../util/errors.ts';
import type { Checkpoint, CheckpointTensor } from '../checkpoint/tensors.ts';
import { ElemType, type GraphSpec } from '../onnx-graph.ts';
import { adapterSubLayerOutput, type Adapter } from './adapters.ts';
import { declareConstants, paddingMask } from './attention.ts';
import { bertEmbeddings, bertLayer, plainSubLayerOutput } from './bert.ts';
import { GraphBuilder, type Param } from './builder.ts';
import { isDecoder, type BertFamilyConfig, type EncoderConfig, type ModernBertConfig } from './config.ts';
import type { DecoderConfig } from './decoder-config.ts';
import { decoderContext, decoderEmbeddings, decoderFinal, decoderLayer, type DecoderContext } from './decoder.ts';
import { modernBertContext, modernBertEmbeddings, modernBertFinal, modernBertLayer, type ModernBertContext } from './modernbert.ts';
import { ModelWeights } from './weights.ts';
import { classifierHead, type ClassifierHead } from './classifier.ts';

export { maxTokens, readEncoderConfig, type GraphTask } from './config.ts';
export { readClassifierHead, readNumLabels, type ClassifierHead } from './classifier.ts';
export { readAdapter, adapterFiles, ADAPTER_CONFIG, ADAPTER_WEIGHTS } from './adapters.ts';

export interface EncoderGraphOptions {
  /**
   * int8 weights as onnxruntime's quantize_dynamic(weight_type=QInt8) writes them (quantize.ts): MatMul weights
   * int8 with activations quantized at run time (DynamicQuantizeLinear + MatMulInteger), embedding tables uint8.
   */
  quantize?: boolean;
  /** A bottleneck adapter (readAdapter) applied where the adapters library applies it. */
  adapter?: Adapter;
  /** Also output every hidden state (`hidden_states.0` = embeddings … `hidden_states.N`), as transformers returns them; for checks. */
  hiddenStates?: boolean;
  /**
   * A causal LM's scoring head instead of the hidden states (decoders only): the final-normed hidden state at each
   * row's last real position (the last position whose attention_mask is 1: seq − 1 under left padding) times only
   * these rows of the LM head (`lm_head.weight`, or the token embedding table with tie_word_embeddings). Output
   * `logits` [batch, tokenIds.length]: the logits of those tokens that transformers' `logits[:, -1]` holds.
   */
  causalLmHead?: { tokenIds: readonly number[] };
  /**
   * A cross-encoder: the sequence-classification head (classifier.ts) on the last hidden state, and the one output
   * `logits` [batch, num_labels] instead of the hidden states.
   */
  head?: ClassifierHead;
}

/** An architecture as its parts: what the graph takes, and the model's state from input ids to the last layer. */
interface Architecture<C extends EncoderConfig> {
  inputs(c: C): string[];
  /** Embeddings → per layer (after shared set-up) → optional final part; returns each layer's output. */
  build(g: GraphBuilder, c: C, w: ModelWeights, opts: EncoderGraphOptions): { embeddings: string; layers: string[]; final?: string };
}

const bertFamily: Architecture<BertFamilyConfig> = {
  // RoBERTa's single token type is a constant row: no token_type_ids input to feed wrongly.
  inputs: (c) => (c.paddingIdx === undefined ? ['input_ids', 'attention_mask', 'token_type_ids'] : ['input_ids', 'attention_mask']),
  build(g, c, w, opts) {
    const embeddings = bertEmbeddings(g, c, w);
    const mask = paddingMask(g);
    const end = opts.adapter ? adapterSubLayerOutput(opts.adapter, c, plainSubLayerOutput) : plainSubLayerOutput;
    const layers: string[] = [];
    let x = embeddings;
    for (let l = 0; l < c.numLayers; l++) layers.push((x = bertLayer(g, c, w, l, x, mask, end)));
    return { embeddings, layers };
  },
};

/**
 * A pre-norm stack as its parts: embeddings, the shared context (masks and rotary tables per attention type), the
 * layers in order, the final norm. Inputs: input_ids and attention_mask.
 */
function preNormStack<C extends ModernBertConfig | DecoderConfig, X>(parts: {
  embeddings: (g: GraphBuilder, c: C, w: ModelWeights) => string;
  context: (g: GraphBuilder, c: C) => X;
  layer: (g: GraphBuilder, c: C, w: ModelWeights, l: number, x: string, ctx: X) => string;
  final: (g: GraphBuilder, c: C, w: ModelWeights, x: string) => string;
}): Architecture<C> {
  return {
    inputs: () => ['input_ids', 'attention_mask'],
    build(g, c, w) {
      const embeddings = parts.embeddings(g, c, w);
      const ctx = parts.context(g, c);
      const layers: string[] = [];
      let x = embeddings;
      for (let l = 0; l < c.numLayers; l++) layers.push((x = parts.layer(g, c, w, l, x, ctx)));
      return { embeddings, layers, final: parts.final(g, c, w, x) };
    },
  };
}

const modernBert = preNormStack<ModernBertConfig, ModernBertContext>({ embeddings: modernBertEmbeddings, context: modernBertContext, layer: modernBertLayer, final: modernBertFinal });
const decoder = preNormStack<DecoderConfig, DecoderContext>({ embeddings: decoderEmbeddings, context: decoderContext, layer: decoderLayer, final: decoderFinal });

function architecture(c: EncoderConfig): Architecture<EncoderConfig> {
  return (isDecoder(c) ? decoder : c.modelType === 'modernbert' ? modernBert : bertFamily) as Architecture<EncoderConfig>;
}

/**
 * The encoder graph for `config` with the checkpoint's weights (the bare encoder's keys, or those of the
 * *ForMaskedLM / *ForPreTraining classes; heads and pooler ignored). config.json is checked against the weights
 * and every tensor looked up and shape-checked now; weights are read (float16/bfloat16 widened exactly to
 * float32) only when the model is written.
 */
export function buildEncoderGraph(config: EncoderConfig, ck: Checkpoint, opts: EncoderGraphOptions = {}): GraphSpec {
  const w = new ModelWeights(ck, config);
  w.checkConfig();
  const arch = architecture(config);
  if (opts.adapter && (config.modelType === 'modernbert' || isDecoder(config))) throw new CitebenchError(`${opts.adapter.configFile}: adapters are applied to BERT, RoBERTa and XLM-RoBERTa encoders only`);
  const g = new GraphBuilder(opts.quantize ?? false);
  declareConstants(g, config.numHeads, isDecoder(config) ? config.numHeads * config.headDim : config.hiddenSize);
  if (opts.causalLmHead && !isDecoder(config)) throw new CitebenchError(`${config.file}: a causal-LM scoring head needs a decoder (model_type qwen3, qwen2, llama, mistral, gemma3_text), not ${config.modelType}`);
  if (opts.head && (isDecoder(config) || opts.adapter || opts.hiddenStates)) throw new CitebenchError(`${config.file}: a sequence-classification head is built on BERT, RoBERTa, XLM-RoBERTa and ModernBERT encoders, without adapters`);
  const { embeddings, layers, final } = arch.build(g, config, w, opts);
  if (opts.causalLmHead) return causalLmGraph(g, config as DecoderConfig, w, final!, opts.causalLmHead.tokenIds, arch.inputs(config));
  if (opts.head) {
    classifierHead(g, config, opts.head, w, final ?? layers.at(-1)!);
    return graphSpec(g, arch.inputs(config), [{ name: 'logits', type: ElemType.FLOAT, shape: ['batch', opts.head.numLabels] }]);
  }
  // transformers' hidden_states: the embeddings, each layer's output, the last replaced by last_hidden_state.
  const states = final ? [...layers.slice(0, -1), final] : layers;
  g.node('Identity', [states.at(-1)!], 'last_hidden_state');
  // The mean over the layers exactly as the project's exported models compute it: stacked, then ReduceMean.
  const stacked = states.map((t, l) => g.node('Unsqueeze', [t, 'c.zero'], `stack.${l}`));
  g.node('ReduceMean', [g.node('Concat', stacked, 'stack', { axis: { i: 0 } })], 'mean_hidden_states', { axes: { ints: [0] }, keepdims: { i: 0 } });
  const out = (name: string) => ({ name, type: ElemType.FLOAT, shape: ['batch', 'seq', config.hiddenSize] });
  const outputs = [out('last_hidden_state'), out('mean_hidden_states')];
  if (opts.hiddenStates)
    [embeddings, ...states].forEach((t, i) => outputs.push(out(g.node('Identity', [t], `hidden_states.${i}`))));
  return graphSpec(g, arch.inputs(config), outputs);
}

/** The built graph: int64 [batch, seq] inputs, the given outputs, opset 17. */
function graphSpec(g: GraphBuilder, inputs: string[], outputs: GraphSpec['outputs']): GraphSpec {
  return { inputs: inputs.map((name) => ({ name, type: ElemType.INT64, shape: ['batch', 'seq'] })), outputs, nodes: g.nodes, initializers: g.initializers, opset: 17 };
}

/** The rows `ids` of a [vocab, hidden] table as a tensor of their own, read row by row where the reader can. */
function selectedRows(t: CheckpointTensor, ids: readonly number[], name: string): CheckpointTensor {
  const h = t.shape[1]!;
  return {
    name,
    dtype: 'F32',
    shape: [ids.length, h],
    float32: () => {
      const out = new Float32Array(ids.length * h);
      const whole = t.float32Range ? undefined : t.float32();
      ids.forEach((id, r) => out.set(whole ? whole.subarray(id * h, (id + 1) * h) : t.float32Range!(id * h, h), r * h));
      return out;
    },
  };
}

function causalLmGraph(g: GraphBuilder, c: DecoderConfig, w: ModelWeights, final: string, ids: readonly number[], inputs: string[]): GraphSpec {
  if (ids.length === 0) throw new CitebenchError(`${c.file}: a causal-LM scoring head needs at least one token id`);
  for (const id of ids)
    if (!Number.isInteger(id) || id < 0 || id >= c.vocabSize) throw new CitebenchError(`${c.file}: token id ${id} is outside the vocabulary (vocab_size ${c.vocabSize})`);
  const shape = [c.vocabSize, c.hiddenSize];
  // transformers ties lm_head to embed_tokens when tie_word_embeddings is set, whatever lm_head.weight the file holds.
  const table = c.tieWordEmbeddings ? w.get('embed_tokens.weight', shape) : w.lmHead(shape);
  const head: Param = { name: 'lm_head.selected', tensor: selectedRows(table.tensor, ids, 'lm_head.selected') };
  // The last real position of each row (the last 1 of its mask): seq − 1 under left padding, length − 1 under right.
  const maskF = g.node('Cast', ['attention_mask'], 'head.mask_f', { to: { i: ElemType.FLOAT } });
  const last = g.node('ArgMax', [maskF], 'head.last', { axis: { i: 1 }, keepdims: { i: 1 }, select_last_index: { i: 1 } });
  const state = g.node('GatherND', [final, last], 'head.state', { batch_dims: { i: 1 } });
  const cap = c.finalLogitSoftcap;
  if (cap === undefined) g.linear(state, head, undefined, 'logits');
  else {
    // Gemma's final soft-capping, as Gemma3ForCausalLM computes it: (logits / cap).tanh() · cap.
    const raw = g.linear(state, head, undefined, 'head.raw');
    const c1 = g.scalar(`c.softcap${cap}`, cap);
    g.node('Mul', [g.node('Tanh', [g.node('Div', [raw, c1], 'head.scaled')], 'head.tanh'), c1], 'logits');
  }
  return graphSpec(g, inputs, [{ name: 'logits', type: ElemType.FLOAT, shape: ['batch', ids.length] }]);
}
