/**
 * Re-ranking with a cross-encoder folder. No sequence-classification model ships here, so the test builds one:
 * ../shared/models/tiny-scibert-random's encoder with a random linear head on [CLS] (Gather → MatMul → Add =
 * `logits`), appended to its ONNX graph as a second protobuf `graph` field (protobuf merges repeated fields, so
 * the nodes, initializers and output join the original graph). Random weights: this tests tokenisation of pairs,
 * batching and the re-ranking order, never quality. A missing folder is a recorded skip with a message.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadReranker } from '../../src/retrieval/rerank/load.ts';
import { CrossEncoderScorer } from '../../src/retrieval/rerank/cross-encoder.ts';
import { PairScorerRetriever, rerankText } from '../../src/retrieval/rerank/pair-scorer.ts';
import { RerankRetriever } from '../../src/retrieval/rerank.ts';
import { buildIndex } from '../../src/retrieval/bm25/index.ts';
import { Bm25Retriever } from '../../src/retrieval/bm25/retriever.ts';
import { parseConfig } from '../../src/experiments/config.ts';
import { entryOf } from '../../src/experiments/kinds/index.ts';
import type { ReadyModel } from '../../src/experiments/models.ts';
import { CitebenchError } from '../../src/util/errors.ts';
import { SHARED, skipNoShared } from '../helpers/shared.ts';
import { textsOf } from './graph.ts';

const TINY = join(SHARED, 'models', 'tiny-scibert-random');

/** Minimal protobuf writer (the ONNX fields the head needs). */
class Pb {
  private parts: number[] = [];
  private varint(v: number) {
    while (v >= 0x80) {
      this.parts.push((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    this.parts.push(v);
  }
  int(f: number, v: number) {
    this.varint(f * 8);
    this.varint(v);
    return this;
  }
  bytes(f: number, b: Uint8Array) {
    this.varint(f * 8 + 2);
    this.varint(b.length);
    this.parts.push(...b);
    return this;
  }
  str(f: number, s: string) {
    return this.bytes(f, new TextEncoder().encode(s));
  }
  msg(f: number, m: Pb) {
    return this.bytes(f, m.finish());
  }
  finish() {
    return Uint8Array.from(this.parts);
  }
}

function floatTensor(name: string, dims: number[], values: number[]): Pb {
  const t = new Pb();
  for (const d of dims) t.int(1, d);
  return t.int(2, 1).str(8, name).bytes(9, new Uint8Array(Float32Array.from(values).buffer));
}

/** A cross-encoder folder: the tiny encoder plus a seeded random head, logits = CLS · W + b. */
function buildCrossEncoder(dir: string, hidden = 32): string {
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  for (const f of ['tokenizer.json', 'tokenizer_config.json', 'vocab.txt']) copyFileSync(join(TINY, f), join(dir, f));
  // One label, as a sequence-classification config.json says it.
  const config = JSON.parse(readFileSync(join(TINY, 'config.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, architectures: ['BertForSequenceClassification'], id2label: { 0: 'LABEL_0' }, label2id: { LABEL_0: 0 } }));
  let s = 12345;
  const rnd = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32 - 0.5);
  const node = (op: string, inputs: string[], outputs: string[], attr?: Pb) => {
    const n = new Pb();
    for (const i of inputs) n.str(1, i);
    for (const o of outputs) n.str(2, o);
    n.str(3, `head_${op}`).str(4, op);
    if (attr) n.msg(5, attr);
    return n;
  };
  const shape = new Pb().msg(1, new Pb().str(2, 'batch')).msg(1, new Pb().int(1, 1));
  const head = new Pb()
    .msg(1, node('Gather', ['last_hidden_state', 'head_cls_index'], ['head_cls'], new Pb().str(1, 'axis').int(3, 1).int(20, 2)))
    .msg(1, node('MatMul', ['head_cls', 'head_W'], ['head_mm']))
    .msg(1, node('Add', ['head_mm', 'head_b'], ['logits']))
    .msg(5, new Pb().int(2, 7).str(8, 'head_cls_index').bytes(9, new Uint8Array(8)))
    .msg(5, floatTensor('head_W', [hidden, 1], Array.from({ length: hidden }, rnd)))
    .msg(5, floatTensor('head_b', [1], [0.1]))
    .msg(12, new Pb().str(1, 'logits').msg(2, new Pb().msg(1, new Pb().int(1, 1).msg(2, shape))));
  const base = readFileSync(join(TINY, 'onnx', 'model.onnx'));
  writeFileSync(join(dir, 'onnx', 'model.onnx'), Buffer.concat([base, Buffer.from(new Pb().msg(7, head).finish())]));
  return dir;
}

test('cross-encoder: pair logits independent of batching; rerank = first-stage top depth sorted by them', { skip: skipNoShared }, async () => {
  const dir = buildCrossEncoder(join(mkdtempSync(join(tmpdir(), 'cb-ce-')), 'tiny-cross-encoder-random'));
  const texts = textsOf(60, 3);
  const ce = new PairScorerRetriever(await loadReranker(dir, { threads: 1 }), { name: 'ce', texts });
  const one = new PairScorerRetriever(await loadReranker(dir, { threads: 1, batchSize: 1 }), { name: 'ce1', texts });
  try {
    const pairs: [number, number][] = Array.from({ length: 20 }, (_, i) => [0, i + 1]);
    const a = await ce.scorePairs(pairs);
    const b = await one.scorePairs(pairs);
    for (let i = 0; i < pairs.length; i++) assert.ok(Math.abs(a[i] - b[i]) <= 1e-5, `pair ${i}: ${a[i]} vs ${b[i]}`);
    assert.ok(new Set(a).size > 10, 'the random head gives distinct logits');
    const t = (ce.scorer as CrossEncoderScorer).pairTokens(rerankText(texts.text(0)), rerankText(texts.text(1)));
    assert.equal(t.ids[0], 102, '[CLS]');
    assert.equal(t.ids[t.ids.length - 1], 103, '[SEP]');
    assert.equal(t.types[0], 0);
    assert.equal(t.types[t.types.length - 1], 1, 'candidate tokens are segment B');

    const ix = await buildIndex(texts);
    const bm25 = new Bm25Retriever(ix, texts);
    const rr = new RerankRetriever({ name: 'rr', first: bm25, scorer: [{ retriever: ce, weight: 1 }], depth: 10 });
    const queries = Uint32Array.of(0, 5, 9);
    const first = await bm25.search({ queries, k: 10 });
    const out = await rr.search({ queries, k: 10 });
    for (let q = 0; q < queries.length; q++) {
      const cands = [...first.docs.subarray(first.offsets[q], first.offsets[q + 1])];
      const logits = await ce.scorePairs(cands.map((c) => [queries[q], c]));
      const want = cands.map((c, i) => ({ c, s: logits[i] })).sort((x, y) => y.s - x.s || y.c - x.c).map((x) => x.c);
      assert.deepEqual([...out.docs.subarray(out.offsets[q], out.offsets[q + 1])], want);
    }
    await assert.rejects(() => ce.search({ queries, k: 5 }), /re-scores candidate lists/);
  } finally {
    await ce.release();
    await one.release();
  }
});

test('cross-encoder: an encoder folder without `logits` is refused with the reason', { skip: skipNoShared }, async () => {
  await assert.rejects(() => loadReranker(TINY), (e: Error) => e instanceof CitebenchError && /not a sequence-classification model \(no ONNX output 'logits'/.test(e.message));
});

test('rerank model with a missing cross-encoder folder: a recorded skip with a message, not an error', async () => {
  const cfg = parseConfig(`corpus: {synthetic: {articles: 100}}\nmodelsDir: /nonexistent-models\nmodels:\n  bm25: {}\n  rr: {kind: rerank, first: bm25, depth: 20, crossEncoder: scibert-cross-encoder}\nprotocols: {dataset: {}}\n`, 'x.yaml');
  const first = { name: 'bm25', kind: 'bm25', weights: 'lexical', settings: {}, retriever: {} as never, release: async () => {} } as ReadyModel;
  const m = cfg.models[1];
  assert.equal(m.kind, 'rerank');
  const r = await entryOf(m).build(m, { cfg, store: {} as never, ready: [first], threads: 1, log: () => {}, timed: (_s, f) => f() });
  assert.ok('reason' in r, 'skipped');
  assert.match((r as { reason: string }).reason, /reranker folder not found: .*scibert-cross-encoder/);
});
