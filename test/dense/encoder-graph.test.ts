// RoBERTa, XLM-RoBERTa and ModernBERT checkpoints converted by citebench compute what PyTorch transformers 5.18
// computes (sdpa attention, float32), on every hidden state, each sequence alone and padded in one batch. Fixtures:
// scripts/dev/make-encoder-graph-fixtures.py (tiny random models saved by transformers; ModernBERT with local windows
// shorter than the sequences, global and local rotary θ, one in the hub's config form with biases and bfloat16).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { convertCheckpoint } from '../../src/retrieval/dense/convert.ts';
import { createSession } from '../../src/retrieval/dense/encoder.ts';
import { maxTokens, readEncoderConfig } from '../../src/retrieval/dense/encoder-graph/index.ts';
import { assertConfigErrors, assertInt8Close, compareStates, copyOf, expectedValues, graphSession, maxAbsDiff, run, type Run } from './encoder-graph-fixtures.ts';

const DIR = new URL('./fixtures/encoder-graph/', import.meta.url).pathname;
interface Case {
  name: string;
  hidden: number;
  layers: number;
  single: (Run & { input_ids: number[] })[];
  batch: Run & { input_ids: number[][]; attention_mask: number[][] };
}
const cases = (JSON.parse(readFileSync(join(DIR, 'expected.json'), 'utf8')) as { cases: Case[] }).cases;
const values = expectedValues(DIR);

for (const c of cases) {
  test(`encoder-graph ${c.name}: every hidden state equals transformers 5.18 (≤ 1e-4), alone and padded in a batch with an all-padding row`, async () => {
    const session = await graphSession(join(DIR, c.name));
    for (const s of c.single) {
      const out = await run(session, [s.input_ids], [s.input_ids.map(() => 1)]);
      assert.equal(Object.keys(out).filter((k) => k.startsWith('hidden_states.')).length, c.layers + 1);
      compareStates(out, s, values, s.input_ids.length * c.hidden, 1e-4, `${s.input_ids.length} tokens`);
    }
    const b = c.batch;
    assert.ok(b.attention_mask.some((row) => row.every((v) => v === 0)));
    assert.ok(Math.max(...c.single.map((s) => s.input_ids.length)) > 8, 'sequences longer than the local windows');
    const out = await run(session, b.input_ids, b.attention_mask);
    compareStates(out, b, values, b.input_ids.length * b.input_ids[0]!.length * c.hidden, 1e-4, 'batch');
  });

  test(`encoder-graph ${c.name}: convertCheckpoint's file (fp32 and int8) runs in the encoder's session`, async () => {
    const dir = copyOf(join(DIR, c.name));
    const b = c.batch;
    const n = b.input_ids.length * b.input_ids[0]!.length * c.hidden;
    const last = values.subarray(b.hidden_states.at(-1)!, b.hidden_states.at(-1)! + n);
    const fp32 = await run(await createSession(convertCheckpoint(dir), { threads: 1 }), b.input_ids, b.attention_mask);
    assert.ok(maxAbsDiff(fp32.last_hidden_state!, last) <= 1e-4);
    const int8 = await run(await createSession(convertCheckpoint(dir, { quantize: true }), { threads: 1 }), b.input_ids, b.attention_mask);
    assertInt8Close(int8.last_hidden_state!, last, c.name);
  });
}

test('encoder-graph: RoBERTa takes no token_type_ids and ModernBERT neither; a wrong ModernBERT window or θ is caught', async () => {
  const roberta = await graphSession(join(DIR, 'roberta-zip-f32'));
  assert.deepEqual(roberta.inputNames, ['input_ids', 'attention_mask']);
  // The fixture's tolerance is meaningful: the same weights with the window one wider, or θ swapped, differ.
  const c = cases.find((x) => x.name === 'modernbert-f32')!;
  const s = c.single.at(-1)!;
  const want = values.subarray(s.hidden_states.at(-1)!, s.hidden_states.at(-1)! + s.input_ids.length * c.hidden);
  for (const change of [{ local_attention: 6 }, { rope_parameters: { full_attention: { rope_type: 'default', rope_theta: 10000 }, sliding_attention: { rope_type: 'default', rope_theta: 10000 } } }]) {
    const dir = copyOf(join(DIR, c.name));
    const cfg = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...cfg, ...change }));
    const out = await run(await graphSession(dir), [s.input_ids], [s.input_ids.map(() => 1)]);
    assert.ok(maxAbsDiff(out.last_hidden_state!, want) > 1e-2, JSON.stringify(change));
  }
});

test('encoder-graph: a config.json that disagrees with the weights names config.json and the key, before anything is built', () => {
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ['roberta-zip-f32', { num_hidden_layers: 1_000_000_000 }, 'num_hidden_layers', /1000000000, but .*pytorch_model\.bin holds 2 layers \(encoder\.layer\.0 to encoder\.layer\.1\)/],
    ['roberta-zip-f32', { num_hidden_layers: 1 }, 'num_hidden_layers', /holds 2 layers/],
    ['roberta-zip-f32', { hidden_size: 64, num_attention_heads: 4 }, 'hidden_size', /64, but 'embeddings\.word_embeddings\.weight' has 32 columns/],
    ['roberta-zip-f32', { vocab_size: 250002 }, 'vocab_size', /250002, but .* has 300 rows/],
    ['roberta-zip-f32', { intermediate_size: 3072 }, 'intermediate_size', /3072, but .* has 64 rows/],
    ['roberta-zip-f32', { max_position_embeddings: 514 }, 'max_position_embeddings', /514, but .* has 40 rows/],
    ['roberta-zip-f32', { type_vocab_size: 2 }, 'type_vocab_size', /2, but .* has 1 rows/],
    ['roberta-zip-f32', { num_attention_heads: 5 }, 'num_attention_heads', /not a multiple of 5 heads/],
    ['roberta-zip-f32', { pad_token_id: 300 }, 'pad_token_id', /not below vocab_size/],
    ['roberta-zip-f32', { model_type: 'modernbert', architectures: null }, 'model_type', /"modernbert", but .* holds no layers\.N tensors/],
    ['xlm-roberta-mlm-f16', { num_hidden_layers: 4 }, 'num_hidden_layers', /4, but .*model\.safetensors holds 3 layers/],
    ['modernbert-f32', { num_hidden_layers: 1_000_000_000, layer_types: null }, 'num_hidden_layers', /holds 3 layers \(layers\.0 to layers\.2\)/],
    ['modernbert-f32', { intermediate_size: 64 }, 'intermediate_size', /64, but 'layers\.0\.mlp\.Wi\.weight' has 96 rows \(2 × intermediate_size\)/],
    ['modernbert-f32', { norm_bias: true }, 'norm_bias', /true, but .* has no 'final_norm\.bias'/],
    ['modernbert-mlm-bias-bf16', { attention_bias: false }, 'attention_bias', /false, but .* has a 'layers\.0\.attn\.Wqkv\.bias'/],
    ['modernbert-f32', { layer_types: ['full_attention'] }, 'layer_types', /per layer \(3\)/],
    ['modernbert-f32', { hidden_activation: 'silu' }, 'hidden_activation', /"silu" is not "gelu"/],
    ['modernbert-f32', { rope_parameters: { full_attention: { rope_type: 'yarn', rope_theta: 1 } } }, 'rope_parameters', /rope_type "yarn"/],
    ['modernbert-f32', { model_type: 'neobert' }, 'model_type', /"neobert" is not an architecture citebench builds \(bert, roberta, xlm-roberta, modernbert, qwen3, qwen2, llama, mistral, gemma3_text\)/],
    ['modernbert-f32', { architectures: ['ModernBertForSequenceClassification'] }, 'architectures', /does not name the modernbert encoder/],
  ];
  assertConfigErrors(DIR, cases, convertCheckpoint);
});

test('encoder-graph: config.json defaults are the configuration classes\' (a hub ModernBERT config, a RoBERTa without pad_token_id)', () => {
  const dir = copyOf(join(DIR, 'modernbert-f32'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'modernbert', vocab_size: 300, hidden_size: 32, num_hidden_layers: 7, num_attention_heads: 4 }));
  const c = readEncoderConfig(join(dir, 'config.json'));
  assert.ok(c.modelType === 'modernbert');
  if (c.modelType !== 'modernbert') return;
  assert.deepEqual([0, 1, 2, 3, 4, 5, 6].map((l) => c.layerType(l)[0]), ['f', 's', 's', 'f', 's', 's', 'f'], 'global_attn_every_n_layers defaults to 3');
  assert.equal(c.globalRopeTheta, 160_000);
  assert.equal(c.localRopeTheta, 10_000);
  assert.equal(c.localAttention, 128);
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'roberta' }));
  const r = readEncoderConfig(join(dir, 'config.json'));
  assert.ok(r.modelType === 'roberta' && r.paddingIdx === 1 && r.vocabSize === 50265);
  assert.equal(maxTokens({ ...r, maxPositions: 514 }), 512, "RoBERTa's positions start after pad_token_id");
  assert.equal(maxTokens(c), 8192);
});
