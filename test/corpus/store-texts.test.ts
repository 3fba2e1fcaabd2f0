// StoreTexts.articleTexts (the index build's read path) gives each article's BM25 text exactly as articleText
// over texts() does: empty abstracts, byte-order marks, non-ASCII text and articles across the read buffer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoreTexts } from '../../src/corpus/store-texts.ts';
import { articleText } from '../../src/retrieval/bm25/analyzer.ts';

test('articleTexts equals articleText over texts(), byte-order marks and empty abstracts included', () => {
  const BOM = '\ufeff';
  const items: [string, string][] = [
    ['A title', 'An abstract.'],
    ['Title only', ''],
    ['', 'Abstract without a title'],
    ['Ünïcödé “quotes” 数据', 'naïve café – ö'],
    [`${BOM}Title opening with a BOM`, 'abstract'],
    ['Title', `${BOM}abstract opening with a BOM`],
    ['Title', BOM], // an abstract that decodes to nothing
    ['x'.repeat(70_000), 'y'.repeat(90_000)], // longer than the joining buffer
    ...Array.from({ length: 300 }, (_, i): [string, string] => [`t${i} ${'w'.repeat(i * 97)}`, i % 3 ? `a${i} ${'z'.repeat(i * 211)}` : '']),
  ];
  const dir = mkdtempSync(join(tmpdir(), 'store-texts-'));
  try {
    const parts: Buffer[] = [];
    const off = new Float64Array(2 * items.length + 1);
    let at = 0;
    items.forEach(([t, a], i) => {
      for (const [k, s] of [[2 * i + 1, t], [2 * i + 2, a]] as const) {
        const b = Buffer.from(s, 'utf8');
        parts.push(b);
        at += b.length;
        off[k] = at;
      }
    });
    writeFileSync(join(dir, 'text.bin'), Buffer.concat(parts));
    writeFileSync(join(dir, 'text.off.f64'), new Uint8Array(off.buffer));
    const texts = new StoreTexts(dir);
    for (const [from, to] of [[0, items.length], [3, 9], [150, 151]]) {
      const want = Array.from(texts.texts(from, to), (a) => ({ index: a.index, text: articleText(a) }));
      const got = Array.from(texts.articleTexts(from, to), (a) => ({ ...a }));
      assert.equal(got.length, to - from);
      assert.deepEqual(got, want, `articles ${from}–${to}`);
    }
    // The cases that matter decode as texts() decodes them: a BOM opening either part is dropped.
    const first = [...texts.articleTexts(0, 7)].map((a) => a.text);
    assert.deepEqual(first.slice(4), ['Title opening with a BOM abstract', 'Title abstract opening with a BOM', 'Title']);
    texts.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
