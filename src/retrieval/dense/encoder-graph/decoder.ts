/**
 * The parts of the decoder-style embedders, as transformers 5.18 computes them (models/qwen3, qwen2, llama,
 * mistral, gemma3 `*Model.forward`, sdpa attention, float32): token embeddings (Gemma: × √hidden); pre-norm layers
 * of grouped-query attention — q/k/v projections, RMSNorm per head on q and k (Qwen3, Gemma 3), rotary positions
 * 0 … seq − 1 whatever the padding (transformers passes no position ids, so a left-padded text's positions start
 * after its padding; rotary attention depends on position differences only), k/v heads repeated — and a gated MLP
 * (SwiGLU, Gemma's GeGLU with GELU's tanh form); the final RMSNorm. Masks: causal (and a causal window on sliding
 * layers) combined with the padding mask, or padding only with EmbeddingGemma's bidirectional attention (and its
 * bidirectional window on sliding layers).
 */
import { attend, causalMask, paddingMask, positions, rotary, windowMask, type AttentionMask, type Rotary } from './attention.ts';
import type { GraphBuilder } from './builder.ts';
import type { DecoderConfig, LayerType } from './decoder-config.ts';
import { checkpointLinear, type ModelWeights } from './weights.ts';

/** Mask and rotary table per layer type, made once and shared by that type's layers. */
export type DecoderContext = Partial<Record<LayerType, { mask: AttentionMask; rope: Rotary }>>;

function rmsNorm(g: GraphBuilder, c: DecoderConfig, w: ModelWeights, name: string, size: number, x: string, out: string): string {
  return g.rmsNorm(x, w.get(`${name}.weight`, [size]), c.rmsEps, c.normPlusOne, out);
}

export function decoderEmbeddings(g: GraphBuilder, c: DecoderConfig, w: ModelWeights): string {
  const table = g.table(w.get('embed_tokens.weight', [c.vocabSize, c.hiddenSize]));
  const tok = table.dequantize(g.node('Gather', [table.name, 'input_ids'], 'emb.tok'));
  // Gemma3TextScaledWordEmbedding: × embed_scale cast to the weights' dtype (float32 here).
  return c.embedScale === undefined ? tok : g.node('Mul', [tok, g.scalar('c.embed_scale', c.embedScale)], 'emb.scaled');
}

export function decoderContext(g: GraphBuilder, c: DecoderConfig): DecoderContext {
  const pos = positions(g);
  const ctx: DecoderContext = {};
  for (const type of ['full_attention', 'sliding_attention'] as const) {
    if (type === 'sliding_attention' ? !c.anySliding : !Array.from({ length: c.numLayers }, (_, l) => c.layerType(l)).includes('full_attention')) continue;
    const tag = type === 'full_attention' ? 'global' : 'local';
    const { theta, factor } = c.rope[type];
    const window = type === 'sliding_attention' ? c.slidingWindow! : undefined;
    const mask = c.causal ? causalMask(g, pos, window) : window === undefined ? paddingMask(g) : windowMask(g, pos, Math.floor(window / 2));
    ctx[type] = { mask, rope: rotary(g, pos, theta, c.headDim, tag, factor) };
  }
  return ctx;
}

/** One layer: x + attn(norm(x)) then + mlp(norm(·)); Gemma also norms each sub-layer's output before the sum. */
export function decoderLayer(g: GraphBuilder, c: DecoderConfig, w: ModelWeights, l: number, x: string, ctx: DecoderContext): string {
  const { hiddenSize: H, intermediateSize: I, headDim: D } = c;
  const p = `layers.${l}`;
  const lin = checkpointLinear(g, w);
  const { mask, rope } = ctx[c.layerType(l)]!;
  const attnIn = rmsNorm(g, c, w, `${p}.input_layernorm`, H, x, `${p}.attn_norm`);
  const width = { query: c.numHeads * D, key: c.numKvHeads * D, value: c.numKvHeads * D };
  const merged = attend(g, `${p}`, (which) => lin(attnIn, `${p}.self_attn.${which[0]}_proj`, H, width[which], c.qkvBias, `${p}.${which}`), mask, rope, {
    heads: c.numHeads,
    kvHeads: c.numKvHeads,
    headDim: D,
    scale: c.attentionScale,
    ...(c.qkNorm ? { norm: (h: string, which: 'query' | 'key') => rmsNorm(g, c, w, `${p}.self_attn.${which[0]}_norm`, D, h, `${p}.${which}.norm`) } : {}),
  });
  let attnOut = lin(merged, `${p}.self_attn.o_proj`, c.numHeads * D, H, c.oBias, `${p}.attn_out`);
  if (c.sandwichNorms) attnOut = rmsNorm(g, c, w, `${p}.post_attention_layernorm`, H, attnOut, `${p}.attn_out_norm`);
  const a = g.node('Add', [x, attnOut], `${p}.attn_res`);
  // Qwen/Llama name the pre-MLP norm post_attention_layernorm; Gemma has pre_ and post_feedforward_layernorm.
  const mlpIn = rmsNorm(g, c, w, c.sandwichNorms ? `${p}.pre_feedforward_layernorm` : `${p}.post_attention_layernorm`, H, a, `${p}.mlp_norm`);
  const gate = lin(mlpIn, `${p}.mlp.gate_proj`, H, I, c.mlpBias, `${p}.gate`);
  const up = lin(mlpIn, `${p}.mlp.up_proj`, H, I, c.mlpBias, `${p}.up`);
  const act = c.activation === 'silu' ? g.silu(gate, `${p}.mlp`) : g.geluTanh(gate, `${p}.mlp`);
  let mlpOut = lin(g.node('Mul', [act, up], `${p}.glu`), `${p}.mlp.down_proj`, I, H, c.mlpBias, `${p}.mlp_out`);
  if (c.sandwichNorms) mlpOut = rmsNorm(g, c, w, `${p}.post_feedforward_layernorm`, H, mlpOut, `${p}.mlp_out_norm`);
  return g.node('Add', [a, mlpOut], `${p}.out`);
}

export function decoderFinal(g: GraphBuilder, c: DecoderConfig, w: ModelWeights, x: string): string {
  return rmsNorm(g, c, w, 'norm', c.hiddenSize, x, 'final_norm');
}
