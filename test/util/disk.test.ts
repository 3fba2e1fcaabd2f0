// Running out of disk is refused before a long job writes anything: synthesis, the store build and the BM25
// index build ask for their estimated bytes on the output's volume (a fake probe stands in for statfs here) and
// fail with one line naming the folder and the bytes needed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { freeBytes, requireFreeSpace } from '../../src/util/disk.ts';
import { CitebenchError } from '../../src/util/errors.ts';
import { synthesize, SYNTH_DEFAULTS, SHARD_BYTES_PER_RECORD } from '../../src/corpus/synth.ts';
import { buildCorpusStore, buildDiskNeed } from '../../src/corpus/store-build.ts';
import { PAPER_PREFILTER } from '../../src/corpus/prefilter.ts';
import { StoreTexts } from '../../src/corpus/store-texts.ts';
import { buildIndex, indexDiskNeed } from '../../src/retrieval/bm25/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'cb-disk-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** A probe that reports `bytes` free and records where it was asked. */
function fakeFree(bytes: number) {
  const asked: string[] = [];
  return { asked, probe: (d: string) => (asked.push(d), bytes) };
}

test('requireFreeSpace: one line naming the folder, the bytes needed and the bytes free', () => {
  requireFreeSpace(dir, 1000, 'x', () => 1000); // exactly enough passes
  assert.throws(() => requireFreeSpace('some/folder', 12_884_901_888, 'synth: 20,000,000 records of shards', () => 1_073_741_824), (e: Error) => {
    assert.ok(e instanceof CitebenchError);
    assert.equal(e.message.split('\n').length, 1);
    assert.match(e.message, /^some\/folder: not enough free disk for synth: 20,000,000 records of shards: needs about 12,884,901,888 bytes \(12\.0 GiB\), the volume has 1,073,741,824 \(1\.0 GiB\) free/);
    return true;
  });
  // The real probe answers for a folder that does not exist yet (its nearest existing parent's volume).
  const free = freeBytes(join(dir, 'not', 'yet'));
  assert.ok(Number.isFinite(free) && free > 0, `${free}`);
});

test('synth, corpus build and bm25 index refuse a volume that is too small before writing anything', async () => {
  const shards = join(dir, 'shards');
  const cfg = { ...SYNTH_DEFAULTS, articles: 3000, seed: 3, shardSize: 1000 };
  const needShards = Math.ceil(1.1 * 3000 * SHARD_BYTES_PER_RECORD.default);
  const tight = fakeFree(needShards - 1);
  await assert.rejects(synthesize(cfg, shards, { freeBytes: tight.probe }),
    new RegExp(`shards: not enough free disk for synth: 3,000 records of shards: needs about ${needShards.toLocaleString('en-US')} bytes`));
  assert.deepEqual(tight.asked, [shards]);
  assert.ok(!readdirSync(shards).some((f) => f.endsWith('.gz')), 'no shard written');
  await synthesize(cfg, shards, { freeBytes: fakeFree(needShards).probe });
  // The estimate holds the shards actually written (10 % margin).
  const written = readdirSync(shards).filter((f) => f.endsWith('.gz')).reduce((t, f) => t + statSync(join(shards, f)).size, 0);
  assert.ok(written <= needShards, `${written} bytes of shards`);

  const store = join(dir, 'store');
  const need = buildDiskNeed(shards);
  // The documented factor: 2.2–2.4× measured at the peak, with a margin (store-build.ts BUILD_DISK_PER_INPUT_BYTE).
  assert.ok(need >= written * 2.2 && need <= written * 3, `${need} for ${written} bytes of shards`);
  await assert.rejects(buildCorpusStore({ input: shards, out: store, prefilter: PAPER_PREFILTER, freeBytes: fakeFree(Math.ceil(need) - 1).probe }),
    (e: Error) => e instanceof CitebenchError && e.message.startsWith(`${dir}: not enough free disk for corpus build`));
  assert.ok(!existsSync(store) && !existsSync(`${store}.tmp-build`));
  await buildCorpusStore({ input: shards, out: store, prefilter: PAPER_PREFILTER, freeBytes: fakeFree(Math.ceil(need)).probe });

  const work = join(dir, 'index.work');
  const texts = new StoreTexts(store);
  const textBytes = statSync(join(store, 'text.bin')).size;
  const needIx = indexDiskNeed(textBytes);
  await assert.rejects(buildIndex(texts, { chunkDocs: 500, workDir: work, workerSource: { kind: 'store', dir: store }, freeBytes: fakeFree(Math.ceil(needIx) - 1).probe }),
    /not enough free disk for bm25 index: chunks and index of /);
  assert.ok(!existsSync(work) || readdirSync(work).length === 0, 'no chunk written');
  const ix = await buildIndex(texts, { chunkDocs: 500, workDir: work, workerSource: { kind: 'store', dir: store }, freeBytes: fakeFree(Math.ceil(needIx)).probe });
  // The chunks (8 bytes per posting) fit the estimate, and are gone once merged: the saved index (6) reuses their room.
  assert.ok(ix.docs.length * 8 <= needIx, `${ix.docs.length} postings vs ${needIx} bytes`);
  assert.ok(!existsSync(work), 'chunks deleted after the merge');
  // Resumed with every chunk done: only the index itself is still to write.
  assert.ok(indexDiskNeed(textBytes, 1) < needIx / 2);
  texts.close();
});
