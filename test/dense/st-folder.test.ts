// sentence-transformers folders against sentence-transformers 6.0.1 itself: tiny random-weight BERT, RoBERTa and ModernBERT folders saved
// by the library (scripts/dev/make-st-fixtures.py; articles from the S2ORC metadata sample, ODC-BY 1.0), their
// safetensors checkpoint converted in-process as the product does. golden.json holds encode_query /
// encode_document vectors and each query's top 10 with model.similarity's scores. Random weights: nothing these
// rankings say means anything; the test checks only that citebench computes what the library computes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { Encoder } from '../../src/retrieval/dense/encoder.ts';
import { resolveModel } from '../../src/retrieval/dense/models.ts';
import { readStFolder } from '../../src/retrieval/dense/st-folder.ts';
import { CitebenchError, InputError } from '../../src/util/errors.ts';
import { cliArgv } from '../helpers/cli.ts';

const ST = new URL('./fixtures/st', import.meta.url).pathname;
/** The tolerance the project holds encoders to against PyTorch (test/dense/bert-graph.test.ts). */
const TOL = 1e-4;

interface Top { query: string; docs: string[]; scores: number[]; minGap: number }
interface Result { prompts: Record<string, string>; similarity: string; queryVectors?: number[][]; documentVectors?: number[][]; top: Top[] }
interface Golden { k: number; queries: string[]; folders: Record<string, Result>; variants: Record<string, Result & { files: Record<string, string> }> }
const golden = JSON.parse(readFileSync(join(ST, 'golden.json'), 'utf8')) as Golden;
const records = readFileSync(join(ST, 'corpus.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { paper_id: string; title: string; abstract: string });

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, cliArgv(args), { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** A writable copy of a fixture folder (the checkpoint is converted into the folder's cache). */
function copyFolder(root: string, name: string): string {
  const dir = join(root, name);
  cpSync(join(ST, name), dir, { recursive: true });
  return dir;
}

function maxAbsDiff(got: Float32Array, off: number, want: number[]): number {
  let m = 0;
  for (let j = 0; j < want.length; j++) m = Math.max(m, Math.abs(got[off + j]! - want[j]!));
  return m;
}

for (const name of Object.keys(golden.folders)) {
  test(`st folder ${name}: encode_query and encode_document vectors equal sentence-transformers' (≤ ${TOL})`, async () => {
    const root = mkdtempSync(join(tmpdir(), 'cb-st-'));
    try {
      const g = golden.folders[name]!;
      const model = resolveModel(copyFolder(root, name));
      assert.equal(model.folder, 'sentence-transformers');
      assert.deepEqual(model.prompts, { query: g.prompts.query ?? '', document: g.prompts.document ?? '' });
      assert.equal(model.distance, g.similarity === 'dot' ? 'ip' : g.similarity);
      const enc = await Encoder.load(model, { threads: 1, batchSize: 8 });
      try {
        const byId = new Map(records.map((r) => [r.paper_id, r]));
        const docs = await enc.encode(records, undefined, 'document');
        const queries = await enc.encode(golden.queries.map((q) => byId.get(q)!), undefined, 'query');
        assert.equal(docs.dim, g.documentVectors![0]!.length);
        g.documentVectors!.forEach((v, i) => assert.ok(maxAbsDiff(docs.vectors, i * docs.dim, v) <= TOL, `document ${i}`));
        g.queryVectors!.forEach((v, i) => assert.ok(maxAbsDiff(queries.vectors, i * queries.dim, v) <= TOL, `query ${i}`));
        if (g.prompts.query !== g.prompts.document) {
          // The role decides the prompt: a query's document vector is not its query vector.
          const qi = records.findIndex((r) => r.paper_id === golden.queries[0]);
          assert.ok(maxAbsDiff(docs.vectors, qi * docs.dim, g.queryVectors![0]!) > 1e-3, 'document and query vectors of one article must differ');
          assert.notEqual(model.roleFingerprint.query, model.roleFingerprint.document);
        } else assert.equal(model.roleFingerprint.query, model.roleFingerprint.document);
      } finally {
        await enc.release();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
}

/** Runs `citebench dense search` over the fixture corpus and compares each query's list with the golden one. */
function checkSearch(root: string, modelDir: string, g: Result, label: string) {
  const store = join(root, 'store');
  if (!existsSync(store)) {
    const b = cli('corpus', 'build', '--input', join(ST, 'corpus.jsonl'), '--out', store, '--no-prefilter');
    assert.equal(b.code, 0, b.err);
  }
  const run = join(root, `${label}.trec`);
  const r = cli('dense', 'search', '--model', modelDir, '--corpus', store, '--queries', join(ST, 'queries.txt'), '--k', String(golden.k),
    '--emb', join(root, `emb-${label}`), '--out', run, '--threads', '1');
  assert.equal(r.code, 0, r.err);
  const lines = readFileSync(run, 'utf8').trim().split('\n').map((l) => l.split(/\s+/));
  for (const t of g.top) {
    const mine = lines.filter((l) => l[0] === t.query);
    assert.deepEqual(mine.map((l) => l[2]), t.docs, `${label}: ranking of query ${t.query}`);
    mine.forEach((l, i) => assert.ok(Math.abs(Number(l[4]) - t.scores[i]!) <= TOL, `${label}: query ${t.query} rank ${i + 1}: ${l[4]} vs ${t.scores[i]}`));
  }
}

test('dense search over st folders ranks and scores as sentence-transformers (queries as queries, pool as documents, score by similarity_fn_name)', () => {
  const root = mkdtempSync(join(tmpdir(), 'cb-st-search-'));
  try {
    for (const [name, g] of Object.entries(golden.folders)) checkSearch(root, copyFolder(root, name), g, name);
    // Variants: further config files the library saved, laid over the same weights (pooling modes, include_prompt
    // false, euclidean and manhattan, max_seq_length).
    for (const [name, v] of Object.entries(golden.variants)) {
      const dir = copyFolder(root, 'mean-normalize-prompts');
      const vdir = join(root, `variant-${name}`);
      cpSync(dir, vdir, { recursive: true });
      rmSync(dir, { recursive: true, force: true });
      for (const [rel, text] of Object.entries(v.files)) {
        mkdirSync(dirname(join(vdir, rel)), { recursive: true });
        writeFileSync(join(vdir, rel), text);
      }
      checkSearch(root, vdir, v, name);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('both Pooling config forms read alike: pooling_mode and the legacy booleans', () => {
  const root = mkdtempSync(join(tmpdir(), 'cb-st-pool-'));
  try {
    const legacy = readStFolder(join(ST, 'cls-legacy-dot'))!;
    assert.deepEqual(legacy.pooling.modes, ['cls']);
    assert.equal(legacy.similarity, 'ip');
    assert.equal(legacy.transformerDir, join(ST, 'cls-legacy-dot', '0_Transformer'));
    const dir = copyFolder(root, 'mean-normalize-prompts');
    const cur = readStFolder(dir)!;
    assert.deepEqual(cur.pooling.modes, ['mean']);
    assert.equal(cur.pooling.normalize, true);
    // The same mean pooling in the legacy form.
    writeFileSync(join(dir, '1_Pooling', 'config.json'), JSON.stringify({ word_embedding_dimension: 16, pooling_mode_cls_token: false, pooling_mode_mean_tokens: true, pooling_mode_max_tokens: false }));
    assert.deepEqual(readStFolder(dir)!.pooling.modes, ['mean']);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a module citebench does not run (Dense) is a one-line error naming modules.json and the module', () => {
  const root = mkdtempSync(join(tmpdir(), 'cb-st-dense-'));
  try {
    const dir = copyFolder(root, 'mean-normalize-prompts');
    const mods = JSON.parse(readFileSync(join(dir, 'modules.json'), 'utf8')) as { idx: number; name: string; path: string; type: string }[];
    mods.splice(2, 0, { idx: 2, name: '2', path: '2_Dense', type: 'sentence_transformers.sentence_transformer.modules.dense.Dense' });
    mods[3]!.idx = 3;
    writeFileSync(join(dir, 'modules.json'), JSON.stringify(mods));
    assert.throws(
      () => resolveModel(dir),
      (e: unknown) => (e instanceof CitebenchError || e instanceof InputError) && e.message.includes('modules.json') && e.message.includes('Dense') && !e.message.includes('\n'),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('encode --role query|document fills the stores dense search --no-encode then ranks from, as sentence-transformers', () => {
  const root = mkdtempSync(join(tmpdir(), 'cb-st-encode-'));
  try {
    const g = golden.folders['mean-normalize-prompts']!;
    const dir = copyFolder(root, 'mean-normalize-prompts');
    const store = join(root, 'store');
    assert.equal(cli('corpus', 'build', '--input', join(ST, 'corpus.jsonl'), '--out', store, '--no-prefilter').code, 0);
    const emb = join(root, 'emb');
    let r = cli('encode', '--model', dir, '--corpus', store, '--role', 'query', '--ids', join(ST, 'queries.txt'), '--out', emb);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /query prompt "query: "/);
    assert.ok(existsSync(join(emb, 'query', 'manifest.json')));
    r = cli('encode', '--model', dir, '--corpus', store, '--role', 'document', '--out', emb);
    assert.equal(r.code, 0, r.err);
    const run = join(root, 'run.trec');
    r = cli('dense', 'search', '--model', dir, '--corpus', store, '--queries', join(ST, 'queries.txt'), '--k', String(golden.k), '--emb', emb, '--out', run, '--no-encode');
    assert.equal(r.code, 0, r.err);
    const lines = readFileSync(run, 'utf8').trim().split('\n').map((l) => l.split(/\s+/));
    for (const t of g.top) assert.deepEqual(lines.filter((l) => l[0] === t.query).map((l) => l[2]), t.docs, `query ${t.query}`);
    r = cli('encode', '--model', dir, '--corpus', store, '--role', 'passage', '--out', emb);
    assert.notEqual(r.code, 0);
    assert.match(r.err, /--role must be document or query/);
    assert.match(cli('encode', '--help').out + cli('encode', '--help').err, /--role/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
