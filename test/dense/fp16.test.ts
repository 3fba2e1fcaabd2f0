// Float16 compute "where the model allows": a folder with onnx/model_fp16.onnx is loaded in float16 when asked
// (--fp16-model, `fp16: true` in a config), its float16 outputs are widened before pooling; a folder without one
// falls back to model.onnx. The fixture is the shared tiny random model converted by onnxruntime's converter
// (scripts/dev/make-fp16-fixture.py), the way a user makes one from an fp32 export.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import * as ort from 'onnxruntime-node';
import { resolveModel } from '../../src/retrieval/dense/models.ts';
import { Encoder } from '../../src/retrieval/dense/encoder.ts';
import { parseConfig } from '../../src/experiments/config.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { REPO } from '../helpers/shared.ts';
import { cliArgv } from '../helpers/cli.ts';

const TINY = new URL('../../../shared/models/tiny-scibert-random', import.meta.url).pathname;
const FIXTURE = new URL('./fixtures/fp16/tiny-scibert-random-model_fp16.onnx', import.meta.url).pathname;
const skip = existsSync(TINY) ? false : `needs ${TINY} (../shared)`;

/** The tiny model folder with a float16 export beside its float32 one. */
function folderWithFp16(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'cb-fp16-')), 'tiny-fp16');
  cpSync(TINY, dir, { recursive: true });
  copyFileSync(FIXTURE, join(dir, 'onnx', 'model_fp16.onnx'));
  return dir;
}

/** binary16 → number, written independently of src/retrieval/dense/float16.ts. */
function half(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

const ARTICLES = [
  { title: 'Citation recommendation with transformers', abstract: 'We compare BM25 and article encoders on millions of documents. Sparse retrieval is strong.' },
  { title: 'Protein folding', abstract: 'A short abstract.' },
  { title: 'Graph navigation', abstract: 'Papers cited by the top results join the candidates, then a re-ranker orders them. It helps recall.' },
];

test('fp16: model_fp16.onnx is chosen only when asked, falls back to model.onnx, and has its own fingerprint', { skip }, () => {
  const dir = folderWithFp16();
  const fp32 = resolveModel(dir);
  const fp16 = resolveModel(dir, { fp16: true });
  assert.equal(basename(fp32.onnxFile), 'model.onnx');
  assert.equal(basename(fp16.onnxFile), 'model_fp16.onnx');
  assert.notEqual(fp16.fingerprint, fp32.fingerprint, 'an fp16 store never resumes into an fp32 one');
  assert.equal(basename(resolveModel(TINY, { fp16: true }).onnxFile), 'model.onnx', 'no float16 export: fp32');
  assert.throws(() => resolveModel(dir, { fp16: true, quantized: true }), /fp16 and quantized exclude each other/);
});

test('fp16: CLS vectors are the float16 graph outputs widened exactly, and close to the float32 model', { skip }, async () => {
  const dir = folderWithFp16();
  const enc16 = await Encoder.load(resolveModel(dir, { fp16: true }), { threads: 1 });
  const enc32 = await Encoder.load(resolveModel(dir), { threads: 1 });
  const v16 = await enc16.encode(ARTICLES);
  const v32 = await enc32.encode(ARTICLES);
  const dim = enc16.dim;
  // Oracle: the float16 session run directly, one article at a time, decoded by the test's own binary16 reader.
  const s = await ort.InferenceSession.create(FIXTURE, { intraOpNumThreads: 1 });
  for (let a = 0; a < ARTICLES.length; a++) {
    const ids = Array.from(enc16.tokenize(ARTICLES[a]).ids);
    const t = (x: bigint[]) => new ort.Tensor('int64', BigInt64Array.from(x), [1, ids.length]);
    const out = (await s.run({ input_ids: t(ids.map(BigInt)), attention_mask: t(ids.map(() => 1n)), token_type_ids: t(ids.map(() => 0n)) })).last_hidden_state;
    assert.equal(out.type, 'float16');
    const raw = out.data as unknown as Uint16Array;
    let cos = 0, n16 = 0, n32 = 0;
    for (let j = 0; j < dim; j++) {
      // Batching (with padding) may change float16 rounding of some hidden units by one ulp.
      const want = half(raw[j]);
      const got = v16.vectors[a * dim + j];
      assert.ok(Math.abs(got - want) <= Math.abs(want) * 2 ** -9 + 1e-6, `article ${a} dim ${j}: ${got} vs ${want}`);
      cos += got * v32.vectors[a * dim + j];
      n16 += got * got;
      n32 += v32.vectors[a * dim + j] ** 2;
    }
    cos /= Math.sqrt(n16 * n32);
    assert.ok(cos > 0.999, `article ${a}: float16 vs float32 cosine ${cos}`);
  }
  await Promise.all([enc16.release(), enc32.release(), s.release()]);
});

test('fp16: ASPIRE pooling reads the float16 mean_hidden_states output', { skip }, async () => {
  const dir = folderWithFp16();
  const enc16 = await Encoder.load(resolveModel(dir, { fp16: true, overrides: { pooling: 'aspire' } }), { threads: 1 });
  const enc32 = await Encoder.load(resolveModel(dir, { overrides: { pooling: 'aspire' } }), { threads: 1 });
  const [a, b] = [await enc16.encode(ARTICLES), await enc32.encode(ARTICLES)];
  assert.deepEqual(a.offsets, b.offsets, 'one vector per sentence either way');
  let worst = 0;
  for (let i = 0; i < a.vectors.length; i++) worst = Math.max(worst, Math.abs(a.vectors[i] - b.vectors[i]));
  assert.ok(worst > 0 && worst < 0.05, `float16 sentence vectors within 0.05 of float32 (max diff ${worst})`);
  await Promise.all([enc16.release(), enc32.release()]);
});

test('fp16: config key and CLI flag', { skip }, () => {
  const yaml = (model: string) => `corpus: { synthetic: { articles: 100 } }\nmodels:\n  tiny: ${model}\nprotocols: { dataset: { queries: 2, pools: [50] } }\n`;
  const cfg = parseConfig(yaml('{ kind: dense, model: tiny, fp16: true }'), 'x.yaml');
  assert.equal((cfg.models[0] as { fp16?: boolean }).fp16, true);
  assert.equal('fp16' in parseConfig(yaml('{ kind: dense, model: tiny }'), 'x.yaml').models[0], false, 'absent when off: existing configs keep their hash');
  assert.throws(() => parseConfig(yaml('{ kind: dense, model: tiny, fp16: true, quantized: true }'), 'x.yaml'), /x\.yaml:3.*fp16.*exclude each other/s);
  const dir = folderWithFp16();
  const store = join(mkdtempSync(join(tmpdir(), 'cb-fp16-store-')), 'corpus');
  const shared = new URL('../../../shared/data/s2orc-sample', import.meta.url).pathname;
  const cli = (args: string[]) => spawnSync(process.execPath, cliArgv(args), { encoding: 'utf8', cwd: REPO });
  let r = cli(['corpus', 'build', '--input', shared, '--out', store, '--no-prefilter']);
  assert.equal(r.status, 0, r.stderr);
  const corpus = CorpusStore.open(store);
  const ids = join(store, '..', 'ids.txt');
  writeFileSync(ids, `${corpus.id(0)}\n${corpus.id(1)}\n`);
  corpus.close();
  r = cli(['encode', '--model', dir, '--fp16-model', '--corpus', store, '--out', join(store, '..', 'emb'), '--threads', '1', '--ids', ids]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /model_fp16\.onnx\), 0 of 2 requested|model_fp16\.onnx\), 2 of 2 requested/);
});
