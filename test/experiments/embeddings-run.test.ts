// Imported embeddings end to end: vectors the test writes for a synthetic corpus store as SciRepEval JSONL, .npy
// and safetensors go through `citebench run` (model kind embeddings) beside BM25: the three models' runs, cells
// and MDCR scores are identical, each run equals a DenseRetriever over the same vectors on the same pool, the
// report shows the models and says their vectors are imported; then the error cases at run level: a query
// without a vector, a pool article without one (a counted skip, or with strict: true an error), a NaN.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { synthesize, SYNTH_DEFAULTS } from '../../src/corpus/synth.ts';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { PAPER_PREFILTER } from '../../src/corpus/prefilter.ts';
import { parseConfig } from '../../src/experiments/config.ts';
import { QuerySplits } from '../../src/experiments/splits.ts';
import { samplePool } from '../../src/sampling/pools.ts';
import { readResults } from '../../src/report/results.ts';
import { importEmbeddings } from '../../src/retrieval/dense/import/import.ts';
import { DenseRetriever } from '../../src/retrieval/dense/retriever.ts';
import { float32Text } from '../../src/eval/trec-numbers.ts';
import { npyBytes, safetensorsBytes, jsonlText, bytesOf, writeWithIds } from '../dense/embeddings-files.ts';
import { cliArgv } from '../helpers/cli.ts';

const root = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'cb-emb-run-'));
const D = 16;
let store: CorpusStore;
let ids: string[];
let V: Float32Array;

function cli(args: string[]) {
  return spawnSync(process.execPath, cliArgv(args), { encoding: 'utf8', cwd: root, env: { ...process.env, CI: 'true' } });
}

const config = (name: string, models: string) => `name: ${name}
seed: 7
work: ${join(dir, 'work')}
results: ${join(dir, name)}
corpus: { store: ${join(dir, 'store')} }
k: 50
measures: [MAP, nDCG, R@30]
validation: { queries: 6 }
models:
${models}
protocols:
  dataset: { queries: 10, pools: [600], repeats: 1 }
  field: { queries: 3, pool: 500, repeats: 1, fields: [Medicine, Biology, Computer Science] }
  mdcr: {}
`;

/** Seeded vectors with full float32 mantissas. */
function vectors(rows: number, seed: number): Float32Array {
  const v = new Float32Array(rows * D);
  let s = seed >>> 0;
  for (let i = 0; i < v.length; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    v[i] = s / 2 ** 32 - 0.5;
  }
  return v;
}

test('setup: a prefiltered synthetic store and its vectors in three formats', async () => {
  await synthesize({ ...SYNTH_DEFAULTS, articles: 5000, seed: 7 }, join(dir, 'shards'));
  await buildCorpusStore({ input: join(dir, 'shards'), out: join(dir, 'store'), prefilter: PAPER_PREFILTER });
  store = CorpusStore.open(join(dir, 'store'));
  ids = Array.from({ length: store.size }, (_, i) => store.id(i));
  V = vectors(ids.length, 99);
  writeFileSync(join(dir, 'v.jsonl'), jsonlText(ids, V, D));
  writeWithIds(join(dir, 'v.npy'), npyBytes('<f4', [ids.length, D], bytesOf(V)), ids);
  writeWithIds(join(dir, 'v.safetensors'), safetensorsBytes({ embeddings: { dtype: 'F32', shape: [ids.length, D], data: bytesOf(V) } }), ids);
});

test('citebench run: JSONL, .npy and safetensors vectors give identical cells, runs and MDCR scores, equal to a DenseRetriever over them', { timeout: 600_000 }, async () => {
  const models = `  bm25: { k1: 0.9, b: 0.4 }
  fromjsonl: { embeddings: ${join(dir, 'v.jsonl')}, distance: l2 }
  fromnpy: { kind: embeddings, embeddings: ${join(dir, 'v.npy')}, distance: l2 }
  fromst: { embeddings: ${join(dir, 'v.safetensors')}, distance: l2 }`;
  writeFileSync(join(dir, 'three.yaml'), config('three', models));
  const r = cli(['run', join(dir, 'three.yaml')]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /fromnpy: v\.npy \(npy, \d+ vectors of dim 16, sha256 [0-9a-f]{12}…\): \d+ corpus articles have a vector/);
  const res = readResults(join(dir, 'three'));
  const names = ['fromjsonl', 'fromnpy', 'fromst'];
  for (const n of names) {
    const m = res.models.find((x) => x.name === n)!;
    assert.equal(m.weights, 'imported', n);
    assert.equal(m.settings.vectors, ids.length);
    assert.equal(m.settings.poolWithoutVector, 0);
  }
  // The same vectors in three formats: the same runs (but for the tag), cells and MDCR numbers.
  const cells = (n: string) => res.cells.filter((c) => c.model === n);
  assert.ok(cells('fromnpy').length >= 4);
  for (const n of ['fromjsonl', 'fromst']) {
    assert.deepEqual(cells(n).map((c) => c.means), cells('fromnpy').map((c) => c.means));
    for (const [a, b] of cells(n).map((c, i) => [c, cells('fromnpy')[i]])) {
      const body = (f: string) => readFileSync(join(dir, 'three', f), 'utf8').replace(/ \S+$/gm, '');
      assert.equal(body(a.files.run), body(b.files.run), a.files.run);
    }
    assert.deepEqual(res.mdcr!.results[n], res.mdcr!.results.fromnpy);
    assert.equal(readFileSync(join(dir, 'three', res.mdcr!.files[`scores_${n}`]), 'utf8'), readFileSync(join(dir, 'three', res.mdcr!.files.scores_fromnpy), 'utf8'));
  }
  // `mdcr score --embeddings` scores the written benchmark from the file alone (no corpus): the run's scores, byte for byte.
  const m = (f: string) => join(dir, 'three', 'mdcr', f);
  let s = cli(['mdcr', 'score', '--benchmark', m('mdcr_test.json'), '--data', m('mdcr_test_data.jsonl'), '--embeddings', join(dir, 'v.safetensors'), '--distance', 'l2', '--out', join(dir, 'st-scores.json')]);
  assert.equal(s.status, 0, s.stderr);
  assert.equal(readFileSync(join(dir, 'st-scores.json'), 'utf8'), readFileSync(join(dir, 'three', res.mdcr!.files.scores_fromnpy), 'utf8'));
  s = cli(['mdcr', 'score', '--benchmark', m('mdcr_test.json'), '--data', m('mdcr_test_data.jsonl'), '--embeddings', join(dir, 'v.jsonl'), '--out', join(dir, 'x.json')]);
  assert.equal(s.status, 2);
  assert.match(s.stderr, /--embeddings needs --distance l2 or ip/);
  // The dataset-level cell equals a DenseRetriever over the same vectors on the same queries and pool.
  const cfg = parseConfig(readFileSync(join(dir, 'three.yaml'), 'utf8'), 'three.yaml');
  const queries = new QuerySplits(cfg, store, new Uint32Array(0)).get('dataset', 'test', null);
  const pool = samplePool(store, queries, { size: 600, repeat: 1, seed: 7, queryYear: 2019, split: 'test' }).members;
  const emb = await importEmbeddings(join(dir, 'v.npy'), store, { dir: join(dir, 'direct'), distance: 'l2' });
  const lists = await new DenseRetriever({ name: 'direct', store: emb.store, distance: 'l2', tieKey: store.idOrder }).search({ queries, pool, k: 50 });
  const want: string[] = [];
  queries.forEach((q, i) => {
    for (let j = lists.offsets[i]; j < lists.offsets[i + 1]; j++) want.push(`${store.id(q)} Q0 ${store.id(lists.docs[j])} ${j - lists.offsets[i] + 1} ${float32Text(lists.scores[j])}`);
  });
  const cell = cells('fromnpy').find((c) => c.protocol === 'dataset')!;
  const got = readFileSync(join(dir, 'three', cell.files.run), 'utf8').trimEnd().split('\n').map((l) => l.replace(/ \S+$/, ''));
  assert.deepEqual(got, want);
  // The report names the models and says their vectors are imported.
  const report = readFileSync(join(dir, 'three', 'report.md'), 'utf8');
  assert.match(report, /\*\*Imported vectors\.\*\* fromjsonl, fromnpy, fromst rank by vectors computed outside citebench/);
  assert.match(report, /fromnpy \(vectors from v\.npy \(npy, dim 16, sha256 [0-9a-f]{12}…\), l2; imported vectors\)/);
  assert.match(report, /\| fromst \(imported vectors\)/);
});

test('citebench run: a query without a vector is an error; a pool article without one a counted skip, or strict an error', { timeout: 600_000 }, async () => {
  const cfg = parseConfig(config('x', '  bm25: {}'), 'x.yaml');
  const splits = new QuerySplits(cfg, store, new Uint32Array(0));
  const queries = new Set(['dataset', 'field'].flatMap((p) => (p === 'dataset' ? [splits.get('dataset', 'test', null)] : cfg.protocols.field!.fields.map((f) => splits.get('field', 'test', f)))).flatMap((q) => Array.from(q)));
  // A pool article of the dataset-level group that is no query anywhere: left out of the file.
  const pool = samplePool(store, splits.get('dataset', 'test', null), { size: 600, repeat: 1, seed: 7, queryYear: 2019, split: 'test' }).members;
  const dropped = [...pool].filter((x) => !queries.has(x)).slice(0, 3);
  const keep = ids.map((_, i) => i).filter((i) => !dropped.includes(i));
  const sub = (rows: number[]) => {
    const v = new Float32Array(rows.length * D);
    rows.forEach((r, k) => v.set(V.subarray(r * D, (r + 1) * D), k * D));
    return v;
  };
  writeWithIds(join(dir, 'some.npy'), npyBytes('<f4', [keep.length, D], bytesOf(sub(keep))), keep.map((i) => ids[i]));
  writeFileSync(join(dir, 'skip.yaml'), config('skip', `  some: { embeddings: ${join(dir, 'some.npy')}, distance: ip }`));
  let r = cli(['run', join(dir, 'skip.yaml')]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`some: 3 pool article\\(s\\) of this run have no vector and are left out of the pools \\(${dropped.map((d) => ids[d]).join(', ')}\\)`));
  const res = readResults(join(dir, 'skip'));
  assert.equal(res.models[0].settings.poolWithoutVector, 3);
  assert.match(readFileSync(join(dir, 'skip', 'report.md'), 'utf8'), /3 pool article\(s\) without a vector left out/);

  writeFileSync(join(dir, 'strict.yaml'), config('strict', `  some: { embeddings: ${join(dir, 'some.npy')}, distance: ip, strict: true }`));
  r = cli(['run', join(dir, 'strict.yaml')]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, new RegExp(`some\\.npy: no vector for 3 pool article\\(s\\) of this run \\(${ids[dropped[0]]}, .*models\\.some has strict: true`));
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');

  const q = [...queries][0];
  const noQuery = ids.map((_, i) => i).filter((i) => i !== q);
  writeWithIds(join(dir, 'noquery.npy'), npyBytes('<f4', [noQuery.length, D], bytesOf(sub(noQuery))), noQuery.map((i) => ids[i]));
  writeFileSync(join(dir, 'noquery.yaml'), config('noquery', `  nq: { embeddings: ${join(dir, 'noquery.npy')}, distance: l2 }`));
  r = cli(['run', join(dir, 'noquery.yaml')]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, new RegExp(`noquery\\.npy: no vector for 1 query of this run \\(${ids[q]}\\); every query needs one \\(models\\.nq\\)`));

  const bad = V.slice();
  bad[17 * D + 3] = NaN;
  writeWithIds(join(dir, 'nan.npy'), npyBytes('<f4', [ids.length, D], bytesOf(bad)), ids);
  writeFileSync(join(dir, 'nan.yaml'), config('nan', `  n: { embeddings: ${join(dir, 'nan.npy')}, distance: l2 }`));
  r = cli(['run', join(dir, 'nan.yaml')]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, new RegExp(`nan\\.npy: row 17 \\(paper ${ids[17]}\\) \\[embedding\\[3\\]\\]: NaN is not a finite number`));
});

test('citebench embeddings import / export: counts, --strict, one-line errors', () => {
  const emb = join(dir, 'cli-emb');
  let r = cli(['embeddings', 'import', join(dir, 'some.npy'), '--corpus', join(dir, 'store'), '--out', emb, '--distance', 'ip']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`some\\.npy \\(npy, ${ids.length - 3} vectors of dim 16, sha256 [0-9a-f]{12}…\\): ${ids.length - 3} corpus articles have a vector \\(${ids.length - 3} written now\\), 3 of the corpus's ${ids.length} have none`));
  r = cli(['embeddings', 'import', join(dir, 'some.npy'), '--corpus', join(dir, 'store'), '--out', emb, '--strict']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /some\.npy: --strict: 3 corpus article\(s\) have no vector/);
  assert.match(r.stdout, /\(0 written now\)/, 'the second import reuses the store');
  r = cli(['embeddings', 'import', join(dir, 'v.jsonl'), '--corpus', join(dir, 'store'), '--ids', join(dir, 'v.ids.txt')]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /v\.jsonl: a JSONL file names its papers itself \(doc_id\); --ids is for \.npy and \.safetensors/);
  // dense search works from the imported store alone: pool articles without a vector left out and counted.
  writeFileSync(join(dir, 'q.txt'), ids.slice(100, 104).join('\n') + '\n');
  r = cli(['dense', 'search', '--corpus', join(dir, 'store'), '--emb', emb, '--no-encode', '--queries', join(dir, 'q.txt'), '--out', join(dir, 'q.trec'), '--k', '5']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /4 queries, 20 results, all \d+ articles, exact ip .*; 3 pool article\(s\) without a vector left out/);
  r = cli(['dense', 'search', '--corpus', join(dir, 'store'), '--emb', emb, '--no-encode', '--strict', '--queries', join(dir, 'q.txt'), '--out', join(dir, 'q.trec')]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /cli-emb: no vector for 3 pool article\(s\)/);
  r = cli(['embeddings', 'export', emb, '--corpus', join(dir, 'store'), '--out', join(dir, 'back.npy')]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`back\\.npy: ${ids.length - 3} vectors of dim 16 \\(float32\\); paper ids in .*back\\.ids\\.txt`));
  assert.equal(readFileSync(join(dir, 'back.ids.txt'), 'utf8').trimEnd().split('\n').length, ids.length - 3);
  r = cli(['embeddings', 'export', join(dir, 'nowhere'), '--corpus', join(dir, 'store'), '--out', join(dir, 'x.npy')]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /nowhere: no embedding store here/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
});

test('citebench run: an encoder\'s store exported and imported gives that encoder\'s cells and MDCR pair scores exactly', { timeout: 600_000 }, async () => {
  // The encoder: the repository's random-weight BERT checkpoint (SciBERT vocabulary), converted on first use.
  const TINY = join(dir, 'tiny-random');
  const fix = join(root, 'test/dense/fixtures/checkpoints');
  cpSync(join(fix, 'safetensors-f32-bertmodel'), TINY, { recursive: true });
  for (const f of ['vocab.txt', 'tokenizer_config.json']) cpSync(join(fix, f), join(TINY, f));
  // Run 1: the random-weight test encoder, encoded by the run itself. Run 2: its store exported, imported beside it.
  writeFileSync(join(dir, 'enc.yaml'), config('enc', `  tiny: { model: ${TINY} }`));
  let r = cli(['run', join(dir, 'enc.yaml')]);
  assert.equal(r.status, 0, r.stderr);
  const storeDir = join(dir, 'work', 'embeddings', readdirSync(join(dir, 'work', 'embeddings')).find((n) => n.startsWith('tiny-'))!);
  r = cli(['embeddings', 'export', storeDir, '--corpus', join(dir, 'store'), '--out', join(dir, 'tiny.npy')]);
  assert.equal(r.status, 0, r.stderr);
  const distance = JSON.parse(readFileSync(join(storeDir, 'manifest.json'), 'utf8')).distance;
  writeFileSync(join(dir, 'enc2.yaml'), config('enc2', `  tiny: { model: ${TINY} }\n  tinyimp: { embeddings: ${join(dir, 'tiny.npy')}, distance: ${distance} }`));
  r = cli(['run', join(dir, 'enc2.yaml')]);
  assert.equal(r.status, 0, r.stderr);
  const res = readResults(join(dir, 'enc2'));
  assert.equal(res.models.find((m) => m.name === 'tiny')!.weights, 'random');
  assert.equal(res.models.find((m) => m.name === 'tinyimp')!.weights, 'imported');
  const cells = (n: string) => res.cells.filter((c) => c.model === n);
  assert.deepEqual(cells('tinyimp').map((c) => c.means), cells('tiny').map((c) => c.means));
  const body = (f: string) => readFileSync(join(dir, 'enc2', f), 'utf8').replace(/ \S+$/gm, '');
  cells('tiny').forEach((c, i) => assert.equal(body(cells('tinyimp')[i].files.run), body(c.files.run), c.files.run));
  // MDCR scores every pair in the retrievers' candidate mode from stored vectors: the same score for every pair —
  // but for candidates of run 2's benchmark (its model-based negatives come from both models' lists) that run 1
  // never encoded, so the exported file lacks them: those rank last (the lowest float32) and are counted.
  const scores = (n: string) => JSON.parse(readFileSync(join(dir, 'enc2', res.mdcr!.files[`scores_${n}`]), 'utf8')) as Record<string, number>;
  const [enc, imp] = [scores('tiny'), scores('tinyimp')];
  assert.deepEqual(Object.keys(imp), Object.keys(enc));
  const lacking = new Set<string>();
  for (const k of Object.keys(enc)) {
    if (imp[k] === -3.4028234663852886e38 && enc[k] !== imp[k]) lacking.add(k.split('_')[1]);
    else assert.equal(imp[k], enc[k], k);
  }
  assert.equal(res.models.find((m) => m.name === 'tinyimp')!.settings.mdcrWithoutVector ?? 0, lacking.size);
  const exported = new Set(readFileSync(join(dir, 'tiny.ids.txt'), 'utf8').split('\n'));
  for (const id of lacking) assert.ok(!exported.has(id), `${id} has a vector`);
});

test('config: the embeddings kind is read with file, line and key in every error', () => {
  const base = (m: string) => `corpus: {synthetic: {articles: 100}}\nmodels:\n  ${m}\nprotocols:\n  dataset: {queries: 5}\n`;
  const c = parseConfig(base('e: { embeddings: v.npy, distance: ip }'), 'x.yaml');
  assert.deepEqual(c.models[0], { kind: 'embeddings', name: 'e', embeddings: 'v.npy', distance: 'ip', strict: false });
  assert.deepEqual(parseConfig(base('e: { embeddings: v.npy, ids: v.txt, distance: l2, strict: true, weights: trained }'), 'x.yaml').models[0],
    { kind: 'embeddings', name: 'e', embeddings: 'v.npy', ids: 'v.txt', distance: 'l2', strict: true, weights: 'trained' });
  const bad = (m: string, re: RegExp) => assert.throws(() => parseConfig(base(m), 'x.yaml'), (e: Error) => re.test(e.message));
  bad('e: { embeddings: v.npy }', /^x\.yaml:3 \[models\.e\.distance\]: is required: l2 or ip/);
  bad('e: { embeddings: v.npy, distance: cos }', /^x\.yaml:3 \[models\.e\.distance\]: must be l2 or ip, got 'cos'/);
  bad('e: { embeddings: v.parquet, distance: l2 }', /^x\.yaml:3 \[models\.e\.embeddings\]: 'v\.parquet' is not a \.jsonl/);
  bad('e: { embeddings: v.jsonl, ids: i.txt, distance: l2 }', /^x\.yaml:3 \[models\.e\.ids\]: a JSONL file names its papers itself/);
  bad('e: { embeddings: v.npy, distance: l2, weights: great }', /^x\.yaml:3 \[models\.e\.weights\]: must be imported/);
  bad('e: { kind: embeddings, distance: l2 }', /^x\.yaml:3 \[models\.e\.embeddings\]: is required/);
  bad('e: { embeddings: v.npy, distance: l2, pooling: cls }', /^x\.yaml:3 \[models\.e\.pooling\]: unknown key/);
});

test('citebench run: queries: a second file gives the query articles their query-role vectors (an instruction model encoded in Python); pools and candidates keep the documents\' vectors', { timeout: 600_000 }, async () => {
  const Q = vectors(ids.length, 4242);
  writeWithIds(join(dir, 'q.npy'), npyBytes('<f4', [ids.length, D], bytesOf(Q)), ids);
  writeFileSync(join(dir, 'roles.yaml'), config('roles', `  bm25: { k1: 0.9, b: 0.4 }\n  twofiles: { embeddings: ${join(dir, 'v.npy')}, queries: ${join(dir, 'q.npy')}, distance: ip }\n  onefile: { embeddings: ${join(dir, 'v.npy')}, distance: ip }`));
  const r = cli(['run', join(dir, 'roles.yaml')]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /twofiles \(queries\): q\.npy/);
  const res = readResults(join(dir, 'roles'));
  const m = res.models.find((x) => x.name === 'twofiles')!;
  assert.equal(m.settings.queries, join(dir, 'q.npy'));
  assert.match(m.summary ?? '', /queries from q\.npy/);
  // The dataset-level run: a DenseRetriever whose queries are searched with q.npy's vectors over v.npy's pool.
  const cfg = parseConfig(readFileSync(join(dir, 'roles.yaml'), 'utf8'), 'roles.yaml');
  const queries = new QuerySplits(cfg, store, new Uint32Array(0)).get('dataset', 'test', null);
  const pool = samplePool(store, queries, { size: 600, repeat: 1, seed: 7, queryYear: 2019, split: 'test' }).members;
  const docs = await importEmbeddings(join(dir, 'v.npy'), store, { dir: join(dir, 'direct-docs'), distance: 'ip' });
  const qs = await importEmbeddings(join(dir, 'q.npy'), store, { dir: join(dir, 'direct-queries'), distance: 'ip' });
  const lists = await new DenseRetriever({ name: 'direct', store: docs.store, queryStore: qs.store, distance: 'ip', tieKey: store.idOrder }).search({ queries, pool, k: 50 });
  const want: string[] = [];
  queries.forEach((q, i) => {
    for (let j = lists.offsets[i]; j < lists.offsets[i + 1]; j++) want.push(`${store.id(q)} Q0 ${store.id(lists.docs[j])} ${j - lists.offsets[i] + 1} ${float32Text(lists.scores[j])}`);
  });
  const run = (model: string) => readFileSync(join(dir, 'roles', res.cells.find((c) => c.model === model && c.protocol === 'dataset')!.files.run), 'utf8').trimEnd().split('\n').map((l) => l.replace(/ \S+$/, ''));
  assert.deepEqual(run('twofiles'), want);
  assert.notDeepEqual(run('onefile'), want, 'the query file changes the lists');
  assert.notDeepEqual(res.mdcr!.results.twofiles, res.mdcr!.results.onefile, 'MDCR queries use their query-role vectors too');
});

test('teardown', () => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});
