/**
 * The sequence-classification heads of the cross-encoders, on the encoder's last hidden state, as transformers
 * 5.18 computes them: BertForSequenceClassification (pooler: dense + tanh on the first token, then `classifier`),
 * RobertaForSequenceClassification / XLMRobertaForSequenceClassification (`classifier.dense`, tanh,
 * `classifier.out_proj` on `<s>`), ModernBertForSequenceClassification (`classifier_pooling` cls or mean over the
 * attention mask, then `head.dense` → `classifier_activation` → `head.norm`, then `classifier`). Dropout is the
 * identity at inference. The head's config keys are read here; a classifier with more than two labels gives no
 * single relevance score and is refused in one line naming config.json and the key.
 */
import { CitebenchError } from '../../../util/errors.ts';
import { ElemType } from '../onnx-graph.ts';
import type { GraphBuilder } from './builder.ts';
import { Keys, readConfigJson } from './config-keys.ts';
import type { EncoderConfig } from './config.ts';
import type { ModelWeights } from './weights.ts';

/** ModernBERT's classifier_activation values the graph computes (transformers ACT2FN names). */
const ACTIVATIONS = ['gelu', 'gelu_pytorch_tanh', 'gelu_new', 'relu', 'silu', 'swish', 'tanh', 'sigmoid'] as const;
type Activation = (typeof ACTIVATIONS)[number];

export interface ClassifierHead {
  /** 1 (a relevance logit) or 2 (citebench scores P(label 1): docs/rerank.md). */
  numLabels: number;
  /** ModernBERT only. */
  pooling?: 'cls' | 'mean';
  activation?: Activation;
  classifierBias?: boolean;
}

/**
 * The number of labels as transformers reads it: `id2label`'s size when present, else `num_labels`, else 2
 * (PretrainedConfig's default).
 */
function numLabels(k: Keys): { n: number; key: string } {
  const m = k.raw.id2label;
  if (m !== undefined && m !== null) {
    if (typeof m !== 'object' || Array.isArray(m)) k.bad('id2label', 'not an object');
    return { n: Object.keys(m as object).length, key: 'id2label' };
  }
  if (k.has('num_labels')) return { n: k.int('num_labels'), key: 'num_labels' };
  return { n: 2, key: 'id2label' };
}

/** The number of labels of a classifier's config.json: 1 or 2; more is refused in one line naming the file and the key. */
export function readNumLabels(configPath: string): 1 | 2 {
  return labelsOf(new Keys(configPath, readConfigJson(configPath)));
}

function labelsOf(k: Keys): 1 | 2 {
  const configPath = k.file;
  const { n, key } = numLabels(k);
  if (n > 2) {
    const labels = key === 'id2label' ? ` (${Object.values(k.raw.id2label as object).slice(0, 5).map(String).join(', ')}${n > 5 ? ', …' : ''})` : '';
    throw new CitebenchError(`${configPath} [${key}]: ${n} labels${labels}: a classifier with more than one label gives no single relevance score (citebench reranks with one label, or two as P(label 1): docs/rerank.md)`);
  }
  if (n < 1) throw new CitebenchError(`${configPath} [${key}]: no labels`);
  return n as 1 | 2;
}

/** The head's keys of a *ForSequenceClassification config.json. */
export function readClassifierHead(configPath: string, c: EncoderConfig): ClassifierHead {
  const k = new Keys(configPath, readConfigJson(configPath));
  const n = labelsOf(k);
  if (c.modelType !== 'modernbert') return { numLabels: n };
  k.oneOf('classifier_pooling', 'cls', ['cls', 'mean'], '"cls" or "mean"');
  k.oneOf('classifier_activation', 'gelu', ACTIVATIONS, `one of ${ACTIVATIONS.join(', ')}`);
  return {
    numLabels: n,
    pooling: (k.raw.classifier_pooling ?? 'cls') as 'cls' | 'mean',
    activation: (k.raw.classifier_activation ?? 'gelu') as Activation,
    classifierBias: k.bool('classifier_bias', false),
  };
}

function activate(g: GraphBuilder, x: string, act: Activation, p: string): string {
  switch (act) {
    case 'gelu':
      return g.gelu(x, p);
    case 'gelu_pytorch_tanh':
    case 'gelu_new':
      return g.geluTanh(x, p);
    case 'relu':
      return g.node('Relu', [x], `${p}.relu`);
    case 'silu':
    case 'swish':
      return g.silu(x, p);
    case 'tanh':
      return g.node('Tanh', [x], `${p}.tanh`);
    case 'sigmoid':
      return g.node('Sigmoid', [x], `${p}.sigmoid`);
  }
}

/** A head tensor, or one line saying the checkpoint has no sequence-classification head. */
function headParam(w: ModelWeights, name: string, shape: number[]) {
  if (!w.find(name))
    throw new CitebenchError(
      `${w.ck.files.join(', ')}: the sequence-classification head's tensor '${name}' is missing: not a ${w.config.modelType} *ForSequenceClassification checkpoint (an encoder without its head gives no relevance score)`,
    );
  return w.get(name, shape);
}

/** `logits` [batch, numLabels] from the encoder's last hidden state `x` [batch, seq, H]. */
export function classifierHead(g: GraphBuilder, c: EncoderConfig, head: ClassifierHead, w: ModelWeights, x: string): string {
  const H = c.hiddenSize;
  const L = head.numLabels;
  const lin = (input: string, name: string, nOut: number, bias: boolean, out: string) => g.linear(input, headParam(w, `${name}.weight`, [nOut, H]), bias ? headParam(w, `${name}.bias`, [nOut]) : undefined, out);
  const first = () => g.node('Gather', [x, g.int('c.i0', 0)], 'head.first', { axis: { i: 1 } });
  if (c.modelType === 'bert') {
    const pooled = g.node('Tanh', [lin(first(), 'pooler.dense', H, true, 'head.pooler')], 'head.pooled');
    return lin(pooled, 'classifier', L, true, 'logits');
  }
  if (c.modelType === 'roberta' || c.modelType === 'xlm-roberta') {
    const h = g.node('Tanh', [lin(first(), 'classifier.dense', H, true, 'head.dense')], 'head.tanh');
    return lin(h, 'classifier.out_proj', L, true, 'logits');
  }
  if (c.modelType !== 'modernbert') throw new CitebenchError(`${c.file} [model_type]: ${c.modelType} has no sequence-classification head citebench builds (bert, roberta, xlm-roberta, modernbert)`);
  let pooled: string;
  if (head.pooling === 'mean') {
    // (h · mask).sum(1) / mask.sum(1), in transformers' order.
    const m = g.node('Cast', ['attention_mask'], 'head.mask', { to: { i: ElemType.FLOAT } });
    const sum = g.node('ReduceSum', [g.node('Mul', [x, g.node('Unsqueeze', [m, g.ints('c.axis2', [2])], 'head.mask3')], 'head.masked'), g.ints('c.axis1', [1])], 'head.sum', { keepdims: { i: 0 } });
    const count = g.node('ReduceSum', [m, 'c.axis1'], 'head.count', { keepdims: { i: 1 } });
    pooled = g.node('Div', [sum, count], 'head.mean');
  } else pooled = first();
  const dense = lin(pooled, 'head.dense', H, head.classifierBias ?? false, 'head.dense');
  const normed = g.layerNorm(activate(g, dense, head.activation ?? 'gelu', 'head.act'), headParam(w, 'head.norm.weight', [H]), c.normBias ? headParam(w, 'head.norm.bias', [H]) : undefined, c.normEps, 'head.norm');
  return lin(normed, 'classifier', L, true, 'logits');
}
