import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { AutoTokenizer, env } from '@huggingface/transformers';
import { resolveModel } from '../../src/retrieval/dense/models.ts';
import { Encoder } from '../../src/retrieval/dense/encoder.ts';
import { splitSentences } from '../../src/retrieval/dense/sentences.ts';
import type { ArticleText } from '../../src/corpus/article.ts';

const TINY = new URL('../../../shared/models/tiny-scibert-random', import.meta.url).pathname;
const SAMPLE = new URL('../../../shared/data/scirepeval-sample/fos_small.json', import.meta.url).pathname;
const skip = existsSync(TINY) && existsSync(SAMPLE) ? false : `needs ${TINY} and ${SAMPLE} (../shared)`;

function sampleArticles(n: number): ArticleText[] {
  const raw = JSON.parse(readFileSync(SAMPLE, 'utf8')) as { title?: string; abstract?: string }[];
  return raw.slice(0, n).map((r) => ({ title: r.title ?? '', abstract: r.abstract ?? '' }));
}

async function hfTokenizer() {
  env.allowRemoteModels = false;
  env.localModelPath = new URL('../../../shared/models/', import.meta.url).pathname;
  return AutoTokenizer.from_pretrained('tiny-scibert-random');
}

/** Run the ONNX model directly (independent of Encoder) on one id sequence. */
async function forward(ids: number[], output: 'last_hidden_state' | 'mean_hidden_states'): Promise<Float32Array> {
  const s = await ort.InferenceSession.create(`${TINY}/onnx/model.onnx`);
  const n = ids.length;
  const t = (a: bigint[]) => new ort.Tensor('int64', BigInt64Array.from(a), [1, n]);
  const out = await s.run({ input_ids: t(ids.map(BigInt)), attention_mask: t(ids.map(() => 1n)), token_type_ids: t(ids.map(() => 0n)) });
  return out[output].data as Float32Array;
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  assert.equal(a.length, b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

test('registry: unknown names and missing folders give export instructions', () => {
  assert.throws(() => resolveModel('specter', { modelsDir: '/nonexistent' }), /not available locally.*\n.*optimum-cli export onnx --model allenai\/specter/s);
  assert.throws(() => resolveModel('no-such-model'), /unknown model 'no-such-model'/);
});

test('tokenisation: [CLS] title [SEP] abstract [SEP], [SEP] is the special token 103, truncation to 512', { skip }, async () => {
  const enc = await Encoder.load(resolveModel(TINY));
  const tok = await hfTokenizer();
  const a = { title: 'Citation recommendation at scale', abstract: 'We evaluate [SEP]-free encoders. BM25 wins.' };
  const { ids } = enc.tokenize(a);
  assert.equal(ids[0], 102);
  assert.equal(ids[ids.length - 1], 103);
  const titleIds = tok.encode(a.title, { add_special_tokens: false });
  assert.equal(ids[1 + titleIds.length], 103, 'the separator after the title is the [SEP] token itself');
  assert.deepEqual(Array.from(ids.subarray(1, 1 + titleIds.length)), titleIds);
  // Same ids as the Hugging Face tokenizer call on the concatenated string.
  const hf = tok(`${a.title}[SEP]${a.abstract}`, { truncation: true, max_length: 512 });
  assert.deepEqual(Array.from(ids), Array.from(hf.input_ids.data as BigInt64Array, Number));
  // Long input: truncated to 512 with the final [SEP] kept, like HF truncation=True, max_length=512.
  const long = { title: 'T', abstract: 'word '.repeat(2000) };
  const t = enc.tokenize(long).ids;
  assert.equal(t.length, 512);
  assert.equal(t[511], 103);
  // Python transformers keeps [CLS]/[SEP] and cuts the text to 510 tokens (transformers.js 4.3 instead cuts
  // the final [SEP] off, so the comparison is with the plain token sequence).
  const body = tok.encode(`${long.title} [SEP] ${long.abstract}`, { add_special_tokens: false });
  assert.deepEqual(Array.from(t.subarray(1, 511)), body.slice(0, 510));
});

test('pooling: [CLS] vector = row 0 of last_hidden_state', { skip }, async () => {
  const enc = await Encoder.load(resolveModel(TINY));
  const [a] = sampleArticles(1);
  const out = await enc.encode([a]);
  const ids = Array.from(enc.tokenize(a).ids);
  const h = await forward(ids, 'last_hidden_state');
  assert.equal(out.dim, 32);
  assert.ok(maxAbsDiff(out.vectors, h.subarray(0, 32)) <= 1e-6);
});

test('batching invariance: batch of 1 equals batch of 16 to 1e-5 (cls and aspire), order restored', { skip }, async () => {
  const arts = sampleArticles(40);
  for (const pooling of ['cls', 'aspire'] as const) {
    const model = resolveModel(TINY, { overrides: { pooling } });
    const one = await (await Encoder.load(model, { batchSize: 1 })).encode(arts);
    const sixteen = await (await Encoder.load(model, { batchSize: 16 })).encode(arts);
    assert.deepEqual(one.offsets, sixteen.offsets);
    const diff = maxAbsDiff(one.vectors, sixteen.vectors);
    assert.ok(diff <= 1e-5, `${pooling}: max diff ${diff}`);
    // Article order is the input order, not the length-sorted order: article 7 alone gives the same vectors.
    const single = await (await Encoder.load(model, { batchSize: 16 })).encode([arts[7]]);
    const rows = one.vectors.subarray(one.offsets[7] * 32, one.offsets[8] * 32);
    assert.ok(maxAbsDiff(single.vectors, rows) <= 1e-5);
  }
});

test('ASPIRE: one vector per abstract sentence = mean over its tokens of mean_hidden_states', { skip }, async () => {
  const a = {
    title: 'Multi-vector models',
    abstract: 'We present a new model for document similarity. It matches sentences, e.g. aspects of papers! Does it scale? Yes.',
  };
  const sentences = splitSentences(a.abstract);
  assert.deepEqual(sentences, [
    'We present a new model for document similarity.',
    'It matches sentences, e.g. aspects of papers!',
    'Does it scale?',
    'Yes.',
  ]);
  const tok = await hfTokenizer();
  // Independent token positions: [CLS], title tokens, [SEP], then each sentence's tokens.
  const titleLen = tok.encode(`${a.title} [SEP] `, { add_special_tokens: false }).length;
  const spans: [number, number][] = [];
  let pos = 1 + titleLen;
  const ids = [102, ...tok.encode(`${a.title} [SEP] `, { add_special_tokens: false })];
  for (const s of sentences) {
    const t = tok.encode(s, { add_special_tokens: false });
    spans.push([pos, pos + t.length]);
    ids.push(...t);
    pos += t.length;
  }
  ids.push(103);
  for (const layers of ['all', 'last'] as const) {
    const enc = await Encoder.load(resolveModel(TINY, { overrides: { pooling: 'aspire', layers } }));
    assert.deepEqual(Array.from(enc.tokenize(a).ids), ids);
    const out = await enc.encode([a]);
    assert.deepEqual(Array.from(out.offsets), [0, 4]);
    const h = await forward(ids, layers === 'all' ? 'mean_hidden_states' : 'last_hidden_state');
    spans.forEach(([s, e], k) => {
      const want = new Float32Array(32);
      for (let j = 0; j < 32; j++) {
        let acc = 0;
        for (let t = s; t < e; t++) acc += h[t * 32 + j];
        want[j] = acc / (e - s);
      }
      const diff = maxAbsDiff(out.vectors.subarray(k * 32, (k + 1) * 32), want);
      assert.ok(diff <= 1e-5, `layers ${layers}, sentence ${k}: diff ${diff}`);
    });
  }
  // No abstract: the title tokens (without its [SEP]) stand in as the one sentence.
  const enc = await Encoder.load(resolveModel(TINY, { overrides: { pooling: 'aspire' } }));
  const t = enc.tokenize({ title: 'Only a title', abstract: '' });
  const n = tok.encode('Only a title', { add_special_tokens: false }).length;
  assert.deepEqual(Array.from(t.spans!), [1, 1 + n]);
});

test('sentence splitter: abbreviations, initials, decimals and closing quotes', () => {
  assert.deepEqual(splitSentences('  '), []);
  assert.deepEqual(splitSentences('No final period'), ['No final period']);
  assert.deepEqual(splitSentences('Smith et al. Found it. Values were 3.5 and 4.2. Done'), ['Smith et al. Found it.', 'Values were 3.5 and 4.2.', 'Done']);
  assert.deepEqual(splitSentences('See Fig. 2 for details. "Quoted." Next (one).'), ['See Fig. 2 for details.', '"Quoted."', 'Next (one).']);
  assert.deepEqual(splitSentences('Work by J. Smith shows it. lower case next.'), ['Work by J. Smith shows it. lower case next.']);
});
