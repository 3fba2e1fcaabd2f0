/**
 * --allow-remote: models are downloaded from a Hugging Face hub only when asked. The loopback fake hub
 * (test/helpers/fake-hub.ts) serves the random-weight model in ../shared/models/tiny-scibert-random and a
 * SPECTER-like repo with PyTorch weights only; HF_ENDPOINT points at it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { resolveModel, resolveModelAsync } from '../../src/retrieval/dense/models.ts';
import { readDownloadRecord } from '../../src/retrieval/dense/hub/record.ts';
import { Encoder } from '../../src/retrieval/dense/encoder.ts';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { closedPort, FakeHub } from '../helpers/fake-hub.ts';
import { cliArgv } from '../helpers/cli.ts';

const TINY = new URL('../../../shared/models/tiny-scibert-random', import.meta.url).pathname;
const S2ORC = new URL('../../../shared/data/s2orc-sample/metadata.jsonl', import.meta.url).pathname;
const skip = existsSync(TINY) ? false : `needs ${TINY} (../shared)`;
const skipCli = existsSync(TINY) && existsSync(S2ORC) ? false : `needs ${TINY} and ${S2ORC} (../shared)`;

const ALL = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx', 'onnx/model_quantized.onnx'];
const NEEDED = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx'];
/** Requests of a download of test-org/tiny: NEEDED, and the probe for special_tokens_map.json (404). */
// modules.json first: a sentence-transformers folder's modules say where the Transformer module's files are.
const ASKED = ['modules.json', 'config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'onnx/model.onnx'];

let hub: FakeHub;
let endpoint = '';
/** Requests as URL paths. */
const paths = (from: number) => hub.requests.slice(from).map((r) => `/${r.repo}/resolve/${r.revision}/${r.file}`);

before(async () => {
  if (skip) return;
  hub = await new FakeHub({
    'test-org/tiny': { dir: TINY, only: ALL },
    'test-org/fp32-only': { dir: TINY, only: ALL.filter((f) => f !== 'onnx/model_quantized.onnx') },
    'test-org/no-weights': { dir: TINY, only: ['config.json', 'tokenizer.json', 'tokenizer_config.json'] },
    // Like the real repo: PyTorch weights only, vocab.txt and no tokenizer.json (stand-in weight bytes).
    'allenai/specter': {
      dir: TINY,
      only: ['config.json', 'vocab.txt', 'tokenizer_config.json'],
      files: { 'special_tokens_map.json': '{"unk_token": "[UNK]"}', 'pytorch_model.bin': Buffer.alloc(3000, 1) },
    },
    'test-org/broken': { files: { 'config.json': '{}' } },
    'test-org/truncated': { files: { 'config.json': '{"hidden_size": 128, ' + ' '.repeat(100_000) + '}' } },
  }).start();
  hub.fail('test-org/broken', 'config.json', 500, 1e9);
  endpoint = hub.endpoint;
  process.env.HF_ENDPOINT = endpoint;
  delete process.env.HF_TOKEN;
});

after(async () => {
  await hub?.close();
});

function tmp(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `cb-remote-${prefix}-`));
}

const TEXTS = [
  { title: 'Citation recommendation at scale', abstract: 'We evaluate transformer article encoders. BM25 remains strong.' },
  { title: 'Graph neural networks', abstract: 'Message passing over citation graphs.' },
];

test('without allowRemote nothing is requested and the error still explains the ONNX export', { skip }, async () => {
  const models = tmp('off');
  try {
    const n = hub.requests.length;
    await assert.rejects(resolveModelAsync('test-org/tiny', { modelsDir: models }), (e: Error) => {
      assert.match(e.message, /model 'test-org\/tiny'.*not available locally.*test-org--tiny does not exist.*--allow-remote/s);
      assert.match(e.message, /optimum-cli export onnx --model test-org\/tiny/);
      return true;
    });
    assert.throws(() => resolveModel('specter', { modelsDir: models }), /not available locally.*--allow-remote.*\n.*optimum-cli export onnx --model allenai\/specter/s);
    await assert.rejects(resolveModelAsync('scincl', { modelsDir: models, allowRemote: false }), /optimum-cli export onnx --model malteos\/scincl/);
    // The synchronous resolver never downloads, even when asked to.
    assert.throws(() => resolveModel('test-org/tiny', { modelsDir: models, allowRemote: true }), /resolveModel never downloads/);
    assert.equal(hub.requests.length, n, 'the hub received no request');
    assert.deepEqual(readdirSync(models), []);
  } finally {
    rmSync(models, { recursive: true, force: true });
  }
});

test('with allowRemote the needed files are downloaded byte for byte, encode like the source, and are cached', { skip }, async () => {
  const models = tmp('on');
  try {
    const n = hub.requests.length;
    const m = await resolveModelAsync('test-org/tiny', { modelsDir: models, allowRemote: true });
    const dir = join(models, 'test-org--tiny');
    assert.equal(m.dir, dir);
    assert.equal(m.name, 'test-org--tiny');
    assert.equal(m.onnxFile, join(dir, 'onnx', 'model.onnx'));
    for (const f of NEEDED) assert.ok(readFileSync(join(dir, f)).equals(readFileSync(join(TINY, f))), `${f} is byte-identical`);
    assert.ok(!existsSync(join(dir, 'onnx', 'model_quantized.onnx')), 'only one ONNX file is fetched');
    assert.deepEqual(readdirSync(models), ['test-org--tiny'], 'no temporary folder is left');
    const record = JSON.parse(readFileSync(join(dir, 'citebench-download.json'), 'utf8'));
    assert.equal(record.repo, 'test-org/tiny');
    assert.equal(record.revision, 'main');
    assert.deepEqual(
      paths(n),
      ASKED.map((f) => `/test-org/tiny/resolve/main/${f}`),
    );
    assert.ok(hub.requests.slice(n).every((r) => r.auth === undefined), 'no Authorization header without HF_TOKEN');
    assert.deepEqual(readDownloadRecord(dir)!.files['onnx/model.onnx'], { bytes: readFileSync(join(TINY, 'onnx/model.onnx')).length, sha256: hub.sha256('test-org/tiny', 'onnx/model.onnx') });

    // Same model as the source folder: same fingerprint, same vectors.
    const src = resolveModel(TINY);
    assert.equal(m.fingerprint, src.fingerprint);
    const a = await Encoder.load(m, { threads: 1 });
    const b = await Encoder.load(src, { threads: 1 });
    try {
      const va = await a.encode(TEXTS);
      const vb = await b.encode(TEXTS);
      assert.equal(va.vectors.length, TEXTS.length * src.hiddenSize);
      assert.deepEqual(va.vectors, vb.vectors);
    } finally {
      await a.release();
      await b.release();
    }

    // Cached: a second resolve (with or without allowRemote) sends nothing.
    const k = hub.requests.length;
    assert.equal((await resolveModelAsync('test-org/tiny', { modelsDir: models, allowRemote: true })).fingerprint, m.fingerprint);
    assert.equal(resolveModel('test-org/tiny', { modelsDir: models }).fingerprint, m.fingerprint);
    assert.equal(hub.requests.length, k, 'no request for a cached model');
    // A different revision than the one downloaded is refused rather than silently mixed up.
    await assert.rejects(resolveModelAsync('test-org/tiny', { modelsDir: models, allowRemote: true, revision: 'v2' }), /at revision 'main', not 'v2'/);
    assert.equal(hub.requests.length, k);
  } finally {
    rmSync(models, { recursive: true, force: true });
  }
});

test('quantized: onnx/model_quantized.onnx first, onnx/model.onnx when the repo has no quantized file', { skip }, async () => {
  const models = tmp('q');
  try {
    const q = await resolveModelAsync('test-org/tiny', { modelsDir: models, allowRemote: true, quantized: true });
    assert.equal(q.onnxFile, join(models, 'test-org--tiny', 'onnx', 'model_quantized.onnx'));
    assert.ok(readFileSync(q.onnxFile).equals(readFileSync(join(TINY, 'onnx', 'model_quantized.onnx'))));
    assert.ok(!existsSync(join(models, 'test-org--tiny', 'onnx', 'model.onnx')));
    const n = hub.requests.length;
    const f = await resolveModelAsync('test-org/fp32-only', { modelsDir: models, allowRemote: true, quantized: true });
    assert.equal(f.onnxFile, join(models, 'test-org--fp32-only', 'onnx', 'model.onnx'));
    assert.deepEqual(
      paths(n).map((u) => u.replace('/test-org/fp32-only/resolve/main/', '')),
      ['modules.json', 'config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'onnx/model_quantized.onnx', 'onnx/model.onnx'],
    );
  } finally {
    rmSync(models, { recursive: true, force: true });
  }
});

test('a repo without weights is an error with the export hint and leaves nothing; a PyTorch-only repo downloads its checkpoint', { skip }, async () => {
  const models = tmp('noweights');
  try {
    await assert.rejects(resolveModelAsync('test-org/no-weights', { modelsDir: models, allowRemote: true }), (e: Error) => {
      assert.equal(e.name, 'NoWeightsError');
      assert.match(e.message, /^test-org\/no-weights has no weights citebench can use on the hub \(404 for onnx\/model\.onnx, onnx\/model_quantized\.onnx, model\.safetensors, /);
      assert.match(e.message, /optimum-cli export onnx --model test-org\/no-weights --task feature-extraction/);
      return true;
    });
    assert.deepEqual(readdirSync(models), [], 'neither a model folder nor a temporary folder remains');
    // A registry name downloads its hfId; the paper's SPECTER has PyTorch weights, vocab.txt and no tokenizer.json.
    const n = hub.requests.length;
    // The fake hub's stand-in bytes are no checkpoint: converting them is a one-line error naming the file
    // (test/dense/paper-checkpoints.test.ts serves real checkpoints in every paper repo's layout).
    await assert.rejects(resolveModelAsync('specter', { modelsDir: models, allowRemote: true }), (e: Error) => {
      assert.match(e.message, /^\S*specter\/pytorch_model\.bin: not a PyTorch checkpoint \(neither a zip archive nor a legacy pickle stream\)$/);
      return true;
    });
    assert.ok(paths(n).every((u) => u.startsWith('/allenai/specter/resolve/main/')));
    const dir = join(models, 'specter');
    assert.deepEqual(readdirSync(dir).sort(), ['citebench-download.json', 'config.json', 'pytorch_model.bin', 'special_tokens_map.json', 'tokenizer_config.json', 'vocab.txt']);
    assert.ok(readFileSync(join(dir, 'pytorch_model.bin')).equals(hub.file('allenai/specter', 'pytorch_model.bin')));
    // Downloaded once: the next resolve sends nothing and says the same.
    const k = hub.requests.length;
    await assert.rejects(resolveModelAsync('specter', { modelsDir: models, allowRemote: true }), /not a PyTorch checkpoint/);
    assert.equal(hub.requests.length, k);
  } finally {
    rmSync(models, { recursive: true, force: true });
  }
});

test('HTTP errors, broken transfers and unreachable hubs are one-line errors; stale temporary folders are cleaned', { skip }, async () => {
  const models = tmp('err');
  try {
    await assert.rejects(
      resolveModelAsync('test-org/broken', { modelsDir: models, allowRemote: true }),
      new RegExp(`^CitebenchError: cannot download ${endpoint}/test-org/broken/resolve/main/config\\.json: HTTP 500 Internal Server Error: the hub failed; try again later \\(what was fetched is kept and resumed\\)$`),
    );
    await assert.rejects(
      resolveModelAsync('test-org/nothing-here', { modelsDir: models, allowRemote: true }),
      /^CitebenchError: cannot download http:.*\/test-org\/nothing-here\/resolve\/main\/modules\.json: HTTP 401 Unauthorized \(RepoNotFound\): test-org\/nothing-here at http:.*: not found, or private or gated \(set HF_TOKEN to a token that may read it\)$/,
    );
    assert.deepEqual(readdirSync(models), [], 'nothing was fetched: nothing is kept');
    hub.cutAfter('test-org/truncated', 'config.json', 20);
    await assert.rejects(resolveModelAsync('test-org/truncated', { modelsDir: models, allowRemote: true }), (e: Error) => {
      assert.match(e.message, /test-org\/truncated\/resolve\/main\/config\.json (broke after \d+ bytes|is incomplete).*: run the same command again to resume$/);
      assert.ok(!e.message.includes('\n'), 'one line');
      return true;
    });
    // The cut transfer's temporary folder is kept for the next attempt, hidden; no model folder.
    assert.deepEqual(
      readdirSync(models).map((f) => f.replace(/download-.*/, 'download-*')),
      ['.test-org--truncated.download-*'],
    );
    // A killed download's temporary folder of another revision (its process is gone) is removed by the next download.
    const stale = join(models, '.test-org--tiny.download-999999999-dead');
    mkdirSync(join(stale, 'onnx'), { recursive: true });
    writeFileSync(join(stale, 'config.json'), '{}');
    await resolveModelAsync('test-org/tiny', { modelsDir: models, allowRemote: true });
    assert.deepEqual(readdirSync(models).filter((f) => f.includes('tiny')), ['test-org--tiny']);
    // An existing but incomplete folder is never overwritten.
    mkdirSync(join(models, 'scincl'));
    await assert.rejects(resolveModelAsync('scincl', { modelsDir: models, allowRemote: true }), /lacks config\.json, tokenizer\.json or vocab\.txt, weights \(onnx\/model\.onnx, or a checkpoint: model\.safetensors, .*\) \(--allow-remote downloads only into a folder that does not exist/);
    // Unreachable endpoint.
    const dead = `http://127.0.0.1:${await closedPort()}`;
    process.env.HF_ENDPOINT = dead;
    try {
      await assert.rejects(
        resolveModelAsync('test-org/x', { modelsDir: models, allowRemote: true }),
        new RegExp(`^CitebenchError: cannot reach ${dead} \\(ECONNREFUSED\\): no network\\? download on a machine with internet and copy the folder, or set HF_ENDPOINT$`),
      );
      assert.ok(!existsSync(join(models, 'test-org--x')));
    } finally {
      process.env.HF_ENDPOINT = endpoint;
    }
  } finally {
    rmSync(models, { recursive: true, force: true });
  }
});

test('HF_TOKEN is sent as a bearer token with every request', { skip }, async () => {
  const models = tmp('token');
  process.env.HF_TOKEN = 'hf_test_secret_token';
  try {
    const n = hub.requests.length;
    await resolveModelAsync('test-org/tiny', { modelsDir: models, allowRemote: true });
    const mine = hub.requests.slice(n);
    assert.equal(mine.length, ASKED.length);
    for (const r of mine) assert.equal(r.auth, 'Bearer hf_test_secret_token', r.file);
    assert.ok(!readFileSync(join(models, 'test-org--tiny', 'citebench-download.json'), 'utf8').includes('secret'), 'the token is not written down');
  } finally {
    delete process.env.HF_TOKEN;
    rmSync(models, { recursive: true, force: true });
  }
});

/** The CLI as a child process. Asynchronous: the fake hub runs in this process and must keep answering. */
function cli(env: Record<string, string>, ...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((ok) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, CI: '1', ...env };
    delete childEnv.HF_TOKEN;
    const p = spawn(process.execPath, cliArgv(args), { env: childEnv });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => ok({ code, out, err }));
  });
}

test('CLI: --allow-remote downloads and encodes; errors exit 2 with one message and no stack trace', { skip: skipCli }, async () => {
  const root = tmp('cli');
  try {
    const input = join(root, 'in.jsonl');
    writeFileSync(input, readFileSync(S2ORC, 'utf8').split('\n').slice(0, 20).join('\n') + '\n');
    const store = join(root, 'store');
    await buildCorpusStore({ input, out: store, prefilter: null, progress: false });
    const models = join(root, 'models');
    const env = { HF_ENDPOINT: endpoint };
    const noStack = (err: string) => assert.doesNotMatch(err, /\n\s+at /, 'no stack trace');

    // Off by default: no request, exit 2, the hint names both ways.
    let n = hub.requests.length;
    let r = await cli(env, 'encode', '--model', 'test-org/tiny', '--models-dir', models, '--corpus', store);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /^citebench: model 'test-org\/tiny' .*not available locally.*--allow-remote.*optimum-cli export onnx/s);
    noStack(r.err);
    assert.equal(hub.requests.length, n);

    // No weights at all.
    r = await cli(env, 'encode', '--model', 'test-org/no-weights', '--allow-remote', '--models-dir', models, '--corpus', store);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /citebench: test-org\/no-weights has no weights citebench can use on the hub.*\n.*optimum-cli export onnx --model test-org\/no-weights/s);
    noStack(r.err);

    // HTTP error and unreachable hub: one line naming the URL.
    const queries = join(root, 'q.txt');
    writeFileSync(queries, CorpusStore.open(store).id(0) + '\n');
    r = await cli(env, 'dense', 'search', '--model', 'test-org/broken', '--allow-remote', '--models-dir', models, '--corpus', store, '--queries', queries, '--emb', join(root, 'emb-x'), '--out', join(root, 'x.trec'));
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /\ncitebench: cannot download http:.*\/test-org\/broken\/resolve\/main\/config\.json: HTTP 500 Internal Server Error: the hub failed; try again later \(what was fetched is kept and resumed\)\n$/);
    noStack(r.err);
    const dead = await closedPort();
    r = await cli({ HF_ENDPOINT: `http://127.0.0.1:${dead}` }, 'encode', '--model', 'test-org/tiny', '--allow-remote', '--models-dir', models, '--corpus', store);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, new RegExp(`^citebench: downloading .*\ncitebench: cannot reach http://127\\.0\\.0\\.1:${dead} \\(ECONNREFUSED\\): no network\\? download on a machine with internet and copy the folder, or set HF_ENDPOINT\n$`));
    noStack(r.err);
    r = await cli(env, 'encode', '--model', 'test-org/tiny', '--revision', 'v1', '--models-dir', models, '--corpus', store);
    assert.equal(r.code, 2);
    assert.match(r.err, /--revision needs --allow-remote/);
    assert.ok(!existsSync(join(models, 'test-org--tiny')));

    // Success: downloaded into <models-dir>/ORG--NAME, then encoded; the default store is named after it.
    n = hub.requests.length;
    const emb = join(root, 'emb');
    r = await cli(env, 'encode', '--model', 'test-org/tiny', '--allow-remote', '--models-dir', models, '--corpus', store, '--out', emb, '--threads', '1');
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /downloading test-org\/tiny \(revision main\)/);
    assert.match(r.out, /20 of 20 requested articles encoded now/);
    assert.equal(hub.requests.length - n, ASKED.length);
    assert.ok(existsSync(join(models, 'test-org--tiny', 'onnx', 'model.onnx')));
    // Cached afterwards: works without --allow-remote and sends nothing.
    n = hub.requests.length;
    r = await cli(env, 'encode', '--model', 'test-org/tiny', '--models-dir', models, '--corpus', store, '--out', emb, '--threads', '1');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /0 of 20 requested articles encoded now, 20 already stored/);
    assert.equal(hub.requests.length, n);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
