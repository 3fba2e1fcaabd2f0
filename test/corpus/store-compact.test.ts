// The build's on-disk steps (sort by id, merge, join, graph, texts) give the store an in-memory reference build
// makes from the same shards, written out here from the store format's documentation (store-format.ts,
// prefilter.ts): every column, byte for byte, without a prefilter and with it in both citation scopes — also for the
// records shuffled across other files and lines, and with sort runs small enough that every step merges many of
// them. And the CSR fill equals buildCsr.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { gunzipSync, gzipSync } from 'node:zlib';
import { synthesize, SYNTH_DEFAULTS } from '../../src/corpus/synth.ts';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { PAPER_PREFILTER, type PrefilterConfig } from '../../src/corpus/prefilter.ts';
import { FIELDS } from '../../src/corpus/fields.ts';
import { FILES } from '../../src/corpus/store-format.ts';
import { buildCsr, fillCsr } from '../../src/util/csr.ts';
import { Rng } from '../../src/util/rng.ts';

const dir = mkdtempSync(join(tmpdir(), 'cb-compact-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const records = (d: string): any[] =>
  readdirSync(d).filter((f) => f.endsWith('.gz')).sort().flatMap((f) => gunzipSync(readFileSync(join(d, f))).toString('utf8').trim().split('\n').map((l) => JSON.parse(l)));

const u32 = (a: number[]) => Buffer.from(Uint32Array.from(a).buffer);

/** The store files of `recs` (valid, distinct ids), computed in memory the plain way. */
function reference(recs: any[], cfg: PrefilterConfig | null): Record<string, Buffer> {
  const sorted = [...recs].sort((a, b) => Buffer.compare(Buffer.from(a.paper_id), Buffer.from(b.paper_id)));
  const n = sorted.length;
  const index = new Map(sorted.map((r, i) => [r.paper_id, i]));
  const mask = (r: any) => (r.mag_field_of_study ?? []).reduce((m: number, f: string) => m | (1 << FIELDS.indexOf(f as any)), 0);
  // Edges: both S2ORC lists, in-corpus ids, distinct, no self-citations.
  const out = sorted.map(() => new Set<number>());
  sorted.forEach((r, i) => {
    for (const c of r.outbound_citations) if (index.has(c) && index.get(c) !== i) out[i].add(index.get(c)!);
    for (const c of r.inbound_citations) if (index.has(c) && index.get(c) !== i) out[index.get(c)!].add(i);
  });
  const inDeg = new Array(n).fill(0);
  const citedBy = new Array(n).fill(0);
  out.forEach((s, i) => s.forEach((j) => (inDeg[j]++, (citedBy[j] |= mask(sorted[i])))));
  const record = cfg?.citationScope === 'record';
  const inCount = (i: number) => (record ? new Set(sorted[i].inbound_citations).size : inDeg[i]);
  const outCount = (i: number) => (record ? new Set(sorted[i].outbound_citations).size : out[i].size);
  const keep = sorted.map((r, i) => {
    if (!cfg) return true;
    const abs = [...(r.abstract ?? '').trim()].length;
    return r.year !== null && r.title.trim() !== '' && abs >= cfg.minAbstractChars && inCount(i) >= cfg.minCitations;
  });
  const kept = sorted.map((_, i) => i).filter((i) => keep[i]);
  const rank = new Map(kept.map((i, k) => [i, k]));
  const outs = kept.map((i) => [...out[i]].filter((j) => keep[j]).map((j) => rank.get(j)!).sort((a, b) => a - b));
  const ins = kept.map(() => [] as number[]);
  outs.forEach((ts, k) => ts.forEach((t) => ins[t].push(k)));
  const prefix = (lengths: number[]) => lengths.reduce((acc, l) => (acc.push(acc[acc.length - 1] + l), acc), [0]);
  const csr = (rows: number[][]) => [u32(prefix(rows.map((x) => x.length))), u32(rows.flat())];
  const ids = kept.map((i) => Buffer.from(sorted[i].paper_id));
  const texts: Buffer[] = [];
  const textOff = [0];
  for (const i of kept) {
    for (const t of [sorted[i].title, sorted[i].abstract ?? '']) {
      texts.push(Buffer.from(t));
      textOff.push(textOff[textOff.length - 1] + Buffer.byteLength(t));
    }
  }
  const [outOff, outDst] = csr(outs);
  const [inOff, inSrc] = csr(ins);
  return {
    [FILES.ids]: Buffer.concat(ids),
    [FILES.idsOff]: u32(prefix(ids.map((x) => x.length))),
    [FILES.idOrder]: u32(kept.map((_, k) => k)),
    [FILES.idSorted]: u32(kept.map((_, k) => k)),
    [FILES.year]: Buffer.from(Uint16Array.from(kept.map((i) => sorted[i].year ?? 0)).buffer),
    [FILES.fields]: u32(kept.map((i) => mask(sorted[i]))),
    [FILES.citedByFields]: u32(kept.map((i) => citedBy[i])),
    [FILES.inputInbound]: u32(kept.map((i) => inCount(i))),
    [FILES.outOff]: outOff, [FILES.outDst]: outDst, [FILES.inOff]: inOff, [FILES.inSrc]: inSrc,
    [FILES.text]: Buffer.concat(texts),
    [FILES.textOff]: Buffer.from(Float64Array.from(textOff).buffer),
  };
}

test('every store column equals the in-memory reference build: no prefilter, corpus and record scope, shuffled input, many sort runs', async () => {
  await synthesize({ ...SYNTH_DEFAULTS, articles: 3000, seed: 7, shardSize: 1000 }, join(dir, 'a'));
  const recs = records(join(dir, 'a'));
  // The same records shuffled over four plain files.
  const r = new Rng(4);
  const shuffled = [...recs];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = r.nextInt(i + 1);
    [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
  }
  mkdirSync(join(dir, 'b'));
  for (let f = 0; f < 4; f++) writeFileSync(join(dir, 'b', `part-${3 - f}.jsonl.gz`), gzipSync(shuffled.filter((_, i) => i % 4 === f).map((x) => JSON.stringify(x)).join('\n') + '\n'));
  const cfgs = { none: null, corpus: PAPER_PREFILTER, record: { ...PAPER_PREFILTER, citationScope: 'record' as const } };
  for (const [name, prefilter] of Object.entries(cfgs)) {
    const want = reference(recs, prefilter);
    for (const [input, runBytes] of [['a', undefined], ['b', 64 << 10]] as const) {
      const out = join(dir, `${name}-${input}`);
      await buildCorpusStore({ input: join(dir, input), out, prefilter, sortRunBytes: runBytes });
      for (const [f, bytes] of Object.entries(want)) assert.ok(readFileSync(join(out, f)).equals(bytes), `${name}, input ${input}: ${f}`);
      assert.deepEqual(readdirSync(dir).filter((f) => f.includes('tmp-build')), [], 'temporary folder removed');
    }
  }
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
