/**
 * Navigation (Nogueira et al. 2020 §3) on hand-made citation graphs: the candidate sets C_t and the final order
 * are the ones the paper's procedure gives, k_c truncation (citations of the lowest-ranked papers dropped first)
 * included, and a second iteration starts from the top k_d^1 of the first one's ranking.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NavigationRetriever, navigate } from '../../src/retrieval/navigation.ts';
import { RerankRetriever } from '../../src/retrieval/rerank.ts';
import type { RankedLists, Retriever, SearchRequest } from '../../src/retrieval/retriever.ts';
import { graphOf } from './graph.ts';

/** A retriever with a fixed score per document (first stage: the pool by score; candidates: those scores). */
class TableRetriever implements Retriever {
  readonly fingerprint: string;
  requests: SearchRequest[] = [];
  constructor(readonly name: string, private readonly score: (q: number, d: number) => number, private readonly size: number) {
    this.fingerprint = `table-${name}`;
  }
  async search(req: SearchRequest): Promise<RankedLists> {
    this.requests.push(req);
    const offsets = new Uint32Array(req.queries.length + 1);
    const docs: number[] = [];
    const scores: number[] = [];
    req.queries.forEach((q, i) => {
      const cands = req.candidates ? [...req.candidates[i]] : [...(req.pool ?? Array.from({ length: this.size }, (_, d) => d))];
      const list = cands.filter((d) => !(req.excludeSelf ?? true) || d !== q).sort((a, b) => this.score(q, b) - this.score(q, a) || b - a).slice(0, req.k);
      for (const d of list) {
        docs.push(d);
        scores.push(this.score(q, d));
      }
      offsets[i + 1] = docs.length;
    });
    return { offsets, docs: Uint32Array.from(docs), scores: Float32Array.from(scores) };
  }
}

const lists = (r: RankedLists) => Array.from({ length: r.offsets.length - 1 }, (_, q) => [...r.docs.subarray(r.offsets[q], r.offsets[q + 1])]);

test("navigate: the paper's Figure 1 — k_d = 2, k_c = 3: C = (d3, d4, d5), d6 (cited by the lower-ranked d2) dropped", () => {
  // d1 cites d3, d4; d2 cites d5, d6. Index 0 is the query.
  const g = graphOf(7, [[1, 3], [1, 4], [2, 5], [2, 6]]);
  const all = new Uint8Array(7).fill(1);
  assert.deepEqual([...navigate(g, Uint32Array.of(1, 2), 3, all, 0)], [3, 4, 5]);
  // Ranked the other way, d2's citations come first and d4 is the one dropped.
  assert.deepEqual([...navigate(g, Uint32Array.of(2, 1), 3, all, 0)], [5, 6, 3]);
  assert.deepEqual([...navigate(g, Uint32Array.of(1, 2), 10, all, 0)], [3, 4, 5, 6], 'no truncation below k_c');
  assert.deepEqual([...navigate(g, Uint32Array.of(1, 2), 0, all, 0)], []);
});

test('navigate: only pool members, never the query, nor a paper of D, each once', () => {
  // d1 cites the query 0, d2 (in D), d3 (not in the pool), d4; d2 cites d4 again and d5.
  const g = graphOf(6, [[1, 0], [1, 2], [1, 3], [1, 4], [2, 4], [2, 5]]);
  const member = Uint8Array.from([1, 1, 1, 0, 1, 1]);
  assert.deepEqual([...navigate(g, Uint32Array.of(1, 2), 10, member, 0)], [4, 5]);
  assert.deepEqual([...navigate(g, Uint32Array.of(1, 2), 1, member, 0)], [4], 'k_c counts admitted candidates');
});

test('NavigationRetriever: D_0 from the first stage, D_0 ∪ C_0 ranked by the scorer, cut at k', async () => {
  // 12 articles; query 0. First stage scores favour 1 > 2 > 3 > …; the scorer favours high indices.
  const g = graphOf(12, [[1, 7], [1, 8], [2, 9], [2, 10], [3, 11], [4, 5]]);
  const first = new TableRetriever('first', (_q, d) => 100 - d, 12);
  const scorer = new TableRetriever('scorer', (_q, d) => d, 12);
  const pool = Uint32Array.from([1, 2, 3, 4, 5, 7, 8, 9, 10, 11]);
  const nav = new NavigationRetriever({ name: 'nav', first, scorer: [{ retriever: scorer, weight: 1 }], kd: [2], kc: [3], graph: g });
  const r = await nav.search({ queries: Uint32Array.of(0), pool, k: 100 });
  // D_0 = (1, 2); C_0 = 7, 8 (from 1), 9 (from 2; 10 dropped by k_c = 3); ranked by the scorer: descending index.
  assert.deepEqual(lists(r), [[9, 8, 7, 2, 1]]);
  assert.equal(first.requests[0].k, 2, 'the first stage is asked for k_d papers');
  assert.deepEqual(lists(await nav.search({ queries: Uint32Array.of(0), pool, k: 3 })), [[9, 8, 7]], 'cut at k');
  // Weighted sum: 1·first + 0.5·scorer — 1: 99.5, 2: 99, 7: 96.5, 8: 96, 9: 95.5.
  const mixed = new NavigationRetriever({ name: 'mix', first, scorer: [{ retriever: first, weight: 1 }, { retriever: scorer, weight: 0.5 }], kd: [2], kc: [3], graph: g });
  assert.deepEqual(lists(await mixed.search({ queries: Uint32Array.of(0), pool, k: 100 })), [[1, 2, 7, 8, 9]]);
  assert.notEqual(mixed.fingerprint, nav.fingerprint);
});

test('NavigationRetriever: T = 2 — D_1 is the top k_d^1 of iteration 0, navigated again with k_c^1', async () => {
  // 0 = query. 1 cites 2, 3; 3 cites 4, 5, 6; 2 cites 7.
  const g = graphOf(8, [[1, 2], [1, 3], [3, 4], [3, 5], [3, 6], [2, 7]]);
  const first = new TableRetriever('first', (_q, d) => (d === 1 ? 10 : 0), 8);
  // Scorer: 3 > 1 > 5 > 2 > 4 > 6 > 7.
  const order = [3, 1, 5, 2, 4, 6, 7];
  const scorer = new TableRetriever('scorer', (_q, d) => 100 - order.indexOf(d), 8);
  const nav = new NavigationRetriever({ name: 'nav2', first, scorer: [{ retriever: scorer, weight: 1 }], kd: [1, 2], kc: [5, 2], graph: g });
  const r = await nav.search({ queries: Uint32Array.of(0), pool: Uint32Array.from([1, 2, 3, 4, 5, 6, 7]), k: 10 });
  // t=0: D_0 = (1), C_0 = (2, 3); ranked: 3, 1, 2. t=1: D_1 = (3, 1); C_1 = 4, 5 (from 3; 6 dropped, 2 of 1 also
  // dropped by k_c = 2); ranked: 3, 1, 5, 4.
  assert.deepEqual(lists(r), [[3, 1, 5, 4]]);
});

test('RerankRetriever: the first stage top depth re-scored by the scorer', async () => {
  const first = new TableRetriever('first', (_q, d) => 100 - d, 10);
  const scorer = new TableRetriever('scorer', (_q, d) => (d % 3) * 10 + d, 10);
  const rr = new RerankRetriever({ name: 'rr', first, scorer: [{ retriever: scorer, weight: 1 }], depth: 4 });
  // top 4 of first: 1, 2, 3, 4 (0 is the query); scorer: 1 → 11, 2 → 22, 3 → 3, 4 → 14.
  assert.deepEqual(lists(await rr.search({ queries: Uint32Array.of(0), k: 10 })), [[2, 4, 1, 3]]);
});
