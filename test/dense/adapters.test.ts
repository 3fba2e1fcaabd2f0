// Adapters saved by the adapters library, in citebench's graph, against the library's own forward. Fixtures:
// scripts/dev/make-adapter-fixtures.py (tiny random BERT and RoBERTa bases; seq_bn as SPECTER2 ships it, in
// pytorch_adapter.bin and adapter.safetensors; double_seq_bn; every BnConfig option the graph computes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONVERT_CACHE, convertCheckpoint } from '../../src/retrieval/dense/convert.ts';
import { createSession } from '../../src/retrieval/dense/encoder.ts';
import { readEncoderConfig, readAdapter } from '../../src/retrieval/dense/encoder-graph/index.ts';
import { assertInt8Close, compareStates, oneLine, copyOf, expectedValues, graphSession, maxAbsDiff, run, type Run } from './encoder-graph-fixtures.ts';

const DIR = new URL('./fixtures/adapters/', import.meta.url).pathname;
interface Case {
  name: string;
  base: string;
  adapter: string | null;
  single: Run[];
  batch: Run;
}
interface Expected {
  hidden: number;
  inputs: Record<string, { single: number[][]; batch: { input_ids: number[][]; attention_mask: number[][] } }>;
  cases: Case[];
}
const expected = JSON.parse(readFileSync(join(DIR, 'expected.json'), 'utf8')) as Expected;
const values = expectedValues(DIR);
const H = expected.hidden;

for (const c of expected.cases) {
  test(`adapters ${c.name}: every hidden state equals the adapters library's forward (≤ 1e-4), alone and in a padded batch`, async () => {
    const session = await graphSession(join(DIR, c.base), { adapter: c.adapter ? join(DIR, c.adapter) : undefined });
    const inputs = expected.inputs[c.base]!;
    let worst = 0;
    for (const [i, ids] of inputs.single.entries()) {
      const out = await run(session, [ids], [ids.map(() => 1)]);
      worst = Math.max(worst, compareStates(out, c.single[i]!, values, ids.length * H, 1e-4, `sequence ${i}`));
    }
    const b = inputs.batch;
    assert.ok(b.attention_mask.some((row) => row.includes(0)), 'padding');
    const out = await run(session, b.input_ids, b.attention_mask);
    worst = Math.max(worst, compareStates(out, c.batch, values, b.input_ids.length * b.input_ids[0]!.length * H, 1e-4, 'batch'));
    assert.ok(worst > 0 || c.adapter === null, 'compared something');
  });
}

test('adapters: the graph with an adapter differs from the base graph by far more than the tolerance', async () => {
  const ids = expected.inputs['bert-base']!.single[1]!;
  const base = await run(await graphSession(join(DIR, 'bert-base')), [ids], [ids.map(() => 1)]);
  const withAdapter = await run(await graphSession(join(DIR, 'bert-base'), { adapter: join(DIR, 'specter2-bin') }), [ids], [ids.map(() => 1)]);
  assert.ok(maxAbsDiff(base.last_hidden_state!, withAdapter.last_hidden_state!) > 0.1);
});

test('convertCheckpoint with an adapter: CLS vectors as the library computes them; the adapter files are in the cache key', async () => {
  const dir = copyOf(join(DIR, 'bert-base'));
  const logs: string[] = [];
  const plain = convertCheckpoint(dir);
  const bin = convertCheckpoint(dir, { adapter: join(DIR, 'specter2-bin'), log: (l) => logs.push(l) });
  const st = convertCheckpoint(dir, { adapter: join(DIR, 'specter2-safetensors'), log: (l) => logs.push(l) });
  assert.equal(new Set([plain, bin, st]).size, 3, 'one cache entry per adapter file');
  assert.match(logs[0]!, /adapter pytorch_adapter\.bin/);
  assert.deepEqual(readFileSync(bin), readFileSync(st), 'the same adapter from .bin and .safetensors: the same graph');
  assert.equal(convertCheckpoint(dir, { adapter: join(DIR, 'specter2-bin'), log: (l) => logs.push(l) }), bin);
  assert.equal(logs.length, 2, 'cached: nothing converted again');
  const c = expected.cases.find((x) => x.name === 'specter2-bin')!;
  const session = await createSession(bin, { threads: 1 });
  const b = expected.inputs['bert-base']!.batch;
  const out = await run(session, b.input_ids, b.attention_mask);
  const width = b.input_ids[0]!.length;
  const last = values.subarray(c.batch.hidden_states.at(-1)!);
  for (let r = 0; r < b.input_ids.length; r++) {
    const at = r * width * H;
    assert.ok(maxAbsDiff(out.last_hidden_state!.subarray(at, at + H), last.subarray(at, at + H)) <= 1e-4, `CLS of row ${r}`);
  }
  // A changed adapter converts again.
  const changed = copyOf(join(DIR, 'specter2-safetensors'));
  const f = join(changed, 'adapter.safetensors');
  const bytes = readFileSync(f);
  bytes[bytes.length - 1]! ^= 1;
  writeFileSync(f, bytes);
  assert.notEqual(convertCheckpoint(dir, { adapter: changed }), st);
});

test('convertCheckpoint --quantize with an adapter: int8 error only', async () => {
  const dir = copyOf(join(DIR, 'bert-base'));
  const int8 = convertCheckpoint(dir, { adapter: join(DIR, 'specter2-bin'), quantize: true });
  assert.ok(int8.endsWith('model_quantized.onnx'));
  const c = expected.cases.find((x) => x.name === 'specter2-bin')!;
  const b = expected.inputs['bert-base']!.batch;
  const out = await run(await createSession(int8, { threads: 1 }), b.input_ids, b.attention_mask);
  const n = b.input_ids.length * b.input_ids[0]!.length * H;
  assertInt8Close(out.last_hidden_state!, values.subarray(c.batch.hidden_states.at(-1)!, c.batch.hidden_states.at(-1)! + n), 'specter2-bin');
});

test('adapters: a config key value the graph does not compute is one line naming adapter_config.json and the key', () => {
  const base = readEncoderConfig(join(DIR, 'bert-base', 'config.json'));
  const dir = copyOf(join(DIR, 'specter2-bin'));
  const file = join(dir, 'adapter_config.json');
  const orig = JSON.parse(readFileSync(file, 'utf8')) as { config: Record<string, unknown> } & Record<string, unknown>;
  const cases: [Record<string, unknown>, Record<string, unknown>, string][] = [
    [{ is_parallel: true }, {}, 'config.is_parallel'],
    [{ use_gating: true }, {}, 'config.use_gating'],
    [{ phm_layer: true }, {}, 'config.phm_layer'],
    [{ inv_adapter: 'nice' }, {}, 'config.inv_adapter'],
    [{ architecture: 'lora' }, {}, 'config.architecture'],
    [{ non_linearity: 'softplus' }, {}, 'config.non_linearity'],
    [{ residual_before_ln: 'sometimes' }, {}, 'config.residual_before_ln'],
    [{ residual_before_ln: 'post_add', original_ln_before: false }, {}, 'config.residual_before_ln'],
    [{ scaling: 'per-token' }, {}, 'config.scaling'],
    [{ reduction_factor: 0 }, {}, 'config.reduction_factor'],
    [{ leave_out: 'none' }, {}, 'config.leave_out'],
    [{ mh_adapter: 'yes' }, {}, 'config.mh_adapter'],
    [{ some_future_option: 1 }, {}, 'config.some_future_option'],
    [{}, { hidden_size: 768 }, 'hidden_size'],
    [{}, { model_type: 'roberta' }, 'model_type'],
    [{}, { name: '' }, 'name'],
    [{}, { config: 'lora' }, 'config'],
  ];
  for (const [change, top, key] of cases) {
    writeFileSync(file, JSON.stringify({ ...orig, ...top, config: 'config' in top ? top.config : { ...orig.config, ...change } }));
    const msg = oneLine(() => readAdapter(dir, base));
    assert.ok(msg.startsWith(`${file} [${key}]:`), msg);
  }
  // What the library itself fills in: a preset name, and BnConfig's defaults for keys left out.
  writeFileSync(file, JSON.stringify({ ...orig, config: 'pfeiffer' }));
  assert.equal(readAdapter(dir, base).config.reductionFactor, 16);
  writeFileSync(file, JSON.stringify({ ...orig, config: { mh_adapter: false, output_adapter: true, reduction_factor: 4, non_linearity: 'relu' } }));
  assert.equal(readAdapter(dir, base).config.originalLnBefore, false, "BnConfig's default");
  // Saved before the library kept a version: "gelu" meant the tanh form (loading.py ACTIVATION_RENAME).
  const { version: _v, ...unversioned } = orig;
  writeFileSync(file, JSON.stringify({ ...unversioned, config: { ...orig.config, non_linearity: 'gelu' } }));
  assert.equal(readAdapter(dir, base).config.nonLinearity, 'gelu_new');
});

test('adapters: a pickle naming a foreign global is one line naming the file and the global, and nothing runs', () => {
  const dir = copyOf(join(DIR, 'specter2-bin'));
  const file = join(dir, 'pytorch_adapter.bin');
  const marker = join(dir, 'ran');
  // A protocol-2 pickle: os.system(<touch marker>) — what a malicious pytorch_adapter.bin would hold.
  const cmd = `touch ${marker}`;
  const enc = (s: string) => [...Buffer.from(s, 'latin1')];
  writeFileSync(file, Uint8Array.from([0x80, 2, 0x63, ...enc('os\nsystem\n'), 0x58, cmd.length, 0, 0, 0, ...enc(cmd), 0x85, 0x52, 0x2e]));
  const msg = oneLine(() => readAdapter(dir, readEncoderConfig(join(DIR, 'bert-base', 'config.json'))));
  assert.ok(msg.startsWith(file) && msg.includes("'os.system'"), msg);
  assert.ok(!existsSync(marker), 'nothing from the pickle ran');
});

test('adapters: missing weights, a missing tensor, a wrong shape, a ModernBERT base: one line each', () => {
  const base = join(DIR, 'bert-base');
  const noWeights = copyOf(join(DIR, 'specter2-bin'));
  rmSync(join(noWeights, 'pytorch_adapter.bin'));
  assert.match(oneLine(() => convertCheckpoint(copyOf(base), { adapter: noWeights })), /no adapter weights \(adapter\.safetensors or pytorch_adapter\.bin\)/);
  assert.match(oneLine(() => convertCheckpoint(copyOf(base), { adapter: join(DIR, 'bert-base') })), /not an adapter folder \(no adapter_config\.json\)/);
  // The double_seq_bn config with the seq_bn weights: no adapter after attention.
  const mixed = copyOf(join(DIR, 'specter2-bin'));
  const cfg = JSON.parse(readFileSync(join(mixed, 'adapter_config.json'), 'utf8')) as { config: Record<string, unknown> };
  writeFileSync(join(mixed, 'adapter_config.json'), JSON.stringify({ ...cfg, config: { ...cfg.config, mh_adapter: true } }));
  const target = copyOf(base);
  assert.match(oneLine(() => convertCheckpoint(target, { adapter: mixed })), /tensor 'encoder\.layer\.0\.attention\.output\.adapters\.\[PRX\]\.adapter_down\.0\.weight' is missing/);
  writeFileSync(join(mixed, 'adapter_config.json'), JSON.stringify({ ...cfg, config: { ...cfg.config, reduction_factor: 8 } }));
  assert.match(oneLine(() => convertCheckpoint(target, { adapter: mixed })), /adapter_down\.0\.weight' is F32 \[8, 32\], .*adapter_config\.json implies floats \[4, 32\]/);
  assert.ok(!existsSync(join(target, CONVERT_CACHE)), 'nothing written');
});
