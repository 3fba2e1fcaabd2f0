// OpenAlex works (src/corpus/openalex.ts) give the store the v2020 reader gives on the same records, and so do the
// bulk datasets — in another line and file order too: the same `corpus info`, sampled queries, pools, qrels and BM25
// run. Checked on the committed fixture of real S2ORC records converted by the tests' own converter
// (openalex-convert.ts), and on a synthetic corpus the test makes itself (no ../shared needed). Then the reader's
// own rules: concept threshold, topics, exclusions, the manifest's date and counts, and bad works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { gunzipSync, gzipSync } from 'node:zlib';
import { SHARED, skipNoShared } from '../helpers/shared.ts';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { describeStore } from '../../src/corpus/stats.ts';
import { PAPER_PREFILTER, type PrefilterConfig } from '../../src/corpus/prefilter.ts';
import { FILES } from '../../src/corpus/store-format.ts';
import { FIELDS } from '../../src/corpus/fields.ts';
import { synthesize, SYNTH_DEFAULTS } from '../../src/corpus/synth.ts';
import { citationQrels, samplePool, sampleQuerySet } from '../../src/sampling/pools.ts';
import { buildIndex } from '../../src/retrieval/bm25/index.ts';
import { Bm25Retriever } from '../../src/retrieval/bm25/retriever.ts';
import { Rng } from '../../src/util/rng.ts';
import { extraWorks, toOpenAlexWorks, TOPIC_OF } from './openalex-convert.ts';
import { toS2Datasets } from './s2-datasets-convert.ts';
import { fixtureFiles } from '../../scripts/dev/make-openalex-fixture.ts';

const FIXTURE = new URL('./fixtures/openalex/', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'cb-openalex-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const gzLines = (f: string) => gunzipSync(readFileSync(f)).toString('utf8').trim().split('\n');
const sampleRecords = () => readFileSync(join(SHARED, 'data/s2orc-sample/metadata.jsonl'), 'utf8').trim().split('\n').slice(0, 400).map((l) => JSON.parse(l));

function shuffle<T>(xs: T[], seed: number): T[] {
  const r = new Rng(seed);
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = r.nextInt(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Lines into `parts` gzip'd files named so that their listing order is not the lines' order. */
function writeParts(folder: string, lines: string[], parts: number, name: (k: number) => string): void {
  mkdirSync(folder, { recursive: true });
  for (let k = 0; k < parts; k++) writeFileSync(join(folder, name(parts - 1 - k)), gzipSync(lines.filter((_, i) => i % parts === k).join('\n') + '\n'));
}

/** Every column file of a store; the ids with OpenAlex's `W` taken off (the other forms' ids are the bare numbers). */
function columns(store: string, unprefix = false): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  for (const f of Object.values(FILES)) if (f !== FILES.meta) out[f] = readFileSync(join(store, f));
  if (unprefix) {
    const s = CorpusStore.open(store);
    const ids = Array.from({ length: s.size }, (_, i) => s.id(i));
    s.close();
    assert.ok(ids.every((id) => id.startsWith('W')), 'OpenAlex ids are W…');
    const bare = ids.map((id) => Buffer.from(id.slice(1)));
    out[FILES.ids] = Buffer.concat(bare);
    const off = [0];
    for (const b of bare) off.push(off[off.length - 1] + b.length);
    out[FILES.idsOff] = Buffer.from(Uint32Array.from(off).buffer);
  }
  return out;
}

/** BM25 lists of `queries` over `pool` (corpus indices, scores) on a store. */
async function bm25(storeDir: string, queries: Uint32Array, pool: Uint32Array) {
  const store = CorpusStore.open(storeDir);
  try {
    const run = await new Bm25Retriever(await buildIndex(store), store, { tieKey: store.idOrder }).search({ queries, pool, k: 100 });
    return { offsets: Array.from(run.offsets), docs: Array.from(run.docs), scores: Array.from(run.scores) };
  } finally {
    store.close();
  }
}

test('fixture: the committed works are the conversion of the first 400 real sample records, with the manifest', { skip: skipNoShared }, () => {
  const files = fixtureFiles(sampleRecords());
  for (const [rel, lines] of Object.entries(files)) assert.deepEqual(gzLines(join(FIXTURE, 'works', rel)), lines, rel);
  const manifest = JSON.parse(readFileSync(join(FIXTURE, 'works/manifest'), 'utf8'));
  assert.deepEqual(manifest.entries.map((e: any) => [e.url, e.meta.record_count]), Object.entries(files).map(([rel, l]) => [`s3://openalex/data/works/${rel}`, l.length]));
});

test('fixture → the store the v2020 reader builds from the same records: every column, prefilter reports, BM25 lists', { skip: skipNoShared }, async () => {
  const records = sampleRecords();
  mkdirSync(join(dir, 'v2020-in'));
  writeFileSync(join(dir, 'v2020-in', 'metadata_0.jsonl'), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  // The sample cites outside itself (rule 4 in corpus scope keeps nothing): no prefilter, and the record scope.
  for (const [name, prefilter] of [['none', null], ['record', { ...PAPER_PREFILTER, citationScope: 'record' }]] as [string, PrefilterConfig | null][]) {
    const a = await buildCorpusStore({ input: join(dir, 'v2020-in'), out: join(dir, `fx-v2020-${name}`), prefilter });
    const b = await buildCorpusStore({ input: FIXTURE, out: join(dir, `fx-oa-${name}`), prefilter });
    assert.deepEqual(columns(join(dir, `fx-oa-${name}`), true), columns(join(dir, `fx-v2020-${name}`)), name);
    assert.deepEqual(b.prefilter, a.prefilter, `${name}: prefilter report`);
    assert.equal(b.articles, a.articles);
    assert.equal(b.citations, a.citations);
    assert.ok(name === 'none' ? b.articles === 400 : b.articles > 0 && b.articles < 400, `${name}: ${b.articles}`);
  }
  // The works left out by default are counted by kind and type; the snapshot's date is the manifest's newest partition.
  const s = CorpusStore.open(join(dir, 'fx-oa-none'));
  assert.deepEqual(s.meta.source?.openalex?.excluded, { types: { 'book-chapter': 2, dataset: 2, paratext: 2, editorial: 2 }, paratext: 0, retracted: 2 });
  assert.equal(s.meta.source?.release, '2020-07-06');
  assert.equal(s.meta.source?.releaseFrom, 'manifest');
  const queries = Uint32Array.from({ length: 40 }, (_, k) => k * 10);
  const pool = Uint32Array.from({ length: s.size }, (_, i) => i);
  s.close();
  assert.deepEqual(await bm25(join(dir, 'fx-oa-none'), queries, pool), await bm25(join(dir, 'fx-v2020-none'), queries, pool));
});

test('the same synthetic records as v2020 shards, reordered v2020, bulk datasets and OpenAlex works: same corpus info, queries, pools, qrels, BM25 run', async () => {
  await synthesize({ ...SYNTH_DEFAULTS, articles: 3000, seed: 3, shardSize: 1200, threads: 1 }, join(dir, 'syn'));
  const records = readdirSync(join(dir, 'syn')).filter((f) => f.endsWith('.gz')).sort().flatMap((f) => gzLines(join(dir, 'syn', f)).map((l) => JSON.parse(l)));
  const lines = (xs: any[]) => xs.map((x) => JSON.stringify(x));
  writeParts(join(dir, 'syn-v2020-shuffled'), lines(shuffle(records, 1)), 3, (k) => `shard-${k}.jsonl.gz`);
  const bulk = toS2Datasets(records);
  for (const [d, ls] of [['papers', bulk.papers], ['abstracts', bulk.abstracts], ['citations', bulk.citations]] as const) {
    writeParts(join(dir, 'syn-bulk', d), shuffle(ls, 2), 2, (k) => `part-${k}.gz`);
  }
  // OpenAlex: shuffled over two partitions, with works the defaults leave out.
  const works = lines(shuffle([...toOpenAlexWorks(records), ...extraWorks(25)], 3));
  writeParts(join(dir, 'syn-oa', 'updated_date=2024-01-02'), works.slice(0, 1500), 2, (k) => `part_00${k}.gz`);
  writeParts(join(dir, 'syn-oa', 'updated_date=2024-01-01'), works.slice(1500), 1, (k) => `part_00${k}.gz`);

  const forms = { v2020: join(dir, 'syn'), shuffled: join(dir, 'syn-v2020-shuffled'), bulk: join(dir, 'syn-bulk'), openalex: join(dir, 'syn-oa') };
  const seen: Record<string, unknown> = {};
  for (const [form, input] of Object.entries(forms)) {
    const out = join(dir, `syn-store-${form}`);
    await buildCorpusStore({ input, out, prefilter: PAPER_PREFILTER, sortRunBytes: 1 << 20 });
    const store = CorpusStore.open(out);
    const { source, ...info } = describeStore(store);
    assert.equal(source?.format, form === 'shuffled' ? 'v2020' : form);
    const id = (i: number) => (form === 'openalex' ? store.id(i).slice(1) : store.id(i));
    const ids = (xs: Uint32Array) => Array.from(xs, id);
    const qs = sampleQuerySet(store, { count: 40, seed: 5 }).queries;
    const pool = samplePool(store, qs, { size: 1000, repeat: 2, seed: 5 }).members;
    const qrels = citationQrels(store, qs, pool);
    const fq = sampleQuerySet(store, { count: 10, seed: 5, field: 'Medicine' }).queries;
    const fpool = samplePool(store, fq, { size: 400, repeat: 1, seed: 5, field: 'Medicine' }).members;
    store.close();
    const run = await bm25(out, qs, pool);
    seen[form] = {
      info,
      columns: columns(out, form === 'openalex'),
      queries: ids(qs), pool: ids(pool), qrels: { offsets: Array.from(qrels.offsets), docs: ids(qrels.docs) },
      fieldQueries: ids(fq), fieldPool: ids(fpool),
      run: { ...run, docs: run.docs.map((d) => id(d)) },
    };
  }
  for (const form of ['shuffled', 'bulk', 'openalex']) assert.deepEqual(seen[form], seen.v2020, `${form} form`);
  assert.ok((seen.v2020 as any).info.articles > 2000 && (seen.v2020 as any).run.docs.length > 1000, 'a corpus with queries, pools and runs to compare');
});

test('OpenAlex rules: the concept threshold, the topics scheme, --types all, paratext and retracted kept', async () => {
  await synthesize({ ...SYNTH_DEFAULTS, articles: 500, seed: 9, shardSize: 500, threads: 1 }, join(dir, 'rules-syn'));
  const records = gzLines(join(dir, 'rules-syn', readdirSync(join(dir, 'rules-syn')).find((f) => f.endsWith('.gz'))!)).map((l) => JSON.parse(l));
  const works = [...toOpenAlexWorks(records), ...extraWorks(5)];
  const input = join(dir, 'rules', 'works.jsonl');
  mkdirSync(join(dir, 'rules'), { recursive: true });
  writeFileSync(input, works.map((w) => JSON.stringify(w)).join('\n') + '\n');
  const open = async (name: string, openalex: object) => {
    await buildCorpusStore({ input, out: join(dir, 'rules', name), prefilter: null, openalex });
    return CorpusStore.open(join(dir, 'rules', name));
  };
  const mag = await open('mag', {});
  const want = (w: any, threshold: number) =>
    w.concepts.filter((c: any) => c.level === 0 && c.score >= threshold).reduce((m: number, c: any) => m | (1 << FIELDS.indexOf(c.display_name)), 0);
  const byId = new Map(works.map((w) => [w.id.slice('https://openalex.org/'.length), w]));
  for (let i = 0; i < mag.size; i++) assert.equal(mag.fields[i], want(byId.get(mag.id(i)), 0.3), mag.id(i));
  // Threshold 0: the attached ancestors (scores 0 and 0.2999) count too.
  const all = await open('t0', { conceptThreshold: 0 });
  let more = 0;
  for (let i = 0; i < all.size; i++) {
    assert.equal(all.fields[i], want(byId.get(all.id(i)), 0), all.id(i));
    if (all.fields[i] !== mag.fields[i]) more++;
  }
  assert.ok(more > 0, 'the threshold decides for some works');
  const topics = await open('topics', { fields: 'topics' });
  assert.equal(topics.fieldScheme, 'topics');
  for (let i = 0; i < topics.size; i++) {
    const w = byId.get(topics.id(i));
    // The converter gives a work the topic field TOPIC_OF[its first MAG field]; bit i is field 11 + i.
    const f = w.primary_topic ? TOPIC_OF[w.concepts[0].display_name] - 11 : -1;
    assert.equal(topics.fields[i], f < 0 ? 0 : 1 << f, topics.id(i));
  }
  assert.equal(describeStore(topics).fieldScheme, 'topics');
  assert.ok(Object.keys(describeStore(topics).fields).includes('Neuroscience'));
  const everything = await open('all', { types: 'all', keepParatext: true, keepRetracted: true });
  assert.equal(everything.size, mag.size + 5);
  for (const s of [mag, all, topics, everything]) s.close();
  await assert.rejects(buildCorpusStore({ input: join(dir, 'syn'), out: join(dir, 'x'), prefilter: null, openalex: { fields: 'topics' } }), /OpenAlex options .* apply to OpenAlex works/);
});
