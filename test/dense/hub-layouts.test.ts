/**
 * downloadModel against the real layouts of the paper's Hugging Face repos (file names as on the hub; tiny
 * stand-in bytes, which need not be a valid model for a download), served by the loopback fake hub: which
 * files are chosen, resuming a cut transfer with Range, the download record, and one-line errors.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { downloadModel, NoWeightsError } from '../../src/retrieval/dense/hub/download.ts';
import { DOWNLOAD_RECORD, readDownloadRecord } from '../../src/retrieval/dense/hub/record.ts';
import { closedPort, startFakeHub, type FakeHub, type FakeRepo } from '../helpers/fake-hub.ts';

/** Deterministic stand-in bytes of a given size (distinct per name). */
function bytes(name: string, n: number): Buffer {
  const out = Buffer.alloc(n);
  let block = createHash('sha256').update(name).digest();
  for (let o = 0; o < n; o += block.length) {
    block.copy(out, o);
    block = createHash('sha256').update(block).digest();
  }
  return out;
}

const CONFIG = '{"model_type": "bert", "hidden_size": 768, "num_hidden_layers": 12, "vocab_size": 31090}\n';
const VOCAB = '[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\n';
const TOK_CONFIG = '{"do_lower_case": true}\n';
const SPECIAL = '{"unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]", "mask_token": "[MASK]"}\n';
const GITATTR = '*.bin filter=lfs diff=lfs merge=lfs -text\n';

/** The six paper repos as docs/dense.md lists them on `main`, plus synthetic layouts the downloader supports. */
const REPOS: Record<string, FakeRepo> = {
  'allenai/scibert_scivocab_uncased': {
    files: { '.gitattributes': GITATTR, 'README.md': '# SciBERT\n', 'config.json': CONFIG, 'vocab.txt': VOCAB, 'pytorch_model.bin': bytes('scibert', 40_000), 'flax_model.msgpack': bytes('flax', 1000) },
  },
  'allenai/specter': {
    files: {
      '.gitattributes': GITATTR,
      'README.md': '# SPECTER\n',
      'config.json': CONFIG,
      'vocab.txt': VOCAB,
      'tokenizer_config.json': TOK_CONFIG,
      'special_tokens_map.json': SPECIAL,
      'pytorch_model.bin': bytes('specter', 300_000),
      'flax_model.msgpack': bytes('flax', 1000),
      'tf_model.h5': bytes('tf', 1000),
    },
    commit: 'a'.repeat(40),
  },
  'malteos/scincl': {
    files: {
      'config.json': CONFIG,
      'vocab.txt': VOCAB,
      'tokenizer_config.json': TOK_CONFIG,
      'special_tokens_map.json': SPECIAL,
      'model.safetensors': bytes('scincl-st', 50_000),
      'pytorch_model.bin': bytes('scincl-bin', 50_000),
      '1_Pooling/config.json': '{"pooling_mode_cls_token": true}\n',
      // As the hub's malteos/scincl has it: a Transformer at the repo's root, then CLS pooling.
      'modules.json': '[{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"}, {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]\n',
      'config_sentence_transformers.json': '{}\n',
      'sentence_bert_config.json': '{}\n',
      'train_triples.csv.gz': bytes('triples', 5000),
    },
  },
  'allenai/aspire-contextualsentence-singlem-biomed': {
    files: { 'config.json': CONFIG, 'vocab.txt': VOCAB, 'tokenizer_config.json': TOK_CONFIG, 'special_tokens_map.json': SPECIAL, 'pytorch_model.bin': bytes('biomed', 30_000) },
  },
  'allenai/aspire-contextualsentence-singlem-compsci': {
    files: { 'config.json': CONFIG, 'vocab.txt': VOCAB, 'tokenizer_config.json': TOK_CONFIG, 'special_tokens_map.json': SPECIAL, 'pytorch_model.bin': bytes('compsci', 30_000) },
  },
  'allenai/specter2_base': {
    files: {
      'config.json': CONFIG,
      'vocab.txt': VOCAB,
      'tokenizer.json': '{"model": {"type": "WordPiece"}}\n',
      'tokenizer_config.json': TOK_CONFIG,
      'special_tokens_map.json': SPECIAL,
      'pytorch_model.bin': bytes('specter2', 30_000),
    },
  },
  // An export with ONNX files next to the PyTorch weights: the ONNX file is taken, nothing to convert.
  'test-org/onnx-and-torch': {
    files: { 'config.json': CONFIG, 'tokenizer.json': '{}\n', 'onnx/model.onnx': bytes('onnx', 2000), 'onnx/model_quantized.onnx': bytes('q', 500), 'model.safetensors': bytes('st', 2000) },
  },
  'test-org/sharded-safetensors': {
    files: {
      'config.json': CONFIG,
      'vocab.txt': VOCAB,
      'model.safetensors.index.json': JSON.stringify({
        metadata: { total_size: 3000 },
        weight_map: { 'a.weight': 'model-00001-of-00002.safetensors', 'b.weight': 'model-00002-of-00002.safetensors', 'c.weight': 'model-00001-of-00002.safetensors' },
      }),
      'model-00001-of-00002.safetensors': bytes('s1', 1500),
      'model-00002-of-00002.safetensors': bytes('s2', 1500),
      'pytorch_model.bin': bytes('not me', 100),
    },
  },
  'test-org/sharded-bin': {
    files: {
      'config.json': CONFIG,
      'vocab.txt': VOCAB,
      'pytorch_model.bin.index.json': JSON.stringify({ weight_map: { x: 'pytorch_model-00001-of-00002.bin', y: 'pytorch_model-00002-of-00002.bin' } }),
      'pytorch_model-00001-of-00002.bin': bytes('b1', 700),
      'pytorch_model-00002-of-00002.bin': bytes('b2', 700),
    },
  },
  'test-org/evil-index': {
    files: { 'config.json': CONFIG, 'vocab.txt': VOCAB, 'model.safetensors.index.json': JSON.stringify({ weight_map: { x: '../../outside.safetensors' } }) },
  },
  'test-org/missing-shard': {
    files: { 'config.json': CONFIG, 'vocab.txt': VOCAB, 'model.safetensors.index.json': JSON.stringify({ weight_map: { x: 'model-00001-of-00001.safetensors' } }) },
  },
  'test-org/no-weights': { files: { 'config.json': CONFIG, 'vocab.txt': VOCAB, 'tokenizer_config.json': TOK_CONFIG } },
  'test-org/no-tokenizer': { files: { 'config.json': CONFIG, 'pytorch_model.bin': bytes('nt', 100) } },
  'test-org/private': { files: { 'config.json': CONFIG, 'vocab.txt': VOCAB, 'pytorch_model.bin': bytes('private', 1000) }, token: 'hf_fake_token' },
  'test-org/gated': { files: { 'config.json': CONFIG }, gated: true },
  'test-org/flaky': { files: { 'config.json': CONFIG, 'vocab.txt': VOCAB, 'pytorch_model.bin': bytes('flaky', 20_000) } },
  'test-org/lfs': { files: { 'config.json': CONFIG, 'vocab.txt': VOCAB, 'model.safetensors': bytes('lfs', 30_000) }, lfs: true, commit: '3'.repeat(40), token: 'hf_lfs' },
  'test-org/moving': { files: { 'config.json': CONFIG, 'vocab.txt': VOCAB, 'pytorch_model.bin': bytes('moving', 20_000) }, commit: '1'.repeat(40) },
};

let hub: FakeHub;
let root: string;
const saved = { HF_TOKEN: process.env.HF_TOKEN, HF_ENDPOINT: process.env.HF_ENDPOINT };

before(async () => {
  hub = await startFakeHub(REPOS);
  root = mkdtempSync(join(tmpdir(), 'cb-hub-layouts-'));
  delete process.env.HF_TOKEN;
  delete process.env.HF_ENDPOINT;
});

after(async () => {
  await hub?.close();
  rmSync(root, { recursive: true, force: true });
  for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
  else process.env[k] = v;
});

let n = 0;
/** A fresh models folder and the final path for `repo` in it. */
function place(repo: string): { models: string; dir: string } {
  const models = join(root, `m${n++}`);
  mkdirSync(models);
  return { models, dir: join(models, repo.replace('/', '--')) };
}

function filesIn(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const f of readdirSync(join(dir, rel)).sort()) {
    const r = rel ? `${rel}/${f}` : f;
    if (statSync(join(dir, r)).isDirectory()) out.push(...filesIn(dir, r));
    else out.push(r);
  }
  return out;
}

/** Temporary (hidden) folders next to the final one. */
const temps = (models: string) => readdirSync(models).filter((f) => f.startsWith('.'));

const EXPECTED: Record<string, string[]> = {
  'allenai/scibert_scivocab_uncased': ['config.json', 'pytorch_model.bin', 'vocab.txt'],
  'allenai/specter': ['config.json', 'pytorch_model.bin', 'special_tokens_map.json', 'tokenizer_config.json', 'vocab.txt'],
  'malteos/scincl': ['1_Pooling/config.json', 'config.json', 'config_sentence_transformers.json', 'model.safetensors', 'modules.json', 'sentence_bert_config.json', 'special_tokens_map.json', 'tokenizer_config.json', 'vocab.txt'],
  'allenai/aspire-contextualsentence-singlem-biomed': ['config.json', 'pytorch_model.bin', 'special_tokens_map.json', 'tokenizer_config.json', 'vocab.txt'],
  'allenai/aspire-contextualsentence-singlem-compsci': ['config.json', 'pytorch_model.bin', 'special_tokens_map.json', 'tokenizer_config.json', 'vocab.txt'],
  'allenai/specter2_base': ['config.json', 'pytorch_model.bin', 'special_tokens_map.json', 'tokenizer.json', 'tokenizer_config.json'],
  'test-org/onnx-and-torch': ['config.json', 'onnx/model.onnx', 'tokenizer.json'],
  'test-org/sharded-safetensors': ['config.json', 'model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors', 'model.safetensors.index.json', 'vocab.txt'],
  'test-org/sharded-bin': ['config.json', 'pytorch_model-00001-of-00002.bin', 'pytorch_model-00002-of-00002.bin', 'pytorch_model.bin.index.json', 'vocab.txt'],
};

for (const [repo, expected] of Object.entries(EXPECTED)) {
  test(`${repo}: downloads ${expected.join(', ')}, byte for byte, with sizes and SHA-256 in the record`, async () => {
    const { models, dir } = place(repo);
    const lines: string[] = [];
    await downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false, log: (l) => lines.push(l) });
    assert.deepEqual(filesIn(dir), [...expected, DOWNLOAD_RECORD].sort());
    assert.deepEqual(readdirSync(models), [repo.replace('/', '--')], 'no temporary folder left');
    const record = readDownloadRecord(dir)!;
    assert.equal(record.repo, repo);
    assert.equal(record.revision, 'main');
    assert.equal(record.endpoint, hub.endpoint);
    assert.deepEqual(Object.keys(record.files).sort(), [...expected].sort());
    for (const f of expected) {
      assert.ok(readFileSync(join(dir, f)).equals(hub.file(repo, f)), `${f} is byte-identical`);
      assert.deepEqual(record.files[f], { bytes: hub.file(repo, f).length, sha256: hub.sha256(repo, f) });
    }
    assert.equal(record.commit, REPOS[repo].commit);
    assert.match(lines.at(-1)!, new RegExp(`^downloaded ${expected.length} files of ${repo} .*weights: `));
    // A second call fetches nothing.
    const k = hub.requests.length;
    await downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false });
    assert.equal(hub.requests.length, k);
  });
}

test('files the repo lacks are asked for once (404) and never fetched; weights that are not chosen are not requested', async () => {
  const repo = 'malteos/scincl';
  const before = hub.requests.length;
  const { dir } = place(repo);
  await downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false });
  const mine = hub.requests.slice(before);
  assert.deepEqual(
    mine.map((r) => `${r.file} ${r.status}`),
    [
      // The sentence-transformers files first: they say where the Transformer module's files are.
      'modules.json 200',
      'config_sentence_transformers.json 200',
      '1_Pooling/config.json 200',
      'sentence_bert_config.json 200',
      'config.json 200',
      'tokenizer.json 404',
      'vocab.txt 200',
      'tokenizer_config.json 200',
      'special_tokens_map.json 200',
      'onnx/model.onnx 404',
      'onnx/model_quantized.onnx 404',
      'model.safetensors 200',
    ],
  );
  assert.ok(mine.every((r) => r.auth === undefined), 'no Authorization header without a token');
});

test('quantized variant: onnx/model_quantized.onnx first', async () => {
  const repo = 'test-org/onnx-and-torch';
  const { dir } = place(repo);
  await downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false, variant: 'quantized' });
  assert.deepEqual(filesIn(dir), [DOWNLOAD_RECORD, 'config.json', 'onnx/model_quantized.onnx', 'tokenizer.json']);
});

test('a connection cut mid-file keeps the partial file; the next run resumes it with Range and ends with the same bytes and SHA-256', async () => {
  const repo = 'allenai/specter';
  const { models, dir } = place(repo);
  hub.cutAfter(repo, 'pytorch_model.bin', 100_000);
  await assert.rejects(downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false }), (e: Error) => {
    assert.equal(e.name, 'CitebenchError');
    assert.match(e.message, /^download of http:.*\/allenai\/specter\/resolve\/main\/pytorch_model\.bin (broke after |is incomplete \()100000 .*run the same command again to resume$/);
    assert.ok(!e.message.includes('\n'), 'one line');
    return true;
  });
  assert.ok(!existsSync(dir), 'nothing at the final path');
  const [tmp] = temps(models);
  assert.ok(tmp, 'the temporary folder survives');
  const partial = statSync(join(models, tmp, 'pytorch_model.bin')).size;
  assert.equal(partial, 100_000, 'what was received is on disk');

  const before = hub.requests.length;
  const lines: string[] = [];
  await downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false, log: (l) => lines.push(l) });
  const again = hub.requests.slice(before);
  // Finished files are not fetched again; absent ones are probed; the weights continue at byte 100000.
  assert.deepEqual(
    again.map((r) => `${r.file} ${r.status}${r.range ? ` ${r.range}` : ''}`),
    ['modules.json 404', 'tokenizer.json 404', 'onnx/model.onnx 404', 'onnx/model_quantized.onnx 404', 'model.safetensors 404', 'model.safetensors.index.json 404', 'pytorch_model.bin 206 bytes=100000-'],
  );
  assert.equal(again.at(-1)!.sent, 200_000);
  assert.match(lines[0], /resuming an earlier download/);
  assert.ok(readFileSync(join(dir, 'pytorch_model.bin')).equals(hub.file(repo, 'pytorch_model.bin')));
  assert.deepEqual(readDownloadRecord(dir)!.files['pytorch_model.bin'], { bytes: 300_000, sha256: hub.sha256(repo, 'pytorch_model.bin') });
  assert.deepEqual(readdirSync(models), ['allenai--specter']);
});

test('a partial file that is in fact whole (416, sizes match) is kept; a longer one (416, sizes differ) is fetched again', async () => {
  const repo = 'test-org/flaky';
  const full = hub.file(repo, 'pytorch_model.bin');
  for (const whole of [true, false]) {
    const { models, dir } = place(repo);
    hub.cutAfter(repo, 'pytorch_model.bin', 5000);
    await assert.rejects(downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false }), /run the same command again to resume/);
    // The process died after writing more bytes but before noting the file finished.
    const partial = join(models, temps(models)[0], 'pytorch_model.bin');
    const rest = full.subarray(statSync(partial).size);
    appendFileSync(partial, whole ? rest : Buffer.concat([rest, Buffer.from('garbage')]));
    const before = hub.requests.length;
    await downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false });
    const weights = hub.requests.slice(before).filter((r) => r.file === 'pytorch_model.bin');
    assert.deepEqual(
      weights.map((r) => r.status),
      whole ? [416] : [416, 200],
    );
    assert.ok(readFileSync(join(dir, 'pytorch_model.bin')).equals(full));
    assert.equal(readDownloadRecord(dir)!.files['pytorch_model.bin'].sha256, hub.sha256(repo, 'pytorch_model.bin'));
  }
});

test('a file that changed on the hub since the partial copy (other ETag): If-Range makes the hub send it whole (200), which restarts it', async () => {
  const repo = 'test-org/flaky';
  const { models, dir } = place(repo);
  hub.cutAfter(repo, 'pytorch_model.bin', 5000);
  await assert.rejects(downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false }), /resume/);
  const old = hub.file(repo, 'pytorch_model.bin');
  hub.setFile(repo, 'pytorch_model.bin', bytes('flaky v2', 21_000));
  try {
    const before = hub.requests.length;
    await downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false });
    const w = hub.requests.slice(before).filter((r) => r.file === 'pytorch_model.bin');
    assert.deepEqual(w.map((r) => `${r.status} ${r.range}`), ['200 bytes=5000-']);
    assert.ok(readFileSync(join(dir, 'pytorch_model.bin')).equals(hub.file(repo, 'pytorch_model.bin')));
    assert.equal(readDownloadRecord(dir)!.files['pytorch_model.bin'].sha256, hub.sha256(repo, 'pytorch_model.bin'));
    assert.deepEqual(temps(models), []);
  } finally {
    hub.setFile(repo, 'pytorch_model.bin', old);
  }
});

test('a branch that moved to another commit between two attempts is not mixed: the partial download is dropped', async () => {
  const repo = 'test-org/moving';
  const { models, dir } = place(repo);
  hub.cutAfter(repo, 'pytorch_model.bin', 1000);
  await assert.rejects(downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false }), /resume/);
  hub.setCommit(repo, '2'.repeat(40));
  await assert.rejects(
    downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false }),
    /^CitebenchError: revision 'main' of test-org\/moving moved from commit 1{40} to 2{40} during the download: run the same command again to download it afresh$/,
  );
  assert.deepEqual(readdirSync(models), [], 'the mixed partial download is removed');
  await downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false });
  assert.equal(readDownloadRecord(dir)!.commit, '2'.repeat(40));
});

test('a 5xx mid-download is one line; what was fetched is kept and the next run fetches only the rest', async () => {
  const repo = 'test-org/flaky';
  const { models, dir } = place(repo);
  hub.fail(repo, 'pytorch_model.bin', 503);
  await assert.rejects(
    downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false }),
    new RegExp(`^CitebenchError: cannot download ${hub.endpoint}/test-org/flaky/resolve/main/pytorch_model\\.bin: HTTP 503 Service Unavailable: the hub failed; try again later \\(what was fetched is kept and resumed\\)$`),
  );
  assert.equal(temps(models).length, 1);
  const before = hub.requests.length;
  await downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false });
  const files = hub.requests.slice(before).map((r) => r.file);
  assert.ok(!files.includes('config.json') && !files.includes('vocab.txt'), 'finished files are not fetched again');
  assert.equal(files.at(-1), 'pytorch_model.bin');
});

test('401 (private repo without a token), unknown repo, 404 revision, gated repo: one line, no folder, no temporary folder', async () => {
  const cases: [string, string | undefined, RegExp][] = [
    ['test-org/private', undefined, /^CitebenchError: cannot download http:.*\/test-org\/private\/resolve\/main\/modules\.json: HTTP 401 Unauthorized \(RepoNotFound\): test-org\/private at http:.*: not found, or private or gated \(set HF_TOKEN to a token that may read it\)$/],
    ['test-org/nothing-here', undefined, /HTTP 401 Unauthorized \(RepoNotFound\): test-org\/nothing-here at .*set HF_TOKEN/],
    ['test-org/private', 'wrong', /HTTP 401 .*: not found, or HF_TOKEN may not read it \(private or gated\)$/],
    ['test-org/gated', undefined, /HTTP 403 Forbidden \(GatedRepo\): test-org\/gated is gated: accept its terms on the hub page, then set HF_TOKEN/],
  ];
  for (const [repo, token, re] of cases) {
    const { models, dir } = place(repo);
    await assert.rejects(downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false, token }), (e: Error) => {
      assert.match(String(e), re);
      assert.ok(!e.message.includes('\n'));
      return true;
    });
    assert.deepEqual(readdirSync(models), [], repo);
  }
  const { models, dir } = place('allenai/specter');
  await assert.rejects(
    downloadModel('allenai/specter', dir, { endpoint: hub.endpoint, progress: false, revision: 'v9' }),
    /^CitebenchError: cannot download http:.*\/allenai\/specter\/resolve\/v9\/modules\.json: HTTP 404 Not Found \(RevisionNotFound\): allenai\/specter has no revision 'v9'$/,
  );
  assert.deepEqual(readdirSync(models), []);
});

test('HF_TOKEN reaches a private repo and is sent with every request, and is not written down', async () => {
  const repo = 'test-org/private';
  const { dir } = place(repo);
  process.env.HF_TOKEN = 'hf_fake_token';
  try {
    const before = hub.requests.length;
    await downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false });
    const mine = hub.requests.slice(before);
    assert.ok(mine.length >= 3);
    for (const r of mine) assert.equal(r.auth, 'Bearer hf_fake_token', r.file);
    assert.ok(!readFileSync(join(dir, DOWNLOAD_RECORD), 'utf8').includes('hf_fake'));
  } finally {
    delete process.env.HF_TOKEN;
  }
});

test('a refused connection: "cannot reach", one line, no folder', async () => {
  const dead = `http://127.0.0.1:${await closedPort()}`;
  const { models, dir } = place('allenai/specter');
  await assert.rejects(
    downloadModel('allenai/specter', dir, { endpoint: dead, progress: false }),
    new RegExp(`^CitebenchError: cannot reach ${dead.replace(/\./g, '\\.')} \\(ECONNREFUSED\\): no network\\? download on a machine with internet and copy the folder, or set HF_ENDPOINT$`),
  );
  assert.deepEqual(readdirSync(models), []);
});

test('a repo without usable weights or without tokenizer files, and bad shard indexes: one line, nothing kept', async () => {
  const cases: [string, (e: Error) => void][] = [
    [
      'test-org/no-weights',
      (e) => {
        assert.ok(e instanceof NoWeightsError);
        assert.match(e.message, /^test-org\/no-weights has no weights citebench can use on the hub \(404 for onnx\/model\.onnx, onnx\/model_quantized\.onnx, model\.safetensors, model\.safetensors\.index\.json, pytorch_model\.bin, pytorch_model\.bin\.index\.json at http:.*, revision main\)\nEXPORT HINT$/);
      },
    ],
    ['test-org/no-tokenizer', (e) => assert.match(e.message, /^test-org\/no-tokenizer has neither tokenizer\.json nor vocab\.txt on the hub \(revision main\): citebench cannot tokenize for it\nEXPORT HINT$/)],
    ['test-org/evil-index', (e) => assert.match(e.message, /^model\.safetensors\.index\.json \[weight_map\]: shard name "\.\.\/\.\.\/outside\.safetensors" is not a plain file name$/)],
    ['test-org/missing-shard', (e) => assert.match(e.message, /^model\.safetensors\.index\.json \[weight_map\] lists model-00001-of-00001\.safetensors, but the hub has no such file \(http:.*: 404\)$/)],
  ];
  for (const [repo, check] of cases) {
    const { models, dir } = place(repo);
    await assert.rejects(downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false, hint: 'EXPORT HINT' }), (e: Error) => {
      check(e);
      return true;
    });
    assert.deepEqual(readdirSync(models), [], repo);
  }
  assert.ok(!existsSync(join(root, 'outside.safetensors')));
});

test('temporary folders: a dead process\'s folder of the same repo+revision is taken over, others of dead processes are removed, live ones are left', async () => {
  const repo = 'allenai/aspire-contextualsentence-singlem-biomed';
  const { models, dir } = place(repo);
  hub.cutAfter(repo, 'pytorch_model.bin', 10_000);
  await assert.rejects(downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false }), /resume/);
  const [mine] = temps(models);
  const host = hostname().replace(/[^A-Za-z0-9.]/g, '_') || 'host';
  const name = '.allenai--aspire-contextualsentence-singlem-biomed.download-';
  const otherRevDead = `${name}0badc0de-${host}-999999999-00000000`;
  const legacyDead = `${name}999999998-dead`;
  const live = `${name}0badc0de-${host}-${process.ppid}-11111111`; // the parent process: alive
  const otherHost = `${name}0badc0de-some.other.host-999999999-22222222`;
  for (const t of [otherRevDead, legacyDead, live, otherHost]) {
    mkdirSync(join(models, t));
    writeFileSync(join(models, t, 'config.json'), '{}');
  }
  const before = hub.requests.length;
  await downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false });
  assert.ok(hub.requests.slice(before).some((r) => r.file === 'pytorch_model.bin' && r.range === 'bytes=10000-' && r.status === 206), 'resumed from the dead folder');
  assert.ok(!existsSync(join(models, mine)), 'the reused folder became the model folder');
  assert.deepEqual(readdirSync(models).sort(), [live, otherHost, 'allenai--aspire-contextualsentence-singlem-biomed'].sort());
});

test('an existing folder is never overwritten: another repo or revision there is an error', async () => {
  const { dir } = place('allenai/specter');
  mkdirSync(dir);
  await assert.rejects(downloadModel('allenai/specter', dir, { endpoint: hub.endpoint }), /already exists: remove it to download allenai\/specter at revision 'main'$/);
  const other = place('allenai/specter2_base');
  await downloadModel('allenai/specter2_base', other.dir, { endpoint: hub.endpoint, progress: false });
  await assert.rejects(downloadModel('allenai/specter2_base', other.dir, { endpoint: hub.endpoint, revision: 'v2' }), /already exists \(allenai\/specter2_base at revision 'main'\): remove it/);
});

test('readDownloadRecord: undefined without a record; a malformed record names the file and field', () => {
  const d = join(root, 'records');
  mkdirSync(d);
  assert.equal(readDownloadRecord(d), undefined);
  writeFileSync(join(d, DOWNLOAD_RECORD), JSON.stringify({ repo: 'a/b', revision: 'main', endpoint: 'x', files: { 'config.json': 612 } }));
  assert.throws(() => readDownloadRecord(d), /citebench-download\.json \[files\.config\.json\]: needs \{bytes: integer, sha256: 64 hex digits\}.*download it again$/);
  writeFileSync(join(d, DOWNLOAD_RECORD), '{"repo": 1}');
  assert.throws(() => readDownloadRecord(d), /\[repo\]: missing or not a string/);
});

test('a 401 after part of a download (token missing on the second run) keeps the partial files; with the token the run resumes', async () => {
  const repo = 'test-org/private';
  const { models, dir } = place(repo);
  const token = 'hf_fake_token';
  hub.cutAfter(repo, 'pytorch_model.bin', 400);
  await assert.rejects(downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false, token }), /resume/);
  await assert.rejects(downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false }), /HTTP 401 .*set HF_TOKEN/);
  assert.equal(temps(models).length, 1, 'the partial download is kept');
  const before = hub.requests.length;
  await downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false, token });
  const w = hub.requests.slice(before).filter((r) => r.file === 'pytorch_model.bin');
  assert.deepEqual(w.map((r) => `${r.status} ${r.range}`), ['206 bytes=400-']);
  assert.ok(readFileSync(join(dir, 'pytorch_model.bin')).equals(hub.file(repo, 'pytorch_model.bin')));
});

test('progress: a line per file with bytes, rate and ETA on a terminal, nothing when silenced', async () => {
  const repo = 'test-org/flaky';
  const written: string[] = [];
  const saved = { write: process.stderr.write, isTTY: process.stderr.isTTY, ci: process.env.CI };
  process.stderr.write = ((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  // stderr stands in for a terminal outside CI: the only place a bar is drawn (util/progress.ts decides).
  process.stderr.isTTY = true;
  delete process.env.CI;
  try {
    await downloadModel(repo, place(repo).dir, { endpoint: hub.endpoint, progress: false });
    assert.deepEqual(written, []);
    await downloadModel(repo, place(repo).dir, { endpoint: hub.endpoint });
  } finally {
    process.stderr.write = saved.write;
    process.stderr.isTTY = saved.isTTY;
    if (saved.ci === undefined) delete process.env.CI;
    else process.env.CI = saved.ci;
  }
  const text = written.join('');
  assert.match(text, /download test-org\/flaky pytorch_model\.bin: 20\.0k\/20\.0k \(100\.0%\) .* bytes\/s {2}ETA /);
  assert.match(text, /download test-org\/flaky config\.json: /);
});

test('weights behind an LFS redirect (302 to a content-addressed URL, as the hub serves them): Range and If-Range survive the redirect', async () => {
  const repo = 'test-org/lfs';
  const { dir } = place(repo);
  hub.cutAfter(repo, 'model.safetensors', 7000);
  await assert.rejects(downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false, token: 'hf_lfs' }), /resume/);
  const before = hub.requests.length;
  await downloadModel(repo, dir, { endpoint: hub.endpoint, progress: false, token: 'hf_lfs' });
  const w = hub.requests.slice(before).filter((r) => r.file === 'model.safetensors');
  assert.deepEqual(w.map((r) => `${r.cdn ? 'cdn' : 'hub'} ${r.status} ${r.range}`), ['hub 302 bytes=7000-', 'cdn 206 bytes=7000-']);
  assert.ok(readFileSync(join(dir, 'model.safetensors')).equals(hub.file(repo, 'model.safetensors')));
  const record = readDownloadRecord(dir)!;
  assert.equal(record.files['model.safetensors'].sha256, hub.sha256(repo, 'model.safetensors'));
  assert.equal(record.commit, '3'.repeat(40));
});
