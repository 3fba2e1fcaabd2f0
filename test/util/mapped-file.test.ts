/**
 * readFileShared (util/mapped-file.ts): the file's bytes in a SharedArrayBuffer, mapped where the addon is built
 * — copy-on-write, so writing into the buffer never reaches the file — and read the same way without it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileShared } from '../../src/util/mapped-file.ts';

test('readFileShared: the file\'s bytes, shared; writes stay in memory; an empty file; the same bytes with mapping off', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-mapped-'));
  try {
    const f = join(dir, 'a.bin');
    const bytes = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 131) & 255);
    writeFileSync(f, bytes);
    const b = readFileShared(f);
    assert.ok(b instanceof SharedArrayBuffer);
    assert.deepEqual(new Uint8Array(b), bytes);
    new Uint8Array(b)[1000] ^= 0xff; // copy-on-write: the file keeps its byte
    assert.equal(readFileSync(f)[1000], bytes[1000]);
    assert.equal(new Uint8Array(b)[1000], bytes[1000] ^ 0xff);
    writeFileSync(join(dir, 'empty.bin'), '');
    assert.equal(readFileShared(join(dir, 'empty.bin')).byteLength, 0);
    const off = spawnSync(process.execPath, ['--import', 'tsx', '-e',
      `import('${new URL('../../src/util/mapped-file.ts', import.meta.url).href}').then((m) => { const b = m.readFileShared(${JSON.stringify(f)}); process.stdout.write(String(b instanceof SharedArrayBuffer) + ' ' + Buffer.from(b).toString('base64')); })`],
    { encoding: 'utf8', env: { ...process.env, CITEBENCH_MAPPED_FILES: 'off' } });
    assert.equal(off.status, 0, off.stderr);
    assert.equal(off.stdout, `true ${Buffer.from(bytes).toString('base64')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
