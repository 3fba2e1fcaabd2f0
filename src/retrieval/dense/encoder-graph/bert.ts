/**
 * The parts of BERT, RoBERTa and XLM-RoBERTa (transformers' modeling_bert.py / modeling_roberta.py): embeddings
 * (word + token type + position, LayerNorm) and the post-norm layer (self-attention, residual, LayerNorm; GELU
 * feed-forward, residual, LayerNorm). RoBERTa differs only in its embeddings: positions start at pad_token_id + 1
 * and count non-padding tokens, and there is one token type.
 */
import { ElemType } from '../onnx-graph.ts';
import { attend, type AttentionMask } from './attention.ts';
import type { GraphBuilder } from './builder.ts';
import type { BertFamilyConfig } from './config.ts';
import { checkpointLinear, type ModelWeights } from './weights.ts';

/**
 * A sub-layer's end: dense output `h` and residual `input` → LayerNorm(h + input), or what an adapter makes of
 * it; `names` are the sum's and the result's value names.
 */
export type SubLayerOutput = (g: GraphBuilder, layer: number, where: 'attention' | 'output', h: string, input: string, norm: Norm, names: { res: string; out: string }) => string;

/** A LayerNorm of the encoder, applied to `x` under the output name `out` (adapters apply the layer's own twice). */
export type Norm = (x: string, out: string) => string;

/** LayerNorm(h + input): the sub-layer's end without adapters. */
export const plainSubLayerOutput: SubLayerOutput = (g, _layer, _where, h, input, norm, names) => norm(g.node('Add', [h, input], names.res), names.out);

/** Embeddings: word + token type, then + position, in transformers' order of addition; LayerNorm. */
export function bertEmbeddings(g: GraphBuilder, c: BertFamilyConfig, w: ModelWeights): string {
  const H = c.hiddenSize;
  const wordTable = g.table(w.get('embeddings.word_embeddings.weight', [c.vocabSize, H]));
  const word = wordTable.dequantize(g.node('Gather', [wordTable.name, 'input_ids'], 'emb.word'));
  const typeTable = g.table(w.get('embeddings.token_type_embeddings.weight', [c.typeVocabSize, H]));
  // RoBERTa's token type is always 0 (its buffer of zeros): row 0 of the table, broadcast over the sequence.
  const typeIds = c.paddingIdx === undefined ? 'token_type_ids' : 'c.zero';
  const type = typeTable.dequantize(g.node('Gather', [typeTable.name, typeIds], 'emb.type'));
  const posTable = g.table(w.get('embeddings.position_embeddings.weight', [c.maxPositions, H]));
  let pos: string;
  if (c.paddingIdx === undefined) {
    const seqLen = g.node('Shape', ['input_ids'], 'seq_len', { start: { i: 1 }, end: { i: 2 } });
    pos = posTable.dequantize(g.node('Slice', [posTable.name, 'c.zero', seqLen, 'c.zero'], 'emb.pos'));
  } else {
    pos = posTable.dequantize(g.node('Gather', [posTable.name, robertaPositionIds(g, c.paddingIdx)], 'emb.pos'));
  }
  const sum = g.node('Add', [g.node('Add', [word, type], 'emb.word_type'), pos], 'emb.sum');
  return g.layerNorm(sum, w.get('embeddings.LayerNorm.weight', [H]), w.get('embeddings.LayerNorm.bias', [H]), c.layerNormEps, 'emb.out');
}

/** create_position_ids_from_input_ids: mask = ids ≠ pad; (cumsum(mask) · mask) + pad. */
function robertaPositionIds(g: GraphBuilder, pad: number): string {
  const notPad = g.node('Cast', [g.node('Not', [g.node('Equal', ['input_ids', g.int('c.pad', pad)], 'pos.is_pad')], 'pos.not_pad')], 'pos.mask', { to: { i: ElemType.INT64 } });
  const counted = g.node('Mul', [g.node('CumSum', [notPad, g.int('c.i1', 1)], 'pos.cumsum'), notPad], 'pos.counted');
  return g.node('Add', [counted, 'c.pad'], 'pos.ids');
}

/** One post-norm encoder layer; `end` closes each sub-layer (LayerNorm(h + input), or an adapter's path). */
export function bertLayer(g: GraphBuilder, c: BertFamilyConfig, w: ModelWeights, l: number, x: string, mask: AttentionMask, end: SubLayerOutput): string {
  const { hiddenSize: H, intermediateSize: I } = c;
  const p = `encoder.layer.${l}`;
  const lin = checkpointLinear(g, w);
  const norm = (name: string): ((x: string, out: string) => string) => (input, out) => g.layerNorm(input, w.get(`${name}.weight`, [H]), w.get(`${name}.bias`, [H]), c.layerNormEps, out);
  const merged = attend(g, p, (which) => lin(x, `${p}.attention.self.${which}`, H, H, true, `${p}.${which}`), mask);
  const attnOut = lin(merged, `${p}.attention.output.dense`, H, H, true, `${p}.attn_dense`);
  const a = end(g, l, 'attention', attnOut, x, norm(`${p}.attention.output.LayerNorm`), { res: `${p}.attn_res`, out: `${p}.attn_out` });
  const h = lin(a, `${p}.intermediate.dense`, H, I, true, `${p}.inter`);
  const o = lin(g.gelu(h, p), `${p}.output.dense`, I, H, true, `${p}.out_dense`);
  return end(g, l, 'output', o, a, norm(`${p}.output.LayerNorm`), { res: `${p}.out_res`, out: `${p}.out` });
}
