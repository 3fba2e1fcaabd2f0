/**
 * Every cache key from content, in one canonical serialisation: a weights file edited in its middle gives its
 * model another fingerprint (so its vector stores another folder); the whole file's SHA-256 is remembered
 * beside a large file and re-computed when the file changes; a reordered option gives the same build key.
 * (The HNSW graph's key: store.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { resolveModel } from '../../src/retrieval/dense/models.ts';
import { fileContentHash, REMEMBER_BYTES, sidecarPath } from '../../src/retrieval/dense/file-hash.ts';
import { vectorStoreDir } from '../../src/retrieval/dense/role-stores.ts';
import { buildKey } from '../../src/corpus/build-checkpoint.ts';

const SIZE = REMEMBER_BYTES + (1 << 20);

/** A file of SIZE bytes: zeros but for marks at its start, middle and end; last changed an hour ago. */
function bigFile(path: string): void {
  const fd = openSync(path, 'w');
  try {
    for (const at of [0, SIZE >> 1, SIZE - 8]) writeSync(fd, Buffer.from('weights!'), 0, 8, at);
  } finally {
    closeSync(fd);
  }
  const t = Date.now() / 1000 - 3600;
  utimesSync(path, t, t);
}

/** Change one byte in the middle of a file, keeping its size; its mtime moves 2 s on (still in the past). */
function editMiddle(path: string): void {
  const was = statSync(path).mtime.getTime() / 1000;
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, Buffer.from([0x2a]), 0, 1, (SIZE >> 1) + 3);
  } finally {
    closeSync(fd);
  }
  utimesSync(path, was + 2, was + 2);
}

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

test('model fingerprint: one byte edited in the middle of the weights gives another fingerprint and another vector store folder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-fp-'));
  try {
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'bert', hidden_size: 8 }));
    writeFileSync(join(dir, 'vocab.txt'), ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', 'a'].join('\n') + '\n');
    mkdirSync(join(dir, 'onnx'));
    const onnx = join(dir, 'onnx', 'model.onnx');
    bigFile(onnx);
    const before = resolveModel(dir);
    assert.equal(resolveModel(dir).fingerprint, before.fingerprint, 'the same files, the same fingerprint');
    editMiddle(onnx);
    const after = resolveModel(dir);
    assert.notEqual(after.fingerprint, before.fingerprint);
    assert.notEqual(vectorStoreDir('emb', 'm', after.fingerprint), vectorStoreDir('emb', 'm', before.fingerprint));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('weights SHA-256: remembered beside a large file (path, size, mtime, inode), computed again once the file changes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-sha-'));
  try {
    const f = join(dir, 'model.safetensors');
    bigFile(f);
    assert.equal(fileContentHash(f), sha(f));
    const side = sidecarPath(f);
    assert.ok(existsSync(side), 'remembered beside the file');
    const r = JSON.parse(readFileSync(side, 'utf8')) as Record<string, unknown>;
    const st = statSync(f);
    assert.deepEqual({ size: r.size, mtimeMs: r.mtimeMs, ino: r.ino, sha256: r.sha256 }, { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, sha256: sha(f) });
    // A second file whose sidecar (matching its stat) holds a made-up hash: the sidecar is what is read, not the file.
    const g = join(dir, 'other.safetensors');
    bigFile(g);
    const sg = statSync(g);
    const madeUp = 'ab'.repeat(32);
    writeFileSync(sidecarPath(g), JSON.stringify({ format: 'citebench-sha256', path: g, size: sg.size, mtimeMs: sg.mtimeMs, ino: sg.ino, sha256: madeUp }));
    assert.equal(fileContentHash(g), madeUp, 'read from the sidecar, not hashed');
    editMiddle(g);
    assert.equal(fileContentHash(g), sha(g), 'the edited file is hashed again');
    assert.notEqual(sha(g), sha(f));
    assert.equal(JSON.parse(readFileSync(sidecarPath(g), 'utf8')).sha256, sha(g), 'and its sidecar rewritten');
    // A file changed moments ago is hashed but not remembered: an edit within the same mtime tick would not show.
    const now = join(dir, 'new.safetensors');
    bigFile(now);
    const t0 = Math.floor(Date.now() / 1000); // whole seconds: utimes sets exactly this mtime again below
    utimesSync(now, t0, t0);
    assert.equal(fileContentHash(now), sha(now));
    assert.equal(existsSync(sidecarPath(now)), false, 'not remembered while racy');
    const fd = openSync(now, 'r+');
    writeSync(fd, Buffer.from([0x2a]), 0, 1, SIZE >> 1);
    closeSync(fd);
    utimesSync(now, t0, t0); // the mtime it had, as an edit within the same tick leaves it
    assert.equal(fileContentHash(now), sha(now), 'the edit is seen');
    // A small file is hashed (fast) without a sidecar.
    const small = join(dir, 'config.json');
    writeFileSync(small, '{}');
    assert.equal(fileContentHash(small), sha(small));
    assert.equal(existsSync(sidecarPath(small)), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('corpus build key: canonical (options in another key order give the same key; another value another key)', () => {
  const a = { BUILD_VERSION: 3, cfg: { minCitations: 1, requireAbstract: true, years: [2000, 2020] }, strict: false, units: ['a.jsonl', 'b.jsonl'] };
  const b = { units: ['a.jsonl', 'b.jsonl'], strict: false, cfg: { years: [2000, 2020], requireAbstract: true, minCitations: 1 }, BUILD_VERSION: 3 };
  assert.equal(buildKey(b), buildKey(a));
  assert.notEqual(buildKey({ ...a, cfg: { ...a.cfg, minCitations: 2 } }), buildKey(a));
  assert.notEqual(buildKey({ ...a, units: ['b.jsonl', 'a.jsonl'] }), buildKey(a), 'the input files in another order are another build');
});
