import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { InMemoryTexts } from '../../src/corpus/article.ts';
import { resolveModel, type ResolvedModel } from '../../src/retrieval/dense/models.ts';
import { Encoder } from '../../src/retrieval/dense/encoder.ts';
import { EmbeddingStore, type StoredType } from '../../src/retrieval/dense/store.ts';
import { DenseRetriever } from '../../src/retrieval/dense/retriever.ts';
import { toHalf, fromHalf } from '../../src/retrieval/dense/float16.ts';
import { buildHnsw, searchHnsw } from '../../src/retrieval/dense/hnsw.ts';
import { vectorStoreDir } from '../../src/retrieval/dense/role-stores.ts';
import { defaultEmbDir } from '../../src/cli/commands/dense-common.ts';

const TINY = new URL('../../../shared/models/tiny-scibert-random', import.meta.url).pathname;
const SAMPLE = new URL('../../../shared/data/scirepeval-sample/fos_small.json', import.meta.url).pathname;
const skip = existsSync(TINY) && existsSync(SAMPLE) ? false : `needs ${TINY} and ${SAMPLE} (../shared)`;
const N = 60;
const CHUNK = 8;

function texts(): InMemoryTexts {
  const raw = JSON.parse(readFileSync(SAMPLE, 'utf8')) as { title?: string; abstract?: string }[];
  return new InMemoryTexts(raw.slice(0, N).map((r) => ({ title: r.title ?? '', abstract: r.abstract ?? '' })));
}

function open(dir: string, model: ResolvedModel, dim: number, dtype: StoredType = 'float32', kind: 'single' | 'multi' = 'single') {
  return EmbeddingStore.openOrCreate(dir, { model: model.name, fingerprint: model.fingerprint, dim, dtype, kind, chunkSize: CHUNK, corpusSize: N });
}

function files(dir: string): Map<string, Buffer> {
  return new Map(readdirSync(dir).sort().map((f) => [f, readFileSync(join(dir, f))]));
}

const tmp = () => mkdtempSync(join(tmpdir(), 'cb-dense-'));

test('store: a run SIGKILLed after 3 chunks resumes from the first missing chunk, byte-identical to an uninterrupted run', { skip }, async () => {
  const root = tmp();
  try {
    const model = resolveModel(TINY);
    const enc = await Encoder.load(model, { batchSize: 4 });
    const src = texts();
    const full = join(root, 'full');
    assert.equal(await open(full, model, enc.dim).encodeMissing(enc, src), N);

    const killed = join(root, 'killed');
    const child = spawnSync(process.execPath, ['--import', 'tsx', new URL('./fixtures/encode-child.ts', import.meta.url).pathname, killed, '3', String(N), String(CHUNK)], { encoding: 'utf8' });
    assert.equal(child.signal, 'SIGKILL', `child should die by SIGKILL: ${child.stderr}`);
    const left = readdirSync(killed).sort();
    assert.deepEqual(left, ['chunk-000000.bin', 'chunk-000001.bin', 'chunk-000002.bin', 'manifest.json']);

    const written: number[] = [];
    const n = await open(killed, model, enc.dim).encodeMissing(enc, src, undefined, { onChunkWritten: (c) => written.push(c) });
    assert.equal(n, N - 3 * CHUNK);
    assert.deepEqual(written, [3, 4, 5, 6, 7]);
    assert.deepEqual(files(killed), files(full));

    // Nothing left to do on a third run; all vectors load.
    assert.equal(await open(killed, model, enc.dim).encodeMissing(enc, src), 0);
    const all = EmbeddingStore.open(killed).load(Uint32Array.from({ length: N }, (_, i) => i));
    const direct = await enc.encode(Array.from({ length: N }, (_, i) => src.text(i)));
    let diff = 0;
    for (let i = 0; i < all.vectors.length; i++) diff = Math.max(diff, Math.abs(all.vectors[i] - direct.vectors[i]));
    assert.ok(diff <= 1e-5, `store vs direct encode: ${diff}`);

    // A different model (here: other pooling → other fingerprint) cannot resume into this store.
    const other = resolveModel(TINY, { overrides: { pooling: 'mean' } });
    assert.throws(() => open(killed, other, enc.dim), /different settings: model fingerprint/);
    assert.throws(() => open(killed, model, enc.dim, 'float16'), /dtype float32 ≠ float16/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('store: --ids subsets encode each article once, later runs add only the missing ones', { skip }, async () => {
  const root = tmp();
  try {
    const model = resolveModel(TINY);
    const enc = await Encoder.load(model, { batchSize: 4 });
    const src = texts();
    const store = open(root, model, enc.dim);
    assert.equal(await store.encodeMissing(enc, src, Uint32Array.of(1, 5, 9, 40)), 4);
    assert.equal(await store.encodeMissing(enc, src, Uint32Array.of(1, 5, 9, 40)), 0);
    assert.equal(await store.encodeMissing(enc, src, Uint32Array.of(0, 5, 41)), 2);
    assert.deepEqual(Array.from(store.presentIndices()), [0, 1, 5, 9, 40, 41]);
    assert.throws(() => store.load(Uint32Array.of(2)), /corpus index 2 is not encoded/);
    const got = store.load(Uint32Array.of(0, 1, 5, 9, 40, 41));
    const direct = await enc.encode([0, 1, 5, 9, 40, 41].map((i) => src.text(i)));
    for (let i = 0; i < got.vectors.length; i++) assert.ok(Math.abs(got.vectors[i] - direct.vectors[i]) <= 1e-5);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('store: float16 storage and ASPIRE sentence vectors with offsets', { skip }, async () => {
  const root = tmp();
  try {
    assert.equal(fromHalf(toHalf(1)), 1);
    assert.equal(fromHalf(toHalf(65504)), 65504);
    assert.equal(fromHalf(toHalf(1 + 2 ** -11)), 1); // tie → even
    assert.equal(fromHalf(toHalf(1 + 3 * 2 ** -11)), 1 + 2 ** -9);
    assert.equal(fromHalf(toHalf(2 ** -24)), 2 ** -24);
    const model = resolveModel(TINY, { overrides: { pooling: 'aspire' } });
    const enc = await Encoder.load(model, { batchSize: 4 });
    const src = texts();
    const s16 = open(join(root, 'f16'), model, enc.dim, 'float16', 'multi');
    await s16.encodeMissing(enc, src);
    const got = s16.load(Uint32Array.from({ length: N }, (_, i) => i));
    const direct = await enc.encode(Array.from({ length: N }, (_, i) => src.text(i)));
    assert.deepEqual(got.offsets, direct.offsets);
    assert.ok(got.offsets[N] > N, 'several sentences per article');
    for (let i = 0; i < got.vectors.length; i++) {
      const want = fromHalf(toHalf(direct.vectors[i]));
      assert.ok(Math.abs(got.vectors[i] - want) <= Math.abs(want) * 2 ** -10 + 1e-7, `at ${i}: ${got.vectors[i]} vs ${want}`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('DenseRetriever: pool restriction, excludeSelf and scores equal a brute force over the stored vectors', { skip }, async () => {
  const root = tmp();
  try {
    const model = resolveModel(TINY);
    const enc = await Encoder.load(model, { batchSize: 8 });
    const src = texts();
    const store = open(root, model, enc.dim);
    const retriever = new DenseRetriever({ name: 'tiny', store, distance: 'l2', encoder: enc, texts: src });
    const queries = Uint32Array.of(3, 17, 3, 50);
    const pool = Uint32Array.from({ length: N }, (_, i) => i).filter((i) => i % 3 !== 1 || i === 17);
    const k = 12;
    const r = await retriever.search({ queries, pool, k });
    const pv = store.load(pool).vectors; // the queries are pool members here
    const d = enc.dim;
    const row = (i: number) => pool.indexOf(i) * d;
    for (let qi = 0; qi < queries.length; qi++) {
      const q = queries[qi];
      const cand = Array.from(pool)
        .filter((p) => p !== q)
        .map((p) => {
          let a = 0;
          for (let j = 0; j < d; j++) a += (pv[row(q) + j] - pv[row(p) + j]) ** 2;
          return { p, s: Math.fround(0 - a) };
        })
        .sort((a, b) => b.s - a.s || a.p - b.p)
        .slice(0, k);
      assert.deepEqual(Array.from(r.docs.subarray(r.offsets[qi], r.offsets[qi + 1])), cand.map((c) => c.p));
      assert.deepEqual(Array.from(r.scores.subarray(r.offsets[qi], r.offsets[qi + 1])), cand.map((c) => c.s));
    }
    // Only articles of the queries and the pool were encoded (on demand).
    assert.deepEqual(store.presentIndices(), pool); // queries 3, 17, 50 are pool members
    // HNSW on this small pool finds the same lists (re-scored exactly).
    // MDCR-style fixed candidate lists: each query ranks only its own candidates (self dropped).
    const candidates = [Uint32Array.of(9, 3, 30, 12), Uint32Array.of(0, 2), Uint32Array.of(3), Uint32Array.of(50, 45, 44)];
    const c = await retriever.search({ queries, candidates, k: 3 });
    for (let qi = 0; qi < queries.length; qi++) {
      const q = queries[qi];
      const want = Array.from(candidates[qi])
        .filter((p) => p !== q)
        .map((p) => {
          let a = 0;
          for (let j = 0; j < d; j++) a += (pv[row(q) + j] - pv[row(p) + j]) ** 2;
          return { p, s: Math.fround(0 - a) };
        })
        .sort((a, b) => b.s - a.s || a.p - b.p)
        .slice(0, 3);
      assert.deepEqual(Array.from(c.docs.subarray(c.offsets[qi], c.offsets[qi + 1])), want.map((x) => x.p));
      assert.deepEqual(Array.from(c.scores.subarray(c.offsets[qi], c.offsets[qi + 1])), want.map((x) => x.s));
    }
    const cachePath = join(root, 'graph.usearch');
    const hr = new DenseRetriever({ name: 'tiny', store, distance: 'l2', hnsw: { cachePath } });
    const h = await hr.search({ queries, pool, k });
    assert.deepEqual(h.docs, r.docs);
    assert.deepEqual(h.scores, r.scores);
    assert.ok(hr.lastBuildSeconds > 0 && existsSync(cachePath));
    assert.deepEqual(await hr.search({ queries, pool, k }), h);
    assert.equal(hr.lastBuildSeconds, 0, 'second search loads the cached graph');
    // Another pool of the same size must not reuse that graph.
    const pool2 = pool.map((x) => (x === 59 ? 58 : x)).sort();
    assert.equal(pool2.length, pool.length);
    const r2 = await retriever.search({ queries, pool: pool2, k });
    const h2 = await hr.search({ queries, pool: pool2, k });
    assert.ok(hr.lastBuildSeconds > 0, 'rebuilt for the other pool');
    assert.deepEqual(h2, r2);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('HNSW graph cache: keyed by the vectors it indexes; other vectors of the same size, an older key file, a damaged graph: built again, one line saying why', () => {
  const root = mkdtempSync(join(tmpdir(), 'cb-hnsw-key-'));
  try {
    const d = 4;
    const n = 50;
    const vectors = Float32Array.from({ length: n * d }, (_, i) => Math.sin(i * 0.37));
    const cachePath = join(root, 'graph.usearch');
    const lines: string[] = [];
    // What DenseRetriever names besides the vectors: two corpora of the same size give the same of these.
    const cacheInputs = { model: 'fp', dtype: 'float32', corpus: `${n} articles`, pool: Uint32Array.from({ length: n }, (_, i) => i), normalized: false };
    const opts = { cachePath, cacheInputs, log: (l: string) => lines.push(l) };
    const queries = vectors.slice(0, 5 * d);
    const top = (v: Float32Array, h = buildHnsw(v, d, 'l2', opts)) => ({ loaded: h.loaded, hits: searchHnsw(h, queries, v, d, 'l2', 10) });
    const fresh = (v: Float32Array) => searchHnsw(buildHnsw(v, d, 'l2'), queries, v, d, 'l2', 10);
    assert.equal(top(vectors).loaded, false);
    assert.equal(top(vectors).loaded, true);
    assert.deepEqual(lines, []);
    assert.equal(buildHnsw(vectors, d, 'l2', { ...opts, connectivity: 8 }).loaded, false, 'other graph settings');
    assert.match(lines.pop()!, /^HNSW graph .*graph\.usearch not reused \(parameters changed\): building it again$/);
    assert.equal(top(vectors).loaded, false);
    lines.length = 0;
    // Another corpus of the same size (every vector other), then one vector changed in its middle.
    const other = Float32Array.from({ length: n * d }, (_, i) => Math.cos(i * 0.91));
    const o = top(other);
    assert.equal(o.loaded, false, 'vectors of another corpus');
    assert.deepEqual(o.hits, fresh(other));
    assert.deepEqual(lines, [`HNSW graph ${cachePath} not reused (vectors changed): building it again`]);
    const edited = other.slice();
    edited[25 * d + 1] += 0.5;
    const e = top(edited);
    assert.equal(e.loaded, false, 'one vector changed');
    assert.deepEqual(e.hits, fresh(edited));
    assert.equal(lines.length, 2);
    // The '/'-joined key file of an older citebench is never trusted.
    writeFileSync(`${cachePath}.key`, `abc/${n}/${d}/l2/16/128/f32`);
    assert.equal(top(edited).loaded, false, 'the older key file');
    assert.equal(lines.pop(), `HNSW graph ${cachePath} not reused (written by an older citebench (another key format)): building it again`);
    // A graph file that is not the one its key file records (damaged; usearch would crash or hang reading it):
    // built again, never loaded.
    writeFileSync(cachePath, 'not a graph');
    assert.equal(top(edited).loaded, false, 'a damaged graph');
    assert.equal(lines.pop(), `HNSW graph ${cachePath} not reused (the graph file differs from the one its key records: damaged or replaced): building it again`);
    assert.equal(top(edited).loaded, true);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('vector store folders, one name: a CLI default as a run names its stores; an earlier <model>/ folder of the same vectors still read', () => {
  const root = mkdtempSync(join(tmpdir(), 'cb-emb-name-'));
  const cwd = process.cwd();
  try {
    process.chdir(root);
    const corpus = join(root, 'mystore');
    const base = join('data', 'embeddings', 'mystore');
    const model = { fingerprint: 'ab'.repeat(16), roleFingerprint: { query: 'ab'.repeat(16), document: 'ab'.repeat(16) } } as ResolvedModel;
    assert.equal(vectorStoreDir(join('w', 'embeddings'), 'm', model.fingerprint), join('w', 'embeddings', `m-${'ab'.repeat(6)}`), 'a run\'s store');
    assert.equal(defaultEmbDir(corpus, './tiny', model), join(base, `tiny-${'ab'.repeat(6)}`));
    // A folder named as before (no fingerprint) holding this model's vectors is read; of another model, not.
    const manifest = { model: 'tiny', fingerprint: model.fingerprint, dim: 4, dtype: 'float32' as const, kind: 'single' as const, chunkSize: 8, corpusSize: 3 };
    EmbeddingStore.openOrCreate(join(base, 'tiny'), manifest);
    assert.equal(defaultEmbDir(corpus, './tiny', model), join(base, 'tiny'));
    assert.equal(defaultEmbDir(corpus, './tiny', { ...model, fingerprint: 'cd'.repeat(16), roleFingerprint: { query: 'cd'.repeat(16), document: 'cd'.repeat(16) } }), join(base, `tiny-${'cd'.repeat(6)}`));
    // Without the model (encode --status, dense search --no-encode, embeddings export): the one folder of the model.
    assert.equal(defaultEmbDir(corpus, './tiny'), join(base, 'tiny'), 'only the earlier one');
    EmbeddingStore.openOrCreate(join(base, `tiny-${'cd'.repeat(6)}`), { ...manifest, fingerprint: 'cd'.repeat(16) });
    assert.equal(defaultEmbDir(corpus, './tiny'), join(base, `tiny-${'cd'.repeat(6)}`));
    EmbeddingStore.openOrCreate(join(base, `tiny-${'ab'.repeat(6)}`), manifest);
    assert.throws(() => defaultEmbDir(corpus, './tiny'), /2 embedding stores of \.\/tiny \(tiny-abababababab, tiny-cdcdcdcdcdcd\): name one/);
  } finally {
    process.chdir(cwd);
    rmSync(root, { recursive: true, force: true });
  }
});
