import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { synthesize, SYNTH_DEFAULTS } from '../../src/corpus/synth.ts';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { PAPER_PREFILTER } from '../../src/corpus/prefilter.ts';
import { FIELDS } from '../../src/corpus/fields.ts';
import { sampleQueries, sampleQuerySet, samplePool, citedBy, fieldCited, citationQrels, eligibleQueries } from '../../src/sampling/pools.ts';
import { loadQueryExclusion } from '../../src/sampling/exclusions.ts';
import { Rng } from '../../src/util/rng.ts';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { cliArgv } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'cb-pools-'));
let store: CorpusStore;

test('setup: a small prefiltered synthetic store', async () => {
  await synthesize({ ...SYNTH_DEFAULTS, articles: 12000, seed: 3 }, join(dir, 'shards'));
  await buildCorpusStore({ input: join(dir, 'shards'), out: join(dir, 'store'), prefilter: PAPER_PREFILTER });
  store = CorpusStore.open(join(dir, 'store'));
  assert.ok(store.size > 8000);
});

test('dataset level: 2019 queries citing the corpus; pools hold every cited article, exact size, years ≤ 2019', () => {
  const q = sampleQueries(store, { count: 200, seed: 1 });
  assert.equal(q.length, 200);
  assert.equal(new Set(q).size, 200);
  for (const i of q) {
    assert.equal(store.years[i], 2019);
    assert.ok(store.outbound(i).length > 0);
  }
  assert.deepEqual(sampleQueries(store, { count: 200, seed: 1 }), q, 'deterministic');
  assert.notDeepEqual(sampleQueries(store, { count: 200, seed: 2 }), q);

  const cited = new Set<number>();
  for (const i of q) for (const c of store.outbound(i)) cited.add(c);
  assert.deepEqual([...citedBy(store, q)], [...cited].sort((a, b) => a - b));
  const p1 = samplePool(store, q, { size: 5000, repeat: 1, seed: 1 });
  const p2 = samplePool(store, q, { size: 5000, repeat: 2, seed: 1 });
  for (const p of [p1, p2]) {
    assert.equal(p.members.length, 5000);
    assert.equal(p.cited, cited.size);
    const members = new Set(p.members);
    for (const c of cited) assert.ok(members.has(c), 'cited article in the pool');
    for (let k = 1; k < p.members.length; k++) assert.ok(p.members[k] > p.members[k - 1], 'sorted, distinct');
    for (const m of p.members) if (!cited.has(m)) assert.ok(store.years[m] <= 2019 && store.years[m] > 0);
  }
  assert.notDeepEqual(p1.members, p2.members, 'repeats differ');
  assert.deepEqual(samplePool(store, q, { size: 5000, repeat: 1, seed: 1 }).members, p1.members, 'deterministic');
  assert.throws(() => samplePool(store, q, { size: 10, repeat: 1, seed: 1 }), /smaller than the/);
  assert.throws(() => samplePool(store, q, { size: store.size + 1, repeat: 1, seed: 1 }), /cannot sample a pool/);

  const qrels = citationQrels(store, q, p1.members);
  assert.equal(qrels.docs.length, q.reduce((s, i) => s + store.outbound(i).length, 0), 'all citations judged relevant');
});

test('field level: queries labelled with the field; pool = cited ∪ field-cited fill', () => {
  const field = 'Medicine';
  const bit = 1 << FIELDS.indexOf(field);
  const q = sampleQueries(store, { count: 40, seed: 1, field });
  for (const i of q) assert.ok(store.fields[i] & bit);
  // citing articles the store kept are among those counted (the full definition: test/sampling/field-cited)
  const fc = new Set<number>(fieldCited(store, field));
  for (let i = 0; i < store.size; i++) if (store.fields[i] & bit) for (const c of store.outbound(i)) assert.ok(fc.has(c));
  const cited = new Set(citedBy(store, q));
  const p = samplePool(store, q, { size: 1500, repeat: 1, seed: 1, field });
  assert.equal(p.members.length, 1500);
  assert.equal(p.exhausted, false);
  for (const m of p.members) assert.ok(cited.has(m) || fc.has(m));
  // a pool larger than the field-cited set takes all of it
  const all = samplePool(store, q, { size: store.size, repeat: 1, seed: 1, field });
  assert.equal(all.exhausted, true);
  const eligible = [...fc].filter((i) => !cited.has(i) && store.years[i] <= 2019).length;
  assert.equal(all.members.length, cited.size + eligible);
});

test('rng.sampleIndices: uniform enough and exact size in both regimes', () => {
  const r = new Rng(5);
  for (const [n, k] of [[1000, 10], [1000, 900], [50, 50]]) {
    const s = r.sampleIndices(n, k);
    assert.equal(new Set(s).size, k);
    assert.ok(s.every((x) => x < n));
  }
  const counts = new Uint32Array(10);
  for (let t = 0; t < 20000; t++) for (const x of r.sampleIndices(10, 3)) counts[x]++;
  for (const c of counts) assert.ok(Math.abs(c - 6000) < 400, `count ${c}`);
});

test('citebench sample writes queries, pool and qrels that agree with the library', async () => {
  const { spawnSync } = await import('node:child_process');
  const { readFileSync } = await import('node:fs');
  const { REPO } = await import('../helpers/shared.ts');
  const out = join(dir, 'sample');
  const r = spawnSync(process.execPath, cliArgv(['sample', '--corpus', join(dir, 'store'), '--out', out, '--queries', '50', '--pool-size', '3000', '--seed', '9']), { encoding: 'utf8', cwd: REPO });
  assert.equal(r.status, 0, r.stderr);
  const lines = (f: string) => readFileSync(join(out, f), 'utf8').trim().split('\n');
  const q = sampleQueries(store, { count: 50, seed: 9 });
  const p = samplePool(store, q, { size: 3000, repeat: 1, seed: 9 });
  assert.deepEqual(lines('queries.txt'), Array.from(q, (i) => store.id(i)));
  assert.deepEqual(lines('pool.txt'), Array.from(p.members, (i) => store.id(i)));
  const qrels = lines('qrels.txt').map((l) => l.split(' '));
  assert.equal(qrels.length, q.reduce((s, i) => s + store.outbound(i).length, 0));
  for (const [qid, , doc, rel] of qrels) {
    assert.equal(rel, '1');
    assert.ok(store.outbound(store.indexOf(qid)).includes(store.indexOf(doc)));
  }
  const bad = spawnSync(process.execPath, cliArgv(['sample', '--corpus', join(dir, 'store'), '--out', out, '--field', 'Alchemy']), { encoding: 'utf8', cwd: REPO });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /unknown field 'Alchemy'/);
});

test('query exclusion: listed articles are never queries; deterministic; ids not in the store counted', () => {
  const base = sampleQueries(store, { count: 100, seed: 5 });
  const listed = Array.from(base.subarray(0, 60), (i) => store.id(i));
  const f1 = join(dir, 'specter-train.txt');
  const f2 = join(dir, 'scincl-train.txt');
  writeFileSync(f1, ['# SPECTER training queries', ...listed.slice(0, 40), '', 'not-in-store-1', 'not-in-store-2', listed[0]].join('\n') + '\n');
  writeFileSync(f2, [...listed.slice(30), 'not-in-store-3'].join('\r\n'));
  const x = loadQueryExclusion(store, [f1, f2]);
  assert.deepEqual(x.files.map((f) => [f.path, f.ids, f.notInStore]), [[f1, 42, 2], [f2, 31, 1]]);
  assert.equal(x.files[0].sha256, createHash('sha256').update(readFileSync(f1)).digest('hex'));
  assert.deepEqual(Array.from(x.indices), Array.from(base.subarray(0, 60)).sort((a, b) => a - b));

  const all = sampleQuerySet(store, { count: 100, seed: 5 });
  const set = sampleQuerySet(store, { count: 100, seed: 5, exclude: x.indices });
  assert.equal(set.excluded, 60, 'every listed 2019 article citing the corpus is a candidate left out');
  assert.equal(set.candidates, all.candidates);
  assert.equal(all.excluded, 0);
  const banned = new Set(x.indices);
  for (const q of set.queries) assert.ok(!banned.has(q), `excluded article ${store.id(q)} sampled as a query`);
  assert.equal(new Set(set.queries).size, 100);
  assert.deepEqual(sampleQuerySet(store, { count: 100, seed: 5, exclude: x.indices }), set, 'deterministic');
  assert.deepEqual(sampleQuerySet(store, { count: 100, seed: 5, exclude: new Set(x.indices) }).queries, set.queries, 'a Set works the same');
  // a field-level set excludes the same way
  const med = sampleQuerySet(store, { count: 20, seed: 5, field: 'Medicine', exclude: x.indices });
  for (const q of med.queries) assert.ok(!banned.has(q));

  writeFileSync(join(dir, 'bad.txt'), 'abc\nid1\tid2\n');
  assert.throws(() => loadQueryExclusion(store, [join(dir, 'bad.txt')]), /bad\.txt:2 \[paper_id\]: 'id1\tid2' is not one paper id/);
  assert.throws(() => loadQueryExclusion(store, [join(dir, 'missing.txt')]), /missing\.txt: query exclusion file not found/);
});

test('citebench sample --exclude-queries: no listed article among the queries; the count is reported', async () => {
  const { spawnSync } = await import('node:child_process');
  const { REPO } = await import('../helpers/shared.ts');
  const out = join(dir, 'sample-ex');
  const f1 = join(dir, 'specter-train.txt');
  const f2 = join(dir, 'scincl-train.txt');
  const r = spawnSync(process.execPath, cliArgv(['sample', '--corpus', join(dir, 'store'), '--out', out, '--queries', '100', '--pool-size', '5000', '--seed', '5', '--exclude-queries', f1, '--exclude-queries', f2]), { encoding: 'utf8', cwd: REPO });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /60 of \d+ query candidates excluded, listed in .*specter-train\.txt \(sha256 [0-9a-f]{64}, 42 ids, 2 not in the store\); .*scincl-train\.txt/);
  const banned = new Set(readFileSync(f1, 'utf8').split(/\r?\n/).concat(readFileSync(f2, 'utf8').split(/\r?\n/)));
  const queries = readFileSync(join(out, 'queries.txt'), 'utf8').trim().split('\n');
  assert.equal(queries.length, 100);
  for (const q of queries) assert.ok(!banned.has(q), q);
});

test('allowFewer: a validation split takes every eligible article the test split leaves; never none, never more', () => {
  // The smallest field with enough MDCR-eligible queries (citing ≥ 5) to split.
  const sizes = FIELDS.map((field) => ({ field, n: eligibleQueries(store, { field, minCited: 5 }).length })).filter((x) => x.n >= 10).sort((a, b) => a.n - b.n);
  const { field, n } = sizes[0];
  const testCount = Math.ceil(n * 0.6);
  const testQ = sampleQueries(store, { count: testCount, seed: 4, field, minCited: 5 });
  const val = (count: number, extra: Partial<Parameters<typeof sampleQuerySet>[1]> = {}) =>
    sampleQuerySet(store, { count, seed: 4, field, minCited: 5, exclude: new Set(testQ), split: 'val', ...extra });
  // Without the option a short split is an error naming what is missing.
  assert.throws(() => val(testCount), new RegExp(`cannot sample ${testCount} val queries: only ${n - testCount} 2019 articles of ${field} citing ≥ 5`));
  // With it: exactly the remaining eligible articles, each once, none a test query, in a seeded order.
  const short = val(testCount, { allowFewer: true });
  assert.equal(short.requested, testCount);
  assert.equal(short.candidates, n);
  assert.equal(short.queries.length, n - testCount);
  const rest = eligibleQueries(store, { field, minCited: 5 }).filter((i) => !testQ.includes(i));
  assert.deepEqual([...short.queries].sort((a, b) => a - b), rest);
  assert.deepEqual(val(testCount, { allowFewer: true }).queries, short.queries, 'deterministic');
  // When the split can be filled the option changes nothing.
  const k = n - testCount - 1;
  assert.deepEqual(val(k, { allowFewer: true }).queries, val(k).queries);
  assert.equal(val(k, { allowFewer: true }).queries.length, k);
  // Nothing left: still an error.
  assert.throws(() => sampleQuerySet(store, { count: 3, seed: 4, field, minCited: 5, exclude: new Set(eligibleQueries(store, { field, minCited: 5 })), split: 'val', allowFewer: true }), /cannot sample 3 val queries: only 0/);
});
