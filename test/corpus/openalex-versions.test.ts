// Works that appear more than once, in other file layouts: the newest record of a work decides before any filter
// (docs/openalex.md), the same works give the same store whatever the partitions and files (apart from the
// file:line examples of the validation report), each bad citation entry counts once with the first one as the
// example, and the per-article citation counts count as citers exactly the works the build accepts. The works are
// made here: a held-out-style set with duplicates across partitions, newest versions of excluded types, and
// exclusions of several types in different input orders.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { FILES } from '../../src/corpus/store-format.ts';
import { PAPER_PREFILTER } from '../../src/corpus/prefilter.ts';

const dir = mkdtempSync(join(tmpdir(), 'cb-oa-versions-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const W = (n: number) => `https://openalex.org/W${n}`;
const ABSTRACT = { An: [0], abstract: [1], long: [2], enough: [3], for: [4], the: [5], prefilter: [6] };

/** A work as the snapshot holds it (the fields the reader needs), updated on `date`. */
function work(n: number, date: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id: W(n), title: `Work ${n}`, display_name: `Work ${n}`, publication_year: 2019, type: 'article',
    abstract_inverted_index: ABSTRACT, referenced_works: [], cited_by_count: 0,
    concepts: [{ id: 'https://openalex.org/C71924100', level: 0, score: 0.6, display_name: 'Medicine' }],
    primary_topic: null, is_paratext: false, is_retracted: false, updated_date: `${date}T00:00:00.000000`, ...extra,
  });
}

const OLD = '2024-01-01';
const NEW = '2024-06-01';
/** The bad entries of W20's references, the first of them `null`. */
const BAD_REFS = [null, 'https://openalex.org/A5', 5, '', {}, 'W'];

/** Older and newer versions; the citers of W10; exclusions of several types. */
const OLDER = [
  work(1, OLD, { referenced_works: [W(10)] }), // an article whose newest version is a book chapter
  work(2, OLD, { type: 'book-chapter' }), // a book chapter whose newest version is an article: kept
  work(3, OLD), // an article, retracted since
  work(4, OLD), // an article, flagged paratext since
  work(5, OLD, { type: 'dataset', referenced_works: [W(10)] }), // a dataset, an article since: kept, and a citer
];
const NEWER = [
  work(1, NEW, { type: 'book-chapter', title: 'Work 1 as a chapter' }),
  work(2, NEW, { title: 'Work 2 as an article' }),
  work(3, NEW, { is_retracted: true }),
  work(4, NEW, { is_paratext: true }),
  work(5, NEW, { referenced_works: [W(10)] }),
];
const ONCE = [
  work(10, NEW, { cited_by_count: 9 }),
  work(11, NEW, { type: 'book-chapter', referenced_works: [W(10)] }), // cites W10, left out: not a citer
  work(12, NEW, { abstract_inverted_index: null, referenced_works: [W(10)] }), // accepted, removed by rule 3: a citer
  work(13, NEW, { referenced_works: [W(10)] }),
  work(20, NEW, { referenced_works: [W(10), ...BAD_REFS.slice(0, 3), W(13), ...BAD_REFS.slice(3)] }),
  work(30, NEW, { type: 'editorial' }),
  work(31, NEW, { type: 'dataset' }),
  work(32, NEW, { type: 'editorial' }),
  work(33, NEW, { type: 'other' }),
  work(34, NEW, { type: 'dataset', is_retracted: true }),
];

const gz = (lines: string[]) => gzipSync(lines.join('\n') + '\n');
function files(root: string, layout: Record<string, string[]>): string {
  for (const [rel, lines] of Object.entries(layout)) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), gz(lines));
  }
  return root;
}

/** Two layouts of the same records: other partitions, other files, other orders (the newer record first in B). */
const LAYOUT_A = {
  'updated_date=2024-01-01/part_000.gz': [...OLDER, ONCE[0], ONCE[5], ONCE[6]],
  'updated_date=2024-06-01/part_000.gz': [...NEWER.slice(0, 3), ...ONCE.slice(1, 5)],
  'updated_date=2024-06-01/part_001.gz': [...NEWER.slice(3), ...ONCE.slice(7)],
};
const LAYOUT_B = {
  'updated_date=2024-03-01/part_000.gz': [ONCE[9], NEWER[4], ONCE[8], OLDER[0], ONCE[7]],
  'updated_date=2024-03-01/part_001.gz': [NEWER[0], NEWER[1], ONCE[4], OLDER[3], OLDER[1]],
  'updated_date=2024-03-01/part_002.gz': [ONCE[3], OLDER[2], NEWER[3], ONCE[2]],
  'updated_date=2024-06-01/part_000.gz': [ONCE[1], OLDER[4], NEWER[2], ONCE[0], ONCE[6], ONCE[5]],
};

test('the layouts hold the same records', () => {
  const all = (l: Record<string, string[]>) => Object.values(l).flat().sort();
  assert.deepEqual(all(LAYOUT_A), all(LAYOUT_B));
  assert.deepEqual(all(LAYOUT_A), [...OLDER, ...NEWER, ...ONCE].sort());
});

test('the newest record of a work decides before the type and flag filters; citers are the accepted works', async () => {
  const input = files(join(dir, 'a'), LAYOUT_A);
  const prefilter = { ...PAPER_PREFILTER, minCitations: 0 };
  const s = await buildCorpusStore({ input, out: join(dir, 'store-a'), prefilter: null });
  const store = CorpusStore.open(join(dir, 'store-a'));
  const ids = Array.from({ length: store.size }, (_, i) => store.id(i));
  const titles = new Map(ids.map((id, i) => [id, store.text(i).title]));
  store.close();
  // W1's newest version is a book chapter, W3's retracted, W4's paratext: left out although older versions pass.
  assert.deepEqual(ids, ['W10', 'W12', 'W13', 'W2', 'W20', 'W5']);
  assert.equal(titles.get('W2'), 'Work 2 as an article');
  const meta = JSON.parse(readFileSync(join(dir, 'store-a', FILES.meta), 'utf8'));
  assert.deepEqual(meta.source.openalex.excluded, { types: { 'book-chapter': 2, dataset: 2, editorial: 2, other: 1 }, paratext: 1, retracted: 1 });
  assert.equal(s.validation.count('excluded-type'), 7, 'once per work: W1, W11, W30–W34 (W34 by its type first)');
  assert.equal(s.validation.count('excluded-paratext'), 1);
  assert.equal(s.validation.count('excluded-retracted'), 1);
  assert.equal(s.validation.count('duplicate-id'), 5, 'the older record of each of W1–W5');
  assert.deepEqual(s.validation.examples.get('excluded-type')!.map((e) => e.message)[0], "type 'book-chapter' left out");

  // W10's citers in the corpus scope: W5 (an article now), W12 (removed by rule 3 later, still accepted), W13 and
  // W20 — not the book chapter W11, nor W1, whose older version (an article) cites it but whose newest is a chapter.
  await buildCorpusStore({ input, out: join(dir, 'store-a-pf'), prefilter });
  const pf = CorpusStore.open(join(dir, 'store-a-pf'));
  try {
    assert.equal(pf.inputInbound[pf.indexOf('W10')], 4, 'W5, W12, W13, W20');
    assert.equal(pf.indexOf('W12'), -1, 'W12 removed by the prefilter');
  } finally {
    pf.close();
  }
});

test('six bad entries in one work\'s referenced_works count six, the example naming the first', async () => {
  const f = join(dir, 'refs.jsonl');
  writeFileSync(f, [ONCE[0], ONCE[3], ONCE[4]].join('\n') + '\n');
  const s = await buildCorpusStore({ input: f, out: join(dir, 'store-refs'), prefilter: null });
  assert.equal(s.validation.count('bad-citation-id'), 6);
  const ex = s.validation.examples.get('bad-citation-id')!;
  assert.equal(ex.length, 1, 'one example for the work');
  assert.equal(ex[0].line, 3);
  assert.equal(ex[0].field, 'referenced_works');
  assert.match(ex[0].message, /^null is not a work id; dropped \(with 5 more bad entries of this list\)$/);
  const store = CorpusStore.open(join(dir, 'store-refs'));
  try {
    assert.deepEqual(Array.from(store.outbound(store.indexOf('W20')), (j) => store.id(j)), ['W10', 'W13'], 'the good references are kept');
  } finally {
    store.close();
  }
});

/** Every file of a store; meta.json without the validation report's examples (they name files and lines). */
function storeFiles(store: string): Record<string, string | Buffer> {
  const out: Record<string, string | Buffer> = {};
  for (const f of readdirSync(store).sort()) {
    const b = readFileSync(join(store, f));
    if (f !== FILES.meta) out[f] = b;
    else {
      const meta = JSON.parse(b.toString('utf8'));
      delete meta.validation.examples;
      // Re-serialised as the build writes it: key order and all, so the comparison is of the bytes.
      out[f] = JSON.stringify(meta, null, 1);
      assert.equal(JSON.stringify({ ...JSON.parse(b.toString('utf8')), validation: meta.validation }, null, 1), out[f] as string, 'examples are the last key of the validation report');
    }
  }
  return out;
}

test('two file layouts of the same works: byte-identical stores apart from the file:line examples', async () => {
  const a = files(join(dir, 'la'), LAYOUT_A);
  const b = files(join(dir, 'lb'), LAYOUT_B);
  const prefilter = { ...PAPER_PREFILTER, minCitations: 0 };
  await buildCorpusStore({ input: a, out: join(dir, 'sa'), prefilter, threads: 1 });
  // Another thread count and the kept types in another order too: neither may show in the store.
  await buildCorpusStore({ input: b, out: join(dir, 'sb'), prefilter, threads: 2, openalex: { types: ['review', 'preprint', 'article'] } });
  const fa = storeFiles(join(dir, 'sa'));
  const fb = storeFiles(join(dir, 'sb'));
  assert.deepEqual(Object.keys(fb), Object.keys(fa));
  for (const f of Object.keys(fa)) assert.deepEqual(fb[f], fa[f], f);
  assert.ok(Object.keys(fa).length >= 15, 'every file of the store compared');
  const meta = JSON.parse(fa[FILES.meta] as string);
  assert.ok(meta.articles >= 3, `${meta.articles} articles`);
  assert.deepEqual(meta.source.openalex.types, ['article', 'preprint', 'review']);
  assert.deepEqual(Object.keys(meta.source.openalex.excluded.types), ['book-chapter', 'dataset', 'editorial', 'other']);
});
