// The synthetic corpus: deterministic, S2ORC-shaped, chronological citations; and the corpus store built from
// it agrees with an independent reading of the shards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { synthesize, SYNTH_DEFAULTS } from '../../src/corpus/synth.ts';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { PAPER_PREFILTER } from '../../src/corpus/prefilter.ts';
import { FIELDS } from '../../src/corpus/fields.ts';

const N = 6000;
const cfg = (seed: number) => ({ ...SYNTH_DEFAULTS, articles: N, seed, shardSize: 2500 });
const dir = mkdtempSync(join(tmpdir(), 'cb-synth-'));

function shardBytes(d: string): Buffer[] {
  return readdirSync(d).filter((f) => f.endsWith('.gz')).sort().map((f) => readFileSync(join(d, f)));
}
function records(d: string): any[] {
  return shardBytes(d).flatMap((b) => gunzipSync(b).toString('utf8').trim().split('\n').map((l) => JSON.parse(l)));
}

test('synth: same seed ⇒ byte-identical shards; another seed differs; a killed run resumes identically', async () => {
  await synthesize(cfg(7), join(dir, 'a'));
  await synthesize(cfg(7), join(dir, 'b'));
  await synthesize(cfg(8), join(dir, 'c'));
  const a = shardBytes(join(dir, 'a'));
  assert.equal(a.length, 3);
  assert.deepEqual(a, shardBytes(join(dir, 'b')));
  assert.notDeepEqual(a, shardBytes(join(dir, 'c')));
  // simulate a kill after the first shard: remove the others, run again
  for (const f of readdirSync(join(dir, 'b')).filter((f) => !f.endsWith('0000.jsonl.gz') && f.endsWith('.gz'))) rmSync(join(dir, 'b', f));
  const resumed = await synthesize(cfg(7), join(dir, 'b'));
  assert.deepEqual(shardBytes(join(dir, 'b')), a);
  // A finished run is not regenerated: shards untouched, same summary.
  const mtime = statSync(join(dir, 'b', 'metadata_0001.jsonl.gz')).mtimeMs;
  const again = await synthesize(cfg(7), join(dir, 'b'));
  assert.deepEqual(again, resumed);
  assert.equal(statSync(join(dir, 'b', 'metadata_0001.jsonl.gz')).mtimeMs, mtime);
});

test('synth: S2ORC schema, chronological citations, consistent in/out lists, prefilter failures present', () => {
  const recs = records(join(dir, 'a'));
  assert.equal(recs.length, N);
  const byId = new Map(recs.map((r) => [r.paper_id, r]));
  assert.equal(byId.size, N, 'distinct paper ids');
  const sample = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) && recs[0];
  for (const k of ['paper_id', 'title', 'authors', 'abstract', 'year', 'mag_field_of_study', 'outbound_citations', 'inbound_citations', 's2_url']) {
    assert.ok(k in sample, `field ${k}`);
  }
  let later = 0, inCorpus = 0, external = 0, mismatched = 0;
  for (const r of recs) {
    for (const c of r.outbound_citations) {
      const t = byId.get(c);
      if (!t) { external++; continue; }
      inCorpus++;
      if (r.year !== null && t.year !== null && t.year > r.year) later++;
      if (!t.inbound_citations.includes(r.paper_id)) mismatched++;
    }
  }
  assert.equal(later, 0, 'no citation to a newer article');
  assert.equal(mismatched, 0, 'inbound lists mirror outbound lists');
  assert.ok(external > 0 && external < inCorpus / 5, 'a few references point outside the corpus');
  const frac = (pred: (r: any) => boolean) => recs.filter(pred).length / N;
  assert.ok(frac((r) => r.year === null) > 0.003, 'some articles have no year');
  assert.ok(frac((r) => r.title === '') > 0.0005, 'some have an empty title');
  assert.ok(frac((r) => r.abstract === null) > 0.05, 'some have no abstract');
  assert.ok(frac((r) => r.abstract !== null && r.abstract.length < 30) > 0.005, 'some have a short abstract');
  assert.ok(frac((r) => (r.mag_field_of_study ?? []).length > 1) > 0.03, 'multi-field articles');
  for (const f of FIELDS) assert.ok(recs.some((r) => (r.mag_field_of_study ?? []).includes(f)), `field ${f} occurs`);
  const words = recs.filter((r) => r.abstract && r.abstract.length > 30).map((r) => r.abstract.split(/\s+/).length);
  const mean = words.reduce((a, b) => a + b, 0) / words.length;
  assert.ok(mean >= 150 && mean <= 250, `abstract length ${mean}`);
});

test('store from synth: CSR and texts equal an independent reading of the shards', async () => {
  // The store's order is ascending paper id, byte-wise, whatever the shards' order (no prefilter: every record).
  const recs = records(join(dir, 'a')).sort((a, b) => Buffer.compare(Buffer.from(a.paper_id), Buffer.from(b.paper_id)));
  const out = join(dir, 'store');
  await buildCorpusStore({ input: join(dir, 'a'), out, prefilter: null });
  const s = CorpusStore.open(out);
  assert.equal(s.size, N);
  const index = new Map(recs.map((r, i) => [r.paper_id, i]));
  let edges = 0;
  for (let i = 0; i < N; i += 1) {
    const r = recs[i];
    const want = [...new Set<number>([
      ...r.outbound_citations.filter((c: string) => index.has(c)).map((c: string) => index.get(c)!),
    ])].sort((a, b) => a - b);
    assert.deepEqual([...s.outbound(i)], want, `outbound of ${i}`);
    edges += want.length;
    const wantIn = [...new Set<number>(r.inbound_citations.map((c: string) => index.get(c)!))].sort((a, b) => a - b);
    assert.deepEqual([...s.inbound(i)], wantIn, `inbound of ${i}`);
    assert.equal(s.years[i], r.year ?? 0);
    if (i % 97 === 0) assert.deepEqual(s.text(i), { title: r.title, abstract: r.abstract ?? '' });
  }
  assert.equal(s.outTargets.length, edges);
  // idOrder ranks ids byte-wise
  const sorted = recs.map((r) => r.paper_id).sort();
  for (let k = 0; k < 50; k++) assert.equal(s.idOrder[index.get(sorted[k * 100])!], k * 100);
  s.close();

  // prefilter: the kept set is exactly the articles passing all four rules (inbound, corpus scope)
  const pf = await buildCorpusStore({ input: join(dir, 'a'), out: join(dir, 'store-pf'), prefilter: PAPER_PREFILTER });
  const inDeg = new Map<string, number>();
  for (const r of recs) for (const c of new Set<string>(r.outbound_citations)) if (index.has(c)) inDeg.set(c, (inDeg.get(c) ?? 0) + 1);
  const keep = recs.filter((r) => r.year !== null && r.title.trim() !== '' && (r.abstract ?? '').trim().length >= 30 && (inDeg.get(r.paper_id) ?? 0) >= 3);
  assert.equal(pf.articles, keep.length);
  const st = CorpusStore.open(join(dir, 'store-pf'));
  assert.deepEqual(Array.from({ length: st.size }, (_, i) => st.id(i)), keep.map((r) => r.paper_id));
  st.close();
});

test('store build is deterministic: byte-identical files for the same input', async () => {
  await buildCorpusStore({ input: join(dir, 'a'), out: join(dir, 's1'), prefilter: PAPER_PREFILTER });
  await buildCorpusStore({ input: join(dir, 'a'), out: join(dir, 's2'), prefilter: PAPER_PREFILTER });
  for (const f of readdirSync(join(dir, 's1')).sort()) {
    assert.ok(readFileSync(join(dir, 's1', f)).equals(readFileSync(join(dir, 's2', f))), f);
  }
});

test("synth --profile s2orc-raw: ~20 % survive the paper's prefilter, each rule failing the calibrated share; threads and resume do not change a byte", async () => {
  const n = 30_000;
  const pcfg = (threads: number) => ({ ...SYNTH_DEFAULTS, articles: n, seed: 11, shardSize: 7_000, profile: 's2orc-raw' as const, threads });
  await synthesize(pcfg(2), join(dir, 'raw2'));
  await synthesize(pcfg(1), join(dir, 'raw1'));
  const two = shardBytes(join(dir, 'raw2'));
  assert.equal(two.length, 5);
  assert.deepEqual(shardBytes(join(dir, 'raw1')), two, 'one thread or two: same bytes');
  for (const f of readdirSync(join(dir, 'raw2')).filter((f) => /000[24]\.jsonl\.gz$/.test(f))) rmSync(join(dir, 'raw2', f));
  await synthesize(pcfg(2), join(dir, 'raw2'));
  assert.deepEqual(shardBytes(join(dir, 'raw2')), two, 'missing shards rewritten identically');
  assert.notDeepEqual(two.slice(0, 1), shardBytes(join(dir, 'a')).slice(0, 1));

  const b = await buildCorpusStore({ input: join(dir, 'raw1'), out: join(dir, 'raw-store'), prefilter: PAPER_PREFILTER });
  const pf = b.prefilter!;
  const share = (k: number) => k / n;
  assert.ok(share(b.articles) > 0.17 && share(b.articles) < 0.23, `kept ${share(b.articles)}`);
  assert.ok(Math.abs(share(pf.failing['no-year']) - 0.013) < 0.004, `no year ${share(pf.failing['no-year'])}`);
  assert.ok(Math.abs(share(pf.failing['short-abstract']) - 0.514) < 0.015, `no/short abstract ${share(pf.failing['short-abstract'])}`);
  assert.ok(share(pf.failing['few-citations']) > 0.62 && share(pf.failing['few-citations']) < 0.8, `few citations ${share(pf.failing['few-citations'])}`);
  assert.ok(pf.failing['empty-title'] > 0, 'the empty-title rule is exercised');
  // Citations point into the whole record set: most cited records are kept, but removed records are cited too.
  const recs = records(join(dir, 'raw1'));
  const ids = new Set(recs.map((r) => r.paper_id));
  const store = CorpusStore.open(join(dir, 'raw-store'));
  const kept = new Set(Array.from({ length: store.size }, (_, i) => store.id(i)));
  store.close();
  let toRemoved = 0;
  for (const r of recs) for (const c of r.outbound_citations) if (ids.has(c) && !kept.has(c)) toRemoved++;
  assert.ok(toRemoved > 1000, `${toRemoved} citations to records the prefilter removes`);
});
