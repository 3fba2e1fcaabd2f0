// Today's decoder embedders as sentence-transformers folders, against sentence-transformers 6 itself: a
// Qwen3-Embedding-shaped folder (left padding, last-token pooling, Normalize, an instruction for queries only,
// bfloat16 weights), the same weights padded on the right with dot similarity and truncate_dim, and an
// EmbeddingGemma-shaped folder (bidirectional Gemma 3 with sliding and full layers, mean pooling, two Dense modules,
// prompts for both roles). Fixtures: scripts/dev/make-decoder-st-fixtures.py (articles from the S2ORC metadata
// sample, ODC-BY 1.0); the library's vectors are the bfloat16 checkpoint computed in float32. Random weights: the
// rankings mean nothing; the test checks that citebench computes what the library computes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { Encoder } from '../../src/retrieval/dense/encoder.ts';
import { resolveModel, resolveModelAsync } from '../../src/retrieval/dense/models.ts';
import { CITATION_TASK } from '../../src/retrieval/dense/registry.ts';
import { FakeHub } from '../helpers/fake-hub.ts';
import { CitebenchError, InputError } from '../../src/util/errors.ts';

const FIX = new URL('./fixtures/decoder-st', import.meta.url).pathname;
const ST = new URL('./fixtures/st', import.meta.url).pathname;
const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
const TOL = 1e-4;

interface Top { query: string; docs: string[]; scores: number[] }
interface Result { prompts: Record<string, string>; similarity: string; truncateDim: number | null; paddingSide: string; queryVectors: number[][]; documentVectors: number[][]; top: Top[] }
const golden = JSON.parse(readFileSync(join(FIX, 'golden.json'), 'utf8')) as { k: number; queries: string[]; folders: Record<string, Result> };
const records = readFileSync(join(ST, 'corpus.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { paper_id: string; title: string; abstract: string });

function copy(root: string, name: string): string {
  cpSync(join(FIX, name), join(root, name), { recursive: true });
  return join(root, name);
}

function maxAbsDiff(got: Float32Array, off: number, want: number[]): number {
  let m = 0;
  for (let j = 0; j < want.length; j++) m = Math.max(m, Math.abs(got[off + j]! - want[j]!));
  return m;
}

for (const [name, g] of Object.entries(golden.folders)) {
  test(`decoder st folder ${name}: encode_query and encode_document vectors equal sentence-transformers' in float32 (≤ ${TOL})`, async () => {
    const root = mkdtempSync(join(tmpdir(), 'cb-dst-'));
    try {
      const model = resolveModel(copy(root, name));
      assert.deepEqual(model.prompts, { query: g.prompts.query ?? '', document: g.prompts.document ?? '' });
      assert.equal(model.distance, g.similarity === 'dot' ? 'ip' : g.similarity);
      assert.equal(model.truncateDim ?? null, g.truncateDim);
      assert.equal(model.dim, g.documentVectors[0]!.length);
      const enc = await Encoder.load(model, { threads: 1, batchSize: 8 });
      try {
        const byId = new Map(records.map((r) => [r.paper_id, r]));
        const docs = await enc.encode(records, undefined, 'document');
        const queries = await enc.encode(golden.queries.map((q) => byId.get(q)!), undefined, 'query');
        g.documentVectors.forEach((v, i) => assert.ok(maxAbsDiff(docs.vectors, i * docs.dim, v) <= TOL, `document ${i}: ${maxAbsDiff(docs.vectors, i * docs.dim, v)}`));
        g.queryVectors.forEach((v, i) => assert.ok(maxAbsDiff(queries.vectors, i * queries.dim, v) <= TOL, `query ${i}: ${maxAbsDiff(queries.vectors, i * queries.dim, v)}`));
      } finally {
        await enc.release();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
}

test('decoder st folders: dense search ranks and scores as sentence-transformers under each folder\'s similarity (ties within the tolerance may swap)', () => {
  const root = mkdtempSync(join(tmpdir(), 'cb-dst-search-'));
  const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], { encoding: 'utf8' });
  try {
    const store = join(root, 'store');
    const b = cli('corpus', 'build', '--input', join(ST, 'corpus.jsonl'), '--out', store, '--no-prefilter');
    assert.equal(b.status, 0, b.stderr);
    for (const [name, g] of Object.entries(golden.folders)) {
      const run = join(root, `${name}.trec`);
      const r = cli('dense', 'search', '--model', copy(root, name), '--corpus', store, '--queries', join(ST, 'queries.txt'), '--k', String(golden.k), '--emb', join(root, `emb-${name}`), '--out', run, '--threads', '1');
      assert.equal(r.status, 0, r.stderr);
      const lines = readFileSync(run, 'utf8').trim().split('\n').map((l) => l.split(/\s+/));
      for (const t of g.top) {
        const mine = lines.filter((l) => l[0] === t.query);
        assert.equal(mine.length, t.docs.length);
        mine.forEach((l, i) => {
          assert.ok(Math.abs(Number(l[4]) - t.scores[i]!) <= TOL, `${name}: query ${t.query} rank ${i + 1}: ${l[4]} vs ${t.scores[i]}`);
          // Same document at each rank, unless the library's neighbouring scores are within the tolerance.
          if (l[2] !== t.docs[i]) {
            const j = t.docs.indexOf(l[2]!);
            assert.ok(j >= 0 && Math.abs(t.scores[j]! - t.scores[i]!) <= 2 * TOL, `${name}: query ${t.query} rank ${i + 1}: ${l[2]} vs ${t.docs[i]}`);
          }
        });
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('decoder st folders: --truncate-dim over the folder\'s, a Dense module that does not fit, a foreign module — one line naming the file and key', async () => {
  const root = mkdtempSync(join(tmpdir(), 'cb-dst-bad-'));
  try {
    const full = resolveModel(copy(root, 'qwen3-lasttoken-left'));
    assert.equal(full.dim, 32);
    const cut = resolveModel(join(root, 'qwen3-lasttoken-left'), { overrides: { truncateDim: 8 } });
    assert.equal(cut.dim, 8);
    assert.notEqual(cut.fingerprint, full.fingerprint, 'truncate_dim is part of the model fingerprint (the vector store key)');
    assert.throws(() => resolveModel(join(root, 'qwen3-lasttoken-left'), { overrides: { truncateDim: 33 } }), (e: Error) => e instanceof CitebenchError && /truncate dim 33 is not an integer in 1\.\.32/.test(e.message));
    const gemma = copy(root, 'gemma-dense-prompts');
    const dense = join(gemma, '2_Dense', 'config.json');
    const cfg = JSON.parse(readFileSync(dense, 'utf8')) as Record<string, unknown>;
    writeFileSync(dense, JSON.stringify({ ...cfg, in_features: 32 }));
    assert.throws(() => resolveModel(gemma), (e: Error) => e instanceof InputError && e.message.startsWith(dense) && /in_features.*32, but the module before it outputs 48/.test(e.message));
    writeFileSync(dense, JSON.stringify({ ...cfg, activation_function: 'my_package.Swish' }));
    assert.throws(() => resolveModel(gemma), (e: Error) => e instanceof InputError && /activation_function.*"my_package\.Swish" is not one citebench computes/.test(e.message));
    writeFileSync(dense, JSON.stringify(cfg));
    const last = join(gemma, '3_Dense', 'config.json');
    writeFileSync(last, JSON.stringify({ ...(JSON.parse(readFileSync(last, 'utf8')) as object), out_features: 47 }));
    const bad = resolveModel(gemma);
    assert.equal(bad.dim, 47);
    // The weights disagree with out_features: found when the encoder reads them, one line naming the file and tensor.
    await assert.rejects(Encoder.load(bad, { threads: 1 }), (e: Error) => e instanceof InputError && /linear\.weight.*has shape \[48, 96\].*implies \[47, 96\]/.test(e.message));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('registry: qwen3-embedding-0.6b and embeddinggemma-300m download with --allow-remote (Dense modules included), with the registry\'s citation instruction and 512-token length over the folder\'s', async () => {
  const root = mkdtempSync(join(tmpdir(), 'cb-dst-hub-'));
  const hub = await new FakeHub({
    'Qwen/Qwen3-Embedding-0.6B': { dir: join(FIX, 'qwen3-lasttoken-left'), commit: 'a'.repeat(40) },
    'google/embeddinggemma-300m': { dir: join(FIX, 'gemma-dense-prompts'), commit: 'b'.repeat(40) },
  }).start();
  const env = process.env.HF_ENDPOINT;
  process.env.HF_ENDPOINT = hub.endpoint;
  try {
    const modelsDir = join(root, 'models');
    await assert.rejects(resolveModelAsync('qwen3-embedding-0.6b', { modelsDir }), /--allow-remote downloads Qwen\/Qwen3-Embedding-0\.6B/);
    const qwen = await resolveModelAsync('qwen3-embedding-0.6b', { modelsDir, allowRemote: true, progress: false });
    assert.equal(qwen.promptSource, 'registry');
    assert.deepEqual(qwen.prompts, { query: `Instruct: ${CITATION_TASK}\nQuery:`, document: '' });
    assert.equal(qwen.maxLength, 512, 'the registry presets 512 tokens over the folder\'s max_seq_length');
    assert.equal(qwen.architecture, 'qwen3');
    assert.deepEqual(qwen.sources?.[0], { of: 'model', repo: 'Qwen/Qwen3-Embedding-0.6B', revision: 'main', commit: 'a'.repeat(40) });
    const own = resolveModel('qwen3-embedding-0.6b', { modelsDir, overrides: { prompts: { query: 'Instruct: x\nQuery:' } } });
    assert.equal(own.promptSource, 'override');
    const gemma = await resolveModelAsync('embeddinggemma-300m', { modelsDir, allowRemote: true, progress: false });
    assert.deepEqual(gemma.dense?.map((d) => [d.inFeatures, d.outFeatures]), [[48, 96], [96, 48]]);
    assert.equal(gemma.promptSource, 'folder');
    assert.deepEqual(gemma.prompts, { query: 'task: search result | query: ', document: 'title: none | text: ' });
    assert.ok(existsSync(join(modelsDir, 'embeddinggemma-300m', '3_Dense', 'model.safetensors')));
  } finally {
    process.env.HF_ENDPOINT = env;
    if (env === undefined) delete process.env.HF_ENDPOINT;
    await hub.close();
    rmSync(root, { recursive: true, force: true });
  }
});

test('decoder st folders: float16 asked for a Gemma model is one line naming config.json and model_type', () => {
  const root = mkdtempSync(join(tmpdir(), 'cb-dst-fp16-'));
  try {
    const dir = copy(root, 'gemma-dense-prompts');
    assert.throws(
      () => resolveModel(dir, { fp16: true }),
      (e: Error) => e instanceof InputError && e.message.startsWith(join(dir, 'config.json')) && /model_type.*gemma3_text: Gemma models are computed in float32.*#36822/.test(e.message) && !e.message.includes('\n'),
    );
    assert.equal(resolveModel(dir).architecture, 'gemma3_text');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
