// The paper's field-cited set (§3.2): articles cited by ALL S2ORC articles labelled with the field — not only by
// the prefiltered ones the store keeps. The store records, per stored article, the fields of every input record
// that cites it (either S2ORC list); the field-level fill is drawn from that.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { synthesize, SYNTH_DEFAULTS } from '../../src/corpus/synth.ts';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { PAPER_PREFILTER } from '../../src/corpus/prefilter.ts';
import { FIELDS, type Field } from '../../src/corpus/fields.ts';
import { citedBy, fieldCited, sampleQueries, samplePool } from '../../src/sampling/pools.ts';
import { CitebenchError } from '../../src/util/errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'cb-fieldcited-'));

function records(d: string): any[] {
  return readdirSync(d).filter((f) => f.endsWith('.gz')).sort()
    .flatMap((f) => gunzipSync(readFileSync(join(d, f))).toString('utf8').trim().split('\n').map((l) => JSON.parse(l)));
}

/** Brute force over the raw records: ids cited by a record labelled `field`, through either S2ORC list. */
function bruteFieldCited(recs: any[], field: Field): Set<string> {
  const byId = new Map(recs.map((r) => [r.paper_id, r]));
  const has = (r: any) => (r.mag_field_of_study ?? []).includes(field);
  const out = new Set<string>();
  for (const r of recs) {
    if (has(r)) for (const c of r.outbound_citations) if (c !== r.paper_id) out.add(c);
    for (const s of r.inbound_citations) {
      const citing = byId.get(s);
      if (citing && s !== r.paper_id && has(citing)) out.add(r.paper_id);
    }
  }
  return out;
}

test('field-cited sets count citing records the prefilter removed; they equal a brute force over the shards', async () => {
  const shards = join(dir, 'shards');
  await synthesize({ ...SYNTH_DEFAULTS, articles: 8000, seed: 11 }, shards);
  await buildCorpusStore({ input: shards, out: join(dir, 'store'), prefilter: PAPER_PREFILTER });
  const store = CorpusStore.open(join(dir, 'store'));
  const recs = records(shards);
  assert.ok(store.size < recs.length - 500, 'the prefilter removed records');
  let larger = 0;
  for (const field of FIELDS) {
    const want = bruteFieldCited(recs, field);
    const expected: number[] = [];
    for (let i = 0; i < store.size; i++) if (want.has(store.id(i))) expected.push(i);
    const got = fieldCited(store, field);
    assert.deepEqual(Array.from(got), expected, `${field}: field-cited set`);
    // what the store alone gives (citing articles that survived the prefilter): a strict subset, usually
    const bit = 1 << FIELDS.indexOf(field);
    const storeOnly = new Set<number>();
    for (let i = 0; i < store.size; i++) if (store.fields[i] & bit) for (const c of store.outbound(i)) storeOnly.add(c);
    for (const c of storeOnly) assert.ok(want.has(store.id(c)));
    if (got.length > storeOnly.size) larger++;
  }
  assert.ok(larger >= 10, `field-cited sets larger than the store-only ones for ${larger} of 19 fields`);

  // the fill: a pool larger than the field-cited set takes every eligible field-cited article
  const field: Field = 'Medicine';
  const q = sampleQueries(store, { count: 20, seed: 1, field });
  const cited = new Set(citedBy(store, q));
  const all = samplePool(store, q, { size: store.size, repeat: 1, seed: 1, field });
  assert.equal(all.exhausted, true);
  const want = bruteFieldCited(recs, field);
  let eligible = 0;
  for (let i = 0; i < store.size; i++) if (want.has(store.id(i)) && !cited.has(i) && store.years[i] <= 2019) eligible++;
  assert.equal(all.members.length, cited.size + eligible);
  store.close();
});

test('inbound-only links count: a removed record listed in a stored article\'s inbound_citations lends its fields', async () => {
  const d = join(dir, 'hand');
  const abs = 'An abstract that is long enough to pass the prefilter rule.';
  const rec = (id: string, fields: string[], out: string[], inb: string[], extra: Record<string, unknown> = {}) =>
    JSON.stringify({ paper_id: id, title: `T ${id}`, abstract: abs, year: 2010, mag_field_of_study: fields, outbound_citations: out, inbound_citations: inb, ...extra });
  // 'a' is cited by b, c, d (kept: ≥ 3 citations). 'x' (Art, no abstract: removed) cites 'a' only through a's
  // inbound list; 'y' (History, no year: removed) cites 'a' through its own outbound list. 'z' is not in the input.
  writeFileSync(join(mkdirp(d), 's.jsonl'), [
    rec('a', ['Physics'], [], ['b', 'c', 'd', 'x', 'z']),
    rec('b', ['Physics'], ['a'], []),
    rec('c', ['Physics'], ['a'], []),
    rec('d', ['Physics'], ['a'], []),
    rec('x', ['Art'], [], [], { abstract: null }),
    rec('y', ['History'], ['a'], [], { year: null }),
    rec('z2', ['Sociology'], [], []),
  ].join('\n') + '\n');
  await buildCorpusStore({ input: d, out: join(dir, 'hand-store'), prefilter: { ...PAPER_PREFILTER, minCitations: 0 } });
  const s = CorpusStore.open(join(dir, 'hand-store'));
  assert.equal(s.indexOf('x'), -1);
  assert.equal(s.indexOf('y'), -1);
  const a = s.indexOf('a');
  assert.deepEqual(Array.from(fieldCited(s, 'Art')), [a]);
  assert.deepEqual(Array.from(fieldCited(s, 'History')), [a]);
  assert.deepEqual(Array.from(fieldCited(s, 'Physics')), [a]);
  assert.deepEqual(Array.from(fieldCited(s, 'Sociology')), []);
  s.close();
});

test('a store of the previous format (no cited-by-fields column) is refused with a rebuild message', async () => {
  const out = join(dir, 'old-store');
  await buildCorpusStore({ input: join(dir, 'hand'), out, prefilter: null });
  const meta = JSON.parse(readFileSync(join(out, 'meta.json'), 'utf8'));
  writeFileSync(join(out, 'meta.json'), JSON.stringify({ ...meta, version: 1 }));
  for (const f of readdirSync(out)) if (f.startsWith('citedby')) rmSync(join(out, f));
  assert.throws(() => CorpusStore.open(out), (e: Error) => e instanceof CitebenchError && /version 1/.test(e.message) && /citebench corpus build/.test(e.message));
});

test('input citation counts (MDCR most_cited): citing records of the whole input, as prefilter rule 4 counts them', async () => {
  // 'a' is cited in the input by b, c, d, x (through a's inbound list) and y (its outbound list); only b, c, d
  // are stored. Rule 4's 'record' scope counts a's own inbound list instead (b, c, d, x, z: z is not in the input).
  const s = CorpusStore.open(join(dir, 'hand-store'));
  const a = s.indexOf('a');
  assert.equal(s.inbound(a).length, 3);
  assert.equal(s.inputInbound[a], 5);
  assert.equal(s.inputInbound[s.indexOf('b')], 0);
  s.close();
  await buildCorpusStore({ input: join(dir, 'hand'), out: join(dir, 'hand-record'), prefilter: { ...PAPER_PREFILTER, minCitations: 0, citationScope: 'record' } });
  const r = CorpusStore.open(join(dir, 'hand-record'));
  assert.deepEqual(['a', 'b', 'z2'].map((id) => r.inputInbound[r.indexOf(id)]), [5, 0, 0]);
  r.close();
});

test('a version-2 store (no input citation counts) is refused with the command that rebuilds it', async () => {
  const out = join(dir, 'v2-store');
  await buildCorpusStore({ input: join(dir, 'hand'), out, prefilter: null });
  const meta = JSON.parse(readFileSync(join(out, 'meta.json'), 'utf8'));
  writeFileSync(join(out, 'meta.json'), JSON.stringify({ ...meta, version: 2 }));
  rmSync(join(out, 'input-inbound.u32'));
  assert.throws(() => CorpusStore.open(out), (e: Error) => e instanceof CitebenchError
    && e.message.includes("store version 2, this citebench reads version 4 (version 2 lacks the input's inbound citation counts that MDCR's most_cited ranks by)")
    && e.message.includes(`rebuild it with citebench corpus build --input SHARDS --out ${out}`));
});

function mkdirp(d: string): string {
  rmSync(d, { recursive: true, force: true });
  mkdirSync(d, { recursive: true });
  return d;
}
