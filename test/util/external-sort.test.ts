// External sorts: the merged runs equal an in-memory sort (pairs: by key then value; records: by key, stable),
// whatever the run size, and the memory bound holds by spilling several runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { KeyValueSorter, PairSorter, RecordSorter } from '../../src/util/external-sort.ts';
import { Rng } from '../../src/util/rng.ts';

const dir = mkdtempSync(join(tmpdir(), 'cb-xsort-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('PairSorter: several runs merge into (key, value) order, extremes included; runs deleted on dispose', () => {
  const r = new Rng(5);
  const pairs: [number, number][] = [[0xffffffff, 0xffffffff], [0, 0]];
  for (let i = 0; i < 5000; i++) pairs.push([r.nextInt(300), r.nextInt(1 << 30) * 4 + r.nextInt(4)]);
  const s = new PairSorter(dir, 'p', 8 * 700); // 700 pairs a run
  for (const [k, v] of pairs) s.add(k, v);
  const got: number[][] = [];
  for (const [k, v] of s.sorted()) got.push([k, v]); // the yielded pair is reused: copy it
  assert.ok(s.runs >= 7, `spilled ${s.runs} runs`);
  assert.deepEqual(got, [...pairs].sort((a, b) => a[0] - b[0] || a[1] - b[1]));
  s.dispose();
  assert.deepEqual(readdirSync(dir).filter((f) => f.startsWith('p.')), []);
});

test('KeyValueSorter: keys past 2^32 up to 2^53 − 1 merge from several runs into (key, value) order; reopened from its run files', () => {
  const r = new Rng(7);
  const items: [number, number][] = [[Number.MAX_SAFE_INTEGER, 0xffffffff], [0, 0], [2 ** 32, 1], [2 ** 32 - 1, 1]];
  for (let i = 0; i < 4000; i++) items.push([r.nextInt(40) * 2 ** 32 + r.nextInt(3) * 0x7fffffff, r.nextInt(1 << 30) * 4 + r.nextInt(4)]);
  const s = new KeyValueSorter(dir, 'kv', 24 * 500); // 500 items a run
  for (const [k, v] of items) s.add(k, v);
  s.spill();
  assert.ok(s.runs >= 8, `spilled ${s.runs} runs`);
  const want = [...items].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  // A later process reopens the sort from the run files alone.
  const again = new KeyValueSorter(dir, 'kv', 24 * 500, s.runFiles);
  assert.deepEqual(Array.from(again.sorted(), ([k, v]) => [k, v]), want);
  assert.deepEqual(Array.from(s.sorted(), ([k, v]) => [k, v]), want);
  s.dispose();
});

test('RecordSorter: stable by key across runs; payloads intact; an empty sort yields nothing', () => {
  const r = new Rng(9);
  const items = Array.from({ length: 3000 }, (_, i) => ({ key: r.nextInt(50) * 1e9, payload: `#${i}:${'x'.repeat(r.nextInt(40))}` }));
  const s = new RecordSorter(dir, 'r', 20_000);
  for (const it of items) s.add(it.key, Buffer.from(it.payload));
  const got = [...s.sorted()].map((x) => ({ key: x.key, payload: x.payload.toString() }));
  assert.ok(s.runs > 5, `spilled ${s.runs} runs`);
  const want = items.map((x, i) => ({ ...x, i })).sort((a, b) => a.key - b.key || a.i - b.i).map(({ key, payload }) => ({ key, payload }));
  assert.deepEqual(got, want);
  s.dispose();
  const empty = new RecordSorter(dir, 'e');
  assert.deepEqual([...empty.sorted()], []);
  empty.dispose();
  assert.throws(() => new RecordSorter(dir, 'bad').add(-1, Buffer.alloc(0)), /not a non-negative integer/);
});

test('a disk without room for the next run: one message naming the folder and the bytes needed', () => {
  const s = new PairSorter(dir, 'full', 8 * 100);
  s.free = () => 500;
  for (let i = 0; i < 100; i++) s.add(i, i);
  assert.throws(() => s.add(100, 100), (e: Error) => {
    assert.match(e.message, new RegExp(`^${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: no room for the next external-sort run of full: 800 bytes needed, 500 free`));
    return true;
  });
});
