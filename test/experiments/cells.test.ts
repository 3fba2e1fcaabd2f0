// Cells of a pool group (experiments/cells.ts): the cache key holds every setting that determines a cell (a
// changed BM25 or dense setting reruns the cell instead of reusing it), a cell's MAP equals an independent AP
// over the same ranked lists, a query with an empty ranked list counts as 0 (trec_eval -c) or fails the cell,
// and bad options of `reproduce` are one-line errors.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync, mkdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { REPO } from '../helpers/shared.ts';
import { synthesize, SYNTH_DEFAULTS, SYNTH_VERSION } from '../../src/corpus/synth.ts';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { PAPER_PREFILTER } from '../../src/corpus/prefilter.ts';
import { InMemoryTexts } from '../../src/corpus/article.ts';
import { buildIndex } from '../../src/retrieval/bm25/index.ts';
import type { Bm25Index } from '../../src/retrieval/bm25/index-format.ts';
import { Bm25Retriever } from '../../src/retrieval/bm25/retriever.ts';
import { DenseRetriever } from '../../src/retrieval/dense/retriever.ts';
import { EmbeddingStore } from '../../src/retrieval/dense/store.ts';
import type { Encoder } from '../../src/retrieval/dense/encoder.ts';
import type { ResolvedModel } from '../../src/retrieval/dense/models.ts';
import type { RankedLists, Retriever, SearchRequest } from '../../src/retrieval/retriever.ts';
import { sampleQueries, samplePool, citationQrels, poolWithQrels } from '../../src/sampling/pools.ts';
import { cellKey, runGroup, type GroupContext } from '../../src/experiments/cells.ts';
import { corpusInputs } from '../../src/experiments/corpus-stage.ts';
import { groupPath, type PoolGroup } from '../../src/experiments/plan.ts';
import { groupPoolOptions, type SampledTopicSet } from '../../src/experiments/topic-sets.ts';
import { CitebenchError } from '../../src/util/errors.ts';

const root = mkdtempSync(join(tmpdir(), 'cb-cells-'));
let store: CorpusStore;
let index: Bm25Index;
let queries: Uint32Array;
const group: PoolGroup = { protocol: 'dataset', split: 'test', field: null, poolSize: 800, repeat: 1, queries: 12 };
const names = ['MAP', 'R@30'];
const ctx = (dir: string, extra: Partial<GroupContext> = {}): GroupContext => ({
  store, resultsDir: dir, seed: 3, queryYear: 2019, k: 100, measureNames: names,
  sampleKey: 'test', log: () => {}, ...extra,
});

before(async () => {
  await synthesize({ ...SYNTH_DEFAULTS, articles: 5000, seed: 5, shardSize: 5000 }, join(root, 'shards'));
  await buildCorpusStore({ input: join(root, 'shards'), out: join(root, 'store'), prefilter: PAPER_PREFILTER });
  store = CorpusStore.open(join(root, 'store'));
  index = await buildIndex(store);
  queries = sampleQueries(store, { count: 12, seed: 3 });
});
after(() => {
  store?.close();
  rmSync(root, { recursive: true, force: true });
});

/** The group's topic set for these queries, sampled as the run samples it (topic-sets.ts). */
function setOf(g: PoolGroup, qs: Uint32Array): SampledTopicSet {
  const { pool, qrels } = poolWithQrels(store, qs, groupPoolOptions({ seed: 3, queryYear: 2019 }, g));
  return { id: groupPath(g), docs: store, topics: qs, pool: pool.members, qrels, setting: g.setting ?? 'transductive', group: g, sampled: pool };
}

let set0_: SampledTopicSet | undefined;
/** The group's set on the test's queries (sampled once). */
const set0 = () => (set0_ ??= setOf(group, queries));

const bm25 = (opts: ConstructorParameters<typeof Bm25Retriever>[2] = {}, ix = index) => new Bm25Retriever(ix, store, { tieKey: store.idOrder, ...opts });

test('cell cache: a changed k1 reruns the cell instead of reusing the old one; MAP = independent AP', async () => {
  const dir = join(root, 'results-k1');
  const computed: string[] = [];
  const log = (l: string) => computed.push(l);
  const a = await runGroup(ctx(dir, { log }), setOf(group, queries), [{ name: 'bm25', retriever: bm25() }]);
  assert.ok(existsSync(join(dir, 'cells/bm25/dataset/800-r1.json')) && existsSync(join(dir, 'runs/bm25/dataset/800-r1.trec')));
  computed.length = 0;
  const same = await runGroup(ctx(dir, { log }), setOf(group, queries), [{ name: 'bm25', retriever: bm25() }]);
  assert.deepEqual(same.cells, a.cells);
  assert.equal(computed.length, 0, 'same settings: the cell is loaded, not recomputed');
  const b = await runGroup(ctx(dir, { log }), setOf(group, queries), [{ name: 'bm25', retriever: bm25({ params: { k1: 2.5 } }) }]);
  assert.ok(computed.length > 0, 'k1 2.5: the cell is recomputed');
  assert.notDeepEqual(b.cells[0].perQuery.MAP, a.cells[0].perQuery.MAP, 'k1 changes the numbers');
  assert.notEqual(b.cells[0].key, a.cells[0].key);

  // independent AP over the same ranked lists (ties: docno descending, as trec_eval)
  const pool = samplePool(store, queries, { size: 800, repeat: 1, seed: 3 });
  const lists = await bm25().search({ queries, pool: pool.members, k: 100 });
  const rel = citationQrels(store, queries, pool.members);
  let sum = 0;
  for (let q = 0; q < queries.length; q++) {
    const relevant = new Set(rel.docs.subarray(rel.offsets[q], rel.offsets[q + 1]));
    const docs = Array.from(lists.docs.subarray(lists.offsets[q], lists.offsets[q + 1]));
    const score = new Map(docs.map((d, k) => [d, Math.fround(lists.scores[lists.offsets[q] + k])]));
    docs.sort((x, y) => score.get(y)! - score.get(x)! || (store.id(y) < store.id(x) ? -1 : store.id(y) > store.id(x) ? 1 : 0));
    assert.ok(!docs.includes(queries[q]), 'the query article is not in its own list');
    let hits = 0;
    let ap = 0;
    docs.forEach((d, r) => {
      if (relevant.has(d)) ap += ++hits / (r + 1);
    });
    sum += relevant.size ? ap / relevant.size : 0;
  }
  assert.ok(Math.abs(sum / queries.length - a.cells[0].means.MAP) < 1e-12, `MAP ${a.cells[0].means.MAP} vs independent ${sum / queries.length}`);
});

test('a changed pool sampler recomputes exactly the cells of the pools it changed, with one line each saying why', async () => {
  const dir = join(root, 'results-sampler');
  const g2: PoolGroup = { ...group, repeat: 2 };
  const models = () => [{ name: 'bm25', retriever: bm25() }, { name: 'bm25-k2', retriever: bm25({ params: { k1: 2 } }) }];
  const lines: string[] = [];
  const log = (l: string) => lines.push(l);
  for (const g of [group, g2]) await runGroup(ctx(dir, { log }), setOf(g, queries), models());
  const before = readFileSync(join(dir, 'cells/bm25/dataset/800-r1.json'), 'utf8');
  // Another sampler's output for repeat 2: one fill article swapped for one outside the pool (every cited
  // article stays, so the judgements are the same); repeat 1 samples as before.
  const swapped = (s: SampledTopicSet): SampledTopicSet => {
    const cited = new Set(s.qrels.docs);
    const inPool = new Set(s.pool);
    const out = s.pool.find((d) => !cited.has(d))!;
    const into = Array.from({ length: store.size }, (_, i) => i).find((i) => !inPool.has(i) && !s.topics.includes(i))!;
    const members = Uint32Array.from([...s.pool].map((d) => (d === out ? into : d))).sort();
    return { ...s, pool: members, sampled: { ...s.sampled, members } };
  };
  lines.length = 0;
  await runGroup(ctx(dir, { log }), setOf(group, queries), models());
  const r2 = await runGroup(ctx(dir, { log }), swapped(setOf(g2, queries)), models());
  assert.deepEqual(lines.filter((l) => / recomputed/.test(l)), ['bm25 dataset/800-r2: recomputed, pool ids changed', 'bm25-k2 dataset/800-r2: recomputed, pool ids changed']);
  assert.ok(!lines.some((l) => l.includes('800-r1')), `repeat 1 is reused untouched: ${lines.join(' | ')}`);
  assert.equal(readFileSync(join(dir, 'cells/bm25/dataset/800-r1.json'), 'utf8'), before);
  const stored = JSON.parse(readFileSync(join(dir, 'cells/bm25/dataset/800-r2.json'), 'utf8'));
  assert.equal(stored.key, r2.cells[0].key);
  assert.match(stored.inputs.pool, /^Uint32Array\[800\] [0-9a-f]{12}$/, 'the record describes its inputs');
  // The same sampler output again: nothing recomputed.
  lines.length = 0;
  await runGroup(ctx(dir, { log }), swapped(setOf(g2, queries)), models());
  assert.deepEqual(lines, []);
});

test('a cell written before keys named their inputs is recomputed, with one line saying why', async () => {
  const dir = join(root, 'results-old');
  const set = setOf(group, queries);
  await runGroup(ctx(dir), set, [{ name: 'bm25', retriever: bm25() }]);
  const file = join(dir, 'cells/bm25/dataset/800-r1.json');
  const { inputs: _i, ...old } = JSON.parse(readFileSync(file, 'utf8'));
  writeFileSync(file, JSON.stringify({ ...old, key: '0badc0de' }) + '\n');
  const lines: string[] = [];
  await runGroup(ctx(dir, { log: (l) => lines.push(l) }), set, [{ name: 'bm25', retriever: bm25() }]);
  assert.deepEqual(lines.filter((l) => / recomputed/.test(l)), ['bm25 dataset/800-r1: recomputed, written by an older citebench (its key names no inputs)']);
  writeFileSync(file, '{"key": ');
  lines.length = 0;
  await runGroup(ctx(dir, { log: (l) => lines.push(l) }), set, [{ name: 'bm25', retriever: bm25() }]);
  assert.deepEqual(lines.filter((l) => / recomputed/.test(l)), ['bm25 dataset/800-r1: recomputed, its record is damaged']);
});

test('cell key: every BM25 setting and the index content change it', async () => {
  const key = (r: Retriever) => cellKey(ctx(root), set0(), r);
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
  assert.notEqual(cellKey(ctx(root, { emptyLists: 'error' }), set0(), bm25()), base, 'empty-list policy');
  assert.notEqual(cellKey(ctx(root, { sampleKey: 'another corpus' }), set0(), bm25()), base, 'corpus / exclusion identity');
  assert.notEqual(cellKey(ctx(root), { ...set0(), group: { ...group, repeat: 2 } }, bm25()), base, 'repeat');
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
  const model: ResolvedModel = {
    name: 'm', dir: join(dir, 'model'), transformerDir: join(dir, 'model'), folder: 'transformers', onnxFile: onnx, hiddenSize: 4, dim: 4, pooling: 'cls', distance: 'l2', maxLength: 512,
    normalize: false, includePrompt: true, lowercase: false, prompts: { query: '', document: '' }, promptSource: 'none', fingerprint: 'fp1', roleFingerprint: { query: 'fp1', document: 'fp1' },
  };
  const enc = (m: Partial<ResolvedModel> = {}) => ({ model: { ...model, ...m } }) as unknown as Encoder;
  const dense = (o: Partial<ConstructorParameters<typeof DenseRetriever>[0]> = {}) =>
    new DenseRetriever({ name: 'm', store: emb, distance: 'l2', tieKey: store.idOrder, ...o });
  const key = (r: Retriever) => cellKey(ctx(root), set0(), r);
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

test('corpus stamp: the synthetic generator version is part of it', () => {
  const stamp = corpusInputs({ corpus: { synthetic: { articles: 1000, seed: 1 }, prefilter: 'paper' } }).synthetic as { synth: typeof SYNTH_DEFAULTS & { version: number } };
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
  const [full] = (await runGroup(ctx(join(root, 'results-full')), setOf(group, queries), [{ name: 'bm25', retriever: bm25() }])).cells;
  const [cell] = (await runGroup(ctx(join(root, 'results-drop')), setOf(group, queries), [{ name: 'bm25', retriever: new Dropping(bm25(), new Set([0, 5])) }])).cells;
  assert.ok(full.perQuery.MAP[0] > 0 && full.perQuery.MAP[5] > 0);
  for (const m of names) {
    const want = full.perQuery[m].reduce((s, v, q) => s + (q === 0 || q === 5 ? 0 : v), 0) / queries.length;
    assert.ok(Math.abs(cell.means[m] - want) < 1e-12, `${m}: ${cell.means[m]}, want ${want} (the mean over all ${queries.length} queries)`);
    assert.equal(cell.perQuery[m][0], 0);
    assert.equal(cell.perQuery[m][5], 0);
  }
  assert.equal(cell.queries, queries.length, 'every sampled query is averaged');
  assert.equal(cell.emptyLists, 2);
  assert.equal(full.emptyLists, 0);
  assert.equal(full.queries, queries.length);
});

test('empty ranked lists: emptyLists "error" fails the cell, naming the count and a query', async () => {
  const dir = join(root, 'results-err');
  await assert.rejects(
    runGroup(ctx(dir, { emptyLists: 'error' }), setOf(group, queries), [{ name: 'bm25', retriever: new Dropping(bm25(), new Set([3])) }]),
    (e: unknown) => e instanceof CitebenchError && /1 of 12 queries got an empty ranked list \(first: /.test(e.message),
  );
  // The cell's lock file (cells/bm25/…json.lock) came and went; no cell record may be there.
  assert.ok(!existsSync(join(dir, 'cells', 'bm25', `${groupPath(group)}.json`)), 'no cell written');
  assert.ok(!existsSync(join(dir, 'cells', 'bm25', `${groupPath(group)}.json.lock`)), 'lock released');
});

test('CLI reproduce: a bad --store, --seed, --repeats, --scale or --work is one line, exit 2, no stack trace', () => {
  const work = join(root, 'cli-work');
  const cases: [string[], RegExp][] = [
    [['--store', join(root, 'shards')], /not a corpus store \(no meta\.json\)/],
    [['--seed', '1.5'], /--seed must be an integer/],
    [['--repeats', '0'], /--repeats must be a positive integer/],
    [['--scale', '2'], /--scale must be in \(0, 1\]/],
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
