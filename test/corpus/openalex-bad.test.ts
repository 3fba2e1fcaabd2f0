// Bad OpenAlex works — wrong types, nulls, inverted indexes with non-integer positions, huge ids, truncated gzip —
// are a counted, located skip, or with --strict (and for a damaged file) one line naming file, line and field:
// never a stack trace. Gaps and shared positions in an abstract's index are counted and the words joined in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { InputError } from '../../src/util/errors.ts';
import { REPO } from '../helpers/shared.ts';
import { cliArgv } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'cb-oa-bad-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const work = (n: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: `https://openalex.org/W${n}`, title: `Work ${n}`, display_name: `Work ${n}`, publication_year: 2019, type: 'article',
    abstract_inverted_index: { An: [0], abstract: [1], long: [2], enough: [3], for: [4], the: [5], prefilter: [6] },
    referenced_works: [], cited_by_count: 4, concepts: [{ id: 'https://openalex.org/C71924100', level: 0, score: 0.6, display_name: 'Medicine' }],
    primary_topic: null, is_paratext: false, is_retracted: false, updated_date: '2024-01-01T00:00:00', ...extra,
  });

const cli = (...args: string[]) => spawnSync(process.execPath, cliArgv(args), { encoding: 'utf8', cwd: REPO });

const LINES = [
  work(1), // 1: fine
  work(2, { id: 2 }), // 2: id of the wrong type
  work(3, { id: 'https://openalex.org/W12345678901234567' }), // 3: a huge id
  work(4, { title: 42 }), // 4
  work(5, { publication_year: '2019' }), // 5
  work(6, { abstract_inverted_index: { a: [0.5] } }), // 6: a non-integer position
  work(7, { abstract_inverted_index: { a: [-1] } }), // 7
  work(8, { abstract_inverted_index: { a: '0' } }), // 8
  work(9, { referenced_works: null }), // 9: a null list
  work(10, { referenced_works: ['https://openalex.org/W1', 5, 'https://openalex.org/A1'] }), // 10: bad ids dropped, the work kept
  work(11, { cited_by_count: null }), // 11
  work(12, { concepts: [{ id: 5 }] }), // 12
  JSON.stringify({ id: 'https://openalex.org/W13', title: 't' }), // 13: fields missing
  '{"id": "https://openalex.org/W14", ', // 14: not JSON
  work(15, { abstract_inverted_index: { a: [0], b: [2], c: [3] } }), // 15: position 1 missing
  work(16, { abstract_inverted_index: { a: [0], b: [0], c: [1] } }), // 16: two words at 0
  'null', // 17
  work(1, { title: 'Work 1, updated', updated_date: '2024-06-01T00:00:00' }), // 18: work 1 again, updated later: kept
  work(19, { title: null, display_name: null }), // 19: no title: kept, the prefilter's rule 2 decides
  work(20, { abstract_inverted_index: { a: [1e9] } }), // 20: a position far beyond any abstract
];

test('bad works: located, counted skips; the abstracts rebuilt in position order; the later update of a work kept', async () => {
  const f = join(dir, 'works.jsonl');
  writeFileSync(f, LINES.join('\n') + '\n');
  const s = await buildCorpusStore({ input: f, out: join(dir, 'store'), prefilter: null });
  const v = s.validation;
  const at = (kind: Parameters<typeof v.count>[0]) => (v.examples.get(kind) ?? []).map((e) => `${e.line}:${e.field}`);
  assert.deepEqual(at('bad-type'), ['2:id', '4:title', '5:publication_year', '6:abstract_inverted_index', '7:abstract_inverted_index']);
  assert.equal(v.count('bad-type'), 10, 'lines 2, 4–9, 11, 12 and 20');
  assert.deepEqual(at('bad-id'), ['3:id']);
  assert.deepEqual(at('missing-field'), ['13:publication_year']);
  assert.deepEqual(at('invalid-json'), ['14:undefined']);
  assert.deepEqual(at('not-an-object'), ['17:undefined']);
  assert.deepEqual(at('bad-citation-id'), ['10:referenced_works']);
  assert.deepEqual(at('abstract-gap'), ['15:abstract_inverted_index']);
  assert.deepEqual(at('abstract-duplicate-position'), ['16:abstract_inverted_index']);
  assert.deepEqual(at('duplicate-id'), ['1:id'], 'the first line is the older record of W1');
  // The report shows the first examples of a kind; line 20 (the 10th bad-type) is counted above, its message here.
  const huge = join(dir, 'huge.jsonl');
  writeFileSync(huge, [LINES[0], LINES[19]].join('\n') + '\n');
  const h = await buildCorpusStore({ input: huge, out: join(dir, 'huge-store'), prefilter: null });
  assert.match(h.validation.format(), /huge\.jsonl:2 \[abstract_inverted_index\]: position number 1000000000 of "a" is not an integer in 0–1000000/);
  const store = CorpusStore.open(join(dir, 'store'));
  const byId = new Map(Array.from({ length: store.size }, (_, i) => [store.id(i), store.text(i)]));
  store.close();
  assert.deepEqual([...byId.keys()].sort(), ['W1', 'W10', 'W15', 'W16', 'W19']);
  assert.equal(byId.get('W1')!.title, 'Work 1, updated');
  assert.equal(byId.get('W15')!.abstract, 'a b c');
  assert.equal(byId.get('W16')!.abstract, 'a b c');
  assert.equal(byId.get('W19')!.title, '');
});

test('--strict: the first bad work is one line naming file, line and field (library and command line)', async () => {
  const f = join(dir, 'strict.jsonl');
  writeFileSync(f, [work(1), work(6, { abstract_inverted_index: { a: [0.5] } })].join('\n') + '\n');
  await assert.rejects(buildCorpusStore({ input: f, out: join(dir, 's'), prefilter: null, strict: true }), (e: Error) => e instanceof InputError && /strict\.jsonl:2 \[abstract_inverted_index\]: position number 0\.5/.test(e.message));
  const r = cli('corpus', 'build', '--input', f, '--out', join(dir, 's'), '--no-prefilter', '--strict');
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /strict\.jsonl:2 \[abstract_inverted_index\]: position/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  const v = cli('corpus', 'validate', '--input', f, '--strict');
  assert.equal(v.status, 2, v.stderr);
  assert.equal(v.stderr.trim().split('\n').length, 1, v.stderr);
});

test('a truncated .gz partition: one line naming the file and offset; --allow-truncated counts it and goes on', async () => {
  const works = join(dir, 'snap', 'updated_date=2024-01-01');
  mkdirSync(works, { recursive: true });
  const gz = gzipSync(Array.from({ length: 3000 }, (_, i) => work(100 + i)).join('\n') + '\n');
  writeFileSync(join(works, 'part_000.gz'), gz.subarray(0, gz.length >> 1));
  writeFileSync(join(works, 'part_001.gz'), gzipSync(work(99) + '\n'));
  const r = cli('corpus', 'build', '--input', join(dir, 'snap'), '--out', join(dir, 't'), '--no-prefilter');
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /part_000\.gz:\d+: gzip stream is truncated/);
  assert.equal(r.stderr.trim().split('\n').filter((l) => !/^(read|merge|join|graph|texts):/.test(l)).length, 1, r.stderr);
  const ok = await buildCorpusStore({ input: join(dir, 'snap'), out: join(dir, 't'), prefilter: null, allowTruncated: true });
  assert.equal(ok.validation.count('corrupt-file'), 1);
  assert.ok(ok.articles > 100 && ok.articles < 3001, `${ok.articles}`);
  assert.equal(ok.source.releaseFrom, 'partitions');
  assert.equal(ok.source.release, '2024-01-01');
});

test('a manifest promising other record counts, or files the input lacks: counted', async () => {
  const works = join(dir, 'mf', 'updated_date=2024-02-02');
  mkdirSync(works, { recursive: true });
  writeFileSync(join(works, 'part_000.gz'), gzipSync([work(1), work(2)].join('\n') + '\n'));
  writeFileSync(join(dir, 'mf', 'manifest'), JSON.stringify({ entries: [
    { url: 's3://openalex/data/works/updated_date=2024-02-02/part_000.gz', meta: { record_count: 3 } },
    { url: 's3://openalex/data/works/updated_date=2024-03-03/part_000.gz', meta: { record_count: 5 } },
  ] }));
  const s = await buildCorpusStore({ input: join(dir, 'mf'), out: join(dir, 'mf-store'), prefilter: null });
  assert.equal(s.validation.count('manifest-count-mismatch'), 1);
  assert.match(s.validation.format(), /part_000\.gz: 2 records read, the manifest says 3/);
  assert.equal(s.validation.count('manifest-file-missing'), 1);
  assert.equal(s.source.release, '2024-03-03', "the manifest's newest partition");
});
