// Every kind of bad input yields a counted, located skip (or, with --strict, one clear error) — never a crash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { readArticles } from '../../src/corpus/s2orc-reader.ts';
import { ValidationReport } from '../../src/corpus/validation.ts';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { InputError } from '../../src/util/errors.ts';
import { REPO, SHARED, skipNoShared } from '../helpers/shared.ts';
import { cliArgv } from '../helpers/cli.ts';

const rec = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    paper_id: id, title: `Title ${id}`, abstract: 'An abstract that is long enough to pass the prefilter rule.', year: 2010,
    mag_field_of_study: ['Medicine'], outbound_citations: [], inbound_citations: [], ...extra,
  });

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'cb-bad-'));
}

async function readAll(path: string, strict = false, allowTruncated = false) {
  const report = new ValidationReport(strict);
  const ids: string[] = [];
  for await (const a of readArticles(path, { report, allowTruncated })) ids.push(a.id);
  return { report, ids };
}

const cli = (...args: string[]) => spawnSync(process.execPath, cliArgv(args), { encoding: 'utf8', cwd: REPO });

/** A directory with a.jsonl.gz (2,000 records, damaged by `damage`) and b.jsonl (one record). */
function damagedShards(damage: (gz: Buffer) => Buffer): string {
  const dir = tmp();
  const lines = Array.from({ length: 2000 }, (_, i) => rec(String(i + 1)));
  writeFileSync(join(dir, 'a.jsonl.gz'), damage(gzipSync(lines.join('\n') + '\n')));
  writeFileSync(join(dir, 'b.jsonl'), rec('999999') + '\n');
  return dir;
}
const cut = (gz: Buffer) => gz.subarray(0, Math.floor(gz.length / 2));
const corrupt = (gz: Buffer) => {
  const b = Buffer.from(gz);
  for (let i = 0; i < 32; i++) b[(b.length >> 1) + i] ^= 0x5a;
  return b;
};

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

test('truncated gzip: an InputError naming the file, line and offsets', async () => {
  const dir = damagedShards(cut);
  const size = statSync(join(dir, 'a.jsonl.gz')).size;
  await assert.rejects(readAll(dir), (e: unknown) =>
    e instanceof InputError && e.file.endsWith('a.jsonl.gz') && e.line! > 1 &&
    new RegExp(`gzip stream is truncated \\(at compressed byte ${size} of ${size}, after decompressed byte \\d+\\)`).test(e.message) &&
    /--allow-truncated/.test(e.message));
});

test('corrupt gzip bytes: an InputError naming the file and offsets', async () => {
  const dir = damagedShards(corrupt);
  await assert.rejects(readAll(dir), (e: unknown) =>
    e instanceof InputError && e.file.endsWith('a.jsonl.gz') && /corrupt gzip data, zlib: .* \((at compressed byte|in compressed bytes) [0-9–]+ of \d+, after decompressed byte \d+\)/.test(e.message));
});

test('truncated gzip with allowTruncated: records before the cut are kept, the file is reported corrupt', async () => {
  const dir = damagedShards(cut);
  const { report, ids } = await readAll(dir, false, true);
  assert.equal(report.count('corrupt-file'), 1);
  assert.match(report.examples.get('corrupt-file')![0].message, /truncated/);
  assert.ok(ids.length > 0 && ids.length < 2000, `kept ${ids.length} complete records`);
  assert.equal(ids.at(-1), '999999', 'the next shard is still read');
  // every kept record is complete and in order
  ids.slice(0, -1).forEach((id, i) => assert.equal(id, String(i + 1)));
});

test('garbage that is not gzip at all: an error; with allowTruncated reported, not thrown', async () => {
  const f = join(tmp(), 'x.jsonl.gz');
  writeFileSync(f, 'this is not gzip');
  await assert.rejects(readAll(f), (e: unknown) => e instanceof InputError && /x\.jsonl\.gz:1: corrupt gzip data, zlib: incorrect header check/.test(e.message));
  const { report, ids } = await readAll(f, false, true);
  assert.equal(ids.length, 0);
  assert.equal(report.count('corrupt-file'), 1);
});

test('CLI: a truncated or corrupt shard stops corpus build and validate with one line; --allow-truncated counts it', () => {
  for (const damage of [cut, corrupt]) {
    const dir = damagedShards(damage);
    const out = join(dir, 'store');
    for (const cmd of ['build', 'validate']) {
      const r = cli('corpus', cmd, '--input', dir, ...(cmd === 'build' ? ['--out', out, '--no-prefilter'] : []));
      assert.equal(r.status, 2, `${cmd}: ${r.stderr}`);
      assert.match(r.stderr, /^citebench: \S*a\.jsonl\.gz:\d+: (gzip stream is truncated|corrupt gzip data).*(at compressed byte|in compressed bytes) [0-9–]+ of \d+, after decompressed byte \d+/);
      assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    }
    assert.ok(!existsSync(out), 'no store written');
    const b = cli('corpus', 'build', '--input', dir, '--out', out, '--no-prefilter', '--allow-truncated');
    assert.equal(b.status, 0, b.stderr);
    assert.match(b.stderr, /corrupt-file: 1/);
    assert.match(b.stdout, /wrote .*store: \d+ articles/);
    const v = cli('corpus', 'validate', '--input', dir, '--allow-truncated');
    assert.equal(v.status, 1, 'a problem was found');
    assert.match(v.stdout, /corrupt-file: 1/);
  }
});

test('CLI: corpus build of the 1,000-record S2ORC sample keeps 0 articles: an error naming the rules, suggesting --citation-scope record', { skip: skipNoShared }, () => {
  const out = join(tmp(), 'store');
  const r = cli('corpus', 'build', '--input', join(SHARED, 'data', 's2orc-sample'), '--out', out);
  assert.equal(r.status, 2, r.stderr);
  const msg = r.stderr.trim().split('\n').filter((l) => l.startsWith('citebench: '));
  assert.equal(msg.length, 1, r.stderr);
  assert.match(msg[0], /prefilter kept 0 of 1000 articles/);
  assert.match(msg[0], /< 3 inbound citations \(corpus scope\): \d+/);
  assert.match(msg[0], /citations point outside the input/);
  assert.match(msg[0], /--citation-scope record/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.ok(!existsSync(out), 'no store written');
  const ok = cli('corpus', 'build', '--input', join(SHARED, 'data', 's2orc-sample'), '--out', out, '--citation-scope', 'record');
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /wrote .*: [1-9]\d* articles/);
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
