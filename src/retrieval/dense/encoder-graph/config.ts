/**
 * A model folder's config.json read as transformers 5.18 reads it, for the architectures citebench builds: BERT,
 * RoBERTa and XLM-RoBERTa (one family: the same layers, embeddings that differ in where positions start), and
 * ModernBERT; the decoder-style embedders are read by decoder-config.ts. Defaults are the configuration classes'
 * own, for keys older configs leave out. Anything the graph would not compute exactly is refused in one line
 * naming config.json and the key — so is an `auto_map`: the model's own modeling code, which citebench never
 * runs and never replaces by the native class of the same model_type (gte-Qwen2's bidirectional Qwen2, say).
 */
import { Keys, readConfigJson, readLayerTypes, readRope, readRopeParameters, type LayerType } from './config-keys.ts';
import { DECODER_ARCHITECTURES, readDecoderConfig, type DecoderConfig, type DecoderModelType } from './decoder-config.ts';

/** model_type values citebench builds, and the classes whose checkpoints hold the encoder. */
const MODEL_TYPES = {
  bert: /^Bert(Model|ForPreTraining|ForMaskedLM)$/,
  roberta: /^Roberta(Model|ForMaskedLM)$/,
  'xlm-roberta': /^XLMRoberta(Model|ForMaskedLM)$/,
  modernbert: /^ModernBert(Model|ForMaskedLM)$/,
  ...DECODER_ARCHITECTURES,
} as const;
type ModelType = keyof typeof MODEL_TYPES;

/** The cross-encoders' classes (a sequence-classification head on the encoders above; classifier.ts). */
const CLASSIFIER_TYPES: Partial<Record<ModelType, RegExp>> = {
  bert: /^BertForSequenceClassification$/,
  roberta: /^RobertaForSequenceClassification$/,
  'xlm-roberta': /^XLMRobertaForSequenceClassification$/,
  modernbert: /^ModernBertForSequenceClassification$/,
};

/** What the graph computes: the encoder's hidden states, or a cross-encoder's logits. */
export type GraphTask = 'feature-extraction' | 'sequence-classification';

interface Common {
  /** The config.json read, for messages. */
  file: string;
  modelType: Exclude<ModelType, DecoderModelType>;
  vocabSize: number;
  hiddenSize: number;
  numLayers: number;
  numHeads: number;
  intermediateSize: number;
  maxPositions: number;
}

/** BERT, RoBERTa, XLM-RoBERTa: post-norm layers, absolute position embeddings, exact GELU. */
export interface BertFamilyConfig extends Common {
  modelType: 'bert' | 'roberta' | 'xlm-roberta';
  layerNormEps: number;
  typeVocabSize: number;
  /** RoBERTa's: position ids start at pad_token_id + 1 and count non-padding tokens; undefined for BERT (0, 1, 2 …). */
  paddingIdx?: number;
}

export interface ModernBertConfig extends Common {
  modelType: 'modernbert';
  normEps: number;
  normBias: boolean;
  attentionBias: boolean;
  mlpBias: boolean;
  /** Total window of the local layers: a token attends to those at most localAttention / 2 away. */
  localAttention: number;
  /**
   * Per layer: attends to the whole sequence (rotary θ global) or within the window (θ local). A function, not a
   * list: config.json's layer count is checked against the weights only after it is read.
   */
  layerType: (layer: number) => LayerType;
  /** Whether any layer slides. */
  anySliding: boolean;
  globalRopeTheta: number;
  localRopeTheta: number;
}

export type EncoderConfig = BertFamilyConfig | ModernBertConfig | DecoderConfig;
export type { DecoderConfig } from './decoder-config.ts';

/** Whether a config is one of the decoder-style architectures (decoder-config.ts). */
export function isDecoder(c: EncoderConfig): c is DecoderConfig {
  return c.modelType in DECODER_ARCHITECTURES;
}

/**
 * The longest input the model takes, in tokens with the special ones: BERT's position table, RoBERTa's less the
 * pad_token_id + 1 positions it skips (514 → 512), ModernBERT's max_position_embeddings (its rotary angles have
 * no table, but the model was trained to that length). A longer input would index past the position table.
 */
export function maxTokens(c: EncoderConfig): number {
  if (isDecoder(c)) return c.maxPositions;
  return c.modelType !== 'modernbert' && c.paddingIdx !== undefined ? c.maxPositions - c.paddingIdx - 1 : c.maxPositions;
}

/**
 * Read and check a config.json of an architecture citebench builds; `task` sequence-classification: of a
 * cross-encoder (*ForSequenceClassification of BERT, RoBERTa, XLM-RoBERTa, ModernBERT), whose head keys
 * classifier.ts reads.
 */
export function readEncoderConfig(configPath: string, task: GraphTask = 'feature-extraction'): EncoderConfig {
  const k = new Keys(configPath, readConfigJson(configPath));
  const type = k.raw.model_type;
  const types = task === 'sequence-classification' ? CLASSIFIER_TYPES : MODEL_TYPES;
  if (typeof type !== 'string' || !Object.hasOwn(types, type))
    k.bad('model_type', `${JSON.stringify(type)} is not an architecture citebench builds${task === 'sequence-classification' ? ' as a cross-encoder' : ''} (${Object.keys(types).join(', ')})`);
  const modelType = type as ModelType;
  const arch = k.raw.architectures;
  const want = types[modelType]!;
  if (arch !== undefined && arch !== null && (!Array.isArray(arch) || !arch.every((a) => typeof a === 'string' && want.test(a))))
    k.bad('architectures', `${JSON.stringify(arch)} does not name the ${modelType} ${task === 'sequence-classification' ? 'cross-encoder' : 'encoder'} (${want.source.replace(/[\^$\\]/g, '')})`);
  if (k.has('auto_map'))
    k.bad('auto_map', `${JSON.stringify(k.raw.auto_map).slice(0, 120)}: the model runs its own modeling code, which citebench neither runs nor replaces by the native ${modelType} class (it would give other vectors)`);
  if (modelType in DECODER_ARCHITECTURES) return readDecoderConfig(k, modelType as DecoderModelType);
  if (k.raw.is_decoder === true) k.bad('is_decoder', 'a decoder (causal attention) is not an article encoder');
  const c = modelType === 'modernbert' ? modernBert(k) : bertFamily(k, modelType as BertFamilyConfig['modelType']);
  if (c.hiddenSize % c.numHeads !== 0) k.bad('num_attention_heads', `hidden_size ${c.hiddenSize} is not a multiple of ${c.numHeads} heads`);
  return c;
}

function common(k: Keys, modelType: Common['modelType'], dflt: { vocab: number; hidden: number; layers: number; intermediate: number; positions: number }): Common {
  return {
    file: k.file,
    modelType,
    vocabSize: k.int('vocab_size', dflt.vocab),
    hiddenSize: k.int('hidden_size', dflt.hidden),
    numLayers: k.int('num_hidden_layers', dflt.layers),
    numHeads: k.int('num_attention_heads', 12),
    intermediateSize: k.int('intermediate_size', dflt.intermediate),
    maxPositions: k.int('max_position_embeddings', dflt.positions),
  };
}

function bertFamily(k: Keys, modelType: BertFamilyConfig['modelType']): BertFamilyConfig {
  k.oneOf('hidden_act', 'gelu', ['gelu'], '"gelu" (the exact erf form, the only activation the graph computes)');
  k.oneOf('position_embedding_type', 'absolute', ['absolute'], '"absolute"');
  const c: BertFamilyConfig = {
    ...common(k, modelType, { vocab: modelType === 'bert' ? 30522 : modelType === 'roberta' ? 50265 : 30522, hidden: 768, layers: 12, intermediate: 3072, positions: 512 }),
    modelType,
    layerNormEps: k.positive('layer_norm_eps', 1e-12),
    typeVocabSize: k.int('type_vocab_size', 2),
  };
  if (modelType !== 'bert') {
    // RobertaEmbeddings.create_position_ids_from_input_ids: positions padding_idx + 1, + 2, … for real tokens.
    c.paddingIdx = k.int('pad_token_id', 1, 0);
    if (c.paddingIdx >= c.vocabSize) k.bad('pad_token_id', `${c.paddingIdx} is not below vocab_size ${c.vocabSize}`);
    if (c.paddingIdx + 1 >= c.maxPositions) k.bad('max_position_embeddings', `${c.maxPositions} leaves no position after pad_token_id ${c.paddingIdx}`);
  }
  return c;
}

function modernBert(k: Keys): ModernBertConfig {
  k.oneOf('hidden_activation', 'gelu', ['gelu'], '"gelu" (the exact erf form, the only activation the graph computes)');
  const base = common(k, 'modernbert', { vocab: 50368, hidden: 768, layers: 22, intermediate: 1152, positions: 8192 });
  if (k.raw.head_dim !== undefined && k.raw.head_dim !== null && k.raw.head_dim !== base.hiddenSize / base.numHeads)
    k.bad('head_dim', `${JSON.stringify(k.raw.head_dim)} is not hidden_size / num_attention_heads`);
  // ModernBertConfig.__post_init__: layer_types from global_attn_every_n_layers (default 3) when not given.
  const list = readLayerTypes(k, base.numLayers);
  let layerType: ModernBertConfig['layerType'];
  let anySliding: boolean;
  if (list === undefined) {
    const every = k.int('global_attn_every_n_layers', 3);
    layerType = (l) => (l % every ? 'sliding_attention' : 'full_attention');
    anySliding = every > 1 && base.numLayers > 1;
  } else {
    layerType = (l) => list[l]!;
    anySliding = list.includes('sliding_attention');
  }
  return {
    ...base,
    modelType: 'modernbert',
    normEps: k.positive('norm_eps', 1e-5),
    normBias: k.bool('norm_bias', false),
    attentionBias: k.bool('attention_bias', false),
    mlpBias: k.bool('mlp_bias', false),
    localAttention: k.int('local_attention', 128),
    layerType,
    anySliding,
    ...ropeThetas(k),
  };
}

/**
 * θ of the global and local layers: `rope_parameters` (transformers 5 configs) or `global_rope_theta` /
 * `local_rope_theta` (the hub's configs; ModernBertConfig.convert_rope_params_to_dict fills a missing rope_theta from
 * them), defaults 160000 and 10000; only the default rotary type.
 */
function ropeThetas(k: Keys): { globalRopeTheta: number; localRopeTheta: number } {
  if (k.raw.rope_scaling !== undefined && k.raw.rope_scaling !== null) k.bad('rope_scaling', 'rotary scaling is not computed (only the default rotary embedding)');
  const globalTheta = k.positive('global_rope_theta', 160_000);
  const localTheta = k.positive('local_rope_theta', 10_000);
  const params = readRopeParameters(k);
  if (params === undefined) return { globalRopeTheta: globalTheta, localRopeTheta: localTheta };
  const theta = (layer: LayerType, dflt: number): number => readRope(k, 'rope_parameters', params[layer], dflt, ['default'], layer).theta;
  return { globalRopeTheta: theta('full_attention', globalTheta), localRopeTheta: theta('sliding_attention', localTheta) };
}
