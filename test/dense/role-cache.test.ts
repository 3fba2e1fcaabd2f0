// The embedding cache keyed by role and prompt (mteb #5383: a cache keyed by text alone served a query vector
// for an identical document). A sentence-transformers folder with query and document prompts
// (fixtures/st/mean-normalize-prompts, made by sentence-transformers: scripts/dev/make-st-fixtures.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryTexts } from '../../src/corpus/article.ts';
import { Encoder } from '../../src/retrieval/dense/encoder.ts';
import { resolveModel } from '../../src/retrieval/dense/models.ts';
import { encodeRoles, openModelStores } from '../../src/retrieval/dense/role-stores.ts';

const ST = new URL('./fixtures/st', import.meta.url).pathname;
const golden = JSON.parse(readFileSync(join(ST, 'golden.json'), 'utf8')) as {
  queries: string[];
  folders: Record<string, { queryVectors: number[][]; documentVectors: number[][] }>;
};
const records = readFileSync(join(ST, 'corpus.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { paper_id: string; title: string; abstract: string });

function diff(a: Float32Array, b: ArrayLike<number>): number {
  let m = 0;
  for (let j = 0; j < a.length; j++) m = Math.max(m, Math.abs(a[j]! - b[j]!));
  return m;
}

test('an identical text as a query and as a document gets its own stored vector per role; the same role reuses the stored one', async () => {
  const root = mkdtempSync(join(tmpdir(), 'cb-role-cache-'));
  try {
    const dir = join(root, 'model');
    cpSync(join(ST, 'mean-normalize-prompts'), dir, { recursive: true });
    const model = resolveModel(dir);
    assert.notEqual(model.prompts.query, model.prompts.document);
    // Articles 0 and 1 have the same text; 0 is a query, 1 a pool article.
    const qi = records.findIndex((r) => r.paper_id === golden.queries[0]);
    const a = { title: records[qi]!.title, abstract: records[qi]!.abstract };
    const texts = new InMemoryTexts([a, { ...a }, { title: records[1]!.title, abstract: records[1]!.abstract }]);
    const emb = join(root, 'emb');
    const enc = await Encoder.load(model, { threads: 1, batchSize: 4 });
    try {
      let stores = openModelStores(emb, model, { corpusSize: texts.size, chunkSize: 2 });
      assert.notEqual(stores.query.dir, stores.document.dir);
      assert.equal(await encodeRoles(stores, enc, texts, Uint32Array.of(0), Uint32Array.of(1, 2)), 3);
      const q = stores.query.load(Uint32Array.of(0)).vectors;
      const d = stores.document.load(Uint32Array.of(1)).vectors;
      // Each equals what sentence-transformers' encode_query / encode_document gives for that text.
      assert.ok(diff(q, golden.folders['mean-normalize-prompts']!.queryVectors[0]!) <= 1e-4, 'query vector');
      assert.ok(diff(d, golden.folders['mean-normalize-prompts']!.documentVectors[qi]!) <= 1e-4, 'document vector');
      assert.ok(diff(q, d) > 1e-3, 'the query and the document vector of one text must differ');
      // The document store has no vector of the query article, the query store none of the pool articles.
      assert.throws(() => stores.document.load(Uint32Array.of(0)));
      assert.throws(() => stores.query.load(Uint32Array.of(1)));

      // Again, from reopened stores: nothing encoded, the stored vectors served.
      stores = openModelStores(emb, model, { corpusSize: texts.size });
      assert.equal(await encodeRoles(stores, enc, texts, Uint32Array.of(0), Uint32Array.of(1, 2)), 0);
      assert.deepEqual(stores.query.load(Uint32Array.of(0)).vectors, q);
      assert.deepEqual(stores.document.load(Uint32Array.of(1)).vectors, d);
      // Now the same text as a document (article 0) is encoded in the document role: the document vector.
      assert.equal(await encodeRoles(stores, enc, texts, new Uint32Array(0), Uint32Array.of(0)), 1);
      assert.deepEqual(stores.document.load(Uint32Array.of(0)).vectors, d);
    } finally {
      await enc.release();
    }

    // Another query prompt is another key: the stored query vectors are never served for it.
    const other = resolveModel(dir, { overrides: { prompts: { query: 'search query: ' } } });
    assert.notEqual(other.roleFingerprint.query, model.roleFingerprint.query);
    assert.equal(other.roleFingerprint.document, model.roleFingerprint.document);
    assert.throws(() => openModelStores(emb, other, { corpusSize: texts.size }), /fingerprint|another|prompt/i);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
