// TokenTable (the index build's raw-token cache) against a Map: growth, equal hashes of different keys, ranges
// inside longer strings, non-ASCII units and the bounded size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ABSENT, TokenTable, hashRange } from '../../src/retrieval/bm25/token-table.ts';

test('TokenTable finds what was added, by range of a longer text, like a Map', () => {
  const table = new TokenTable();
  const want = new Map<string, number>();
  let seed = 7;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  const alphabet = 'abcdeé数-’';
  for (let i = 0; i < 30_000; i++) {
    let key = '';
    for (let n = 1 + (rnd() % 9); n > 0; n--) key += alphabet[rnd() % alphabet.length];
    const text = `<< ${key} >>`;
    const h = hashRange(text, 3, 3 + key.length);
    assert.equal(h, hashRange(key, 0, key.length));
    const got = table.get(text, 3, 3 + key.length, h);
    assert.equal(got, want.has(key) ? want.get(key) : ABSENT, key);
    if (got === ABSENT) {
      table.add(key, h, i);
      want.set(key, i);
    }
  }
  assert.equal(table.size, want.size);
  assert.ok(want.size > 10_000, 'the table grew several times');
  // Keys of one hash (forced) and one length stay apart.
  const same = new TokenTable();
  same.add('ab', 5, 1);
  same.add('ba', 5, 2);
  assert.equal(same.get('xab', 1, 3, 5), 1);
  assert.equal(same.get('ba', 0, 2, 5), 2);
  assert.equal(same.get('aa', 0, 2, 5), ABSENT);
  assert.equal(same.get('a', 0, 1, 5), ABSENT);
});

test('TokenTable empties itself at its bound and keeps working', () => {
  const table = new TokenTable(100);
  for (let i = 0; i < 250; i++) {
    const key = `k${i}`;
    table.add(key, hashRange(key, 0, key.length), i);
    assert.equal(table.get(key, 0, key.length, hashRange(key, 0, key.length)), i);
  }
  assert.ok(table.size <= 100);
  assert.equal(table.get('k0', 0, 2, hashRange('k0', 0, 2)), ABSENT);
  assert.equal(table.get('k249', 0, 4, hashRange('k249', 0, 4)), 249);
});
