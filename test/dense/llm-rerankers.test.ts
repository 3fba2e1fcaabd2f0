/**
 * Causal-LM rerankers (src/retrieval/rerank/causal-lm.ts) against what sentence-transformers 6's CrossEncoder and
 * the Qwen3-Reranker model card's code compute in float32 on tiny random-weight folders
 * (scripts/dev/make-llm-reranker-fixtures.py): the prompt's token ids, the scores within 1e-4, the ranks, left-
 * padded batches equal to pairs scored alone, int8, and the refusals.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { CausalLmScorer, chatTemplateVariables, compileChatTemplate, DEFAULT_RERANK_INSTRUCTION, inferMessageFormat, loadCausalReranker } from '../../src/retrieval/rerank/causal-lm.ts';
import * as ort from 'onnxruntime-node';
import { convertCheckpoint } from '../../src/retrieval/dense/convert.ts';
import { createSession } from '../../src/retrieval/dense/encoder.ts';
import { CitebenchError } from '../../src/util/errors.ts';

const FIX = new URL('./fixtures/llm-rerankers/', import.meta.url).pathname;
interface Golden {
  crossencoder: { maxLength: number; activation: string; pairs: [string, string][]; ids: number[][]; scores: number[]; logOdds: number[] };
  bare: { maxLength: number; pairs: [string, string][]; runs: { instruction: string | null; ids: number[][]; scores: number[] }[] };
  templates: { template: string; messages: { role: string; content: unknown }[]; add_generation_prompt: boolean; text: string }[];
  specialTokens: Record<string, string>;
  heads: Record<string, { tokenIds: number[]; rows: number[][]; logits: number[][] }>;
}
const golden = JSON.parse(readFileSync(join(FIX, 'golden.json'), 'utf8')) as Golden;

// Fixture folders are copied: conversion writes its cache into the folder.
const work = mkdtempSync(join(tmpdir(), 'citebench-llmrr-'));
after(() => rmSync(work, { recursive: true, force: true }));
function copy(name: string): string {
  const d = join(work, `${name}-${Math.random().toString(36).slice(2)}`);
  cpSync(join(FIX, name), d, { recursive: true });
  return d;
}

/** Order of scores descending, ties by index (how the retriever ranks a candidate list). */
const ranks = (s: ArrayLike<number>) => Array.from(s, (_, i) => i).sort((a, b) => s[b] - s[a] || a - b);

function close(got: Float64Array, want: number[], tol: number, what: string): void {
  assert.equal(got.length, want.length);
  want.forEach((w, i) => assert.ok(Math.abs(got[i] - w) <= tol, `${what} pair ${i}: ${got[i]} vs ${w}`));
}

describe('causal-LM CrossEncoder folder (LogitScore)', () => {
  const dir = copy('qwen3-crossencoder');
  const g = golden.crossencoder;

  test('rendered prompt token ids equal sentence-transformers\' (truncated rows with the template tail restored)', async () => {
    const s = (await loadCausalReranker(dir, { threads: 1 })) as CausalLmScorer;
    try {
      g.pairs.forEach(([q, d], i) => assert.deepEqual(Array.from(s.pairIds(q, d)), g.ids[i], `pair ${i}`));
      assert.ok(g.ids.some((x) => x.length === g.maxLength), 'some pairs are truncated');
      assert.match(s.describe, /LogitScore.*Sigmoid/);
    } finally {
      await s.release();
    }
  });

  test('scores within 1e-4 of CrossEncoder.predict, same ranks; batched equals alone', async () => {
    const s = await loadCausalReranker(dir, { threads: 1, batchSize: 4 });
    try {
      const got = await s.scoreTexts(g.pairs);
      close(got, g.scores, 1e-4, 'score');
      assert.deepEqual(ranks(got), ranks(g.scores));
      const alone = new Float64Array(g.pairs.length);
      for (let i = 0; i < g.pairs.length; i++) alone[i] = (await s.scoreTexts([g.pairs[i]]))[0];
      close(alone, Array.from(got), 1e-5, 'alone vs batched');
    } finally {
      await s.release();
    }
  });

  test('activation Identity gives the log-odds', async () => {
    const d = copy('qwen3-crossencoder');
    const f = join(d, 'config_sentence_transformers.json');
    const c = JSON.parse(readFileSync(f, 'utf8'));
    writeFileSync(f, JSON.stringify({ ...c, activation_fn: 'torch.nn.modules.linear.Identity' }));
    const s = await loadCausalReranker(d, { threads: 1 });
    try {
      close(await s.scoreTexts(g.pairs), g.logOdds, 1e-4, 'log-odds');
    } finally {
      await s.release();
    }
  });

  test('int8 runs and keeps close to float32', async () => {
    const s = await loadCausalReranker(dir, { threads: 1, quantized: true });
    try {
      const got = await s.scoreTexts(g.pairs);
      assert.ok(got.every(Number.isFinite));
      assert.match(s.describe, /int8/);
      close(got, g.scores, 0.1, 'int8');
      // Activations quantised at run time: each pair scored alone, the same bits whatever it is scored with.
      for (let i = 0; i < g.pairs.length; i++) assert.equal((await s.scoreTexts([g.pairs[i]]))[0], got[i], `pair ${i} alone`);
    } finally {
      await s.release();
    }
  });

  test('refusals: a missing LogitScore config, a token id outside the vocabulary', async () => {
    const a = copy('qwen3-crossencoder');
    rmSync(join(a, '1_LogitScore', 'config.json'));
    await assert.rejects(loadCausalReranker(a, {}), (e: Error) => e instanceof CitebenchError && /1_LogitScore\/config\.json: missing/.test(e.message) && !e.message.includes('\n'));
    const b = copy('qwen3-crossencoder');
    writeFileSync(join(b, '1_LogitScore', 'config.json'), JSON.stringify({ true_token_id: 999999, false_token_id: 3 }));
    await assert.rejects(loadCausalReranker(b, {}), (e: Error) => e instanceof CitebenchError && /token id 999999 is outside the vocabulary/.test(e.message) && !e.message.includes('\n'));
  });
});

describe('bare Qwen3ForCausalLM folder (the Qwen3-Reranker recipe)', () => {
  const g = golden.bare;
  const dir = copy('qwen3-reranker-bare');
  for (const run of g.runs) {
    const label = run.instruction === null ? "the card's default instruction" : "citebench's instruction";
    test(`${label}: token ids, P(yes) within 1e-4 of the card's code, same ranks, batched equals alone`, async () => {
      const instruction = run.instruction ?? 'Given a web search query, retrieve relevant passages that answer the query';
      const s = (await loadCausalReranker(dir, { threads: 1, maxLength: g.maxLength, instruction, batchSize: 3 })) as CausalLmScorer;
      try {
        g.pairs.forEach(([q, d], i) => assert.deepEqual(Array.from(s.pairIds(q, d)), run.ids[i], `pair ${i}`));
        const got = await s.scoreTexts(g.pairs);
        close(got, run.scores, 1e-4, 'P(yes)');
        assert.deepEqual(ranks(got), ranks(run.scores));
        const alone = await s.scoreTexts([g.pairs[3]]);
        assert.ok(Math.abs(alone[0] - got[3]) < 1e-6);
      } finally {
        await s.release();
      }
    });
  }

  test('the default instruction is citebench\'s citation one', async () => {
    assert.equal(g.runs[1].instruction, DEFAULT_RERANK_INSTRUCTION);
    const s = (await loadCausalReranker(dir, { threads: 1, maxLength: g.maxLength })) as CausalLmScorer;
    try {
      assert.deepEqual(Array.from(s.pairIds(...g.pairs[0])), g.runs[1].ids[0]);
      assert.match(s.describe, /P\(yes\)/);
    } finally {
      await s.release();
    }
  });

  test('int8 runs', async () => {
    const s = await loadCausalReranker(dir, { threads: 1, maxLength: g.maxLength, quantized: true });
    try {
      const got = await s.scoreTexts(g.pairs);
      assert.ok(got.every((x) => x > 0 && x < 1));
      close(got, g.runs[1].scores, 0.1, 'int8');
    } finally {
      await s.release();
    }
  });
});

describe('the causal-LM scoring head', () => {
  test('reads the last real position under left and right padding alike; its cache key holds the head and ids', async () => {
    const dir = copy('qwen3-reranker-bare');
    const onnx = convertCheckpoint(dir, { causalLmHead: { tokenIds: [5, 7, 9] } });
    assert.notEqual(onnx, convertCheckpoint(dir, { causalLmHead: { tokenIds: [7, 5, 9] } }));
    assert.notEqual(onnx, convertCheckpoint(dir, {}));
    const s = await createSession(onnx, { threads: 1 });
    try {
      assert.deepEqual(s.outputNames, ['logits']);
      const a = [11, 12, 13, 14, 15];
      const b = [21, 22, 23];
      const run = async (rows: number[][], mask: number[][]) => {
        const t = (x: number[][]) => new ort.Tensor('int64', BigInt64Array.from(x.flat().map(BigInt)), [x.length, x[0].length]);
        const r = await s.run({ input_ids: t(rows), attention_mask: t(mask) });
        return Array.from(r.logits.data as Float32Array);
      };
      const left = await run([a, [0, 0, ...b]], [[1, 1, 1, 1, 1], [0, 0, 1, 1, 1]]);
      const right = await run([a, [...b, 0, 0]], [[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]]);
      const alone = await run([b], [[1, 1, 1]]);
      assert.equal(left.length, 6);
      left.forEach((x, i) => assert.ok(Math.abs(x - right[i]) < 1e-5, `${i}: ${x} vs ${right[i]}`));
      alone.forEach((x, i) => assert.ok(Math.abs(x - left[3 + i]) < 1e-5));
      assert.ok(Math.abs(left[0] - left[3]) > 1e-4, 'the two rows differ');
    } finally {
      await s.release();
    }
  });
});

describe('the scoring head on other decoders', () => {
  for (const name of ['llama-head', 'gemma3-head']) {
    test(`${name}: logits of the selected tokens at the last position within 1e-4 of transformers' (left-padded batch)`, async () => {
      const h = golden.heads[name];
      const dir = copy(name);
      const s = await createSession(convertCheckpoint(dir, { causalLmHead: { tokenIds: h.tokenIds } }), { threads: 1 });
      try {
        const width = Math.max(...h.rows.map((r) => r.length));
        const ids = h.rows.flatMap((r) => [...Array(width - r.length).fill(0), ...r]);
        const mask = h.rows.flatMap((r) => [...Array(width - r.length).fill(0), ...r.map(() => 1)]);
        const t = (x: number[]) => new ort.Tensor('int64', BigInt64Array.from(x.map(BigInt)), [h.rows.length, width]);
        const got = Array.from((await s.run({ input_ids: t(ids), attention_mask: t(mask) })).logits.data as Float32Array);
        h.logits.flat().forEach((w, i) => assert.ok(Math.abs(got[i] - w) <= 1e-4, `${name} ${i}: ${got[i]} vs ${w}`));
      } finally {
        await s.release();
      }
    });
  }
});

describe('chat templates rendered as transformers renders them', () => {
  test('three templates (selectattr/first/default, a role loop with whitespace control, ChatML over structured content): the same text', () => {
    const vars = chatTemplateVariables(join(FIX, 'qwen3-crossencoder'));
    assert.deepEqual(vars, golden.specialTokens);
    assert.equal(golden.templates.length, 12);
    for (const [i, t] of golden.templates.entries()) {
      const structured = inferMessageFormat(t.template) === 'structured';
      assert.equal(structured, Array.isArray(t.messages[0].content), `template ${i}: message format`);
      const render = compileChatTemplate(t.template, `template ${i}`);
      assert.equal(render({ ...vars, messages: t.messages, add_generation_prompt: t.add_generation_prompt }), t.text, `template render ${i}`);
    }
  });
});
