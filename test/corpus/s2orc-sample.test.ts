// Reader, validation report and prefilter on the 1,000 REAL S2ORC records, checked against an independent
// computation done here with plain JSON.parse (no expected count is a constant: all are derived from the JSON).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { SHARED, skipNoShared } from '../helpers/shared.ts';
import { readArticles } from '../../src/corpus/s2orc-reader.ts';
import { ValidationReport } from '../../src/corpus/validation.ts';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { EmptyCorpusError, PAPER_PREFILTER } from '../../src/corpus/prefilter.ts';
import { FIELDS } from '../../src/corpus/fields.ts';

const SAMPLE = join(SHARED, 'data/s2orc-sample/metadata.jsonl');

function independent() {
  const recs = readFileSync(SAMPLE, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const ids = new Set(recs.map((r: any) => r.paper_id));
  let unknown = 0;
  let self = 0;
  // in-corpus citation graph from both lists, deduplicated
  const edges = new Set<string>();
  for (const r of recs) {
    for (const c of r.outbound_citations) {
      if (c === r.paper_id) self++;
      else if (!ids.has(c)) unknown++;
      else edges.add(`${r.paper_id}>${c}`);
    }
    for (const c of r.inbound_citations) {
      if (c === r.paper_id) self++;
      else if (!ids.has(c)) unknown++;
      else edges.add(`${c}>${r.paper_id}`);
    }
  }
  const inDeg = new Map<string, number>();
  const outDeg = new Map<string, number>();
  for (const e of edges) {
    const [src, dst] = e.split('>');
    inDeg.set(dst, (inDeg.get(dst) ?? 0) + 1);
    outDeg.set(src, (outDeg.get(src) ?? 0) + 1);
  }
  // Input problems as the README's record format defines them (every required field present with its type,
  // non-empty id, known MAG fields, non-empty citation ids); unknown and self citations are informational.
  const required = ['paper_id', 'title', 'abstract', 'year', 'mag_field_of_study', 'outbound_citations', 'inbound_citations'];
  let problems = 0;
  for (const r of recs) {
    if (required.some((f) => !(f in r))) problems++;
    else if (typeof r.paper_id !== 'string' || r.paper_id === '') problems++;
    else if (![r.title, r.abstract].every((v) => v === null || typeof v === 'string')) problems++;
    else if (r.year !== null && !Number.isInteger(r.year)) problems++;
    else if (r.mag_field_of_study !== null && !Array.isArray(r.mag_field_of_study)) problems++;
    else {
      problems += (r.mag_field_of_study ?? []).filter((f: unknown) => !FIELDS.includes(f as any)).length;
      for (const list of [r.outbound_citations, r.inbound_citations]) {
        if (!Array.isArray(list)) problems++;
        else if (list.some((c: unknown) => typeof c !== 'string' || c === '')) problems++;
      }
    }
  }
  return { recs, unknown, self, edges, inDeg, outDeg, problems };
}

/**
 * The paper's §3 prefilter written out from its description (README, src/corpus/prefilter.ts docs): no year,
 * empty title, abstract under 30 code points after trimming, fewer than 3 citations by `citations(record)`.
 * `failing` counts every rule an article fails; `removedBy` only the first, in that order.
 */
const RULE_ORDER = ['no-year', 'empty-title', 'short-abstract', 'few-citations'] as const;
function prefilterByHand(recs: any[], citations: (r: any) => number) {
  const fails = (r: any) => ({
    'no-year': r.year === null || r.year === undefined,
    'empty-title': (r.title ?? '').trim() === '',
    'short-abstract': [...(r.abstract ?? '').trim()].length < 30,
    'few-citations': citations(r) < 3,
  });
  const failing = { 'no-year': 0, 'empty-title': 0, 'short-abstract': 0, 'few-citations': 0 };
  const removedBy = { ...failing };
  const kept: any[] = [];
  for (const r of recs) {
    const f = fails(r);
    const failed = RULE_ORDER.filter((rule) => f[rule]);
    for (const rule of failed) failing[rule]++;
    if (failed.length) removedBy[failed[0]]++;
    else kept.push(r);
  }
  return { failing, removedBy, kept };
}

async function collect(report: ValidationReport) {
  const out = [];
  for await (const a of readArticles(SAMPLE, { report })) out.push(a);
  return out;
}

test('reader: all real records parse, fields and years as in the JSON', { skip: skipNoShared }, async () => {
  const { recs, problems } = independent();
  const report = new ValidationReport();
  const got: Awaited<ReturnType<typeof collect>> = await collect(report);
  assert.equal(got.length, recs.length);
  assert.equal(report.recordsRead, recs.length);
  assert.equal(report.problemCount, problems);
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i];
    const a = got[i];
    assert.equal(a.id, r.paper_id);
    assert.equal(a.title, r.title ?? '');
    assert.equal(a.abstract, r.abstract ?? '');
    assert.equal(a.year, r.year ?? undefined);
    const want = (r.mag_field_of_study ?? []).map((f: string) => FIELDS.indexOf(f as any)).reduce((m: number, b: number) => m | (1 << b), 0);
    assert.equal(a.fields, want, `fields of ${r.paper_id}`);
    assert.deepEqual(a.outbound, r.outbound_citations);
    assert.equal(a.line, i + 1);
  }
});

test('store build: validation counts and prefilter (both citation scopes) match an independent count', { skip: skipNoShared }, async () => {
  const { recs, unknown, self, edges, inDeg, outDeg } = independent();
  const dir = mkdtempSync(join(tmpdir(), 'cb-s2orc-'));
  const n = recs.length;

  // corpus scope (default): inbound citations over the whole input graph. The sample's articles cite almost
  // only ids outside it, so it keeps none: an EmptyCorpusError that carries the counts.
  const buildOrEmpty = async (out: string, prefilter: typeof PAPER_PREFILTER) => {
    try {
      const s = await buildCorpusStore({ input: SAMPLE, out, prefilter });
      return { validation: s.validation, prefilter: s.prefilter, articles: s.articles };
    } catch (e) {
      if (!(e instanceof EmptyCorpusError)) throw e;
      return { validation: e.validation, prefilter: e.prefilter, articles: 0 };
    }
  };
  const s1 = await buildOrEmpty(join(dir, 'a'), PAPER_PREFILTER);
  assert.equal(s1.validation.count('unknown-citation'), unknown);
  assert.equal(s1.validation.count('self-citation'), self);
  const h1 = prefilterByHand(recs, (r) => inDeg.get(r.paper_id) ?? 0);
  assert.deepEqual(s1.prefilter!.failing, h1.failing);
  assert.deepEqual(s1.prefilter!.removedBy, h1.removedBy);
  assert.equal(s1.prefilter!.kept, h1.kept.length);
  assert.equal(s1.prefilter!.removed, n - h1.kept.length);
  assert.equal(s1.articles, h1.kept.length);
  const all = await buildCorpusStore({ input: SAMPLE, out: join(dir, 'all'), prefilter: null });
  assert.equal(all.articles, n);
  assert.equal(all.citations, edges.size, 'in-corpus citation edges, deduplicated over both lists');

  // corpus scope, outbound: the other end of the same edges
  const s0 = await buildOrEmpty(join(dir, 'o'), { ...PAPER_PREFILTER, citationDirection: 'outbound' });
  const h0 = prefilterByHand(recs, (r) => outDeg.get(r.paper_id) ?? 0);
  assert.deepEqual(s0.prefilter!.failing, h0.failing);
  assert.deepEqual(s0.prefilter!.removedBy, h0.removedBy);

  // record scope: the record's own S2ORC lists (distinct ids) — the paper's rule on a subset
  const s2 = await buildCorpusStore({ input: SAMPLE, out: join(dir, 'b'), prefilter: { ...PAPER_PREFILTER, citationScope: 'record' } });
  const h2 = prefilterByHand(recs, (r) => new Set(r.inbound_citations).size);
  // The store's order is ascending paper id, byte-wise (the order of the input's lines does not matter).
  const keep = [...h2.kept].sort((a: any, b: any) => Buffer.compare(Buffer.from(a.paper_id), Buffer.from(b.paper_id)));
  assert.ok(keep.length > 0 && keep.length < n, 'record scope keeps some sample articles and removes others');
  assert.equal(s2.articles, keep.length);
  assert.equal(s2.prefilter!.kept, keep.length);
  assert.equal(s2.prefilter!.removed, n - keep.length);
  assert.deepEqual(s2.prefilter!.failing, h2.failing);
  assert.deepEqual(s2.prefilter!.removedBy, h2.removedBy);
  const removedBySum = Object.values(s2.prefilter!.removedBy).reduce((a, b) => a + b, 0);
  assert.equal(removedBySum, s2.prefilter!.removed);

  // the store holds exactly the kept articles, in id order, with their texts
  const store = CorpusStore.open(join(dir, 'b'));
  assert.equal(store.size, keep.length);
  keep.forEach((r: any, i: number) => {
    assert.equal(store.id(i), r.paper_id);
    assert.equal(store.indexOf(r.paper_id), i);
    assert.equal(store.indexOfSorted(r.paper_id), i);
    assert.deepEqual(store.text(i), { title: r.title, abstract: r.abstract });
    assert.equal(store.years[i], r.year);
  });
  const scanned = [...store.texts()].map((t) => t.abstract);
  assert.deepEqual(scanned, keep.map((r: any) => r.abstract));
  assert.equal(store.indexOf('not-an-id'), -1);
  assert.equal(store.indexOfSorted('not-an-id'), -1);
  assert.equal(store.indexOf('0' + keep[0].paper_id), -1, 'leading zero is another id');
  store.close();

  // outbound direction is configurable and changes the count
  const s3 = await buildCorpusStore({ input: SAMPLE, out: join(dir, 'c'), prefilter: { ...PAPER_PREFILTER, citationScope: 'record', citationDirection: 'outbound' } });
  const h3 = prefilterByHand(recs, (r) => new Set(r.outbound_citations).size);
  assert.deepEqual(s3.prefilter!.failing, h3.failing);
  assert.deepEqual(s3.prefilter!.removedBy, h3.removedBy);
  assert.equal(s3.articles, h3.kept.length);
  assert.notEqual(h3.failing['few-citations'], h2.failing['few-citations'], 'the sample tells the two directions apart');
});
