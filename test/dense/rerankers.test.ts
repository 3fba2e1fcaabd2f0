/**
 * Cross-encoders from their checkpoints (test/dense/fixtures/rerankers/, made by scripts/dev/make-reranker-
 * fixtures.py with transformers 5.18 and sentence-transformers 6): every pair's token ids as CrossEncoder
 * tokenises it (pair template, token types, longest-first truncation), scores within 1e-4 of CrossEncoder.predict
 * in float32, each query's candidates ranked as it ranks them, int8 graphs that run, and the refusals in one line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadReranker } from '../../src/retrieval/rerank/load.ts';
import { CrossEncoderScorer } from '../../src/retrieval/rerank/cross-encoder.ts';
import { longestFirst } from '../../src/retrieval/dense/tokenizer.ts';
import { CONVERT_CACHE } from '../../src/retrieval/dense/convert.ts';
import { CitebenchError } from '../../src/util/errors.ts';
import { safetensorsBytes } from './embeddings-files.ts';
import { FakeHub } from '../helpers/fake-hub.ts';
import { readDownloadRecord } from '../../src/retrieval/dense/hub/record.ts';

const FIX = join(import.meta.dirname, 'fixtures', 'rerankers');
const TOKENIZERS = join(import.meta.dirname, 'fixtures', 'tokenizers');
interface Case {
  tokenizer: string;
  scores: number[];
  input_ids: number[][];
  token_type_ids?: number[][];
  max_length: number;
  activation: string;
}
const expected = JSON.parse(readFileSync(join(FIX, 'expected.json'), 'utf8')) as { pairs: [string, string][]; groups: [number, number][]; cases: Record<string, Case> };
const tmp = mkdtempSync(join(tmpdir(), 'cb-rerankers-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

/** A fixture folder made whole in a temporary folder: its files and its tokenizer.json (kept once, in tokenizers/). */
function folder(name: string, from = name): string {
  const d = join(tmp, `${name}-${readdirSync(tmp).length}`);
  cpSync(join(FIX, from), d, { recursive: true });
  copyFileSync(join(TOKENIZERS, expected.cases[from].tokenizer, 'tokenizer.json'), join(d, 'tokenizer.json'));
  return d;
}

const order = (s: ArrayLike<number>, [a, b]: [number, number]) => Array.from({ length: b - a }, (_, i) => a + i).sort((x, y) => s[y] - s[x] || x - y);

for (const name of Object.keys(expected.cases)) {
  const c = expected.cases[name];
  test(`reranker ${name}: token ids, scores within 1e-4 and ranks of CrossEncoder.predict (${c.activation})`, async () => {
    const scorer = (await loadReranker(folder(name), { threads: 1, batchSize: 5 })) as CrossEncoderScorer;
    try {
      expected.pairs.forEach(([q, d], i) => {
        const t = scorer.pairTokens(q, d);
        assert.deepEqual([...t.ids], c.input_ids[i], `pair ${i} ids`);
        if (c.token_type_ids) assert.deepEqual([...t.types], c.token_type_ids[i], `pair ${i} token types`);
      });
      assert.ok(c.input_ids.some((ids) => ids.length === c.max_length), 'some pairs are truncated');
      const s = await scorer.scoreTexts(expected.pairs);
      s.forEach((v, i) => assert.ok(Math.abs(v - c.scores[i]) <= 1e-4, `pair ${i}: ${v} vs ${c.scores[i]}`));
      for (const g of expected.groups) assert.deepEqual(order(s, g), order(c.scores, g), `ranking of the candidates ${g}`);
      assert.ok(new Set(c.scores.map((x) => x.toFixed(4))).size > 20, 'the fixture separates pairs');
      assert.match(scorer.describe, name.includes('2label') ? /P\(label 1\)/ : new RegExp(c.activation));
    } finally {
      await scorer.release();
    }
  });
}

test('reranker: the conversion cache keeps a head graph apart; int8 runs and stays close', async () => {
  const dir = folder('bert-plain');
  const fp = await loadReranker(dir, { threads: 1 });
  const q = await loadReranker(dir, { threads: 1, quantized: true });
  try {
    assert.notEqual(fp.fingerprint, q.fingerprint);
    const s = await q.scoreTexts(expected.pairs);
    const ref = expected.cases['bert-plain'].scores;
    const worst = Math.max(...Array.from(s, (v, i) => Math.abs(v - ref[i])));
    assert.ok(worst > 0 && worst < 0.05, `int8 differs from float32 by ${worst}`);
    // Activations quantised at run time (one scale per batch tensor): each pair is scored alone, so a pair's
    // score is the same bits whatever else is scored with it.
    for (let i = 0; i < expected.pairs.length; i++) {
      assert.equal((await q.scoreTexts([expected.pairs[i]]))[0], s[i], `pair ${i} alone`);
    }
    assert.deepEqual(Array.from(await q.scoreTexts([...expected.pairs].reverse())).reverse(), Array.from(s), 'pairs in reverse order');
  } finally {
    await fp.release();
    await q.release();
  }
  const cached = readdirSync(join(dir, CONVERT_CACHE));
  assert.equal(cached.length, 1, 'one key for the head graph (float32 and int8 files side by side)');
  assert.deepEqual(readdirSync(join(dir, CONVERT_CACHE, cached[0])).sort(), ['model.onnx', 'model_quantized.onnx']);
});

test('reranker: an activation named by config_sentence_transformers.json (Tanh) is applied to the logit', async () => {
  const dir = folder('xlmr-st-identity');
  const f = join(dir, 'config_sentence_transformers.json');
  writeFileSync(f, JSON.stringify({ ...JSON.parse(readFileSync(f, 'utf8')), activation_fn: 'torch.nn.modules.activation.Tanh' }));
  const s = await loadReranker(dir, { threads: 1 });
  try {
    const got = await s.scoreTexts(expected.pairs.slice(0, 6));
    got.forEach((v, i) => assert.ok(Math.abs(v - Math.tanh(expected.cases['xlmr-st-identity'].scores[i])) <= 1e-4));
    assert.match(s.describe, /Tanh/);
  } finally {
    await s.release();
  }
});

test('reranker: the Rust library\'s longest-first lengths', () => {
  // Measured with tokenizers 0.23 (the shorter kept when it fits in half; else halves, the odd token to the longer).
  assert.deepEqual(longestFirst(20, 3, 10), [7, 3]);
  assert.deepEqual(longestFirst(3, 20, 10), [3, 7]);
  assert.deepEqual(longestFirst(20, 18, 11), [6, 5]);
  assert.deepEqual(longestFirst(18, 20, 11), [5, 6]);
  assert.deepEqual(longestFirst(20, 20, 11), [5, 6]);
  assert.deepEqual(longestFirst(6, 20, 11), [5, 6]);
  assert.deepEqual(longestFirst(4, 5, 11), [4, 5]);
});

const oneLine = (re: RegExp) => (e: Error) => e instanceof CitebenchError && !e.message.includes('\n') && re.test(e.message);

test('reranker refusals: three labels, a missing head, an ONNX graph without logits, a causal LM', async () => {
  const three = folder('bert-3label-src', 'bert-plain');
  copyFileSync(join(FIX, 'bert-3label', 'config.json'), join(three, 'config.json'));
  await assert.rejects(() => loadReranker(three), oneLine(/config\.json \[id2label\]: 3 labels \(LABEL_0, LABEL_1, LABEL_2\)/));

  // The encoder's keys alone (a BertModel checkpoint under a sequence-classification config): no head.
  const headless = folder('bert-headless', 'bert-plain');
  const { readCheckpoint } = await import('../../src/retrieval/dense/checkpoint/index.ts');
  const ck = readCheckpoint(headless);
  const kept = Object.fromEntries([...ck.tensors].filter(([k]) => !k.startsWith('classifier.')).map(([k, t]) => {
    const f = t.float32();
    return [k, { dtype: 'F32', shape: [...t.shape], data: new Uint8Array(f.buffer, f.byteOffset, f.byteLength) }];
  }));
  writeFileSync(join(headless, 'model.safetensors'), safetensorsBytes(kept));
  await assert.rejects(() => loadReranker(headless), oneLine(/sequence-classification head's tensor 'classifier\.weight' is missing/));

  // An ONNX graph without `logits` (the encoder graph of the same folder, as an export would be).
  const onnx = folder('bert-onnx', 'bert-plain');
  const { convertCheckpoint } = await import('../../src/retrieval/dense/convert.ts');
  const encoderConfig = join(onnx, 'config.json');
  const cfg = JSON.parse(readFileSync(encoderConfig, 'utf8')) as Record<string, unknown>;
  writeFileSync(encoderConfig, JSON.stringify({ ...cfg, architectures: ['BertModel'] }));
  const encoderOnnx = convertCheckpoint(onnx);
  writeFileSync(encoderConfig, JSON.stringify(cfg));
  cpSync(encoderOnnx, join(onnx, 'onnx', 'model.onnx'));
  await assert.rejects(() => loadReranker(onnx), oneLine(/not a sequence-classification model \(no ONNX output 'logits'/));

  // A folder that says it is a causal LM goes to the LLM reranker's loader (causal-lm.ts), which finds no "yes".
  const causal = folder('causal', 'bert-plain');
  writeFileSync(join(causal, 'config.json'), JSON.stringify({ ...cfg, architectures: ['Qwen3ForCausalLM'] }));
  await assert.rejects(() => loadReranker(causal), oneLine(/the tokenizer has no token "yes"/));
  assert.ok(existsSync(join(FIX, 'bert-3label', 'config.json')));
});

test('reranker registry name with allowRemote: downloaded from the hub (a loopback one here), commit recorded, card settings applied', async () => {
  const src = folder('hub-src', 'bert-plain');
  const hub = await new FakeHub({ 'cross-encoder/ms-marco-MiniLM-L6-v2': { dir: src, commit: 'a'.repeat(40) } }).start();
  const saved = process.env.HF_ENDPOINT;
  process.env.HF_ENDPOINT = hub.endpoint;
  const models = join(tmp, 'models');
  try {
    await assert.rejects(() => loadReranker('ms-marco-minilm-l6-v2', { modelsDir: models }), oneLine(/not available locally.*--allow-remote downloads cross-encoder\/ms-marco-MiniLM-L6-v2/));
    assert.equal(hub.requests.length, 0, 'nothing requested without allowRemote');
    const s = await loadReranker('ms-marco-minilm-l6-v2', { modelsDir: models, allowRemote: true, threads: 1 });
    try {
      const rec = readDownloadRecord(join(models, 'ms-marco-minilm-l6-v2'));
      assert.equal(rec?.repo, 'cross-encoder/ms-marco-MiniLM-L6-v2');
      assert.equal(rec?.commit, 'a'.repeat(40));
      assert.ok(existsSync(join(models, 'ms-marco-minilm-l6-v2', 'model.safetensors')), 'the checkpoint, converted here');
      // The card's Identity over the folder's default Sigmoid: the logit itself (short pairs: no truncation either way).
      assert.match(s.describe, /Identity/);
      const short = [36, 37, 41];
      const got = await s.scoreTexts(short.map((i) => expected.pairs[i]));
      short.forEach((i, j) => {
        const p = expected.cases['bert-plain'].scores[i];
        assert.ok(Math.abs(got[j] - Math.log(p / (1 - p))) <= 1e-3, `pair ${i}: ${got[j]} vs logit ${Math.log(p / (1 - p))}`);
      });
    } finally {
      await s.release();
    }
  } finally {
    if (saved === undefined) delete process.env.HF_ENDPOINT;
    else process.env.HF_ENDPOINT = saved;
    await hub.close();
  }
});
