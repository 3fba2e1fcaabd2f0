// The Semantic Scholar bulk datasets (papers, abstracts, citations) joined on disk give the same corpus store as
// the v2020 reader given the same records: the committed fixture of real S2ORC records, and a synthetic corpus
// with many in-corpus citations. Counts of what v2020 has no place for (fields beyond MAG's 19, unresolved
// references) and bad input are checked too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { gunzipSync, gzipSync } from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { REPO, SHARED, skipNoShared } from '../helpers/shared.ts';
import { buildCorpusStore, type BuildSummary } from '../../src/corpus/store-build.ts';
import { PAPER_PREFILTER, type PrefilterConfig } from '../../src/corpus/prefilter.ts';
import { FILES } from '../../src/corpus/store-format.ts';
import { synthesize, SYNTH_DEFAULTS } from '../../src/corpus/synth.ts';
import { InputError } from '../../src/util/errors.ts';
import { normalizedRecords, toS2Datasets } from './s2-datasets-convert.ts';
import { cliArgv } from '../helpers/cli.ts';

const FIXTURE = new URL('./fixtures/s2-datasets/', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'cb-s2ds-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const gzLines = (f: string) => gunzipSync(readFileSync(f)).toString('utf8').trim().split('\n');
const datasetLines = (root: string, d: string) => readdirSync(join(root, d)).sort().flatMap((f) => gzLines(join(root, d, f)));

/** Every column file of a store (all but meta.json), by name. */
function columns(store: string): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  for (const f of Object.values(FILES)) if (f !== FILES.meta) out[f] = readFileSync(join(store, f));
  return out;
}

/** v2020 records as one shard, in corpusid order (the order the bulk reader yields). */
function writeV2020(records: any[], path: string): string {
  const sorted = [...records].sort((a, b) => Number(a.paper_id) - Number(b.paper_id));
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, 'metadata_0.jsonl'), sorted.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return path;
}

function writeBulk(records: any[], root: string) {
  const bulk = toS2Datasets(records);
  for (const [d, lines] of [['papers', [...bulk.papers].reverse()], ['abstracts', bulk.abstracts], ['citations', bulk.citations]] as const) {
    mkdirSync(join(root, d), { recursive: true });
    const half = Math.ceil(lines.length / 2);
    writeFileSync(join(root, d, 'part-0.jsonl.gz'), gzipSync(lines.slice(0, half).join('\n') + '\n'));
    writeFileSync(join(root, d, 'part-1.gz'), gzipSync(lines.slice(half).join('\n') + '\n'));
  }
  return bulk;
}

async function both(name: string, v2020: string, bulk: string, prefilter: PrefilterConfig | null): Promise<[BuildSummary, BuildSummary]> {
  const a = await buildCorpusStore({ input: v2020, out: join(dir, `${name}-v2020`), prefilter });
  // Tiny sort runs: the join must work through many runs on disk, as at full size.
  const b = await buildCorpusStore({ input: bulk, out: join(dir, `${name}-bulk`), prefilter, sortRunBytes: 4096 });
  return [a, b];
}

const sampleRecords = () => readFileSync(join(SHARED, 'data/s2orc-sample/metadata.jsonl'), 'utf8').trim().split('\n').slice(0, 400).map((l) => JSON.parse(l));

test('fixture: the committed bulk files are the conversion of the first 400 real sample records', { skip: skipNoShared }, () => {
  const bulk = toS2Datasets(sampleRecords());
  assert.deepEqual(datasetLines(FIXTURE, 'papers').sort(), [...bulk.papers].sort());
  assert.deepEqual(datasetLines(FIXTURE, 'abstracts'), bulk.abstracts);
  assert.deepEqual(datasetLines(FIXTURE, 'citations'), bulk.citations);
});

test('bulk fixture → the same store columns as the v2020 reader on the same records (no prefilter; record-scope prefilter)', { skip: skipNoShared }, async () => {
  const records = sampleRecords();
  const bulk = toS2Datasets(records);
  // The bulk form has one row per edge, the union of both v2020 lists: compare with records listing exactly those.
  const v2020 = writeV2020(normalizedRecords(records, bulk.edges), join(dir, 'fixture-v2020-in'));
  const [a, b] = await both('fixture', v2020, FIXTURE, null);
  assert.equal(b.articles, 400);
  assert.deepEqual(columns(join(dir, 'fixture-bulk')), columns(join(dir, 'fixture-v2020')));
  assert.equal(b.citations, a.citations);
  // The sample's ids cite outside it, except one real self-citation (record 220): in-corpus edges are tested below.
  assert.equal(b.validation.count('self-citation'), 2, 'both rows of the self-citation seen and ignored');
  for (const k of ['unknown-citation', 'self-citation'] as const) assert.equal(b.validation.count(k), a.validation.count(k), k);
  assert.ok(b.validation.count('unknown-citation') > 1000);
  // What v2020 has no place for: counted, not silently dropped.
  assert.equal(b.validation.count('field-beyond-mag'), bulk.beyondMag);
  assert.equal(b.validation.count('unresolved-citation'), Math.ceil(400 / 50));
  assert.equal(b.validation.count('unmatched-abstract'), 0);

  const rec: PrefilterConfig = { ...PAPER_PREFILTER, citationScope: 'record' };
  const [pa, pb] = await both('fixture-pf', v2020, FIXTURE, rec);
  assert.deepEqual(pb.prefilter, pa.prefilter);
  assert.ok(pb.articles > 10 && pb.articles < 200, `${pb.articles} kept`);
  assert.deepEqual(columns(join(dir, 'fixture-pf-bulk')), columns(join(dir, 'fixture-pf-v2020')));
  assert.deepEqual(readdirSync(dir).filter((f) => f.includes('tmp-build')), [], 'no scratch left behind');
});

test('synthetic S2ORC-shaped corpus: bulk and v2020 give byte-identical prefiltered stores (corpus scope)', async () => {
  await synthesize({ ...SYNTH_DEFAULTS, articles: 4000, seed: 3, shardSize: 4000, profile: 's2orc-raw', threads: 1 }, join(dir, 'syn'));
  const records = gzLines(join(dir, 'syn', 'metadata_0000.jsonl.gz')).map((l) => JSON.parse(l));
  const bulk = writeBulk(records, join(dir, 'syn-bulk-in'));
  const v2020 = writeV2020(normalizedRecords(records, bulk.edges), join(dir, 'syn-v2020-in'));
  const [a, b] = await both('syn', v2020, join(dir, 'syn-bulk-in'), PAPER_PREFILTER);
  assert.ok(a.citations > 5000, `${a.citations} citations`);
  assert.deepEqual(b.prefilter, a.prefilter);
  assert.equal(b.articles, a.articles);
  assert.deepEqual(columns(join(dir, 'syn-bulk')), columns(join(dir, 'syn-v2020')));
});

test('bulk input: a missing dataset, a bad corpusid, a truncated shard: one clear message or a counted problem', async () => {
  const root = join(dir, 'bad');
  writeBulk(sampleOrSynthetic(), root);
  rmSync(join(root, 'abstracts'), { recursive: true });
  await assert.rejects(buildCorpusStore({ input: root, out: join(dir, 'bad-store'), prefilter: null }), /no abstracts\/ folder.*papers\/, abstracts\/ and citations\//);

  writeBulk(sampleOrSynthetic(), root);
  const papers = join(root, 'papers', 'part-0.jsonl.gz');
  const lines = gzLines(papers);
  lines[2] = JSON.stringify({ ...JSON.parse(lines[2]), corpusid: 'W123' });
  writeFileSync(papers, gzipSync(lines.join('\n') + '\n'));
  const s = await buildCorpusStore({ input: root, out: join(dir, 'bad-store'), prefilter: null });
  assert.equal(s.validation.count('bad-type'), 1);
  assert.equal(s.articles, 49);
  await assert.rejects(buildCorpusStore({ input: root, out: join(dir, 'bad-store'), prefilter: null, strict: true }), (e: Error) => {
    assert.ok(e instanceof InputError);
    assert.match(e.message, /part-0\.jsonl\.gz:3.*corpusid.*"W123"/);
    return true;
  });

  const cites = join(root, 'citations', 'part-1.gz');
  const bytes = readFileSync(cites);
  writeFileSync(cites, bytes.subarray(0, bytes.length - 20));
  await assert.rejects(buildCorpusStore({ input: root, out: join(dir, 'bad-store'), prefilter: null }), (e: Error) => {
    assert.ok(e instanceof InputError);
    assert.match(e.message, /part-1\.gz.*gzip stream is truncated/);
    return true;
  });
});

/** 50 small records with all required fields (no ../shared needed). */
function sampleOrSynthetic(): any[] {
  return Array.from({ length: 50 }, (_, i) => ({
    paper_id: String(1000 + i), title: `Title ${i}`, abstract: i % 3 ? `An abstract of paper ${i}, long enough to pass.` : null,
    year: 2000 + (i % 20), mag_field_of_study: ['Medicine'], outbound_citations: i > 0 ? [String(1000 + i - 1)] : [], inbound_citations: [],
  }));
}

test('citebench corpus validate and corpus build take the bulk folder: counts printed, store written', () => {
  const cli = (...args: string[]) => spawnSync(process.execPath, cliArgv(args), { encoding: 'utf8', cwd: REPO });
  const v = cli('corpus', 'validate', '--input', FIXTURE, '--scratch', dir);
  assert.equal(v.status, 0, v.stderr);
  assert.match(v.stdout, /records read: 400, accepted: 400/);
  assert.match(v.stdout, /field-beyond-mag: \d+ \(informational\)/);
  assert.match(v.stdout, /unresolved-citation: 8 \(informational\)/);
  const b = cli('corpus', 'build', '--input', FIXTURE, '--out', join(dir, 'cli-store'), '--citation-scope', 'record', '--json');
  assert.equal(b.status, 0, b.stderr);
  assert.ok(JSON.parse(b.stdout).articles > 10);
  assert.deepEqual(readdirSync(dir).filter((f) => f.startsWith('citebench-validate-')), [], 'validate removed its scratch');
});
