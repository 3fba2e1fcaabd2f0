// The id map: same answers as a Map of strings for numeric, non-canonical and non-numeric ids, through many
// doublings of its table; dense indices enforced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IdIndex } from '../../src/corpus/id-index.ts';
import { Rng } from '../../src/util/rng.ts';

test('IdIndex equals a Map: add (duplicates return the first index), get, getBytes; table doublings', () => {
  const r = new Rng(17);
  const ref = new Map<string, number>();
  const ix = new IdIndex(4);
  const ids: string[] = [];
  for (let i = 0; i < 200_000; i++) {
    const u = r.next();
    const id =
      u < 0.8 ? String(r.nextInt(1_000_000_000)) // numeric, with collisions
      : u < 0.85 ? '0' + String(r.nextInt(1000)) // leading zero: not the number
      : u < 0.9 ? String(1e15 + r.nextInt(1000)) // 16 digits: falls back to the Map
      : u < 0.95 ? `W${r.nextInt(100000)}` // non-numeric
      : ids.length ? ids[r.nextInt(ids.length)] : '7'; // an id seen before
    ids.push(id);
    const known = ref.get(id);
    const got = ix.add(id, ix.size);
    if (known === undefined) {
      assert.equal(got, ref.size, id);
      ref.set(id, ref.size);
    } else assert.equal(got, known, id);
  }
  assert.equal(ix.size, ref.size);
  for (const [id, i] of ref) {
    assert.equal(ix.get(id), i);
    const b = Buffer.from(`x${id}y`);
    assert.equal(ix.getBytes(b, 1, b.length - 1), i);
  }
  for (const miss of ['1000000001', '00', '', 'W-1', '9'.repeat(15)]) assert.equal(ix.get(miss), ref.get(miss) ?? -1, miss);
});

test('IdIndex: a new id must get the next dense index', () => {
  const ix = new IdIndex();
  assert.equal(ix.add('5', 0), 0);
  assert.equal(ix.add('5', 1), 0, 'a duplicate returns its index whatever index is offered');
  assert.throws(() => ix.add('6', 3), /index 3 given, 1 expected/);
});
