// The build's compact structures (id bytes in one buffer, length-prefixed text spool, edges spooled to a file and
// filled into CSR by counts) give byte-identical stores to the in-memory path they replaced: the digests below
// were taken from stores built by that path (an edge list of u32 pairs in memory, a Buffer per id, float64 text
// offsets per input record) on the same synthetic corpus — at commit dabd1b6, the last in-memory build, with
// store format 3's input-inbound column (at 8bf39b0, format 2, the compact path matched that path's digests too) —
// and the CSR fill equals buildCsr.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { synthesize, SYNTH_DEFAULTS, SYNTH_VERSION } from '../../src/corpus/synth.ts';
import { buildCorpusStore, buildCsr, fillCsr } from '../../src/corpus/store-build.ts';
import { PAPER_PREFILTER } from '../../src/corpus/prefilter.ts';
import { Rng } from '../../src/util/rng.ts';

const dir = mkdtempSync(join(tmpdir(), 'cb-compact-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function digest(store: string): string {
  const h = createHash('sha256');
  // meta.json names the input files in its validation examples (a scratch path): columns only.
  for (const f of readdirSync(store).filter((f) => f !== 'meta.json').sort()) h.update(f).update(readFileSync(join(store, f)));
  return h.digest('hex').slice(0, 32);
}

test('stores are byte-identical to the in-memory path (no prefilter; corpus and record scope)', async () => {
  assert.equal(SYNTH_VERSION, 1, 'the digests are of synth v1 output: regenerate them with the generator');
  await synthesize({ ...SYNTH_DEFAULTS, articles: 6000, seed: 7, shardSize: 2500 }, join(dir, 'a'));
  const want = {
    none: '484dab7b015d52968d67f559efda86e2',
    corpus: '8a8107830b34f2a06c7822063fbb77b2',
    record: '8a8107830b34f2a06c7822063fbb77b2',
  };
  const cfgs = { none: null, corpus: PAPER_PREFILTER, record: { ...PAPER_PREFILTER, citationScope: 'record' as const } };
  for (const [name, prefilter] of Object.entries(cfgs)) {
    await buildCorpusStore({ input: join(dir, 'a'), out: join(dir, name), prefilter });
    assert.equal(digest(join(dir, name)), want[name as keyof typeof want], name);
  }
  assert.deepEqual(readdirSync(join(dir, 'corpus')).filter((f) => f.includes('raw') || f.includes('spool') || f.includes('edges')), [], 'temporary files removed');
});

test('fillCsr (edges replayed from a spool) equals buildCsr (edge list in memory): duplicates, empty rows, both orders', () => {
  const r = new Rng(3);
  for (const n of [1, 7, 500]) {
    const e = n * 6;
    const src = new Uint32Array(e);
    const dst = new Uint32Array(e);
    for (let k = 0; k < e; k++) {
      src[k] = r.nextInt(Math.max(1, n >> 1)); // the upper half of the rows stays empty
      dst[k] = r.nextInt(Math.min(n, 9)); // few targets: many duplicates
    }
    const counts = new Uint32Array(n + 1);
    for (let k = 0; k < e; k++) counts[src[k] + 1]++;
    const want = buildCsr(n, src, dst);
    // Both buffers: resizable (shrunk to the distinct edges) and, past V8's 4 GiB limit for those, fixed.
    for (const resizableMax of [2 ** 32, 0]) {
      const got = fillCsr(n, counts.slice(), e, (put) => {
        for (let k = 0; k < e; k++) put(src[k], dst[k]);
      }, resizableMax);
      assert.deepEqual(got.offsets, want.offsets, `n=${n}, ${resizableMax}`);
      assert.deepEqual(Array.from(got.targets), Array.from(want.targets), `n=${n}, ${resizableMax}`);
    }
  }
  assert.throws(() => fillCsr(2, Uint32Array.from([0, 1, 1]), 3, () => {}), /row counts sum to 2, not 3/);
});
