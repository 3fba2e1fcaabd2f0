/**
 * The search kernel alone, in one thread, on an index built by `npm run bench:bm25` (after it):
 * the compiled kernel at several accumulator block sizes, one query at a time and grouped (searchMany), and the
 * TypeScript loop, alternating, on the same queries; checks that every variant returns the same lists and prints
 * ns per posting (postings of each query counted, also when a group reads them once).
 *
 *   node --import tsx bench/bm25/kernel.ts [--articles 200000] [--queries 200] [--k 500] [--blocks 2048,4096,…]
 *                                          [--compare path/to/other/citebench_bm25.node,…]
 *
 * --compare adds the same block sizes with other builds of the addon (e.g. the previous commit's), in the same
 * process and the same alternation, for paired before/after figures on a busy machine.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CorpusStore } from '../../src/corpus/store.ts';
import { EnglishAnalyzer, articleText, queryTermIds } from '../../src/retrieval/bm25/analyzer.ts';
import { loadIndex, termIdMap } from '../../src/retrieval/bm25/index-format.ts';
import { DEFAULT_PARAMS, PoolStats } from '../../src/retrieval/bm25/pool-stats.ts';
import { QueryScorer } from '../../src/retrieval/bm25/query-scorer.ts';
import type { TopK } from '../../src/retrieval/bm25/scoring-arrays.ts';
import { bm25Kernel, type Bm25Kernel } from '../../src/retrieval/bm25/kernel.ts';

const { values } = parseArgs({
  options: {
    articles: { type: 'string', default: '200000' }, queries: { type: 'string', default: '200' }, k: { type: 'string', default: '500' },
    blocks: { type: 'string', default: '2048,4096,8192,16384,65536' }, compare: { type: 'string' },
  },
});
const BLOCKS = values.blocks!.split(',').map(Number);
const N = Number(values.articles);
const Q = Number(values.queries);
const K = Number(values.k);
const data = new URL('../../data/bench/bm25/', import.meta.url).pathname;
const store = CorpusStore.open(join(data, `store-${N}`));
const ix = loadIndex(join(data, `index-${N}`));
const stats = new PoolStats(ix, DEFAULT_PARAMS);
const an = new EnglishAnalyzer();
const vocab = termIdMap(ix.terms);
const queries = Array.from({ length: Q }, (_, j) => Math.floor((j * store.size) / Q));
const prepared = queries.map((d) => stats.prepare(queryTermIds(an, vocab, articleText(store.text(d)))));
let postings = 0;
for (const q of prepared) for (const t of q.terms) postings += ix.offsets[t + 1] - ix.offsets[t];
const kernel = bm25Kernel();
const arrays = stats.arrays(store.idOrder);
// A variant searches one query at a time, or (grouped) hands all queries to searchMany at once.
const variants: [string, QueryScorer, boolean?][] = [['typescript', new QueryScorer(arrays, undefined, undefined, null)]];
const others = (values.compare ? values.compare.split(',') : []).map((p) => [p.split('/').pop()!, createRequire(import.meta.url)(p) as Bm25Kernel] as const);
for (const block of BLOCKS) {
  if (kernel) variants.push([`compiled, blocks of ${block}`, new QueryScorer(arrays, undefined, block, kernel)]);
  if (kernel) variants.push([`compiled grouped, blocks of ${block}`, new QueryScorer(arrays, undefined, block, kernel), true]);
  for (const [name, other] of others) variants.push([`${name}, blocks of ${block}`, new QueryScorer(arrays, undefined, block, other)]);
}
const lists: TopK[][] = variants.map(() => []);
const secs = variants.map(() => 0);
for (let round = 0; round < 2; round++) {
  for (const [v, [, scorer, grouped]] of variants.entries()) {
    const t0 = performance.now();
    lists[v] = grouped ? scorer.searchMany(prepared.map((q, i) => ({ q, exclude: queries[i] })), K) : prepared.map((q, i) => scorer.search(q, K, queries[i]));
    if (round === 1) secs[v] = (performance.now() - t0) / 1000; // round 0 warms up
  }
}
const same = (a: TopK[], b: TopK[]) => a.every((x, i) => Buffer.from(x.docs.buffer).equals(Buffer.from(b[i].docs.buffer)) && Buffer.from(x.scores.buffer).equals(Buffer.from(b[i].scores.buffer)));
console.log(`${N} documents, ${Q} queries, top ${K}, ${(postings / Q / 1e6).toFixed(2)} M postings a query, one thread`);
for (const [v, [name]] of variants.entries()) {
  console.log(`${name.padEnd(34)} ${secs[v].toFixed(2)} s  ${((secs[v] * 1e9) / postings).toFixed(2)} ns/posting  ${(secs[0] / secs[v]).toFixed(2)}× typescript  lists ${same(lists[v], lists[0]) ? 'identical' : 'DIFFER'}`);
}
store.close();
