/**
 * The checkpoint's tensors as the graph's parts ask for them: by their name in the bare encoder (BertModel,
 * RobertaModel, ModernBertModel keys), found under any prefix the hub's checkpoints carry (`bert.`, `roberta.`,
 * `model.` of the *ForMaskedLM / *ForPreTraining classes) and TensorFlow's LayerNorm spellings, shape-checked.
 * Before any part is built, config.json is checked against the weights — layer count, hidden, vocabulary,
 * intermediate and position sizes, biases — so a config that does not describe the checkpoint is one line naming
 * config.json and the key, not a missing tensor deep in the encoder.
 */
import { CitebenchError } from '../../../util/errors.ts';
import type { Checkpoint, CheckpointTensor } from '../checkpoint/tensors.ts';
import type { GraphBuilder, Param } from './builder.ts';
import { isDecoder, type EncoderConfig } from './config.ts';

/** Prefixes the encoder's keys carry in the checkpoints transformers saves for each architecture. */
const PREFIXES: Record<EncoderConfig['modelType'], string[]> = {
  bert: ['', 'bert.'],
  roberta: ['', 'roberta.'],
  'xlm-roberta': ['', 'roberta.'],
  modernbert: ['', 'model.'],
  qwen3: ['', 'model.'],
  qwen2: ['', 'model.'],
  llama: ['', 'model.'],
  mistral: ['', 'model.'],
  gemma3_text: ['', 'model.'],
};

/** Where each architecture keeps the tensors whose shapes carry config.json's sizes. */
const LAYOUT = {
  bert: {
    layer: /^encoder\.layer\.(\d+)\./,
    layerName: 'encoder.layer',
    word: 'embeddings.word_embeddings.weight',
    inter: 'encoder.layer.0.intermediate.dense.weight',
    interRows: 1,
  },
  modernbert: { layer: /^layers\.(\d+)\./, layerName: 'layers', word: 'embeddings.tok_embeddings.weight', inter: 'layers.0.mlp.Wi.weight', interRows: 2 },
  decoder: { layer: /^layers\.(\d+)\./, layerName: 'layers', word: 'embed_tokens.weight', inter: 'layers.0.mlp.gate_proj.weight', interRows: 1 },
};

/** The Linear layers of a checkpoint: `${name}.weight` [nOut, nIn] and, where `bias`, `${name}.bias` [nOut]. */
export function checkpointLinear(g: GraphBuilder, w: ModelWeights): (input: string, name: string, nIn: number, nOut: number, bias: boolean, out: string) => string {
  return (input, name, nIn, nOut, bias, out) => g.linear(input, w.get(`${name}.weight`, [nOut, nIn]), w.optional(`${name}.bias`, [nOut], bias), out);
}

export class ModelWeights {
  private readonly where: string;
  constructor(
    readonly ck: Checkpoint,
    readonly config: EncoderConfig,
  ) {
    this.where = ck.files.join(', ');
  }

  private spellings(name: string): string[] {
    const s = [name];
    // Checkpoints converted from the original TensorFlow BERT (SciBERT's among them) name LayerNorm gamma/beta.
    if (name.endsWith('LayerNorm.weight')) s.push(name.replace(/weight$/, 'gamma'));
    if (name.endsWith('LayerNorm.bias')) s.push(name.replace(/bias$/, 'beta'));
    return PREFIXES[this.config.modelType].flatMap((p) => s.map((x) => p + x));
  }

  /** The stored tensor for an encoder parameter name, under any accepted spelling; undefined when absent. */
  find(name: string): CheckpointTensor | undefined {
    for (const key of this.spellings(name)) {
      const t = this.ck.tensors.get(key);
      if (t) return t;
    }
    return undefined;
  }

  /** The parameter `name` with the shape config.json implies, or one line naming the tensor and the file. */
  get(name: string, shape: number[]): Param {
    const t = this.find(name);
    if (!t) throw new CitebenchError(`${this.where}: tensor '${name}' is missing (looked for ${this.spellings(name).map((k) => `'${k}'`).join(', ')}); not a ${this.config.modelType} checkpoint, or an incomplete one`);
    if (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i]))
      throw new CitebenchError(`${this.where}: tensor '${t.name}' has shape [${t.shape.join(', ')}], ${this.config.file} implies [${shape.join(', ')}]; the checkpoint and its config.json do not belong together`);
    if (!['F32', 'F16', 'BF16'].includes(t.dtype)) throw new CitebenchError(`${this.where}: tensor '${t.name}' is ${t.dtype}, not a floating-point weight`);
    return { name, tensor: t };
  }

  /**
   * A causal LM's `lm_head.weight` (top level in *ForCausalLM checkpoints, beside `model.`), shape-checked; one line
   * when absent (transformers would initialise it at random).
   */
  lmHead(shape: number[]): Param {
    const t = this.ck.tensors.get('lm_head.weight');
    if (!t) throw new CitebenchError(`${this.where}: no 'lm_head.weight' and ${this.config.file} does not set tie_word_embeddings; not a causal LM checkpoint (its scoring head is missing)`);
    if (t.shape.length !== 2 || t.shape[0] !== shape[0] || t.shape[1] !== shape[1])
      throw new CitebenchError(`${this.where}: tensor 'lm_head.weight' has shape [${t.shape.join(', ')}], ${this.config.file} implies [${shape.join(', ')}]; the checkpoint and its config.json do not belong together`);
    if (!['F32', 'F16', 'BF16'].includes(t.dtype)) throw new CitebenchError(`${this.where}: tensor 'lm_head.weight' is ${t.dtype}, not a floating-point weight`);
    return { name: 'lm_head.weight', tensor: t };
  }

  /** `get` when config.json says the parameter exists (a bias flag), else undefined. */
  optional(name: string, shape: number[], present: boolean): Param | undefined {
    return present ? this.get(name, shape) : undefined;
  }

  /**
   * config.json against the weights, before anything is built: every size a tensor's shape carries, the layer
   * count from the layer indices the tensor names hold, and (ModernBERT) the bias flags.
   */
  checkConfig(): void {
    const c = this.config;
    const layout = c.modelType === 'modernbert' ? LAYOUT.modernbert : isDecoder(c) ? LAYOUT.decoder : LAYOUT.bert;
    const mismatch = (key: string, why: string): never => {
      throw new CitebenchError(`${c.file} [${key}]: ${why}; the checkpoint and its config.json do not belong together`);
    };
    const layers = new Set<number>();
    const prefixes = PREFIXES[c.modelType];
    for (const key of this.ck.tensors.keys())
      for (const p of prefixes)
        if (key.startsWith(p)) {
          const m = layout.layer.exec(key.slice(p.length));
          if (m) layers.add(Number(m[1]));
        }
    if (layers.size === 0) mismatch('model_type', `"${c.modelType}", but ${this.where} holds no ${layout.layerName}.N tensors of that architecture`);
    const count = Math.max(...layers) + 1;
    if (c.numLayers !== count) mismatch('num_hidden_layers', `${c.numLayers}, but ${this.where} holds ${count} layers (${layout.layerName}.0 to ${layout.layerName}.${count - 1})`);
    const dims = (name: string): readonly number[] | undefined => {
      const t = this.find(name);
      return t && t.shape.length === 2 ? t.shape : undefined;
    };
    const word = dims(layout.word);
    if (word) {
      if (word[1] !== c.hiddenSize) mismatch('hidden_size', `${c.hiddenSize}, but '${layout.word}' has ${word[1]} columns`);
      if (word[0] !== c.vocabSize) mismatch('vocab_size', `${c.vocabSize}, but '${layout.word}' has ${word[0]} rows`);
    }
    const inter = dims(layout.inter);
    if (inter && inter[0] !== c.intermediateSize * layout.interRows)
      mismatch('intermediate_size', `${c.intermediateSize}, but '${layout.inter}' has ${inter[0]} rows${layout.interRows > 1 ? ` (${layout.interRows} × intermediate_size)` : ''}`);
    const flag = (key: string, value: boolean, tensor: string) => {
      if (value !== Boolean(this.find(tensor))) mismatch(key, `${value}, but ${this.where} ${value ? 'has no' : 'has a'} '${tensor}'`);
    };
    if (isDecoder(c)) {
      const rows = (name: string, want: number, key: string, what: string) => {
        const d = dims(name);
        if (d && d[0] !== want) mismatch(key, `${what} = ${want}, but '${name}' has ${d[0]} rows`);
      };
      rows('layers.0.self_attn.q_proj.weight', c.numHeads * c.headDim, 'num_attention_heads', `num_attention_heads × head_dim (${c.numHeads} × ${c.headDim})`);
      rows('layers.0.self_attn.k_proj.weight', c.numKvHeads * c.headDim, 'num_key_value_heads', `num_key_value_heads × head_dim (${c.numKvHeads} × ${c.headDim})`);
      const biasKey = c.modelType === 'qwen2' || c.modelType === 'mistral' ? 'model_type' : 'attention_bias';
      flag(biasKey, c.qkvBias, 'layers.0.self_attn.q_proj.bias');
      flag(biasKey, c.oBias, 'layers.0.self_attn.o_proj.bias');
      flag(c.modelType === 'llama' ? 'mlp_bias' : 'model_type', c.mlpBias, 'layers.0.mlp.gate_proj.bias');
      flag('model_type', c.qkNorm, 'layers.0.self_attn.q_norm.weight');
      return;
    }
    if (c.modelType === 'modernbert') {
      flag('norm_bias', c.normBias, 'final_norm.bias');
      flag('attention_bias', c.attentionBias, 'layers.0.attn.Wqkv.bias');
      flag('mlp_bias', c.mlpBias, 'layers.0.mlp.Wi.bias');
      return;
    }
    const pos = dims('embeddings.position_embeddings.weight');
    if (pos && pos[0] !== c.maxPositions) mismatch('max_position_embeddings', `${c.maxPositions}, but 'embeddings.position_embeddings.weight' has ${pos[0]} rows`);
    const types = dims('embeddings.token_type_embeddings.weight');
    if (types && types[0] !== c.typeVocabSize) mismatch('type_vocab_size', `${c.typeVocabSize}, but 'embeddings.token_type_embeddings.weight' has ${types[0]} rows`);
  }
}
