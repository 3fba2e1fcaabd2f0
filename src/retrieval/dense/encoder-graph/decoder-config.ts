/**
 * config.json of the decoder-style embedders, read as transformers 5.18's configuration classes read it: Qwen3
 * (Qwen3-Embedding), Qwen2, Llama and Mistral (e5-mistral, SFR-Embedding), and the Gemma 3 text model
 * (EmbeddingGemma, with its bidirectional attention). Both forms hubs carry are read: transformers 4.x keys
 * (`rope_theta`, `rope_local_base_freq`, `rope_scaling`) and 5.x ones (`rope_parameters`, flat or per layer
 * type). Defaults are the classes' own. Anything the graph would not compute exactly — a rotary scaling other
 * than linear, partial rotary, logit soft-capping, an activation it does not build — is one line naming
 * config.json and the key.
 */
import { Keys, readLayerTypes, readRope, readRopeParameters, type LayerType, type RopeSpec } from './config-keys.ts';

export type { LayerType, RopeSpec } from './config-keys.ts';
export type DecoderModelType = 'qwen3' | 'qwen2' | 'llama' | 'mistral' | 'gemma3_text';

export interface DecoderConfig {
  file: string;
  modelType: DecoderModelType;
  vocabSize: number;
  hiddenSize: number;
  numLayers: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  intermediateSize: number;
  maxPositions: number;
  rmsEps: number;
  /** Causal (a decoder as trained for generation) or bidirectional (EmbeddingGemma's use_bidirectional_attention). */
  causal: boolean;
  layerType: (layer: number) => LayerType;
  anySliding: boolean;
  /**
   * Sliding layers: causal ones see keys i − window < j ≤ i (transformers' sliding_window_overlay); bidirectional
   * ones keys with |i − j| ≤ halfWindow (Gemma3TextConfig halves config.json's sliding_window, then compares
   * |i − j| < window // 2 + 1).
   */
  slidingWindow?: number;
  rope: Record<LayerType, RopeSpec>;
  /** Scores scaled by this (head_dim^-0.5, Gemma's query_pre_attn_scalar^-0.5). */
  attentionScale: number;
  /** Biases of q, k, v (Qwen2 always, Llama's attention_bias), of o, and of the MLP's projections. */
  qkvBias: boolean;
  oBias: boolean;
  mlpBias: boolean;
  /** RMSNorm over each head of q and k before the rotation (Qwen3, Gemma 3). */
  qkNorm: boolean;
  /** Gemma's zero-centred RMSNorm: x̂ · (1 + w); others x̂ · w. */
  normPlusOne: boolean;
  /** Gemma's norms after attention and after the MLP too (four per layer). */
  sandwichNorms: boolean;
  /** The MLP's gate activation: SiLU (SwiGLU) or GELU's tanh form (GeGLU). */
  activation: 'silu' | 'gelu_tanh';
  /** Gemma scales the token embeddings by √hidden (as float32). */
  embedScale?: number;
  /** The LM head is the token embedding table (tie_word_embeddings; the classes' default: Gemma 3 true, the others false). */
  tieWordEmbeddings: boolean;
  /** Gemma's final_logit_softcapping: a causal LM's logits become cap · tanh(logits / cap) (the scoring head's only). */
  finalLogitSoftcap?: number;
}

/** The classes each model_type's checkpoints come from (their encoder is the bare model, under `model.` or not). */
export const DECODER_ARCHITECTURES: Record<DecoderModelType, RegExp> = {
  qwen3: /^Qwen3(Model|ForCausalLM)$/,
  qwen2: /^Qwen2(Model|ForCausalLM)$/,
  llama: /^Llama(Model|ForCausalLM)$/,
  mistral: /^Mistral(Model|ForCausalLM)$/,
  gemma3_text: /^Gemma3(TextModel|ForCausalLM)$/,
};

/** The configuration classes' defaults for the keys old configs leave out. */
const DEFAULTS: Record<DecoderModelType, { vocab: number; hidden: number; inter: number; layers: number; heads: number; kv?: number; headDim?: number; positions: number }> = {
  qwen3: { vocab: 151936, hidden: 4096, inter: 22016, layers: 32, heads: 32, kv: 32, headDim: 128, positions: 32768 },
  qwen2: { vocab: 151936, hidden: 4096, inter: 22016, layers: 32, heads: 32, kv: 32, positions: 32768 },
  llama: { vocab: 32000, hidden: 4096, inter: 11008, layers: 32, heads: 32, positions: 2048 },
  mistral: { vocab: 32000, hidden: 4096, inter: 14336, layers: 32, heads: 32, kv: 8, positions: 4096 * 32 },
  gemma3_text: { vocab: 262208, hidden: 2304, inter: 9216, layers: 26, heads: 8, kv: 4, headDim: 256, positions: 131072 },
};

/** The rotary types the decoders' graph computes. */
const ROPE_TYPES = ['default', 'linear'] as const;

/** Rotary parameters of one dict (`rope_parameters` or a layer type's entry, or 4.x `rope_scaling`). */
function ropeOf(k: Keys, key: string, p: unknown, theta: number): RopeSpec {
  return readRope(k, key, p, theta, ROPE_TYPES);
}

/**
 * θ and scaling per layer type. 5.x: `rope_parameters`, nested by layer type or one flat dict for all; 4.x:
 * `rope_theta` and `rope_scaling` (Gemma 3: `rope_local_base_freq` for the sliding layers, the scaling for the
 * full ones only, as Gemma3TextConfig.convert_rope_params_to_dict applies it).
 */
function ropes(k: Keys, type: DecoderModelType): Record<LayerType, RopeSpec> {
  if (k.has('partial_rotary_factor') && k.raw.partial_rotary_factor !== 1)
    k.bad('partial_rotary_factor', `${JSON.stringify(k.raw.partial_rotary_factor)} is not computed (rotary over the whole head only)`);
  const gemma = type === 'gemma3_text';
  const globalTheta = k.positive('rope_theta', gemma ? 1_000_000 : 10_000);
  const localTheta = gemma ? k.positive('rope_local_base_freq', 10_000) : globalTheta;
  const params = readRopeParameters(k);
  const scaling = k.raw.rope_scaling ?? undefined;
  const o = (params ?? {}) as Record<string, unknown>;
  const nested = 'full_attention' in o || 'sliding_attention' in o;
  if (!gemma) {
    // convert_rope_params_to_dict: rope_scaling, when given, replaces rope_parameters; one dict for every layer.
    const r = scaling !== undefined ? ropeOf(k, 'rope_scaling', scaling, globalTheta) : ropeOf(k, 'rope_parameters', nested ? o.full_attention : params, globalTheta);
    return { full_attention: r, sliding_attention: nested && !scaling ? ropeOf(k, 'rope_parameters', o.sliding_attention, globalTheta) : r };
  }
  // Gemma3TextConfig: per layer type, rope_scaling merged into the full layers' entry.
  const fullBase = nested ? o.full_attention : params;
  const full =
    scaling === undefined
      ? ropeOf(k, 'rope_parameters', fullBase, globalTheta)
      : ropeOf(k, 'rope_scaling', { ...((fullBase as Record<string, unknown>) ?? {}), ...(scaling as Record<string, unknown>) }, globalTheta);
  return { full_attention: full, sliding_attention: ropeOf(k, 'rope_parameters', nested ? o.sliding_attention : undefined, localTheta) };
}

function layerTypes(k: Keys, type: DecoderModelType, layers: number): { layerType: (l: number) => LayerType; anySliding: boolean; slidingWindow?: number } {
  const window = (): number => k.int('sliding_window', 4096);
  let list = readLayerTypes(k, layers);
  if (type === 'gemma3_text') {
    if (!list) {
      const every = k.int('sliding_window_pattern', 6);
      list = Array.from({ length: layers }, (_, i) => ((i + 1) % every ? 'sliding_attention' : 'full_attention'));
    }
  } else if (type === 'qwen3' || type === 'qwen2') {
    // Qwen2Config/Qwen3Config: use_sliding_window false sets sliding_window to None, and a null sliding_window
    // (4096 when absent) is no window: no layer may slide then.
    const sliding = k.bool('use_sliding_window', false) && k.raw.sliding_window !== null;
    if (!list) {
      const from = k.int('max_window_layers', 28, 0);
      list = Array.from({ length: layers }, (_, i) => (sliding && i >= from ? 'sliding_attention' : 'full_attention'));
    } else if (!sliding && list.includes('sliding_attention')) k.bad('layer_types', 'names sliding layers, but use_sliding_window is false or sliding_window null (no window)');
  } else if (type === 'mistral') {
    // MistralModel slides on every layer unless sliding_window is null; absent, it is MistralConfig's 4096.
    const on = k.raw.sliding_window !== null;
    list = Array.from({ length: layers }, () => (on ? 'sliding_attention' : 'full_attention'));
  } else {
    if (list?.includes('sliding_attention')) k.bad('layer_types', 'Llama layers do not slide');
    list = Array.from({ length: layers }, () => 'full_attention');
  }
  const anySliding = list.includes('sliding_attention');
  const l = list;
  return { layerType: (i) => l[i]!, anySliding, ...(anySliding ? { slidingWindow: window() } : {}) };
}

/** Read and check the config.json of a decoder-style embedder (`k.raw.model_type` is one of DecoderModelType). */
export function readDecoderConfig(k: Keys, type: DecoderModelType): DecoderConfig {
  const d = DEFAULTS[type];
  const gemma = type === 'gemma3_text';
  const vocabSize = k.int('vocab_size', d.vocab);
  const hiddenSize = k.int('hidden_size', d.hidden);
  const numLayers = k.int('num_hidden_layers', d.layers);
  const numHeads = k.int('num_attention_heads', d.heads);
  const numKvHeads = k.int('num_key_value_heads', d.kv ?? numHeads);
  if (numHeads % numKvHeads !== 0) k.bad('num_key_value_heads', `${numKvHeads} does not divide num_attention_heads ${numHeads}`);
  // head_dim as the attention classes read it: config.json's (Qwen2Config has no such key, but Qwen2Attention
  // reads one a config sets), else the class's default (Qwen3, Gemma 3), else hidden_size // heads; null = absent.
  const headDim = k.int('head_dim', d.headDim ?? Math.floor(hiddenSize / numHeads));
  if (headDim % 2 !== 0) k.bad('head_dim', `${headDim} is odd: rotary positions rotate pairs of dimensions`);
  const act = gemma ? (k.raw.hidden_activation ?? k.raw.hidden_act ?? 'gelu_pytorch_tanh') : (k.raw.hidden_act ?? 'silu');
  const actKey = gemma ? (k.has('hidden_activation') ? 'hidden_activation' : 'hidden_act') : 'hidden_act';
  if (gemma ? act !== 'gelu_pytorch_tanh' : act !== 'silu') k.bad(actKey, `${JSON.stringify(act)} is not ${gemma ? '"gelu_pytorch_tanh"' : '"silu"'} (the activation the graph computes for ${type})`);
  if (gemma && k.has('attn_logit_softcapping')) k.bad('attn_logit_softcapping', `${JSON.stringify(k.raw.attn_logit_softcapping)}: soft-capped attention logits are not computed`);
  const causal = gemma ? !k.bool('use_bidirectional_attention', false) : true;
  if (!gemma && k.raw.use_bidirectional_attention === true) k.bad('use_bidirectional_attention', `${type} attention is causal in transformers; a bidirectional variant needs its own modeling code`);
  // Qwen2 always has q/k/v biases (and none on o); Mistral none, whatever attention_bias says.
  const attentionBias = type === 'qwen2' ? true : type === 'mistral' ? false : k.bool('attention_bias', false);
  return {
    file: k.file,
    modelType: type,
    vocabSize,
    hiddenSize,
    numLayers,
    numHeads,
    numKvHeads,
    headDim,
    intermediateSize: k.int('intermediate_size', d.inter),
    maxPositions: k.int('max_position_embeddings', d.positions),
    rmsEps: k.positive('rms_norm_eps', 1e-6),
    causal,
    ...layerTypes(k, type, numLayers),
    rope: ropes(k, type),
    attentionScale: gemma ? Math.pow(k.positive('query_pre_attn_scalar', 256), -0.5) : Math.pow(headDim, -0.5),
    qkvBias: attentionBias,
    oBias: type === 'qwen2' ? false : attentionBias,
    mlpBias: type === 'llama' ? k.bool('mlp_bias', false) : false,
    qkNorm: type === 'qwen3' || gemma,
    normPlusOne: gemma,
    sandwichNorms: gemma,
    activation: gemma ? 'gelu_tanh' : 'silu',
    tieWordEmbeddings: k.bool('tie_word_embeddings', gemma),
    ...(gemma && k.has('final_logit_softcapping') ? { finalLogitSoftcap: k.positive('final_logit_softcapping', 1) } : {}),
    ...(gemma ? { embedScale: Math.fround(Math.sqrt(hiddenSize)) } : {}),
  };
}
