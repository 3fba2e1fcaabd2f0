// The decoder-style embedders' checkpoints (Qwen3, Qwen2, Llama, Mistral, Gemma 3 text with bidirectional or causal
// attention) converted by citebench compute what PyTorch transformers 5.18 computes (sdpa attention, float32): the
// last hidden state of each sequence alone, every hidden state of a right-padded batch, and the last hidden state of
// a left-padded batch (real tokens; padding rows hold nothing a model reads). Fixtures:
// scripts/dev/make-decoder-graph-fixtures.py (bfloat16, float16, sharded, 4.x and 5.x config forms, sliding windows
// shorter than the sequences, grouped-query attention, head_dim ≠ hidden / heads, linear rotary scaling).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { convertCheckpoint } from '../../src/retrieval/dense/convert.ts';
import { createSession } from '../../src/retrieval/dense/encoder.ts';
import { buildEncoderGraph, maxTokens, readEncoderConfig } from '../../src/retrieval/dense/encoder-graph/index.ts';
import { readCheckpoint } from '../../src/retrieval/dense/checkpoint/index.ts';
import { writeModel } from '../../src/retrieval/dense/onnx-graph.ts';
import { assertConfigErrors, assertInt8Close, copyOf, expectedValues, graphSession, oneLine, run, type Outputs } from './encoder-graph-fixtures.ts';

const DIR = new URL('./fixtures/decoder-graph/', import.meta.url).pathname;
interface Batch {
  input_ids: number[][];
  attention_mask: number[][];
}
interface Case {
  name: string;
  hidden: number;
  layers: number;
  single: { input_ids: number[]; last_hidden_state: number }[];
  right: Batch & { hidden_states: number[] };
  left: Batch & { last_hidden_state: number };
}
const cases = (JSON.parse(readFileSync(join(DIR, 'expected.json'), 'utf8')) as { cases: Case[] }).cases;
const values = expectedValues(DIR);

/** Largest |got − want| over the rows the mask keeps (every row when no mask). */
function realDiff(got: Float32Array, at: number, hidden: number, mask: number[][] | undefined, what: string): number {
  const rows = mask ? mask.flat() : [];
  const n = mask ? rows.length * hidden : got.length;
  assert.equal(got.length, n, `${what}: size`);
  const want = values.subarray(at, at + n);
  let m = 0;
  for (let i = 0; i < n; i++) if (!mask || rows[Math.floor(i / hidden)] === 1) m = Math.max(m, Math.abs(got[i]! - want[i]!));
  assert.ok(!Number.isNaN(m), `${what}: NaN`);
  return m;
}

function checkBatches(c: Case, out: { right: Outputs; left: Outputs }, tol: number): void {
  c.right.hidden_states.forEach((at, i) => {
    const d = realDiff(out.right[`hidden_states.${i}`]!, at, c.hidden, c.right.attention_mask, `right hidden_states.${i}`);
    assert.ok(d <= tol, `${c.name} right-padded hidden_states.${i} differs by ${d}`);
  });
  const d = realDiff(out.left.last_hidden_state!, c.left.last_hidden_state, c.hidden, c.left.attention_mask, 'left');
  assert.ok(d <= tol, `${c.name} left-padded last_hidden_state differs by ${d}`);
}

for (const c of cases) {
  test(`decoder-graph ${c.name}: equals transformers 5.18 (≤ 1e-4) alone, right-padded (every layer) and left-padded`, async () => {
    const session = await graphSession(join(DIR, c.name));
    assert.deepEqual(session.inputNames, ['input_ids', 'attention_mask']);
    for (const s of c.single) {
      const out = await run(session, [s.input_ids], [s.input_ids.map(() => 1)]);
      const d = realDiff(out.last_hidden_state!, s.last_hidden_state, c.hidden, undefined, `${s.input_ids.length} tokens`);
      assert.ok(d <= 1e-4, `${c.name} ${s.input_ids.length} tokens alone: differs by ${d}`);
    }
    const right = await run(session, c.right.input_ids, c.right.attention_mask);
    assert.equal(Object.keys(right).filter((k) => k.startsWith('hidden_states.')).length, c.layers + 1);
    checkBatches(c, { right, left: await run(session, c.left.input_ids, c.left.attention_mask) }, 1e-4);
  });

  test(`decoder-graph ${c.name}: convertCheckpoint's file (fp32 and int8) runs in the encoder's session`, async () => {
    const dir = copyOf(join(DIR, c.name));
    const b = c.left;
    const n = b.input_ids.length * b.input_ids[0]!.length * c.hidden;
    const fp32 = await run(await createSession(convertCheckpoint(dir), { threads: 1 }), b.input_ids, b.attention_mask);
    assert.ok(realDiff(fp32.last_hidden_state!, b.last_hidden_state, c.hidden, b.attention_mask, 'fp32') <= 1e-4);
    const int8 = await run(await createSession(convertCheckpoint(dir, { quantize: true }), { threads: 1 }), b.input_ids, b.attention_mask);
    const keep = b.attention_mask.flat();
    const pick = (a: Float32Array) => a.filter((_, i) => keep[Math.floor(i / c.hidden)] === 1);
    assertInt8Close(pick(int8.last_hidden_state!), pick(values.subarray(b.last_hidden_state, b.last_hidden_state + n)), c.name);
  });
}

test('decoder-graph: the tolerance is meaningful — a wrong window, θ, causality, scale or norm offset differs', async () => {
  const changes: [string, Record<string, unknown>][] = [
    ['mistral-window', { sliding_window: 6 }],
    ['qwen3-f32', { rope_parameters: { rope_type: 'default', rope_theta: 10000 } }],
    ['qwen3-clm-bf16-sharded', { use_sliding_window: false }],
    ['gemma3-bidirectional', { use_bidirectional_attention: false }],
    ['gemma3-bidirectional', { sliding_window: 8 }],
    ['gemma3-bidirectional', { rope_local_base_freq: 10000 }],
    ['gemma3-bidirectional', { query_pre_attn_scalar: 16 }],
    ['llama-bias-linear', { rope_scaling: null }],
    ['gemma3-causal-f32', { rope_parameters: { full_attention: { rope_type: 'default', rope_theta: 1e6 }, sliding_attention: { rope_type: 'default', rope_theta: 10000 } } }],
  ];
  for (const [name, change] of changes) {
    const c = cases.find((x) => x.name === name)!;
    const s = c.single.at(-1)!;
    const dir = copyOf(join(DIR, name));
    const cfg = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...cfg, ...change }));
    const out = await run(await graphSession(dir), [s.input_ids], [s.input_ids.map(() => 1)]);
    const d = realDiff(out.last_hidden_state!, s.last_hidden_state, c.hidden, undefined, name);
    assert.ok(d > 1e-2, `${name} ${JSON.stringify(change)}: differs by only ${d}`);
  }
});

test('decoder-graph: config.json values the graph cannot honour, an auto_map, or a config that disagrees with the weights: one line naming config.json and the key', () => {
  const bad: [string, Record<string, unknown>, string, RegExp][] = [
    ['qwen3-f32', { rope_parameters: { rope_type: 'yarn', factor: 4, rope_theta: 1e6 } }, 'rope_parameters', /rope type "yarn" is not computed/],
    ['llama-bias-linear', { rope_scaling: { rope_type: 'llama3', factor: 8 } }, 'rope_scaling', /rope type "llama3"/],
    ['qwen3-f32', { partial_rotary_factor: 0.5 }, 'partial_rotary_factor', /whole head only/],
    ['qwen2-f16', { auto_map: { AutoModel: 'modeling_qwen.Qwen2Model' } }, 'auto_map', /its own modeling code, which citebench neither runs nor replaces by the native qwen2 class/],
    ['gemma3-bidirectional', { attn_logit_softcapping: 50 }, 'attn_logit_softcapping', /soft-capped/],
    ['gemma3-bidirectional', { hidden_activation: 'gelu' }, 'hidden_activation', /"gelu" is not "gelu_pytorch_tanh"/],
    ['qwen3-f32', { hidden_act: 'gelu' }, 'hidden_act', /not "silu"/],
    ['qwen3-f32', { num_key_value_heads: 3 }, 'num_key_value_heads', /does not divide/],
    ['qwen3-f32', { num_key_value_heads: 4 }, 'num_key_value_heads', /num_key_value_heads × head_dim \(4 × 16\) = 64, but 'layers\.0\.self_attn\.k_proj\.weight' has 32 rows/],
    ['qwen3-f32', { head_dim: 8 }, 'num_attention_heads', /\(4 × 8\) = 32, but 'layers\.0\.self_attn\.q_proj\.weight' has 64 rows/],
    ['qwen3-f32', { attention_bias: true }, 'attention_bias', /true, but .* has no 'layers\.0\.self_attn\.q_proj\.bias'/],
    ['qwen3-f32', { num_hidden_layers: 4, layer_types: null }, 'num_hidden_layers', /4, but .* holds 3 layers \(layers\.0 to layers\.2\)/],
    ['qwen3-clm-bf16-sharded', { model_type: 'qwen2', architectures: null }, 'model_type', /true, but .* has no 'layers\.0\.self_attn\.q_proj\.bias'/],
    ['llama-bias-linear', { mlp_bias: false }, 'mlp_bias', /false, but .* has a 'layers\.0\.mlp\.gate_proj\.bias'/],
    ['qwen3-f32', { architectures: ['Qwen3ForSequenceClassification'] }, 'architectures', /does not name the qwen3 encoder/],
    ['qwen3-f32', { use_bidirectional_attention: true }, 'use_bidirectional_attention', /own modeling code/],
    ['mistral-window', { intermediate_size: 64 }, 'intermediate_size', /64, but 'layers\.0\.mlp\.gate_proj\.weight' has 48 rows/],
  ];
  assertConfigErrors(DIR, bad, convertCheckpoint);
});

test('decoder-graph: sharded checkpoints are checked against their index — a missing shard, a tensor the index lacks or misplaces — in one line naming the file', () => {
  const dir = copyOf(join(DIR, 'qwen3-clm-bf16-sharded'));
  const index = join(dir, 'model.safetensors.index.json');
  const original = readFileSync(index, 'utf8');
  const map = (JSON.parse(original) as { weight_map: Record<string, string> }).weight_map;
  // A tensor stored in a shard but absent from the index: extra.
  const extra = Object.keys(map).find((k) => k.endsWith('q_norm.weight'))!;
  const { [extra]: _, ...without } = map;
  writeFileSync(index, JSON.stringify({ weight_map: without }));
  assert.match(oneLine(() => convertCheckpoint(dir)), new RegExp(`${index.replace(/[.]/g, '\\.')}: .*'${extra.replace(/[.]/g, '\\.')}'.* not in the index`));
  // The index names a shard for a tensor that shard does not hold.
  const other = Object.values(map).find((s) => s !== map[extra])!;
  writeFileSync(index, JSON.stringify({ weight_map: { ...map, [extra]: other } }));
  assert.match(oneLine(() => convertCheckpoint(dir)), /is not in its shard/);
  // A shard missing.
  writeFileSync(index, original);
  rmSync(join(dir, Object.values(map)[0]!));
  assert.match(oneLine(() => convertCheckpoint(dir)), /shard .* is missing/);
});

test('decoder-graph: defaults are the configuration classes\' and both config forms read the same', () => {
  const dir = copyOf(join(DIR, 'gemma3-bidirectional'));
  const file = join(dir, 'config.json');
  const hub = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const c4 = readEncoderConfig(file);
  const { rope_theta: _t, rope_local_base_freq: _l, rope_scaling: _s, ...rest } = hub;
  writeFileSync(file, JSON.stringify({ ...rest, rope_parameters: { full_attention: { rope_type: 'default', rope_theta: 100000 }, sliding_attention: { rope_type: 'default', rope_theta: 3000 } } }));
  const c5 = readEncoderConfig(file);
  assert.ok(c4.modelType === 'gemma3_text' && c5.modelType === 'gemma3_text');
  if (c4.modelType !== 'gemma3_text' || c5.modelType !== 'gemma3_text') return;
  assert.deepEqual(c4.rope, c5.rope);
  assert.deepEqual(c4.rope, { full_attention: { theta: 100000, factor: 1 }, sliding_attention: { theta: 3000, factor: 1 } });
  writeFileSync(file, JSON.stringify({ model_type: 'gemma3_text', num_hidden_layers: 12, hidden_size: 48, num_attention_heads: 3, num_key_value_heads: 1 }));
  const d = readEncoderConfig(file);
  if (d.modelType !== 'gemma3_text') return assert.fail(d.modelType);
  assert.deepEqual(Array.from({ length: 12 }, (_, l) => d.layerType(l)[0]).join(''), 'sssssfsssssf', 'sliding_window_pattern 6');
  assert.deepEqual(d.rope, { full_attention: { theta: 1e6, factor: 1 }, sliding_attention: { theta: 10000, factor: 1 } });
  assert.equal(d.causal, true);
  assert.equal(d.headDim, 256);
  assert.equal(maxTokens(d), 131072);
  writeFileSync(file, JSON.stringify({ model_type: 'qwen3', hidden_size: 32 }));
  const q = readEncoderConfig(file);
  if (q.modelType !== 'qwen3') return assert.fail(q.modelType);
  assert.equal(q.headDim, 128, "Qwen3Config's head_dim default, not hidden / heads");
  assert.equal(q.numKvHeads, 32);
  assert.equal(q.anySliding, false);
});

test('decoder-graph: sliding windows and head_dim as transformers 5.18 reads them (fixtures saved by it: mistral-default-window, qwen2-head-dim)', () => {
  const read = (name: string, edit?: (c: Record<string, unknown>) => Record<string, unknown>) => {
    const dir = copyOf(join(DIR, name));
    const file = join(dir, 'config.json');
    try {
      if (edit) writeFileSync(file, JSON.stringify(edit(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)));
      const c = readEncoderConfig(file);
      if (c.modelType !== 'mistral' && c.modelType !== 'qwen2') return assert.fail(c.modelType);
      return { sliding: c.anySliding, window: c.slidingWindow, kinds: Array.from({ length: c.numLayers }, (_, l) => c.layerType(l)[0]).join(''), headDim: c.headDim };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  // Mistral: no sliding_window key is MistralConfig's 4096 on every layer; null is no window; a number, that window.
  assert.deepEqual(read('mistral-default-window'), { sliding: true, window: 4096, kinds: 's', headDim: 8 });
  assert.deepEqual(read('mistral-window', (c) => ({ ...c, sliding_window: null })), { sliding: false, window: undefined, kinds: 'ff', headDim: 8 });
  assert.deepEqual(read('mistral-window'), { sliding: true, window: 5, kinds: 'ss', headDim: 8 });
  // Qwen2: head_dim 16 read (≠ hidden / heads); use_sliding_window true with "sliding_window": null slides nowhere,
  // as Qwen2Config makes its layer_types; with the key absent, its 4096 from max_window_layers (0) on.
  assert.deepEqual(read('qwen2-head-dim'), { sliding: false, window: undefined, kinds: 'ff', headDim: 16 });
  assert.deepEqual(read('qwen2-head-dim', ({ sliding_window: _w, ...c }) => c), { sliding: true, window: 4096, kinds: 'ss', headDim: 16 });
  assert.deepEqual(read('qwen2-f16'), { sliding: false, window: undefined, kinds: 'ff', headDim: 8 });
  assert.throws(() => read('qwen2-head-dim', (c) => ({ ...c, layer_types: ['sliding_attention', 'full_attention'] })), /\[layer_types\]: names sliding layers, but use_sliding_window is false or sliding_window null/);
});

test('decoder-graph: a model over the 2 GiB protobuf limit is written with external data (page-aligned) that onnxruntime reads back to the same states', async () => {
  const c = cases.find((x) => x.name === 'qwen3-f32')!;
  const dir = copyOf(join(DIR, c.name));
  const graph = buildEncoderGraph(readEncoderConfig(join(dir, 'config.json')), readCheckpoint(dir), {});
  const file = join(dir, 'external', 'model.onnx');
  writeModel(file, graph, { externalAbove: 0 });
  const data = readFileSync(`${file}.data`);
  assert.ok(statSync(file).size < 64 * 1024 && data.length > 100 * 1024, 'the weights are in model.onnx.data, the graph in model.onnx');
  const b = c.left;
  const out = await run(await createSession(file, { threads: 1 }), b.input_ids, b.attention_mask);
  assert.ok(realDiff(out.last_hidden_state!, b.last_hidden_state, c.hidden, b.attention_mask, 'external') <= 1e-4);
});

test('decoder-graph: the model options\' help (dense search, encode) names every decoder class citebench converts', async () => {
  const { modelOptionsUsage } = await import('../../src/cli/commands/dense-common.ts');
  const { DECODER_ARCHITECTURES } = await import('../../src/retrieval/dense/encoder-graph/decoder-config.ts');
  for (const [type, re] of Object.entries(DECODER_ARCHITECTURES)) {
    const line = modelOptionsUsage.split('\n').find((l) => l.trim().startsWith(`${type}:`));
    assert.ok(line, `${type} missing from the help`);
    for (const cls of line.split(':')[1].split(',').map((c) => c.trim())) assert.match(cls, re);
  }
  assert.match(modelOptionsUsage, /MistralForCausalLM/);
});
