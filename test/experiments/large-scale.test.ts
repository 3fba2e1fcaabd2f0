// Large-scale cells: the cache key holds every setting that determines a cell (a changed BM25 or dense setting
// reruns the cell instead of reusing it), a query with an empty ranked list counts as 0 (trec_eval -c) or fails
// the cell, and a bad config is a CitebenchError.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, copyFileSync, mkdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { REPO } from '../helpers/shared.ts';
import { synthesize, SYNTH_DEFAULTS, SYNTH_VERSION } from '../../src/corpus/synth.ts';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { PAPER_PREFILTER } from '../../src/corpus/prefilter.ts';
import { InMemoryTexts } from '../../src/corpus/article.ts';
import { buildIndex, type Bm25Index } from '../../src/retrieval/bm25/index.ts';
import { Bm25Retriever } from '../../src/retrieval/bm25/retriever.ts';
import { DenseRetriever } from '../../src/retrieval/dense/retriever.ts';
import { EmbeddingStore } from '../../src/retrieval/dense/store.ts';
import type { Encoder } from '../../src/retrieval/dense/encoder.ts';
import type { ResolvedModel } from '../../src/retrieval/dense/models.ts';
import type { RankedLists, Retriever, SearchRequest } from '../../src/retrieval/retriever.ts';
import { runLargeScale, cellKey, type LargeScaleConfig } from '../../src/experiments/large-scale.ts';
import { corpusStamp } from '../../src/experiments/reproduce.ts';
import { CitebenchError } from '../../src/util/errors.ts';

const root = mkdtempSync(join(tmpdir(), 'cb-large-'));
let store: CorpusStore;
let index: Bm25Index;
const cfg: LargeScaleConfig = { protocol: 'dataset', queries: 12, poolSizes: [800], repeats: 1, seed: 3, k: 100, measures: ['MAP', 'R@30'] };

before(async () => {
  await synthesize({ ...SYNTH_DEFAULTS, articles: 5000, seed: 5, shardSize: 5000 }, join(root, 'shards'));
  await buildCorpusStore({ input: join(root, 'shards'), out: join(root, 'store'), prefilter: PAPER_PREFILTER });
  store = CorpusStore.open(join(root, 'store'));
  index = await buildIndex(store);
});
after(() => {
  store?.close();
  rmSync(root, { recursive: true, force: true });
});

function cellFiles(dir: string): string[] {
  const out: string[] = [];
  (function walk(d: string) {
    for (const n of readdirSync(d).sort()) statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : out.push(join(d, n));
  })(dir);
  return out;
}

test('cell cache: a changed k1 reruns the cell instead of reusing the old one', async () => {
  const dir = join(root, 'results-k1');
  const computed: string[] = [];
  const log = (l: string) => computed.push(l);
  const a = await runLargeScale(store, new Bm25Retriever(index, store, { tieKey: store.idOrder }), cfg, dir, log);
  assert.equal(cellFiles(dir).length, 1);
  computed.length = 0;
  const same = await runLargeScale(store, new Bm25Retriever(index, store, { tieKey: store.idOrder }), cfg, dir, log);
  assert.deepEqual(same, a);
  assert.equal(computed.length, 0, 'same settings: the cell is loaded, not recomputed');
  const b = await runLargeScale(store, new Bm25Retriever(index, store, { tieKey: store.idOrder, params: { k1: 2.5 } }), cfg, dir, log);
  assert.ok(computed.length > 0, 'k1 2.5: the cell is recomputed');
  assert.equal(cellFiles(dir).length, 2, 'a second cell file beside the first');
  assert.notDeepEqual(b[0].perQuery.MAP, a[0].perQuery.MAP, 'k1 changes the numbers');
});

test('cell key: every BM25 setting and the index content change it', async () => {
  const key = (r: Retriever) => cellKey(store, r, cfg, null, 800, 1);
  const bm25 = (opts: ConstructorParameters<typeof Bm25Retriever>[2] = {}, ix = index) => new Bm25Retriever(ix, store, { tieKey: store.idOrder, ...opts });
  const base = key(bm25());
  assert.equal(key(bm25()), base, 'same settings, same key');
  assert.equal(key(bm25({ threads: 2 })), base, 'threads do not change results');
  assert.notEqual(key(bm25({ params: { k1: 1.2 } })), base, 'k1');
  assert.notEqual(key(bm25({ params: { b: 0.75 } })), base, 'b');
  assert.notEqual(key(bm25({ params: { accurate: true } })), base, 'accurate lengths');
  assert.notEqual(key(bm25({ tieKey: undefined })), base, 'tie-break');
  // Another index over a corpus of the same size (other texts): same name 'bm25', another key.
  const other = await buildIndex(new InMemoryTexts(Array.from({ length: store.size }, (_, i) => ({ title: `t${i % 7}`, abstract: 'other words' }))));
  assert.notEqual(key(bm25({}, other)), base, 'index content');
  // Protocol settings too.
  assert.notEqual(cellKey(store, bm25(), { ...cfg, emptyLists: 'error' }, null, 800, 1), base, 'empty-list policy');
});

test('cell key: dense model file, pooling, distance, dtype, HNSW parameters and score mode change it', () => {
  const dir = join(root, 'dense');
  const manifest = { model: 'm', fingerprint: 'fp1', dim: 4, dtype: 'float32' as const, kind: 'single' as const, chunkSize: 8, corpusSize: store.size };
  const emb = EmbeddingStore.openOrCreate(join(dir, 'emb'), manifest);
  const emb16 = EmbeddingStore.openOrCreate(join(dir, 'emb16'), { ...manifest, dtype: 'float16' });
  const embOther = EmbeddingStore.openOrCreate(join(dir, 'emb-other'), { ...manifest, fingerprint: 'fp2' });
  // A model folder whose ONNX file is larger than the 8 MiB the sampled model fingerprint reads.
  mkdirSync(join(dir, 'model', 'onnx'), { recursive: true });
  const onnx = join(dir, 'model', 'onnx', 'model.onnx');
  const bytes = Buffer.alloc(9 << 20, 7);
  writeFileSync(onnx, bytes);
  copyFileSync(onnx, join(dir, 'model', 'onnx', 'model_quantized.onnx'));
  const model: ResolvedModel = { name: 'm', dir: join(dir, 'model'), onnxFile: onnx, hiddenSize: 4, pooling: 'cls', distance: 'l2', maxLength: 512, fingerprint: 'fp1' };
  const enc = (m: Partial<ResolvedModel> = {}) => ({ model: { ...model, ...m } }) as unknown as Encoder;
  const dense = (o: Partial<ConstructorParameters<typeof DenseRetriever>[0]> = {}) =>
    new DenseRetriever({ name: 'm', store: emb, distance: 'l2', tieKey: store.idOrder, ...o });
  const key = (r: Retriever) => cellKey(store, r, cfg, null, 800, 1);
  const base = key(dense());
  assert.equal(key(dense()), base);
  assert.notEqual(key(dense({ store: embOther })), base, 'stored vectors of another model');
  assert.notEqual(key(dense({ store: emb16 })), base, 'float16 store');
  assert.notEqual(key(dense({ distance: 'ip' })), base, 'distance');
  assert.notEqual(key(dense({ scores: 'float32' })), base, 'score mode');
  const hnsw = key(dense({ hnsw: {} }));
  assert.notEqual(hnsw, base, 'HNSW vs exact');
  assert.notEqual(key(dense({ hnsw: { connectivity: 32 } })), hnsw, 'HNSW M');
  assert.notEqual(key(dense({ hnsw: { expansionAdd: 64 } })), hnsw, 'HNSW efConstruction');
  assert.notEqual(key(dense({ hnsw: { expansionSearch: 1000 } })), hnsw, 'HNSW ef');
  assert.notEqual(key(dense({ hnsw: { quantization: 'bf16' } })), hnsw, 'HNSW quantization');
  assert.equal(key(dense({ hnsw: { cachePath: join(dir, 'g') } })), hnsw, 'a graph cache path does not change results');
  const withEnc = key(dense({ encoder: enc() }));
  assert.notEqual(withEnc, base, 'encoder attached');
  assert.equal(key(dense({ encoder: enc() })), withEnc);
  assert.notEqual(key(dense({ encoder: enc({ pooling: 'mean' }) })), withEnc, 'pooling');
  assert.notEqual(key(dense({ encoder: enc({ maxLength: 256 }) })), withEnc, 'max length');
  assert.notEqual(key(dense({ encoder: enc({ onnxFile: join(dir, 'model', 'onnx', 'model_quantized.onnx') }) })), withEnc, 'quantised variant');
  // One changed byte in the middle of the weights (outside the sampled first/last 4 MiB).
  bytes[bytes.length >> 1] ^= 1;
  writeFileSync(onnx, bytes);
  utimesSync(onnx, new Date(), new Date(Date.now() + 10_000)); // a new mtime even on a coarse clock
  assert.notEqual(key(dense({ encoder: enc() })), withEnc, 'ONNX content');
});

test('reproduce stamp: the synthetic generator version is part of it', () => {
  const stamp = JSON.parse(corpusStamp({ articles: 1000, seed: 1 }));
  assert.equal(stamp.synth.version, SYNTH_VERSION);
  assert.equal(stamp.synth.vocabulary, SYNTH_DEFAULTS.vocabulary);
});

/** BM25, but query positions in `drop` get an empty ranked list (as a query with no indexed term would). */
class Dropping implements Retriever {
  readonly name = 'bm25';
  constructor(private readonly inner: Bm25Retriever, private readonly drop: Set<number>) {}
  get fingerprint() {
    return `${this.inner.fingerprint}/drop ${[...this.drop]}`;
  }
  async search(req: SearchRequest): Promise<RankedLists> {
    const r = await this.inner.search(req);
    const offsets = new Uint32Array(r.offsets.length);
    const docs: number[] = [];
    const scores: number[] = [];
    for (let q = 0; q + 1 < r.offsets.length; q++) {
      if (!this.drop.has(q)) for (let i = r.offsets[q]; i < r.offsets[q + 1]; i++) (docs.push(r.docs[i]), scores.push(r.scores[i]));
      offsets[q + 1] = docs.length;
    }
    return { offsets, docs: Uint32Array.from(docs), scores: Float32Array.from(scores) };
  }
}

test('empty ranked lists: counted as 0 in the mean over all queries (trec_eval -c), recorded in the cell', async () => {
  const bm25 = new Bm25Retriever(index, store, { tieKey: store.idOrder });
  const [full] = await runLargeScale(store, bm25, cfg, join(root, 'results-full'));
  const [cell] = await runLargeScale(store, new Dropping(bm25, new Set([0, 5])), cfg, join(root, 'results-drop'));
  assert.ok(full.perQuery.MAP[0] > 0 && full.perQuery.MAP[5] > 0);
  for (const m of cfg.measures) {
    const want = full.perQuery[m].reduce((s, v, q) => s + (q === 0 || q === 5 ? 0 : v), 0) / cfg.queries;
    assert.ok(Math.abs(cell.means[m] - want) < 1e-12, `${m}: ${cell.means[m]}, want ${want} (the mean over all ${cfg.queries} queries)`);
    assert.equal(cell.perQuery[m][0], 0);
    assert.equal(cell.perQuery[m][5], 0);
  }
  assert.equal(cell.queries, cfg.queries, 'every sampled query is averaged');
  assert.equal(cell.sampled, cfg.queries);
  assert.equal(cell.emptyLists, 'zero');
  assert.equal(cell.emptyListQueries, 2);
  assert.equal(full.emptyListQueries, 0);
  assert.equal(full.queries, cfg.queries);
});

test('empty ranked lists: emptyLists "error" fails the cell, naming the count and a query', async () => {
  const bm25 = new Bm25Retriever(index, store, { tieKey: store.idOrder });
  await assert.rejects(
    runLargeScale(store, new Dropping(bm25, new Set([3])), { ...cfg, emptyLists: 'error' }, join(root, 'results-err')),
    (e: unknown) => e instanceof CitebenchError && /1 of 12 queries got an empty ranked list \(first: /.test(e.message),
  );
  assert.deepEqual(readdirSync(root).filter((f) => f === 'results-err'), [], 'no cell written');
});

test('config errors are CitebenchErrors', async () => {
  const bm25 = new Bm25Retriever(index, store, { tieKey: store.idOrder });
  const bad: Partial<LargeScaleConfig>[] = [
    { measures: ['P'] }, { measures: ['NoSuch'] }, { queries: 0 }, { queries: 2.5 }, { poolSizes: [] }, { poolSizes: [-5] },
    { repeats: 0 }, { k: 0 }, { seed: 1.5 }, { seed: 2 ** 32 + 1 }, { protocol: 'other' as 'field' }, { fields: ['Alchemy' as 'Art'] },
    { emptyLists: 'skip' as 'zero' },
  ];
  for (const b of bad) {
    await assert.rejects(runLargeScale(store, bm25, { ...cfg, ...b }, join(root, 'results-bad')), (e: unknown) => e instanceof CitebenchError, JSON.stringify(b));
  }
});

test('CLI reproduce: a bad --store, --seed, --repeats, --scale or --work is one line, exit 2, no stack trace', () => {
  const work = join(root, 'cli-work');
  const cases: [string[], RegExp][] = [
    [['--store', join(root, 'shards')], /not a corpus store \(no meta\.json\)/],
    [['--seed', '1.5'], /--seed must be an integer/],
    [['--repeats', '0'], /--repeats must be a positive integer/],
    [['--scale', '0.0001'], /--scale 0\.0001 leaves no queries/],
    [['--work', join(root, 'a-file', 'work')], /ENOTDIR: not a directory, mkdir '.*a-file/],
  ];
  writeFileSync(join(root, 'a-file'), '');
  for (const [args, want] of cases) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(REPO, 'src/cli.ts'), 'reproduce', ...(args[0] === '--work' ? [] : ['--work', work]), ...args], { encoding: 'utf8', cwd: REPO });
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    const errors = r.stderr.trim().split('\n').filter((l) => !l.startsWith('[')); // stage lines aside
    assert.equal(errors.length, 1, r.stderr);
    assert.match(errors[0], new RegExp(`^citebench: .*${want.source}`));
  }
});
