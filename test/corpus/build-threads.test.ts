// The read step by worker threads (corpus/build-read.ts) writes the same store as the main thread alone — every
// file, meta.json's validation report (counts and the first examples, in file order) and OpenAlex exclusions
// included — for OpenAlex works and v2020 shards with bad lines spread over several files; with --strict the
// error is the first bad line in file order, as read on one thread, however the units were spread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { gunzipSync, gzipSync } from 'node:zlib';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { PAPER_PREFILTER } from '../../src/corpus/prefilter.ts';
import { synthesize, SYNTH_DEFAULTS } from '../../src/corpus/synth.ts';
import { InputError } from '../../src/util/errors.ts';
import { extraWorks, toOpenAlexWorks } from './openalex-convert.ts';

const dir = mkdtempSync(join(tmpdir(), 'cb-threads-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const files = (store: string) => Object.fromEntries(readdirSync(store).sort().map((f) => [f, readFileSync(join(store, f))]));

let records: Record<string, unknown>[] | undefined;
async function synthRecords(): Promise<Record<string, unknown>[]> {
  if (records) return records;
  const syn = join(dir, 'syn');
  await synthesize({ ...SYNTH_DEFAULTS, articles: 2400, seed: 11, shardSize: 2400, threads: 1 }, syn);
  records = readdirSync(syn).filter((f) => f.endsWith('.gz')).flatMap((f) => gunzipSync(readFileSync(join(syn, f))).toString('utf8').trim().split('\n').map((l) => JSON.parse(l)));
  return records;
}

/** `lines` dealt over `k` files of `folder`; bad lines (each located in the report) among them. */
function deal(folder: string, lines: string[], k: number, name: (i: number) => string): void {
  for (let i = 0; i < k; i++) {
    const p = join(folder, name(i));
    mkdirSync(join(p, '..'), { recursive: true });
    writeFileSync(p, gzipSync(lines.filter((_, j) => j % k === i).join('\n') + '\n'));
  }
}

const BAD = ['{"id": ', '[1, 2]', '{"id": "https://openalex.org/W77", "title": 5}'];

test('OpenAlex works over 7 files: 1, 2 and 3 threads write byte-identical stores and reports', async () => {
  const works = [...toOpenAlexWorks(await synthRecords()), ...extraWorks(40)].map((w) => JSON.stringify(w));
  // Bad lines in several files, more of one kind than the report keeps examples of.
  for (let i = 0; i < 7; i++) works.splice(100 * i + 3, 0, BAD[0]!, BAD[1 + (i % 2)]!);
  const root = join(dir, 'works');
  deal(root, works, 7, (i) => `updated_date=2024-01-0${i + 1}/part_000.gz`);
  const summaries = [];
  for (const threads of [1, 2, 3]) {
    summaries.push(await buildCorpusStore({ input: root, out: join(dir, `oa${threads}`), prefilter: PAPER_PREFILTER, threads, sortRunBytes: 128 << 10 }));
  }
  const want = files(join(dir, 'oa1'));
  assert.deepEqual(files(join(dir, 'oa2')), want);
  assert.deepEqual(files(join(dir, 'oa3')), want);
  const v = summaries[0]!.validation;
  assert.equal(v.count('invalid-json'), 7);
  assert.equal(v.count('not-an-object'), 4);
  assert.ok(v.count('excluded-type') > 0, 'exclusions counted');
  const examples = v.examples.get('invalid-json')!.map((e) => `${e.file.split('/').slice(-2).join('/')}:${e.line}`);
  assert.equal(examples.length, 5);
  assert.deepEqual(examples, [...examples].sort(), 'examples in file order');
  const meta = JSON.parse(readFileSync(join(dir, 'oa1', 'meta.json'), 'utf8'));
  assert.ok(Object.keys(meta.source.openalex.excluded.types).length > 0);
});

test('v2020 shards over 5 files: threads do not change the store; --strict names the first bad line in file order', async () => {
  const lines = (await synthRecords()).map((r) => JSON.stringify(r));
  lines.splice(1203, 0, '{"paper_id": 7}'); // in file 1203 % 5 = 3
  lines.splice(1601, 0, 'not json'); // in file 1
  const root = join(dir, 'v2020');
  deal(root, lines, 5, (i) => `metadata_${i}.jsonl.gz`);
  for (const threads of [1, 3]) await buildCorpusStore({ input: root, out: join(dir, `v${threads}`), prefilter: PAPER_PREFILTER, threads });
  assert.deepEqual(files(join(dir, 'v3')), files(join(dir, 'v1')));
  for (const threads of [1, 3]) {
    await assert.rejects(buildCorpusStore({ input: root, out: join(dir, `strict${threads}`), prefilter: PAPER_PREFILTER, threads, strict: true }), (e: unknown) => {
      assert.ok(e instanceof InputError, `threads ${threads}: an InputError`);
      assert.match(e.message, /metadata_1\.jsonl\.gz:\d+: invalid JSON/);
      return true;
    });
  }
});
