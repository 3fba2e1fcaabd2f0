/**
 * --allow-remote: models are downloaded from a Hugging Face hub only when asked. A local node:http server plays
 * the hub (`/<org>/<name>/resolve/<revision>/<file>`, 404 for anything else) over the random-weight model in
 * ../shared/models/tiny-scibert-random; HF_ENDPOINT points at it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { resolveModel, resolveModelAsync } from '../../src/retrieval/dense/models.ts';
import { Encoder } from '../../src/retrieval/dense/encoder.ts';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { CorpusStore } from '../../src/corpus/store.ts';

const TINY = new URL('../../../shared/models/tiny-scibert-random', import.meta.url).pathname;
const S2ORC = new URL('../../../shared/data/s2orc-sample/metadata.jsonl', import.meta.url).pathname;
const skip = existsSync(TINY) ? false : `needs ${TINY} (../shared)`;
const skipCli = existsSync(TINY) && existsSync(S2ORC) ? false : `needs ${TINY} and ${S2ORC} (../shared)`;
const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;

const ALL = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx', 'onnx/model_quantized.onnx'];
const NEEDED = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx'];
/** Hub repos the fake hub serves, each with the files of TINY it has. */
const REPOS: Record<string, string[]> = {
  'test-org/tiny': ALL,
  'test-org/fp32-only': ALL.filter((f) => f !== 'onnx/model_quantized.onnx'),
  'test-org/no-onnx': ['config.json', 'tokenizer.json', 'tokenizer_config.json'],
  // Like the real repo: PyTorch weights only (no ONNX files, no tokenizer.json).
  'allenai/specter': ['config.json', 'tokenizer_config.json'],
};

interface Req {
  url: string;
  auth: string | undefined;
}
const requests: Req[] = [];
let server: Server;
let endpoint = '';

before(async () => {
  server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', auth: req.headers.authorization });
    const m = /^\/([^/]+\/[^/]+)\/resolve\/main\/(.+)$/.exec(req.url ?? '');
    if (m && m[1] === 'test-org/broken') {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
      return;
    }
    if (m && m[1] === 'test-org/truncated' && m[2] === 'config.json') {
      // Promises more bytes than it sends, then drops the connection.
      res.writeHead(200, { 'content-length': '100000' });
      res.write('{"hidden_size": 128,');
      setTimeout(() => res.destroy(), 20);
      return;
    }
    if (!m || !REPOS[m[1]]?.includes(m[2])) {
      res.writeHead(404, { 'x-error-code': 'EntryNotFound' }).end('Entry not found');
      return;
    }
    const path = join(TINY, m[2]);
    res.writeHead(200, { 'content-length': String(statSync(path).size), 'content-type': 'application/octet-stream' });
    createReadStream(path).pipe(res);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.HF_ENDPOINT = endpoint;
  delete process.env.HF_TOKEN;
});

after(() => {
  server?.close();
});

/** A local port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  const port = (s.address() as AddressInfo).port;
  await new Promise((ok) => s.close(ok));
  return port;
}

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
    const n = requests.length;
    await assert.rejects(resolveModelAsync('test-org/tiny', { modelsDir: models }), (e: Error) => {
      assert.match(e.message, /model 'test-org\/tiny'.*not available locally.*test-org--tiny does not exist.*--allow-remote/s);
      assert.match(e.message, /optimum-cli export onnx --model test-org\/tiny/);
      return true;
    });
    assert.throws(() => resolveModel('specter', { modelsDir: models }), /not available locally.*--allow-remote.*\n.*optimum-cli export onnx --model allenai\/specter/s);
    await assert.rejects(resolveModelAsync('scincl', { modelsDir: models, allowRemote: false }), /optimum-cli export onnx --model malteos\/scincl/);
    // The synchronous resolver never downloads, even when asked to.
    assert.throws(() => resolveModel('test-org/tiny', { modelsDir: models, allowRemote: true }), /resolveModel never downloads/);
    assert.equal(requests.length, n, 'the hub received no request');
    assert.deepEqual(readdirSync(models), []);
  } finally {
    rmSync(models, { recursive: true, force: true });
  }
});

test('with allowRemote the needed files are downloaded byte for byte, encode like the source, and are cached', { skip }, async () => {
  const models = tmp('on');
  try {
    const n = requests.length;
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
    const mine = requests.slice(n);
    assert.deepEqual(
      mine.map((r) => r.url),
      NEEDED.map((f) => `/test-org/tiny/resolve/main/${f}`),
    );
    assert.ok(mine.every((r) => r.auth === undefined), 'no Authorization header without HF_TOKEN');

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
    const k = requests.length;
    assert.equal((await resolveModelAsync('test-org/tiny', { modelsDir: models, allowRemote: true })).fingerprint, m.fingerprint);
    assert.equal(resolveModel('test-org/tiny', { modelsDir: models }).fingerprint, m.fingerprint);
    assert.equal(requests.length, k, 'no request for a cached model');
    // A different revision than the one downloaded is refused rather than silently mixed up.
    await assert.rejects(resolveModelAsync('test-org/tiny', { modelsDir: models, allowRemote: true, revision: 'v2' }), /at revision 'main', not 'v2'/);
    assert.equal(requests.length, k);
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
    const n = requests.length;
    const f = await resolveModelAsync('test-org/fp32-only', { modelsDir: models, allowRemote: true, quantized: true });
    assert.equal(f.onnxFile, join(models, 'test-org--fp32-only', 'onnx', 'model.onnx'));
    assert.deepEqual(
      requests.slice(n).map((r) => r.url.replace('/test-org/fp32-only/resolve/main/', '')),
      ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx', 'onnx/model.onnx'],
    );
  } finally {
    rmSync(models, { recursive: true, force: true });
  }
});

test('a repo without ONNX weights: "no ONNX weights" with the export hint, and no folder left behind', { skip }, async () => {
  const models = tmp('noonnx');
  try {
    await assert.rejects(resolveModelAsync('test-org/no-onnx', { modelsDir: models, allowRemote: true }), (e: Error) => {
      assert.equal(e.name, 'NoOnnxWeightsError');
      assert.match(e.message, /^test-org\/no-onnx has no ONNX weights on the hub \(404 for onnx\/model\.onnx and onnx\/model_quantized\.onnx/);
      assert.match(e.message, /optimum-cli export onnx --model test-org\/no-onnx --task feature-extraction/);
      return true;
    });
    // A registry name downloads its hfId; the paper's SPECTER has PyTorch weights only.
    const n = requests.length;
    await assert.rejects(resolveModelAsync('specter', { modelsDir: models, allowRemote: true }), (e: Error) => {
      assert.match(e.message, /^allenai\/specter has no ONNX weights on the hub .* and no tokenizer\.json/);
      assert.match(e.message, /optimum-cli export onnx --model allenai\/specter /);
      return true;
    });
    assert.ok(requests.slice(n).every((r) => r.url.startsWith('/allenai/specter/resolve/main/')));
    assert.deepEqual(readdirSync(models), [], 'neither a model folder nor a temporary folder remains');
    // Still nothing there: the next resolve without allowRemote gives the plain "not available locally".
    assert.throws(() => resolveModel('specter', { modelsDir: models }), /not available locally/);
  } finally {
    rmSync(models, { recursive: true, force: true });
  }
});

test('HTTP errors, broken transfers and unreachable hubs are one-line errors; stale temporary folders are cleaned', { skip }, async () => {
  const models = tmp('err');
  try {
    await assert.rejects(
      resolveModelAsync('test-org/broken', { modelsDir: models, allowRemote: true }),
      new RegExp(`^CitebenchError: cannot download ${endpoint}/test-org/broken/resolve/main/config\\.json: HTTP 500 Internal Server Error$`),
    );
    await assert.rejects(
      resolveModelAsync('test-org/nothing-here', { modelsDir: models, allowRemote: true }),
      /^CitebenchError: cannot download http:.*\/test-org\/nothing-here\/resolve\/main\/config\.json: HTTP 404/,
    );
    await assert.rejects(resolveModelAsync('test-org/truncated', { modelsDir: models, allowRemote: true }), (e: Error) => {
      assert.match(e.message, /test-org\/truncated\/resolve\/main\/config\.json (failed after \d+ bytes|is incomplete)/);
      assert.ok(!e.message.includes('\n'), 'one line');
      return true;
    });
    assert.deepEqual(readdirSync(models), []);
    // A killed download's temporary folder (its process is gone) is removed by the next download.
    const stale = join(models, '.test-org--tiny.download-999999999-dead');
    mkdirSync(join(stale, 'onnx'), { recursive: true });
    writeFileSync(join(stale, 'config.json'), '{}');
    await resolveModelAsync('test-org/tiny', { modelsDir: models, allowRemote: true });
    assert.deepEqual(readdirSync(models), ['test-org--tiny']);
    // An existing but incomplete folder is never overwritten.
    mkdirSync(join(models, 'scincl'));
    await assert.rejects(resolveModelAsync('scincl', { modelsDir: models, allowRemote: true }), /lacks config\.json, tokenizer\.json or vocab\.txt, onnx\/model\.onnx \(--allow-remote downloads only into a folder that does not exist/);
    // Unreachable endpoint.
    const dead = `http://127.0.0.1:${await closedPort()}`;
    process.env.HF_ENDPOINT = dead;
    try {
      await assert.rejects(resolveModelAsync('test-org/x', { modelsDir: models, allowRemote: true }), new RegExp(`^CitebenchError: cannot download ${dead}/test-org/x/resolve/main/config\\.json: ECONNREFUSED$`));
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
    const n = requests.length;
    await resolveModelAsync('test-org/tiny', { modelsDir: models, allowRemote: true });
    const mine = requests.slice(n);
    assert.equal(mine.length, NEEDED.length);
    for (const r of mine) assert.equal(r.auth, 'Bearer hf_test_secret_token', r.url);
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
    const p = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { env: childEnv });
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
    let n = requests.length;
    let r = await cli(env, 'encode', '--model', 'test-org/tiny', '--models-dir', models, '--corpus', store);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /^citebench: model 'test-org\/tiny' .*not available locally.*--allow-remote.*optimum-cli export onnx/s);
    noStack(r.err);
    assert.equal(requests.length, n);

    // No ONNX weights.
    r = await cli(env, 'encode', '--model', 'test-org/no-onnx', '--allow-remote', '--models-dir', models, '--corpus', store);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /citebench: test-org\/no-onnx has no ONNX weights on the hub.*\n.*optimum-cli export onnx --model test-org\/no-onnx/s);
    noStack(r.err);

    // HTTP error and unreachable hub: one line naming the URL.
    const queries = join(root, 'q.txt');
    writeFileSync(queries, CorpusStore.open(store).id(0) + '\n');
    r = await cli(env, 'dense', 'search', '--model', 'test-org/broken', '--allow-remote', '--models-dir', models, '--corpus', store, '--queries', queries, '--emb', join(root, 'emb-x'), '--out', join(root, 'x.trec'));
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /\ncitebench: cannot download http:.*\/test-org\/broken\/resolve\/main\/config\.json: HTTP 500 Internal Server Error\n$/);
    noStack(r.err);
    const dead = await closedPort();
    r = await cli({ HF_ENDPOINT: `http://127.0.0.1:${dead}` }, 'encode', '--model', 'test-org/tiny', '--allow-remote', '--models-dir', models, '--corpus', store);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, new RegExp(`^citebench: downloading .*\ncitebench: cannot download http://127\\.0\\.0\\.1:${dead}/test-org/tiny/resolve/main/config\\.json: ECONNREFUSED\n$`));
    noStack(r.err);
    r = await cli(env, 'encode', '--model', 'test-org/tiny', '--revision', 'v1', '--models-dir', models, '--corpus', store);
    assert.equal(r.code, 2);
    assert.match(r.err, /--revision needs --allow-remote/);
    assert.ok(!existsSync(join(models, 'test-org--tiny')));

    // Success: downloaded into <models-dir>/ORG--NAME, then encoded; the default store is named after it.
    n = requests.length;
    const emb = join(root, 'emb');
    r = await cli(env, 'encode', '--model', 'test-org/tiny', '--allow-remote', '--models-dir', models, '--corpus', store, '--out', emb, '--threads', '1');
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /downloading test-org\/tiny \(revision main\)/);
    assert.match(r.out, /20 of 20 requested articles encoded now/);
    assert.equal(requests.length - n, NEEDED.length);
    assert.ok(existsSync(join(models, 'test-org--tiny', 'onnx', 'model.onnx')));
    // Cached afterwards: works without --allow-remote and sends nothing.
    n = requests.length;
    r = await cli(env, 'encode', '--model', 'test-org/tiny', '--models-dir', models, '--corpus', store, '--out', emb, '--threads', '1');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /0 of 20 requested articles encoded now, 20 already stored/);
    assert.equal(requests.length, n);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
