// A BM25 index build SIGKILLed while analysing chunks or while saving the index leaves no index that looks
// complete (no folder at --out, or the previous complete one); the next build resumes from the finished chunks
// (killed while saving, it starts again: the chunks were deleted once merged), removes the dead process's
// half-saved folder and writes index files byte-identical to an uninterrupted build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { synthesize, SYNTH_DEFAULTS } from '../../src/corpus/synth.ts';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { loadIndex } from '../../src/retrieval/bm25/index-format.ts';
import { removeWorkDir } from '../../src/retrieval/bm25/index.ts';

const root = new URL('../..', import.meta.url).pathname;
const KILL = join(root, 'test/bm25/fixtures/kill-after-rename.mjs');
const dir = mkdtempSync(join(tmpdir(), 'bm25-kill-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function index(out: string, killAfter?: string) {
  return spawnSync(process.execPath, ['--import', 'tsx', ...(killAfter ? ['--import', KILL] : []), join(root, 'src/cli.ts'), 'bm25', 'index',
    '--corpus', join(dir, 'store'), '--out', out, '--chunk-docs', '500', '--threads', '1'],
  { encoding: 'utf8', cwd: root, env: { ...process.env, ...(killAfter ? { KILL_AFTER_RENAME: killAfter } : {}) } });
}

const files = (d: string) => readdirSync(d).filter((f) => f !== 'meta.json').sort();

test('a killed bm25 index build never looks complete and resumes to the same bytes', async () => {
  await synthesize({ ...SYNTH_DEFAULTS, articles: 3000, seed: 5, shardSize: 1000 }, join(dir, 'shards'));
  await buildCorpusStore({ input: join(dir, 'shards'), out: join(dir, 'store'), prefilter: null });
  let r = index(join(dir, 'ref'));
  assert.equal(r.status, 0, r.stderr);

  const out = join(dir, 'ix');
  // Killed after the third chunk: no index folder, the finished chunks kept for the next build.
  r = index(out, 'chunk-00002\\.json$');
  assert.equal(r.signal, 'SIGKILL', r.stderr);
  assert.ok(!existsSync(out));
  assert.deepEqual(readdirSync(`${out}.work`).filter((f) => f.endsWith('.json')), ['chunk-00000.json', 'chunk-00001.json', 'chunk-00002.json']);
  assert.throws(() => loadIndex(out), /not a BM25 index \(no meta\.json\)/);
  // Killed while saving (postings written, meta.json not yet): still no index folder, only the dead process's temp one.
  r = index(out, '\\.tmp-[^/]*/docs\\.u32$');
  assert.equal(r.signal, 'SIGKILL', r.stderr);
  assert.ok(!existsSync(out));
  const stale = readdirSync(dir).filter((f) => f.startsWith(`ix.tmp-${hostname()}-`));
  assert.equal(stale.length, 1, readdirSync(dir).join(' '));
  assert.ok(!existsSync(join(dir, stale[0], 'meta.json')));
  // The next build finishes: same files as the uninterrupted one, temp and chunk folders gone.
  r = index(out);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(files(out), files(join(dir, 'ref')));
  for (const f of files(out)) assert.ok(readFileSync(join(out, f)).equals(readFileSync(join(dir, 'ref', f))), f);
  assert.deepEqual(readdirSync(dir).filter((f) => f.startsWith('ix.')), []);
  // Rebuilding over a complete index and killed while saving: the old index stays whole until the swap.
  r = index(out, '\\.tmp-[^/]*/tfnorm\\.u16$');
  assert.equal(r.signal, 'SIGKILL', r.stderr);
  assert.equal(loadIndex(out).docCount, 3000);
});

test('removeWorkDir deletes every chunk file, markers first, and keeps a folder holding anything else', () => {
  const w = join(dir, 'w.work');
  mkdirSync(w, { recursive: true });
  for (const f of ['chunk-00000.json', 'chunk-00000.docs', 'chunk-00001.json', 'chunk-00001.tfs', 'local-1-2.bin', 'notes.txt']) writeFileSync(join(w, f), 'x');
  removeWorkDir(w);
  assert.deepEqual(readdirSync(w), ['notes.txt']);
  rmSync(join(w, 'notes.txt'));
  writeFileSync(join(w, 'chunk-00002.json'), 'x');
  removeWorkDir(w);
  assert.ok(!existsSync(w));
});
