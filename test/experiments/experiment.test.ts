// experiment(): topics, a pool or candidate lists, qrels, retrievers, measures → means and per-query values.
// Cached cells are read back on a second call; a retriever with another fingerprint is recomputed; the means
// equal an AP computed here from the ranked lists; per-topic candidate lists are scored, not searched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { experiment } from '../../src/experiments/experiment.ts';
import type { RankedLists, Retriever, SearchRequest } from '../../src/retrieval/retriever.ts';

/** Scores a candidate by a fixed table (docs × queries); counts its searches. */
class Table implements Retriever {
  searches = 0;
  constructor(readonly name: string, private readonly seed: number) {}
  get fingerprint() {
    return `table-${this.seed}`;
  }
  score(q: number, d: number) {
    return ((q * 31 + d * 17 + this.seed * 7) % 23) / 4;
  }
  async search(req: SearchRequest): Promise<RankedLists> {
    this.searches++;
    const offsets = new Uint32Array(req.queries.length + 1);
    const docs: number[] = [];
    const scores: number[] = [];
    req.queries.forEach((q, i) => {
      const cands = [...(req.candidates?.[i] ?? req.pool!)].filter((d) => d !== q);
      const ranked = cands.map((d) => ({ d, s: this.score(q, d) })).sort((a, b) => b.s - a.s || b.d - a.d).slice(0, req.k);
      for (const r of ranked) (docs.push(r.d), scores.push(r.s));
      offsets[i + 1] = docs.length;
    });
    return { offsets, docs: Uint32Array.from(docs), scores: Float32Array.from(scores) };
  }
}

// 40 articles; ids "p<i>"; idOrder = the index (ties: higher index first, as trec_eval's docno order here).
const docs = { id: (i: number) => `p${String(i).padStart(2, '0')}`, idOrder: Uint32Array.from({ length: 40 }, (_, i) => i) };
const topics = Uint32Array.of(1, 2, 3);
const pool = Uint32Array.from({ length: 30 }, (_, i) => i + 10);
// relevant: topic 1 → 11, 12; topic 2 → 20; topic 3 → 35, 36, 37
const rel = [[11, 12], [20], [35, 36, 37]];
const qrels = { offsets: Uint32Array.of(0, 2, 3, 6), docs: Uint32Array.from(rel.flat()), labels: new Int32Array(6).fill(1) };

/** AP computed from the retriever's own ranking (no ties within these tables matter: checked by the order rule above). */
function ap(r: Table, q: number, rels: number[], cands = [...pool]) {
  const ranked = cands.filter((d) => d !== q).map((d) => ({ d, s: Math.fround(r.score(q, d)) })).sort((a, b) => b.s - a.s || b.d - a.d).slice(0, 10);
  let hits = 0;
  let sum = 0;
  ranked.forEach((x, i) => {
    if (rels.includes(x.d)) sum += ++hits / (i + 1);
  });
  return sum / rels.length;
}

test('experiment: means equal AP from the lists; a second call reads the cells back; another fingerprint recomputes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-exp-'));
  try {
    const a = new Table('a', 1);
    const b = new Table('b', 2);
    const input = { docs, topics, pool, qrels, measures: ['MAP', 'R@10'], k: 10, cache: { dir, name: 'adhoc/t1', keyParts: { what: 'test' } } };
    const first = await experiment({ ...input, retrievers: [{ name: 'a', retriever: a }, { name: 'b', retriever: b }] });
    assert.deepEqual(first.cells.map((c) => c.model), ['a', 'b']);
    for (const [r, cell] of [[a, first.cells[0]], [b, first.cells[1]]] as const) {
      const want = rel.map((rs, i) => ap(r, topics[i], rs));
      want.forEach((w, i) => assert.ok(Math.abs(cell.perQuery.MAP[i] - w) < 1e-6, `${r.name} q${i}: ${cell.perQuery.MAP[i]} vs ${w}`));
      assert.ok(Math.abs(cell.means.MAP - want.reduce((s, x) => s + x, 0) / 3) < 1e-6);
    }
    assert.deepEqual(first.cells[0].queryIds, ['p01', 'p02', 'p03']);
    assert.ok(existsSync(join(dir, 'cells/a/adhoc/t1.json')) && existsSync(join(dir, 'runs/a/adhoc/t1.trec')));
    const bytes = readFileSync(join(dir, 'cells/a/adhoc/t1.json'));

    const again = await experiment({ ...input, retrievers: [{ name: 'a', retriever: a }, { name: 'b', retriever: b }] });
    assert.deepEqual(again.cells, first.cells);
    assert.equal(again.lists.size, 0, 'both read back');
    assert.equal(a.searches + b.searches, 2, 'no search on the second call');

    const a2 = new Table('a', 5); // same name, another fingerprint
    const changed = await experiment({ ...input, retrievers: [{ name: 'a', retriever: a2 }] });
    assert.equal(a2.searches, 1, 'a changed retriever is recomputed');
    assert.notEqual(changed.cells[0].key, first.cells[0].key);
    assert.ok(!readFileSync(join(dir, 'cells/a/adhoc/t1.json')).equals(bytes));
    const other = await experiment({ ...input, topics: Uint32Array.of(1, 2), qrels: { offsets: Uint32Array.of(0, 2, 3), docs: Uint32Array.of(11, 12, 20), labels: new Int32Array(3).fill(1) }, retrievers: [{ name: 'a', retriever: a2 }] });
    assert.equal(a2.searches, 2, 'other topics: recomputed');
    assert.equal(other.cells[0].queries, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('experiment: per-topic candidate lists are scored as given; in memory without a cache; bad input is one line', async () => {
  const r = new Table('c', 3);
  const candidates = [Uint32Array.of(11, 12, 13, 14), Uint32Array.of(20, 21), Uint32Array.of(30, 35, 36)];
  const out = await experiment({ docs, topics, candidates, qrels, retrievers: [{ name: 'c', retriever: r }], measures: ['MAP'], k: 10 });
  const lists = out.lists.get('c')!;
  candidates.forEach((c, i) => assert.deepEqual([...lists.docs.subarray(lists.offsets[i], lists.offsets[i + 1])].sort(), [...c].sort()));
  rel.forEach((rs, i) => assert.ok(Math.abs(out.cells[0].perQuery.MAP[i] - ap(r, topics[i], rs, [...candidates[i]])) < 1e-6));
  await assert.rejects(() => experiment({ docs, topics, candidates: candidates.slice(1), qrels, retrievers: [], measures: ['MAP'], k: 10 }), /^CitebenchError: experiment: 2 candidate lists for 3 topics$/);
  await assert.rejects(() => experiment({ docs, topics, pool, qrels, retrievers: [], measures: [], k: 10 }), /give qrels and measures \(or an MDCR benchmark\)/);
  await assert.rejects(() => experiment({ docs, topics, pool, qrels, retrievers: [], measures: ['P'], k: 10 }), /'P' expands to \d+ measures/);
});
