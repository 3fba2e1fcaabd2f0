/**
 * The paper's encoders as their hub repositories publish them: a loopback fake hub serves each of the six repos in
 * its real file layout (docs/dense.md, "What each paper model's repository holds") with a random-weight BERT
 * checkpoint from test/dense/fixtures/checkpoints in place of the real weights. `citebench encode --model NAME
 * --allow-remote` downloads, converts once and encodes; a second call downloads and converts nothing. The vectors
 * equal PyTorch transformers' (the fixtures' recorded outputs) and a search over them ranks as PyTorch's do.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { CONVERT_CACHE } from '../../src/retrieval/dense/convert.ts';
import { Encoder } from '../../src/retrieval/dense/encoder.ts';
import { resolveModel } from '../../src/retrieval/dense/models.ts';
import { readDownloadRecord } from '../../src/retrieval/dense/hub/record.ts';
import { bertTokenizerJson } from '../../src/retrieval/dense/wordpiece.ts';
import { FakeHub } from '../helpers/fake-hub.ts';
import { cliArgv } from '../helpers/cli.ts';

const FIX = new URL('./fixtures/checkpoints/', import.meta.url).pathname;
const S2ORC = new URL('../../../shared/data/s2orc-sample/metadata.jsonl', import.meta.url).pathname;

const vocab = readFileSync(join(FIX, 'vocab.txt'));
const tokConfig = readFileSync(join(FIX, 'tokenizer_config.json'), 'utf8');
const specialMap = '{"unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]", "mask_token": "[MASK]"}';
const fixture = (c: string, f: string) => readFileSync(join(FIX, c, f));

interface PaperRepo {
  name: string;
  repo: string;
  /** The fixture case standing in for the real weights (and its weights' dtype, for the expected outputs). */
  fixture: string;
  files: Record<string, Buffer | string>;
  /** Files the download must fetch (sorted). */
  fetched: string[];
}

/** Each repo's real layout (config, tokenizer files, weights), with fixture bytes. */
const REPOS: PaperRepo[] = [
  {
    name: 'scibert', repo: 'allenai/scibert_scivocab_uncased', fixture: 'legacy-f32-pretraining',
    files: { 'config.json': fixture('legacy-f32-pretraining', 'config.json'), 'vocab.txt': vocab, 'pytorch_model.bin': fixture('legacy-f32-pretraining', 'pytorch_model.bin'), 'flax_model.msgpack': 'not fetched' },
    fetched: ['config.json', 'pytorch_model.bin', 'vocab.txt'],
  },
  {
    name: 'specter', repo: 'allenai/specter', fixture: 'legacy-f16-bertmodel',
    files: { 'config.json': fixture('legacy-f16-bertmodel', 'config.json'), 'vocab.txt': vocab, 'tokenizer_config.json': tokConfig, 'special_tokens_map.json': specialMap, 'pytorch_model.bin': fixture('legacy-f16-bertmodel', 'pytorch_model.bin'), 'tf_model.h5': 'not fetched' },
    fetched: ['config.json', 'pytorch_model.bin', 'special_tokens_map.json', 'tokenizer_config.json', 'vocab.txt'],
  },
  {
    name: 'scincl', repo: 'malteos/scincl', fixture: 'safetensors-f32-bertmodel',
    files: { 'config.json': fixture('safetensors-f32-bertmodel', 'config.json'), 'vocab.txt': vocab, 'tokenizer_config.json': tokConfig, 'special_tokens_map.json': specialMap, 'model.safetensors': fixture('safetensors-f32-bertmodel', 'model.safetensors'), 'pytorch_model.bin': fixture('zip-f32-pretraining', 'pytorch_model.bin') },
    fetched: ['config.json', 'model.safetensors', 'special_tokens_map.json', 'tokenizer_config.json', 'vocab.txt'],
  },
  {
    name: 'aspire-biomed', repo: 'allenai/aspire-contextualsentence-singlem-biomed', fixture: 'zip-f16-bertmodel',
    files: { 'config.json': fixture('zip-f16-bertmodel', 'config.json'), 'vocab.txt': vocab, 'tokenizer_config.json': tokConfig, 'special_tokens_map.json': specialMap, 'pytorch_model.bin': fixture('zip-f16-bertmodel', 'pytorch_model.bin') },
    fetched: ['config.json', 'pytorch_model.bin', 'special_tokens_map.json', 'tokenizer_config.json', 'vocab.txt'],
  },
  {
    name: 'aspire-compsci', repo: 'allenai/aspire-contextualsentence-singlem-compsci', fixture: 'zip-f32-pretraining',
    files: { 'config.json': fixture('zip-f32-pretraining', 'config.json'), 'vocab.txt': vocab, 'tokenizer_config.json': tokConfig, 'special_tokens_map.json': specialMap, 'pytorch_model.bin': fixture('zip-f32-pretraining', 'pytorch_model.bin') },
    fetched: ['config.json', 'pytorch_model.bin', 'special_tokens_map.json', 'tokenizer_config.json', 'vocab.txt'],
  },
  {
    name: 'specter2-base', repo: 'allenai/specter2_base', fixture: 'safetensors-f16-pretraining',
    files: {
      'config.json': fixture('safetensors-f16-pretraining', 'config.json'), 'vocab.txt': vocab, 'tokenizer_config.json': tokConfig, 'special_tokens_map.json': specialMap,
      'tokenizer.json': JSON.stringify(bertTokenizerJson(vocab.toString('utf8'), JSON.parse(tokConfig), 'tokenizer_config.json')),
      // specter2_base holds pytorch_model.bin on main; a safetensors file (as on its conversion-bot branches) is preferred when present.
      'model.safetensors': fixture('safetensors-f16-pretraining', 'model.safetensors'), 'pytorch_model.bin': fixture('zip-f32-pretraining', 'pytorch_model.bin'),
    },
    fetched: ['config.json', 'model.safetensors', 'special_tokens_map.json', 'tokenizer.json', 'tokenizer_config.json'],
  },
];

interface Expected {
  hidden: number;
  texts: { paper_id: string; input_ids: number[]; single: { last: number; mean: number } }[];
}
function expected(tag: 'f32' | 'f16'): { meta: Expected; values: Float32Array } {
  const buf = readFileSync(join(FIX, `expected-${tag}.bin`));
  return { meta: JSON.parse(readFileSync(join(FIX, `expected-${tag}.json`), 'utf8')) as Expected, values: new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4) };
}

let hub: FakeHub;
let root = '';
let store = '';

/** The corpus: the fixtures' eight S2ORC records when ../shared is here, else three records made up here. */
function corpusLines(): string[] {
  const ids = new Set(expected('f32').meta.texts.map((t) => t.paper_id));
  if (existsSync(S2ORC)) return readFileSync(S2ORC, 'utf8').split('\n').filter((l) => l && ids.has((JSON.parse(l) as { paper_id: string }).paper_id));
  return ['Citation recommendation at scale', 'Transformer article encoders', 'Lexical baselines'].map((title, i) =>
    JSON.stringify({ paper_id: `p${i}`, title, abstract: `${title} are studied. We report results.`, year: 2019, mag_field_of_study: ['Computer Science'], outbound_citations: [], inbound_citations: [] }),
  );
}

before(async () => {
  hub = await new FakeHub(Object.fromEntries(REPOS.map((r) => [r.repo, { files: r.files, lfs: true }]))).start();
  root = mkdtempSync(join(tmpdir(), 'cb-paper-ckpt-'));
  const input = join(root, 'in.jsonl');
  writeFileSync(input, corpusLines().join('\n') + '\n');
  store = join(root, 'store');
  await buildCorpusStore({ input, out: store, prefilter: null, progress: false });
});

after(async () => {
  await hub?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolveRun) => {
    const p = spawn(process.execPath, cliArgv(args), { env: { ...process.env, HF_ENDPOINT: hub.endpoint, HF_TOKEN: '', CI: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => resolveRun({ code: code ?? -1, out, err }));
  });
}

/** Mtime of every file under the model folder's conversion cache. */
function cacheState(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out[p] = statSync(p).mtimeMs;
    }
  };
  walk(join(dir, CONVERT_CACHE));
  return out;
}

test('citebench encode --model NAME --allow-remote: each paper model downloads its real layout, converts once, encodes; a second call downloads and converts nothing', async () => {
  const models = join(root, 'models');
  for (const r of REPOS) {
    const emb = join(root, 'emb', r.name);
    const n = hub.requests.length;
    const first = await cli('encode', '--model', r.name, '--allow-remote', '--models-dir', models, '--corpus', store, '--out', emb, '--threads', '1');
    assert.equal(first.code, 0, `${r.name}: ${first.err}`);
    assert.match(first.err, /converting .* to ONNX/, `${r.name}: converted on first use`);
    const dir = join(models, r.name);
    const asked = [...new Set(hub.requests.slice(n).filter((q) => q.status < 400).map((q) => q.file))].sort();
    assert.deepEqual(asked, r.fetched, `${r.name}: fetches what the repo holds that citebench needs, nothing else`);
    const record = readDownloadRecord(dir)!;
    for (const f of r.fetched) assert.equal(record.files[f]!.sha256, hub.sha256(r.repo, f), `${r.name}: ${f} recorded with its SHA-256`);
    const m = resolveModel(r.name, { modelsDir: models });
    const weights = r.fetched.find((f) => f.endsWith('.bin') || f.endsWith('.safetensors'))!;
    assert.deepEqual(m.checkpoint, [{ file: weights, sha256: hub.sha256(r.repo, weights) }], `${r.name}: the resolved model names its checkpoint`);
    const cached = cacheState(dir);
    assert.equal(Object.keys(cached).length, 1, `${r.name}: one converted file`);

    const k = hub.requests.length;
    const second = await cli('encode', '--model', r.name, '--allow-remote', '--models-dir', models, '--corpus', store, '--out', emb, '--threads', '1');
    assert.equal(second.code, 0, second.err);
    assert.equal(hub.requests.length, k, `${r.name}: the second call sends no request`);
    assert.doesNotMatch(second.err, /converting/, `${r.name}: the second call converts nothing`);
    assert.deepEqual(cacheState(dir), cached, `${r.name}: the converted file is untouched`);
    assert.match(second.out + second.err, /0 of \d+ requested articles encoded now/);
  }
});

test('the converted paper models give PyTorch transformers\' [CLS] vectors (≤ 1e-4) and its ranking, from the ids the vocab.txt tokenizer makes', async () => {
  const models = join(root, 'models');
  for (const r of REPOS.filter((x) => !x.name.startsWith('aspire'))) {
    if (!existsSync(join(models, r.name))) assert.fail(`${r.name} was not downloaded by the test before`);
    const { meta, values } = expected(r.fixture.includes('f16') ? 'f16' : 'f32');
    const H = meta.hidden;
    const encoder = await Encoder.load(resolveModel(r.name, { modelsDir: models }), { threads: 1 });
    try {
      const got = await encoder.encodeTokenized(meta.texts.map((t) => ({ ids: Int32Array.from(t.input_ids) })));
      for (let i = 0; i < meta.texts.length; i++) {
        const want = values.subarray(meta.texts[i]!.single.last, meta.texts[i]!.single.last + H); // row 0 = [CLS]
        for (let j = 0; j < H; j++) assert.ok(Math.abs(got.vectors[i * H + j]! - want[j]!) <= 1e-4, `${r.name}: text ${i} dim ${j}`);
      }
      // A search over the eight texts: every query ranks the others as PyTorch's vectors rank them (−L2²).
      const rank = (v: (i: number, j: number) => number, q: number) =>
        meta.texts.map((_, d) => d).filter((d) => d !== q).sort((a, b) => {
          const dist = (d: number) => { let s = 0; for (let j = 0; j < H; j++) s += (v(q, j) - v(d, j)) ** 2; return s; };
          return dist(a) - dist(b) || a - b;
        });
      for (let q = 0; q < meta.texts.length; q++)
        assert.deepEqual(rank((i, j) => got.vectors[i * H + j]!, q), rank((i, j) => values[meta.texts[i]!.single.last + j]!, q), `${r.name}: ranking for query ${q}`);
      // With the real S2ORC records, the vocab.txt (or tokenizer.json) tokenizer gives PyTorch's input ids.
      if (existsSync(S2ORC)) {
        const corpus = CorpusStore.open(store);
        for (const a of corpus.texts()) {
          const want = meta.texts.find((t) => t.paper_id === corpus.id(a.index))!;
          assert.deepEqual(Array.from(encoder.tokenize(a).ids), want.input_ids, `${r.name}: ids of ${want.paper_id}`);
        }
      }
    } finally {
      await encoder.release();
    }
  }
});

test('citebench run --allow-remote: a config naming a paper model downloads and converts it, and the run uses it', { timeout: 300_000 }, async () => {
  const models = join(root, 'run-models');
  const cfg = join(root, 'paper-models.yaml');
  writeFileSync(cfg, [
    'name: paper-models', 'seed: 4', 'corpus: {synthetic: {articles: 2000}}', 'k: 20',
    'models:', '  bm25: {}', `  scincl: {modelsDir: ${models}}`,
    'protocols:', '  dataset: {queries: 4, pools: [300], repeats: 1}', '',
  ].join('\n'));
  const args = ['run', cfg, '--work', join(root, 'run-work'), '--results', join(root, 'run-results'), '--threads', '1'];
  // Without --allow-remote nothing is fetched: the model is skipped with the way to add it.
  const n = hub.requests.length;
  const off = await cli(...args);
  assert.equal(off.code, 0, off.err);
  assert.match(off.err, /scincl: skipped — model 'scincl' \(malteos\/scincl\) is not available locally.*--allow-remote downloads malteos\/scincl/);
  assert.equal(hub.requests.length, n);
  const on = await cli(...args, '--allow-remote');
  assert.equal(on.code, 0, on.err);
  assert.match(on.err, /\[models\] scincl: converting model\.safetensors \(safetensors\) to ONNX/);
  const results = JSON.parse(readFileSync(join(root, 'run-results', 'results.json'), 'utf8')) as { models: { name: string; settings: { weightFiles?: unknown } }[] };
  assert.deepEqual(results.models.find((m) => m.name === 'scincl')?.settings.weightFiles, [{ file: 'model.safetensors', sha256: hub.sha256('malteos/scincl', 'model.safetensors') }]);
});
