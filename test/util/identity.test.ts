// util/identity.ts: the one SHA-256 of the project — the digest equals node's own over the same bytes, the
// canonical serialisation ignores object key order and nothing else, and a stale key says which input changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { identity, keyOf, sha256, sha256Hex, whyStale } from '../../src/util/identity.ts';

test('sha256: the same digest as a direct SHA-256 of the same bytes (typed arrays by their bytes, views respected)', () => {
  const a = Uint32Array.of(1, 2, 3, 4);
  const view = new Uint32Array(a.buffer, 4, 2);
  assert.equal(sha256Hex(view), createHash('sha256').update(Buffer.from(a.buffer, 4, 8)).digest('hex'));
  assert.equal(sha256().update('ab').update('c').hex(32), createHash('sha256').update('abc').digest('hex').slice(0, 32));
});

test('identity: key order does not count; types, lengths and array boundaries do', () => {
  assert.equal(identity({ a: 1, b: [2, 'x'] }), identity({ b: [2, 'x'], a: 1 }));
  assert.equal(identity({ a: 1, c: undefined }), identity({ a: 1 }), 'an undefined key is left out, as JSON does');
  const differ = [
    [1, '1'], [['ab'], ['a', 'b']], [Uint32Array.of(1), Int32Array.of(1)], [Uint32Array.of(1), Float32Array.from(new Float32Array(Uint32Array.of(1).buffer))],
    [null, 'null'], [true, 'true'], [{ a: 1 }, [['a', 1]]], [0, -0], [{ a: 'b' }, { ab: '' }],
  ];
  for (const [x, y] of differ) assert.notEqual(identity(x), identity(y), `${String(x)} vs ${String(y)}`);
});

test('keyOf / whyStale: one key over named inputs; a stale record names exactly the inputs that changed', () => {
  const pool = Uint32Array.of(1, 5, 9);
  const a = keyOf({ pool, topics: Uint32Array.of(2), params: { k: 10 }, code: 1 });
  assert.equal(a.key.length, 32);
  assert.equal(whyStale(a, keyOf({ topics: Uint32Array.of(2), pool: Uint32Array.of(1, 5, 9), code: 1, params: { k: 10 } })), undefined);
  const b = keyOf({ pool: Uint32Array.of(1, 5, 8), topics: Uint32Array.of(2), params: { k: 10 }, code: 1 });
  assert.notEqual(b.key, a.key);
  assert.equal(whyStale(a, b), 'pool ids changed');
  assert.equal(whyStale(a, keyOf({ pool, topics: Uint32Array.of(2), params: { k: 10 }, code: 2 })), 'code version changed');
  assert.equal(whyStale({ key: 'x' }, a), 'written by an older citebench (its key names no inputs)');
  assert.match(a.inputs.pool, /^Uint32Array\[3\] [0-9a-f]{12}$/);
  assert.equal(a.inputs.code, '1');
});
