/**
 * The parts of ModernBERT (transformers 5.18 models/modernbert/modeling_modernbert.py): token embeddings →
 * LayerNorm (no absolute positions, no token types); pre-norm layers (layer 0 without its attention norm) of
 * fused-Wqkv attention with rotary embeddings — θ global on full-attention layers, θ local on sliding-window
 * layers, which attend within |i − j| ≤ local_attention / 2 — and a GeGLU feed-forward; the final norm.
 * Biases only where config.json's attention_bias / mlp_bias / norm_bias say so.
 */
import { attend, paddingMask, positions, rotary, windowMask, type AttentionMask, type Rotary } from './attention.ts';
import type { GraphBuilder } from './builder.ts';
import type { ModernBertConfig } from './config.ts';
import { checkpointLinear, type ModelWeights } from './weights.ts';

/** Masks and rotary tables per attention type, made once and shared by the layers of that type. */
export interface ModernBertContext {
  full: { mask: AttentionMask; rope: Rotary };
  sliding?: { mask: AttentionMask; rope: Rotary };
}

function norm(g: GraphBuilder, c: ModernBertConfig, w: ModelWeights, name: string, x: string, out: string): string {
  const H = c.hiddenSize;
  return g.layerNorm(x, w.get(`${name}.weight`, [H]), w.optional(`${name}.bias`, [H], c.normBias), c.normEps, out);
}

/** tok_embeddings → norm (dropout is the identity at inference). */
export function modernBertEmbeddings(g: GraphBuilder, c: ModernBertConfig, w: ModelWeights): string {
  const table = g.table(w.get('embeddings.tok_embeddings.weight', [c.vocabSize, c.hiddenSize]));
  const tok = table.dequantize(g.node('Gather', [table.name, 'input_ids'], 'emb.tok'));
  return norm(g, c, w, 'embeddings.norm', tok, 'emb.out');
}

/** The padding mask and θ-global rotary table; the window mask and θ-local table when a layer slides. */
export function modernBertContext(g: GraphBuilder, c: ModernBertConfig): ModernBertContext {
  const headDim = c.hiddenSize / c.numHeads;
  const pos = positions(g);
  const ctx: ModernBertContext = { full: { mask: paddingMask(g), rope: rotary(g, pos, c.globalRopeTheta, headDim, 'global') } };
  // config.sliding_window = local_attention // 2: the half-window the bidirectional overlay compares |q − k| with.
  if (c.anySliding)
    ctx.sliding = { mask: windowMask(g, pos, Math.floor(c.localAttention / 2)), rope: rotary(g, pos, c.localRopeTheta, headDim, 'local') };
  return ctx;
}

/** One pre-norm layer: x + attn(attn_norm(x)), then + mlp(mlp_norm(·)). */
export function modernBertLayer(g: GraphBuilder, c: ModernBertConfig, w: ModelWeights, l: number, x: string, ctx: ModernBertContext): string {
  const { hiddenSize: H, intermediateSize: I } = c;
  const p = `layers.${l}`;
  const lin = checkpointLinear(g, w);
  const attnIn = l === 0 ? x : norm(g, c, w, `${p}.attn_norm`, x, `${p}.attn_norm`);
  const { mask, rope } = c.layerType(l) === 'sliding_attention' ? ctx.sliding! : ctx.full;
  // Wqkv's output is [q | k | v] along the last axis (qkv.view(…, 3, heads, head_dim)).
  let qkv: string[] | undefined;
  const merged = attend(
    g,
    p,
    (which) => (qkv ??= g.nodeN('Split', [lin(attnIn, `${p}.attn.Wqkv`, H, 3 * H, c.attentionBias, `${p}.qkv`)], [`${p}.query`, `${p}.key`, `${p}.value`], { axis: { i: -1 } }))[['query', 'key', 'value'].indexOf(which)]!,
    mask,
    rope,
  );
  const attnOut = lin(merged, `${p}.attn.Wo`, H, H, c.attentionBias, `${p}.attn_out`);
  const a = g.node('Add', [x, attnOut], `${p}.attn_res`);
  // GeGLU: Wi → (input, gate) halves → GELU(input) · gate → Wo.
  const [input, gate] = g.nodeN('Split', [lin(norm(g, c, w, `${p}.mlp_norm`, a, `${p}.mlp_norm`), `${p}.mlp.Wi`, H, 2 * I, c.mlpBias, `${p}.wi`)], [`${p}.mlp_in`, `${p}.mlp_gate`], {
    axis: { i: -1 },
  });
  const act = g.node('Mul', [g.gelu(input!, `${p}.mlp`), gate!], `${p}.glu`);
  return g.node('Add', [a, lin(act, `${p}.mlp.Wo`, I, H, c.mlpBias, `${p}.mlp_out`)], `${p}.out`);
}

/** final_norm over the last layer's output. */
export function modernBertFinal(g: GraphBuilder, c: ModernBertConfig, w: ModelWeights, x: string): string {
  return norm(g, c, w, 'final_norm', x, 'final_norm');
}
