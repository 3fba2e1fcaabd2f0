// An in-place BufferedWriter compacts the file a BufferedReader is reading (the store build's text spool):
// the result must equal a copy to a second file, across buffer refills and records larger than a buffer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BufferedReader, BufferedWriter, readFileBuffer } from '../../src/util/buffered-file.ts';
import { writeFileAtomic } from '../../src/util/atomic.ts';

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

test('in-place compaction of a length-prefixed file equals a copy of the kept records, and cuts the file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-buffered-'));
  try {
    const rnd = lcg(11);
    const raw = join(dir, 'raw');
    const w = new BufferedWriter(raw);
    const records: Buffer[] = [];
    for (let i = 0; i < 4000; i++) {
      // mostly short records, a few longer than the 8 MiB buffers, some empty
      const len = i % 997 === 5 ? (9 << 20) + i : Math.floor(rnd() * 12000);
      const b = Buffer.alloc(len, i % 251);
      if (len > 0) b[len - 1] = (i * 7) & 255;
      records.push(b);
      w.u32(len);
      w.writeBytes(b);
    }
    w.close();
    const keep = records.map((_, i) => rnd() < 0.7 || i % 997 === 5);
    const want = Buffer.concat(records.filter((_, i) => keep[i]));

    const r = new BufferedReader(raw);
    const out = new BufferedWriter(raw, { inPlace: true });
    for (let i = 0; i < records.length; i++) {
      const len = r.u32();
      r.ensure(len);
      if (keep[i]) out.writeBytes(r.buf.subarray(r.pos, r.pos + len));
      r.pos += len;
    }
    assert.ok(r.done);
    out.close();
    r.close();
    assert.equal(statSync(raw).size, want.length);
    assert.ok(readFileSync(raw).equals(want));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('files over 4 GiB (a 16 M-article index\'s postings) are written atomically and read back whole', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-big-'));
  try {
    // Past writeSync's 2 GiB per call, and past V8's 2^32 elements for one Uint8Array view of the whole.
    const size = 2 ** 32 + 48;
    const data = new Uint32Array(new SharedArrayBuffer(size)); // zero pages: no memory until touched
    const marks = [0, 2 ** 28 - 1, 2 ** 28, 2 ** 29 - 1, 2 ** 29, 2 ** 30 + 3, size / 4 - 1];
    marks.forEach((p, k) => (data[p] = k + 1));
    const path = join(dir, 'big.bin');
    writeFileAtomic(path, data);
    assert.equal(statSync(path).size, size);
    const back = new Uint32Array(readFileBuffer(path, { shared: true }) as SharedArrayBuffer);
    assert.equal(back.length, size / 4);
    assert.ok(back.buffer instanceof SharedArrayBuffer);
    marks.forEach((p, k) => assert.equal(back[p], k + 1, `element ${p}`));
    assert.equal(back[12345], 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
