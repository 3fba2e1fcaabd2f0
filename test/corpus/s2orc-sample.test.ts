// Reader, validation report and prefilter on the 1,000 REAL S2ORC records, checked against an independent
// computation done here with plain JSON.parse.
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
  for (const e of edges) {
    const dst = e.split('>')[1];
    inDeg.set(dst, (inDeg.get(dst) ?? 0) + 1);
  }
  return { recs, unknown, self, edges, inDeg };
}

async function collect(report: ValidationReport) {
  const out = [];
  for await (const a of readArticles(SAMPLE, { report })) out.push(a);
  return out;
}

test('reader: all 1,000 real records parse, fields and years as in the JSON', { skip: skipNoShared }, async () => {
  const { recs } = independent();
  const report = new ValidationReport();
  const got: Awaited<ReturnType<typeof collect>> = await collect(report);
  assert.equal(got.length, 1000);
  assert.equal(report.recordsRead, 1000);
  assert.equal(report.problemCount, 0);
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i];
    const a = got[i];
    assert.equal(a.id, r.paper_id);
    assert.equal(a.title, r.title);
    assert.equal(a.abstract, r.abstract ?? '');
    assert.equal(a.year, r.year ?? undefined);
    const want = (r.mag_field_of_study ?? []).map((f: string) => FIELDS.indexOf(f as any)).reduce((m: number, b: number) => m | (1 << b), 0);
    assert.equal(a.fields, want, `fields of ${r.paper_id}`);
    assert.deepEqual(a.outbound, r.outbound_citations);
    assert.equal(a.line, i + 1);
  }
  assert.equal(got.filter((a) => a.year === 2019).length, 116);
});

test('store build: validation counts and prefilter (both citation scopes) match an independent count', { skip: skipNoShared }, async () => {
  const { recs, unknown, self, edges } = independent();
  const dir = mkdtempSync(join(tmpdir(), 'cb-s2orc-'));

  // corpus scope: citations between sample articles only
  // (it keeps no article: an EmptyCorpusError that carries the counts)
  let s1!: EmptyCorpusError;
  await assert.rejects(buildCorpusStore({ input: SAMPLE, out: join(dir, 'a'), prefilter: PAPER_PREFILTER }), (e: unknown) => e instanceof EmptyCorpusError && !!(s1 = e));
  assert.equal(s1.validation.count('unknown-citation'), unknown);
  assert.equal(s1.validation.count('self-citation'), self);
  const noYear = recs.filter((r: any) => r.year === null).length;
  const emptyTitle = recs.filter((r: any) => !r.title.trim()).length;
  const shortAbs = recs.filter((r: any) => [...(r.abstract ?? '').trim()].length < 30).length;
  assert.equal(s1.prefilter!.failing['no-year'], noYear);
  assert.equal(s1.prefilter!.failing['empty-title'], emptyTitle);
  assert.equal(s1.prefilter!.failing['short-abstract'], shortAbs);
  assert.equal(s1.prefilter!.failing['few-citations'], 1000 - 0, 'sample articles cite almost only outside ids');
  const all = await buildCorpusStore({ input: SAMPLE, out: join(dir, 'all'), prefilter: null });
  assert.equal(all.articles, 1000);
  assert.equal(all.citations, edges.size, 'in-corpus citation edges, deduplicated over both lists');

  // record scope: the record's own S2ORC lists — the paper's rule on a subset
  const s2 = await buildCorpusStore({ input: SAMPLE, out: join(dir, 'b'), prefilter: { ...PAPER_PREFILTER, citationScope: 'record' } });
  const keep = recs.filter(
    (r: any) => r.year !== null && r.title.trim() && [...(r.abstract ?? '').trim()].length >= 30 && new Set(r.inbound_citations).size >= 3,
  );
  assert.equal(s2.articles, keep.length);
  assert.equal(s2.prefilter!.kept, keep.length);
  assert.equal(s2.prefilter!.removed, 1000 - keep.length);
  const removedBySum = Object.values(s2.prefilter!.removedBy).reduce((a, b) => a + b, 0);
  assert.equal(removedBySum, s2.prefilter!.removed);
  const few = recs.filter((r: any) => new Set(r.inbound_citations).size < 3).length;
  assert.equal(s2.prefilter!.failing['few-citations'], few);

  // the store holds exactly the kept articles, in input order, with their texts
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
  const fewOut = recs.filter((r: any) => new Set(r.outbound_citations).size < 3).length;
  assert.equal(s3.prefilter!.failing['few-citations'], fewOut);
});
