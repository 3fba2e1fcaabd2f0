// Every kind of bad input yields a counted, located skip (or, with --strict, one clear error) — never a crash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { readArticles } from '../../src/corpus/s2orc-reader.ts';
import { ValidationReport } from '../../src/corpus/validation.ts';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { InputError } from '../../src/util/errors.ts';
import { REPO } from '../helpers/shared.ts';

const rec = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    paper_id: id, title: `Title ${id}`, abstract: 'An abstract that is long enough to pass the prefilter rule.', year: 2010,
    mag_field_of_study: ['Medicine'], outbound_citations: [], inbound_citations: [], ...extra,
  });

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'cb-bad-'));
}

async function readAll(path: string, strict = false) {
  const report = new ValidationReport(strict);
  const ids: string[] = [];
  for await (const a of readArticles(path, { report })) ids.push(a.id);
  return { report, ids };
}

test('broken JSON line: counted with file and line, other records kept', async () => {
  const f = join(tmp(), 'a.jsonl');
  writeFileSync(f, [rec('1'), '{"paper_id": "2", "title": ', rec('3')].join('\n') + '\n');
  const { report, ids } = await readAll(f);
  assert.deepEqual(ids, ['1', '3']);
  assert.equal(report.count('invalid-json'), 1);
  assert.equal(report.examples.get('invalid-json')![0].line, 2);
  assert.match(report.format(), /a\.jsonl:2: invalid JSON/);
});

test('wrong types and missing fields: named field, record skipped', async () => {
  const f = join(tmp(), 'a.jsonl');
  writeFileSync(f, [
    rec('1', { year: '2010' }),
    rec('2', { title: 42 }),
    rec('3', { outbound_citations: 'x' }),
    rec('4', { mag_field_of_study: ['Medicine', 'Alchemy'] }),
    JSON.stringify({ paper_id: '5', title: 't' }),
    rec('', {}),
    '[1,2]',
    rec('8', { outbound_citations: ['9', 7] }),
    rec('9', { year: 2010.5 }),
  ].join('\n'));
  const { report, ids } = await readAll(f);
  assert.deepEqual(ids, ['4', '8']);
  assert.equal(report.count('bad-type'), 4);
  const fields = report.examples.get('bad-type')!.map((e) => `${e.line}:${e.field}`);
  assert.deepEqual(fields, ['1:year', '2:title', '3:outbound_citations', '9:year']);
  assert.equal(report.count('unknown-field-of-study'), 1);
  assert.equal(report.count('missing-field'), 1);
  assert.equal(report.examples.get('missing-field')![0].field, 'abstract');
  assert.equal(report.count('empty-id'), 1);
  assert.equal(report.count('not-an-object'), 1);
  assert.equal(report.count('bad-citation-id'), 1);
});

test('non-UTF-8 bytes: the line is skipped and reported', async () => {
  const f = join(tmp(), 'a.jsonl');
  const bad = Buffer.concat([Buffer.from('{"paper_id": "2", "title": "caf'), Buffer.from([0xe9]), Buffer.from('", "abstract": null}')]);
  writeFileSync(f, Buffer.concat([Buffer.from(rec('1') + '\n'), bad, Buffer.from('\n' + rec('3') + '\n')]));
  const { report, ids } = await readAll(f);
  assert.deepEqual(ids, ['1', '3']);
  assert.equal(report.count('invalid-utf8'), 1);
  assert.equal(report.examples.get('invalid-utf8')![0].line, 2);
});

test('truncated gzip: records before the cut are kept, the file is reported corrupt', async () => {
  const dir = tmp();
  const lines = Array.from({ length: 2000 }, (_, i) => rec(String(i + 1)));
  const gz = gzipSync(lines.join('\n') + '\n');
  writeFileSync(join(dir, 'a.jsonl.gz'), gz.subarray(0, Math.floor(gz.length / 2)));
  writeFileSync(join(dir, 'b.jsonl'), rec('999999') + '\n');
  const { report, ids } = await readAll(dir);
  assert.equal(report.count('corrupt-file'), 1);
  assert.match(report.examples.get('corrupt-file')![0].message, /truncated/);
  assert.ok(ids.length > 0 && ids.length < 2000, `kept ${ids.length} complete records`);
  assert.equal(ids.at(-1), '999999', 'the next shard is still read');
  // every kept record is complete and in order
  ids.slice(0, -1).forEach((id, i) => assert.equal(id, String(i + 1)));
});

test('garbage that is not gzip at all: reported, not thrown', async () => {
  const f = join(tmp(), 'x.jsonl.gz');
  writeFileSync(f, 'this is not gzip');
  const { report, ids } = await readAll(f);
  assert.equal(ids.length, 0);
  assert.equal(report.count('corrupt-file'), 1);
});

test('duplicate ids: the first is kept, the second reported with its line', async () => {
  const f = join(tmp(), 'a.jsonl');
  writeFileSync(f, [rec('1'), rec('2'), rec('1', { title: 'second copy' })].join('\n'));
  const s = await buildCorpusStore({ input: f, out: join(tmp(), 'store'), prefilter: null });
  assert.equal(s.articles, 2);
  assert.equal(s.validation.count('duplicate-id'), 1);
  assert.equal(s.validation.examples.get('duplicate-id')![0].line, 3);
});

test('strict mode: the first problem is an InputError naming file, line and field', async () => {
  const f = join(tmp(), 'a.jsonl');
  writeFileSync(f, [rec('1'), rec('2', { year: 'soon' })].join('\n'));
  await assert.rejects(readAll(f, true), (e: unknown) => e instanceof InputError && e.line === 2 && e.field === 'year' && /a\.jsonl:2 \[year\]/.test(e.message));
});

test('CLI: bad data and bad paths give one clear line, no stack trace', () => {
  const dir = tmp();
  const f = join(dir, 'a.jsonl');
  writeFileSync(f, [rec('1'), 'not json', rec('2', { year: 'x' })].join('\n'));
  const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', join(REPO, 'src/cli.ts'), ...args], { encoding: 'utf8', cwd: REPO });
  const v = cli('corpus', 'validate', '--input', f);
  assert.equal(v.status, 1);
  assert.match(v.stdout, /invalid-json: 1/);
  assert.match(v.stdout, /a\.jsonl:3 \[year\]/);
  const s = cli('corpus', 'validate', '--input', f, '--strict');
  assert.equal(s.status, 2);
  assert.match(s.stderr, /^citebench: .*a\.jsonl:2: invalid JSON/);
  assert.doesNotMatch(s.stderr, /\n\s+at /, 'no stack trace');
  const missing = cli('corpus', 'build', '--input', join(dir, 'nope'), '--out', join(dir, 'o'));
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /nope: no such file or directory/);
  const info = cli('corpus', 'info', dir);
  assert.equal(info.status, 2);
  assert.match(info.stderr, /not a corpus store/);
  const help = cli('corpus', 'build', '--help');
  assert.equal(help.status, 0);
  assert.match(help.stdout, /--min-citations/);
});

test('citations to unknown ids: counted with an example location; --strict makes them an error', async () => {
  const dir = tmp();
  const f = join(dir, 'a.jsonl');
  writeFileSync(f, [rec('1', { outbound_citations: ['2', '77'] }), rec('2', { inbound_citations: ['1', '88', '2'] })].join('\n'));
  const s = await buildCorpusStore({ input: f, out: join(dir, 'o'), prefilter: null });
  assert.equal(s.validation.count('unknown-citation'), 2);
  assert.equal(s.validation.count('self-citation'), 1);
  assert.equal(s.citations, 1);
  const ex = s.validation.examples.get('unknown-citation')![0];
  assert.deepEqual([ex.line, ex.field], [1, 'outbound_citations']);
  await assert.rejects(buildCorpusStore({ input: f, out: join(dir, 'p'), prefilter: null, strict: true }), (e: unknown) => e instanceof InputError && e.line === 1 && e.field === 'outbound_citations');
});
