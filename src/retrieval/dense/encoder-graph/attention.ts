/**
 * Multi-head self-attention as transformers computes it with sdpa: the attention masks (padding; ModernBERT's
 * sliding window), rotary position embeddings (ModernBERT), and the scaled dot-product itself. Shared by every
 * architecture: they differ only in how q, k and v are projected and whether q and k are rotated.
 */
import { ElemType } from '../onnx-graph.ts';
import type { GraphBuilder } from './builder.ts';

/** float32's most negative finite value: transformers' additive mask value (torch.finfo(float32).min). */
const FLOAT32_MIN = -3.4028234663852886e38;

/** An additive bias on the attention scores and a 0/1 factor on the attention output (sdpa's safe softmax). */
export interface AttentionMask {
  bias: string;
  anyKey: string;
}

/** The constants every architecture's graph declares first, in this order (the BERT graph's bytes depend on it). */
export function declareConstants(g: GraphBuilder, numHeads: number, hidden: number): void {
  const headDim = hidden / numHeads;
  g.ints('c.zero', [0]);
  g.ints('c.axes12', [1, 2]);
  g.ints('c.heads', [0, 0, numHeads, headDim]);
  g.ints('c.merge', [0, 0, hidden]);
  g.scalar('c.f1', 1);
  g.scalar('c.fmin', FLOAT32_MIN);
  g.scalar('c.scale', 1 / Math.sqrt(headDim));
  g.scalar('c.sqrt2', Math.SQRT2);
  g.scalar('c.half', 0.5);
}

/**
 * The padding mask as sdpa applies it: masked keys get no weight (an additive float32-min bias makes their exp()
 * exactly 0), and a sequence whose mask is all zeros gets attention output 0 (sdpa's safe softmax), not the
 * uniform average an additive mask alone would give.
 */
export function paddingMask(g: GraphBuilder): AttentionMask {
  const maskF = g.node('Cast', ['attention_mask'], 'mask.f', { to: { i: ElemType.FLOAT } });
  const bias = g.node('Unsqueeze', [g.node('Mul', [g.node('Sub', ['c.f1', maskF], 'mask.inv'), 'c.fmin'], 'mask.bias2d'), 'c.axes12'], 'mask.bias');
  const anyKey = g.node('Unsqueeze', [g.node('ReduceMax', [maskF], 'mask.any1', { axes: { ints: [1] }, keepdims: { i: 1 } }), 'c.axes12'], 'mask.any');
  return { bias, anyKey };
}

/** 0, 1, …, seq − 1 (int64) for the current input. */
export function positions(g: GraphBuilder): string {
  const seq = g.node('Squeeze', [g.node('Shape', ['input_ids'], 'pos.seq1', { start: { i: 1 }, end: { i: 2 } }), 'c.zero'], 'pos.seq');
  return g.node('Range', [g.int('c.i0', 0), seq, g.int('c.i1', 1)], 'pos.ids');
}

/**
 * The padding mask combined with a bidirectional sliding window (transformers' sliding_window_bidirectional
 * overlay, |q − k| ≤ halfWindow): per query row, so a padding query whose window holds no real token gets
 * output 0, as sdpa's safe softmax gives it.
 */
export function windowMask(g: GraphBuilder, pos: string, halfWindow: number): AttentionMask {
  const dist = g.node('Abs', [g.node('Sub', [g.node('Unsqueeze', [pos, g.ints('c.one', [1])], 'win.q'), g.node('Unsqueeze', [pos, 'c.zero'], 'win.k')], 'win.diff')], 'win.dist');
  return maskAllowing(g, 'win', g.node('LessOrEqual', [dist, g.int(`c.window${halfWindow}`, halfWindow)], 'win.in'));
}

/**
 * The mask of a [seq, seq] boolean of the keys each query may see, and-ed with the padding mask per query row:
 * an additive float32-min bias where not allowed, and 0 output for a row with no key allowed (sdpa's safe softmax).
 * `tag` prefixes the node names.
 */
function maskAllowing(g: GraphBuilder, tag: string, ok: string): AttentionMask {
  const keyOk = g.node('Unsqueeze', [g.node('Cast', ['attention_mask'], `${tag}.mask_b`, { to: { i: ElemType.BOOL } }), 'c.axes12'], `${tag}.key_ok`);
  const allowed = g.node('Cast', [g.node('And', [keyOk, ok], `${tag}.allowed_b`)], `${tag}.allowed`, { to: { i: ElemType.FLOAT } });
  const bias = g.node('Mul', [g.node('Sub', ['c.f1', allowed], `${tag}.inv`), 'c.fmin'], `${tag}.bias`);
  const anyKey = g.node('ReduceMax', [allowed], `${tag}.any`, { axes: { ints: [-1] }, keepdims: { i: 1 } });
  return { bias, anyKey };
}

/** cos and sin of the rotary angles, [seq, headDim], as transformers' default rotary embedding computes them. */
export interface Rotary {
  cos: string;
  sin: string;
  half: number;
}

/**
 * inv_freq = 1 / θ^(2i / d) in float32 steps as torch computes it (compute_default_rope_parameters; divided by
 * the factor of linear scaling); the angles
 * pos · inv_freq, duplicated to the full head size (torch.cat((freqs, freqs))); their cos and sin.
 */
export function rotary(g: GraphBuilder, pos: string, theta: number, headDim: number, tag: string, linearFactor = 1): Rotary {
  const half = headDim / 2;
  const inv = new Float32Array(half);
  for (let i = 0; i < half; i++) inv[i] = Math.fround(1 / Math.fround(Math.pow(theta, Math.fround((2 * i) / headDim))));
  // Linear scaling (compute_linear_scaling_rope_parameters): inv_freq /= factor, in float32.
  if (linearFactor !== 1) for (let i = 0; i < half; i++) inv[i] = Math.fround(inv[i]! / linearFactor);
  const posF = g.node('Cast', [g.node('Unsqueeze', [pos, g.ints('c.one', [1])], `rope.${tag}.pos`)], `rope.${tag}.posf`, { to: { i: ElemType.FLOAT } });
  const freqs = g.node('Mul', [posF, g.floats(`rope.${tag}.inv_freq`, inv)], `rope.${tag}.freqs`);
  const emb = g.node('Concat', [freqs, freqs], `rope.${tag}.emb`, { axis: { i: -1 } });
  return { cos: g.node('Cos', [emb], `rope.${tag}.cos`), sin: g.node('Sin', [emb], `rope.${tag}.sin`), half };
}

/** x·cos + rotate_half(x)·sin, rotate_half(x) = (−x₂, x₁) over the last axis (apply_rotary_pos_emb). */
function rotate(g: GraphBuilder, x: string, r: Rotary, p: string): string {
  const hd = 2 * r.half;
  const axis = g.ints('c.minus1', [-1]);
  const x1 = g.node('Slice', [x, 'c.zero', g.ints(`c.i${r.half}`, [r.half]), axis], `${p}.x1`);
  const x2 = g.node('Slice', [x, g.ints(`c.i${r.half}`, [r.half]), g.ints(`c.i${hd}`, [hd]), axis], `${p}.x2`);
  const rotated = g.node('Concat', [g.node('Neg', [x2], `${p}.neg_x2`), x1], `${p}.rot`, { axis: { i: -1 } });
  return g.node('Add', [g.node('Mul', [x, r.cos], `${p}.xcos`), g.node('Mul', [rotated, r.sin], `${p}.rsin`)], `${p}.rope`);
}

/** Which projection `attend` asks for; it asks in this order (query, key, value), so node order is fixed. */
export type Projection = 'query' | 'key' | 'value';

/**
 * The decoders' attention shape: their own head size and scale, fewer key/value heads than query heads
 * (grouped-query attention: k/v head h // (heads / kvHeads) serves query head h, as repeat_kv makes it), and an
 * RMSNorm per head on q and k before the rotation (Qwen3, Gemma 3).
 */
export interface AttentionShape {
  heads: number;
  kvHeads: number;
  headDim: number;
  scale: number;
  norm?: (x: string, which: 'query' | 'key') => string;
}

/**
 * Scaled dot-product attention over the projections ([batch, seq, heads · headDim] each, made when asked): split
 * into heads, q and k normed and rotated where the architecture does, k/v heads repeated to the query heads,
 * scores scaled (1/√headDim, or the shape's scale) plus the mask's bias, softmax, weighted sum, heads merged back.
 * `p` prefixes the node names. Without `shape` the encoders' constants declared first serve (the BERT graph's
 * bytes depend on them).
 */
export function attend(g: GraphBuilder, p: string, project: (which: Projection) => string, mask: AttentionMask, rope?: Rotary, shape?: AttentionShape): string {
  const consts = shape
    ? {
        q: g.ints(`c.heads${shape.heads}x${shape.headDim}`, [0, 0, shape.heads, shape.headDim]),
        kv: g.ints(`c.heads${shape.kvHeads}x${shape.headDim}`, [0, 0, shape.kvHeads, shape.headDim]),
        merge: g.ints(`c.merge${shape.heads * shape.headDim}`, [0, 0, shape.heads * shape.headDim]),
        scale: g.scalar(`c.scale${shape.scale}`, shape.scale),
      }
    : { q: 'c.heads', kv: 'c.heads', merge: 'c.merge', scale: 'c.scale' };
  const rep = shape ? shape.heads / shape.kvHeads : 1;
  const split = (name: Projection): string => {
    const h = g.node('Reshape', [project(name), name === 'query' ? consts.q : consts.kv], `${p}.${name}.heads`);
    return shape?.norm && name !== 'value' ? shape.norm(h, name) : h;
  };
  const heads = (name: Projection, perm: number[]): string => g.node('Transpose', [split(name)], `${p}.${name}.t`, { perm: { ints: perm } });
  // repeat_kv: [b, kv, s, d] → [b, kv, rep, s, d] → [b, kv · rep, s, d].
  const repeated = (x: string, name: Projection): string => {
    if (rep === 1) return x;
    const expanded = g.node('Expand', [g.node('Unsqueeze', [x, g.ints('c.two', [2])], `${p}.${name}.rep_u`), g.ints(`c.rep${rep}`, [1, 1, rep, 1, 1])], `${p}.${name}.rep_e`);
    return g.node('Reshape', [expanded, g.ints(`c.repshape${shape!.heads}x${shape!.headDim}`, [0, shape!.heads, -1, shape!.headDim])], `${p}.${name}.rep`);
  };
  let q: string;
  let kT: string;
  if (!rope) {
    q = heads('query', [0, 2, 1, 3]);
    kT = rep === 1 ? heads('key', [0, 2, 3, 1]) : g.node('Transpose', [repeated(heads('key', [0, 2, 1, 3]), 'key')], `${p}.key.rep_t`, { perm: { ints: [0, 1, 3, 2] } });
  } else {
    q = rotate(g, heads('query', [0, 2, 1, 3]), rope, `${p}.query`);
    kT = g.node('Transpose', [repeated(rotate(g, heads('key', [0, 2, 1, 3]), rope, `${p}.key`), 'key')], `${p}.key.rope_t`, { perm: { ints: [0, 1, 3, 2] } });
  }
  const v = repeated(heads('value', [0, 2, 1, 3]), 'value');
  const scores = g.node('Add', [g.node('Mul', [g.node('MatMul', [q, kT], `${p}.qk`), consts.scale], `${p}.qk_scaled`), mask.bias], `${p}.scores`);
  const probs = g.node('Softmax', [scores], `${p}.probs`, { axis: { i: -1 } });
  const ctx = g.node('Mul', [g.node('MatMul', [probs, v], `${p}.ctx_raw`), mask.anyKey], `${p}.ctx`);
  return g.node('Reshape', [g.node('Transpose', [ctx], `${p}.ctx_t`, { perm: { ints: [0, 2, 1, 3] } }), consts.merge], `${p}.ctx_merged`);
}

/**
 * The padding mask combined with causal attention (transformers' causal_mask_function: key j ≤ query i) and, on
 * a sliding layer, its window (sliding_window_overlay: j > i − window). A query row with no key allowed (a left
 * padding position) gets output 0; its values never reach a real token.
 */
export function causalMask(g: GraphBuilder, pos: string, window?: number): AttentionMask {
  const tag = window === undefined ? 'causal' : `causal${window}`;
  const qi = g.node('Unsqueeze', [pos, g.ints('c.one', [1])], `${tag}.q`);
  const kj = g.node('Unsqueeze', [pos, 'c.zero'], `${tag}.k`);
  let ok = g.node('LessOrEqual', [kj, qi], `${tag}.past`);
  if (window !== undefined) {
    const inWindow = g.node('Greater', [kj, g.node('Sub', [qi, g.int(`c.window${window}`, window)], `${tag}.from`)], `${tag}.in`);
    ok = g.node('And', [ok, inWindow], `${tag}.past_in`);
  }
  return maskAllowing(g, tag, ok);
}
