// BERT checkpoints converted to ONNX by citebench compute what PyTorch transformers computes. The fixtures are tiny
// random BERTs saved by transformers with PyTorch's outputs beside them (scripts/dev/make-bert-graph-fixtures.py):
// one BertModel checkpoint in float32, one BertForPreTraining checkpoint in float16. Outputs are compared with
// the converted file run exactly as the encoder runs models (createSession: all graph optimizations).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { buildEncoderGraph, readEncoderConfig } from '../../src/retrieval/dense/encoder-graph/index.ts';
import { readCheckpoint } from '../../src/retrieval/dense/checkpoint/index.ts';
import { CONVERT_CACHE, convertCheckpoint } from '../../src/retrieval/dense/convert.ts';
import { createSession, usesDynamicQuantization } from '../../src/retrieval/dense/encoder.ts';
import { quantizeInt8Symmetric, quantizeUint8Asymmetric } from '../../src/retrieval/dense/quantize.ts';
import { oneLine } from './encoder-graph-fixtures.ts';

const FIXTURES = new URL('./fixtures/bert-graph/', import.meta.url).pathname;
const CASES = ['bertmodel-f32', 'pretraining-f16'];

interface Expected {
  single: { input_ids: number[]; token_type_ids: number[]; last_hidden_state: number[][]; mean_hidden_states: number[][] }[];
  batch: { input_ids: number[][]; token_type_ids: number[][]; attention_mask: number[][]; last_hidden_state: number[][][]; mean_hidden_states: number[][][] };
}

const expected = (c: string): Expected => JSON.parse(readFileSync(join(FIXTURES, c, 'expected.json'), 'utf8')) as Expected;

/** A writable copy of a fixture model folder. */
function copyOf(c: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'cb-bert-graph-')), c);
  cpSync(join(FIXTURES, c), dir, { recursive: true });
  return dir;
}

async function run(session: ort.InferenceSession, ids: number[][], types: number[][], mask: number[][]) {
  const dims = [ids.length, ids[0]!.length];
  const t = (a: number[][]) => new ort.Tensor('int64', BigInt64Array.from(a.flat().map(BigInt)), dims);
  const r = await session.run({ input_ids: t(ids), attention_mask: t(mask), token_type_ids: t(types) });
  return { last: r.last_hidden_state!.data as Float32Array, mean: r.mean_hidden_states!.data as Float32Array };
}

function maxAbsDiff(got: Float32Array, want: number[]): number {
  assert.equal(got.length, want.length);
  let m = 0;
  for (let i = 0; i < want.length; i++) m = Math.max(m, Math.abs(got[i]! - want[i]!));
  return m;
}

for (const c of CASES) {
  test(`bert-graph ${c}: last_hidden_state and all-layer mean equal PyTorch's (≤ 1e-4), one sequence at a time and padded in a batch`, async () => {
    const exp = expected(c);
    const session = await createSession(convertCheckpoint(copyOf(c)), { threads: 1 });
    for (const s of exp.single) {
      const r = await run(session, [s.input_ids], [s.token_type_ids], [s.input_ids.map(() => 1)]);
      assert.ok(maxAbsDiff(r.last, s.last_hidden_state.flat()) <= 1e-4, `last_hidden_state, length ${s.input_ids.length}`);
      assert.ok(maxAbsDiff(r.mean, s.mean_hidden_states.flat()) <= 1e-4, `mean_hidden_states, length ${s.input_ids.length}`);
    }
    const b = exp.batch;
    // Every position, padding included, and a row whose mask is all zeros (sdpa gives its attention output 0).
    assert.ok(b.attention_mask.some((row) => row.every((v) => v === 0)));
    const r = await run(session, b.input_ids, b.token_type_ids, b.attention_mask);
    assert.ok(maxAbsDiff(r.last, b.last_hidden_state.flat(2)) <= 1e-4, 'batched last_hidden_state');
    assert.ok(maxAbsDiff(r.mean, b.mean_hidden_states.flat(2)) <= 1e-4, 'batched mean_hidden_states');
  });

  test(`bert-graph ${c}: a search over the fixture sequences (CLS vectors, −L2²) ranks as PyTorch's vectors do`, async () => {
    const exp = expected(c);
    const session = await createSession(convertCheckpoint(copyOf(c)), { threads: 1 });
    const H = exp.single[0]!.last_hidden_state[0]!.length;
    const ours: number[][] = [];
    for (const s of exp.single) ours.push([...(await run(session, [s.input_ids], [s.token_type_ids], [s.input_ids.map(() => 1)])).last.subarray(0, H)]);
    const theirs = exp.single.map((s) => s.last_hidden_state[0]!);
    for (let q = 0; q < ours.length; q++) assert.deepEqual(rankL2(ours, q), rankL2(theirs, q), `query ${q}`);
  });
}

test('bert-graph: TensorFlow-converted names (LayerNorm gamma/beta) load to the same outputs', async () => {
  const dir = copyOf('bertmodel-f32');
  rewriteSafetensors(join(dir, 'model.safetensors'), (h) => {
    for (const k of Object.keys(h)) if (/LayerNorm\.(weight|bias)$/.test(k)) h[k.replace(/weight$/, 'gamma').replace(/bias$/, 'beta')] = h[k]!, delete h[k];
  });
  const s = expected('bertmodel-f32').single[0]!;
  const session = await createSession(convertCheckpoint(dir), { threads: 1 });
  const r = await run(session, [s.input_ids], [s.token_type_ids], [s.input_ids.map(() => 1)]);
  assert.ok(maxAbsDiff(r.last, s.last_hidden_state.flat()) <= 1e-4);
});

test('convert: the second call converts nothing; a killed conversion (a leftover temp file) is not taken as complete', () => {
  const dir = copyOf('pretraining-f16');
  const logs: string[] = [];
  const first = convertCheckpoint(dir, { log: (l) => logs.push(l) });
  assert.equal(logs.length, 1);
  assert.ok(first.startsWith(join(dir, CONVERT_CACHE)), first);
  const mtime = statSync(first).mtimeMs;
  const again = convertCheckpoint(dir, { log: (l) => logs.push(l) });
  assert.equal(again, first);
  assert.equal(logs.length, 1, 'nothing converted the second time');
  assert.equal(statSync(first).mtimeMs, mtime, 'the converted file was not rewritten');
  assert.deepEqual(readdirSync(dirname(first)), ['model.onnx'], 'no temp file left by a completed conversion');

  // The same checkpoint elsewhere, where a conversion was killed mid-write: only its temp file exists.
  const dir2 = copyOf('pretraining-f16');
  const target = join(dir2, first.slice(dir.length));
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(`${target}.tmp-otherhost-12345`, readFileSync(first).subarray(0, 1000));
  const logs2: string[] = [];
  assert.equal(convertCheckpoint(dir2, { log: (l) => logs2.push(l) }), target);
  assert.equal(logs2.length, 1, 'a leftover temp file does not count as converted');
  assert.deepEqual(readFileSync(target), readFileSync(first), 'same checkpoint, byte-identical conversion');
});

test('convert: a changed checkpoint converts again, under another key', () => {
  const dir = copyOf('bertmodel-f32');
  const before = convertCheckpoint(dir);
  rewriteSafetensors(join(dir, 'model.safetensors'), () => {}, (data) => (data[data.length - 1]! ^= 1));
  const after = convertCheckpoint(dir);
  assert.notEqual(after, before);
  assert.ok(existsSync(after));
});

test('bert-graph: an unknown architecture or config value is refused in one line naming the file, the field and the export route', () => {
  const dir = copyOf('bertmodel-f32');
  const cfg = join(dir, 'config.json');
  const orig = JSON.parse(readFileSync(cfg, 'utf8')) as Record<string, unknown>;
  const cases: [Record<string, unknown>, string][] = [
    [{ model_type: 'deberta-v2' }, 'model_type'],
    [{ model_type: 42 }, 'model_type'],
    [{ architectures: ['RobertaModel'] }, 'architectures'],
    [{ architectures: ['BertForSequenceClassification'] }, 'architectures'],
    [{ hidden_act: 'gelu_new' }, 'hidden_act'],
    [{ position_embedding_type: 'relative_key' }, 'position_embedding_type'],
    [{ num_attention_heads: 3 }, 'num_attention_heads'],
    [{ hidden_size: 'big' }, 'hidden_size'],
  ];
  for (const [change, field] of cases) {
    writeFileSync(cfg, JSON.stringify({ ...orig, ...change }));
    const msg = oneLine(() => convertCheckpoint(dir));
    assert.ok(msg.includes(cfg) && msg.includes(`[${field}]`) && msg.includes('optimum-cli'), msg);
  }
  assert.ok(!existsSync(join(dir, CONVERT_CACHE)), 'nothing written for a refused model');
});

test('bert-graph: a missing tensor or a wrong shape is one line naming the tensor and the file', () => {
  const dir = copyOf('pretraining-f16');
  const file = join(dir, 'model.safetensors');
  const original = readFileSync(file);
  rewriteSafetensors(file, (h) => delete h['bert.encoder.layer.1.output.dense.weight']);
  let msg = oneLine(() => convertCheckpoint(dir));
  assert.match(msg, /encoder\.layer\.1\.output\.dense\.weight' is missing/);
  assert.ok(msg.startsWith(file), msg);
  writeFileSync(file, original);
  rewriteSafetensors(file, (h) => (h['bert.encoder.layer.0.attention.self.query.weight']!.shape = [8, 32]));
  msg = oneLine(() => convertCheckpoint(dir));
  assert.match(msg, /'bert\.encoder\.layer\.0\.attention\.self\.query\.weight' has shape \[8, 32\], .*config\.json implies \[16, 16\]/);
  assert.ok(msg.startsWith(file), msg);
  // The graph builder checks every tensor up front, without the converter.
  writeFileSync(file, original);
  const config = readEncoderConfig(join(dir, 'config.json'));
  assert.ok(buildEncoderGraph(config, readCheckpoint(dir)).initializers!.length > 0);
  assert.ok(!existsSync(join(dir, CONVERT_CACHE)), 'nothing written for a bad checkpoint');
});

/**
 * Edit a safetensors file's header (and optionally its data bytes) in place; the data of the tensors left is
 * packed again, so a deleted tensor leaves no gap (safetensors' reader refuses gaps).
 */
function rewriteSafetensors(file: string, edit: (h: Record<string, { shape: number[] }>) => void, editData?: (d: Uint8Array) => void): void {
  const b = readFileSync(file);
  const n = Number(b.readBigUInt64LE(0));
  const header = JSON.parse(b.subarray(8, 8 + n).toString('utf8')) as Record<string, { shape: number[]; data_offsets: [number, number] }>;
  edit(header);
  const old = b.subarray(8 + n);
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const [k, e] of Object.entries(header).sort((x, y) => (x[1].data_offsets?.[0] ?? 0) - (y[1].data_offsets?.[0] ?? 0))) {
    if (k === '__metadata__') continue;
    const [s0, e0] = e.data_offsets;
    parts.push(old.subarray(s0, e0));
    e.data_offsets = [at, (at += e0 - s0)];
  }
  const data = new Uint8Array(Buffer.concat(parts));
  editData?.(data);
  const h = Buffer.from(JSON.stringify(header), 'utf8');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(h.length));
  writeFileSync(file, Buffer.concat([len, h, data]));
}

// The shared checkpoint fixtures (scripts/dev/make-checkpoint-fixtures.py): SciBERT's vocabulary, hidden 16, in every
// format and key layout, with PyTorch's outputs for 8 real S2ORC texts.
const CKPT = new URL('./fixtures/checkpoints/', import.meta.url).pathname;
interface CkptExpected {
  hidden: number;
  texts: { input_ids: number[]; single: { last: number; mean: number }; batch: { last: number; mean: number } }[];
}
const ckptCases = existsSync(CKPT) ? readdirSync(CKPT).filter((d) => existsSync(join(CKPT, d, 'config.json'))) : [];
for (const c of ckptCases) {
  test(`bert-graph checkpoint fixture ${c}: every text alone and padded in one batch equals PyTorch (≤ 1e-4); CLS search ranks the same`, async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'cb-bert-ckpt-')), c);
    cpSync(join(CKPT, c), dir, { recursive: true });
    const onnx = convertCheckpoint(dir);
    const kind = c.includes('f16') ? 'f16' : 'f32';
    const exp = JSON.parse(readFileSync(join(CKPT, `expected-${kind}.json`), 'utf8')) as CkptExpected;
    const bin = readFileSync(join(CKPT, `expected-${kind}.bin`));
    const values = new Float32Array(bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength));
    const H = exp.hidden;
    const block = (offset: number, n: number) => [...values.subarray(offset, offset + n * H)];
    const session = await createSession(onnx, { threads: 1 });
    const ours: number[][] = [];
    for (const x of exp.texts) {
      const r = await run(session, [x.input_ids], [x.input_ids.map(() => 0)], [x.input_ids.map(() => 1)]);
      const n = x.input_ids.length;
      assert.ok(maxAbsDiff(r.last, block(x.single.last, n)) <= 1e-4, `last_hidden_state, ${n} tokens`);
      assert.ok(maxAbsDiff(r.mean, block(x.single.mean, n)) <= 1e-4, `mean_hidden_states, ${n} tokens`);
      ours.push([...r.last.subarray(0, H)]);
    }
    const width = Math.max(...exp.texts.map((x) => x.input_ids.length));
    const pad = (v: number[]) => [...v, ...new Array<number>(width - v.length).fill(0)];
    const r = await run(
      session,
      exp.texts.map((x) => pad(x.input_ids)),
      exp.texts.map(() => pad([])),
      exp.texts.map((x) => pad(x.input_ids.map(() => 1))),
    );
    exp.texts.forEach((x, i) => {
      const n = x.input_ids.length;
      const rows = (a: Float32Array) => a.subarray(i * width * H, (i * width + n) * H);
      assert.ok(maxAbsDiff(rows(r.last), block(x.batch.last, n)) <= 1e-4, `batched last_hidden_state, text ${i}`);
      assert.ok(maxAbsDiff(rows(r.mean), block(x.batch.mean, n)) <= 1e-4, `batched mean_hidden_states, text ${i}`);
    });
    const theirs = exp.texts.map((x) => block(x.single.last, 1));
    for (let q = 0; q < ours.length; q++) assert.deepEqual(rankL2(ours, q), rankL2(theirs, q), `query ${q}`);
  });
}

/** Other items by −L2² to item q, best first (ties by index). */
function rankL2(vs: number[][], q: number): number[] {
  return vs
    .map((v, i) => ({ i, score: -v.reduce((a, x, k) => a + (x - vs[q]![k]!) ** 2, 0) }))
    .filter((h) => h.i !== q)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map((h) => h.i);
}

test('quantize: int8/uint8 weights, scales and zero points equal onnxruntime quantize_data on every fixture weight and on exact ties', () => {
  const cases = JSON.parse(readFileSync(join(FIXTURES, 'quantized.json'), 'utf8')) as { name: string; signed: boolean; input: number[]; scale: number; zero_point: number; values: number[] }[];
  assert.ok(cases.length >= 10);
  for (const c of cases) {
    const q = c.signed ? quantizeInt8Symmetric(Float32Array.from(c.input)) : quantizeUint8Asymmetric(Float32Array.from(c.input));
    assert.equal(q.scale, Math.fround(c.scale), `${c.name} scale`);
    assert.equal(q.zeroPoint, c.zero_point, `${c.name} zero point`);
    assert.deepEqual([...q.values], c.values, `${c.name} values`);
  }
});

test('convert --quantize: model_quantized.onnx beside model.onnx, close to PyTorch (int8 error only), cached like the float32 file', async () => {
  const dir = copyOf('bertmodel-f32');
  const fp32 = convertCheckpoint(dir);
  const logs: string[] = [];
  const int8 = convertCheckpoint(dir, { quantize: true, log: (l) => logs.push(l) });
  assert.equal(dirname(int8), dirname(fp32));
  assert.ok(int8.endsWith('model_quantized.onnx'));
  assert.ok(statSync(int8).size < statSync(fp32).size * 0.65, `int8 weights: ${statSync(int8).size} vs ${statSync(fp32).size} bytes`);
  assert.equal(convertCheckpoint(dir, { quantize: true, log: (l) => logs.push(l) }), int8);
  assert.equal(logs.length, 1);
  // Activations quantised at run time: the encoder then encodes each article alone (its vector is the batch's otherwise).
  assert.equal(usesDynamicQuantization(int8), true);
  assert.equal(usesDynamicQuantization(fp32), false);
  const session = await createSession(int8, { threads: 1 });
  const b = expected('bertmodel-f32').batch;
  const r = await run(session, b.input_ids, b.token_type_ids, b.attention_mask);
  const d = maxAbsDiff(r.last, b.last_hidden_state.flat(2));
  // Hidden states are LayerNorm outputs of magnitude ~1; int8 rounding moves them by a few hundredths, a wiring
  // error (a wrong scale, zero point or transposition) by far more.
  assert.ok(d > 0 && d < 0.1, `int8 max |Δ| ${d}`);
});

test('convert: a folder without config.json or without weights is one line', () => {
  const dir = copyOf('bertmodel-f32');
  rmSync(join(dir, 'model.safetensors'));
  assert.match(oneLine(() => convertCheckpoint(dir)), /no checkpoint to convert/);
  rmSync(join(dir, 'config.json'));
  assert.match(oneLine(() => convertCheckpoint(dir)), /config\.json: cannot read the model config \(ENOENT\)/);
});
