// An in-place BufferedWriter compacts the file a BufferedReader is reading (the store build's text spool):
// the result must equal a copy to a second file, across buffer refills and records larger than a buffer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BufferedReader, BufferedWriter } from '../../src/util/buffered-file.ts';

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
