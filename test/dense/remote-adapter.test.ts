/**
 * --allow-remote with a task adapter, as `--model specter2` runs on a fresh machine: the registry names the base
 * repo allenai/specter2_base and the adapter repo allenai/specter2; the loopback fake hub serves both, made of
 * the repository's own tiny fixtures (test/dense/fixtures/adapters: a random BERT base and a seq_bn adapter the
 * adapters library saved, checked against the library's forward in adapters.test.ts). The downloaded model must
 * give the vectors of the same files used from local folders, record where both came from, and fetch nothing the
 * second time. Needs no ../shared.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveModel, resolveModelAsync } from '../../src/retrieval/dense/models.ts';
import { Encoder } from '../../src/retrieval/dense/encoder.ts';
import { FakeHub } from '../helpers/fake-hub.ts';

const FIX = new URL('./fixtures/adapters/', import.meta.url).pathname;
const TEXTS = [
  { title: 'citation recommendation at scale', abstract: 'we evaluate article encoders on citation graphs' },
  { title: 'graph neural networks', abstract: 'message passing over citation graphs' },
];
// A WordPiece vocabulary for the 300-token fixture model: the special tokens, the words above, letters.
const WORDS = [...new Set(TEXTS.flatMap((t) => `${t.title} ${t.abstract}`.split(' ')))];
const VOCAB = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', ...WORDS, ...'abcdefghijklmnopqrstuvwxyz'.split(''), ...'abcdefghijklmnopqrstuvwxyz'.split('').map((c) => `##${c}`)].join('\n') + '\n';
const TOKENIZER_CONFIG = '{"do_lower_case": true, "model_max_length": 64}\n';
const BASE_COMMIT = 'b'.repeat(40);
const ADAPTER_COMMIT = 'c'.repeat(40);

let hub: FakeHub;
let root: string;
/** The base model as a local folder (the fixture plus a vocabulary), the same files the hub serves. */
let localBase: string;

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'cb-remote-adapter-'));
  localBase = join(root, 'local-base');
  cpSync(join(FIX, 'bert-base'), localBase, { recursive: true });
  writeFileSync(join(localBase, 'vocab.txt'), VOCAB);
  writeFileSync(join(localBase, 'tokenizer_config.json'), TOKENIZER_CONFIG);
  hub = await new FakeHub({
    'allenai/specter2_base': { dir: localBase, commit: BASE_COMMIT, lfs: true },
    'allenai/specter2': { dir: join(FIX, 'specter2-safetensors'), commit: ADAPTER_COMMIT, lfs: true },
  }).start();
  process.env.HF_ENDPOINT = hub.endpoint;
  delete process.env.HF_TOKEN;
});

after(async () => {
  await hub?.close();
  rmSync(root, { recursive: true, force: true });
});

test('--model specter2 --allow-remote: base and adapter repos are downloaded; vectors equal the local folders\'; sources recorded; a second run fetches nothing', async () => {
  const models = join(root, 'models');
  // Without --allow-remote: one line naming the download that would happen, and no request.
  const n0 = hub.requests.length;
  await assert.rejects(resolveModelAsync('specter2', { modelsDir: models }), (e: Error) => {
    assert.doesNotMatch(e.message, /\n\s+at /, 'no stack trace');
    assert.match(e.message, /--allow-remote/);
    return true;
  });
  assert.equal(hub.requests.length, n0, 'nothing requested without --allow-remote');

  const m = await resolveModelAsync('specter2', { modelsDir: models, allowRemote: true });
  assert.deepEqual(readdirSync(models).sort(), ['allenai--specter2', 'specter2-base'], 'the registry\'s folders, no temporary folder left');
  const fetched = new Set(hub.requests.filter((r) => r.status < 300 || r.status === 302).map((r) => `${r.repo}/${r.file}`));
  for (const f of ['allenai/specter2/adapter_config.json', 'allenai/specter2/adapter.safetensors', 'allenai/specter2_base/config.json', 'allenai/specter2_base/model.safetensors', 'allenai/specter2_base/vocab.txt'])
    assert.ok(fetched.has(f), `${f} fetched`);
  assert.deepEqual(m.sources, [
    { of: 'model', repo: 'allenai/specter2_base', revision: 'main', commit: BASE_COMMIT },
    { of: 'adapter', repo: 'allenai/specter2', revision: 'main', commit: ADAPTER_COMMIT },
  ]);
  assert.equal(m.adapter?.dir, join(models, 'allenai--specter2'));
  assert.equal(m.pooling, 'cls');
  assert.equal(m.distance, 'euclidean');

  // The same files from local folders: the same adapter hashes and the same vectors, bit for bit.
  const local = resolveModel(localBase, { modelsDir: join(root, 'unused'), overrides: { adapter: join(FIX, 'specter2-safetensors'), pooling: 'cls' } });
  assert.deepEqual(m.adapter?.files, local.adapter?.files);
  const base = resolveModel(localBase, { modelsDir: join(root, 'unused'), overrides: { pooling: 'cls' } });
  const [a, b, c] = await Promise.all([Encoder.load(m, { threads: 1 }), Encoder.load(local, { threads: 1 }), Encoder.load(base, { threads: 1 })]);
  try {
    const va = (await a.encode(TEXTS)).vectors;
    const vb = (await b.encode(TEXTS)).vectors;
    const vc = (await c.encode(TEXTS)).vectors;
    assert.equal(va.length, TEXTS.length * 32);
    assert.deepEqual(va, vb);
    assert.ok(va.some((x, i) => Math.abs(x - vc[i]!) > 1e-3), 'the adapter changes the vectors (it was applied)');
  } finally {
    await Promise.all([a.release(), b.release(), c.release()]);
  }

  // Cached: a second resolve sends nothing and gives the same model.
  const k = hub.requests.length;
  const again = await resolveModelAsync('specter2', { modelsDir: models, allowRemote: true });
  assert.equal(again.fingerprint, m.fingerprint);
  assert.equal(hub.requests.length, k, 'a second run fetches nothing');
  assert.ok(existsSync(join(models, 'allenai--specter2', 'citebench-download.json')));
});
