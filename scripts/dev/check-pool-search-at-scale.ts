/**
 * The pool-as-its-own-index search and the candidates lookup against the paths they replace, at a large index
 * (development only; the unit tests compare them on small ones):
 *   node --import tsx scripts/dev/check-pool-search-at-scale.ts INDEX_DIR STORE_DIR [QUERIES] [SEED]
 * For random pools of 100 k and 2 M articles and random query articles (trec_eval's tie key, the store's idOrder):
 *   1. a sliced pool's top 1000 (members renumbered, kernel search) equals the whole index swept with the pool's
 *      membership (corpus numbering), documents and float bits;
 *   2. 65 fixed candidates of the pool, looked up by binary search, equal the sliced pool's full ranking filtered
 *      to them (candidates no term reaches follow with score 0, by tie key).
 * Prints the comparisons made and exits 1 on the first difference.
 */
import { loadIndex, termIdMap } from '../../src/retrieval/bm25/index-format.ts';
import { PoolStats } from '../../src/retrieval/bm25/pool-stats.ts';
import { QueryScorer } from '../../src/retrieval/bm25/query-scorer.ts';
import { slicePool } from '../../src/retrieval/bm25/pool-slice.ts';
import type { TopK } from '../../src/retrieval/bm25/scoring-arrays.ts';
import { EnglishAnalyzer, articleText, queryTermIds } from '../../src/retrieval/bm25/analyzer.ts';
import { CorpusStore } from '../../src/corpus/store.ts';

const [indexDir, storeDir, nQueries = '100', seedArg = '7'] = process.argv.slice(2);
if (!indexDir || !storeDir) throw new Error('usage: check-pool-search-at-scale.ts INDEX_DIR STORE_DIR [QUERIES] [SEED]');
let seed = Number(seedArg);
const rnd = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const t0 = performance.now();
const ix = loadIndex(indexDir);
const store = CorpusStore.open(storeDir);
console.log(`index of ${ix.docCount} articles, ${ix.docs.length} postings, loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
const vocab = termIdMap(ix.terms);
const analyzer = new EnglishAnalyzer();
const same = (a: TopK, b: TopK) =>
  a.docs.length === b.docs.length && a.docs.every((d, i) => d === b.docs[i]) && a.scores.every((s, i) => Object.is(s, b.scores[i]));

let compared = 0;
for (const poolSize of [100_000, 2_000_000]) {
  const member = new Uint8Array(ix.docCount);
  for (let n = 0; n < poolSize; ) {
    const d = Math.floor(rnd() * ix.docCount);
    if (!member[d]) (member[d] = 1), n++;
  }
  const pool = new Uint32Array(poolSize);
  for (let d = 0, i = 0; d < ix.docCount; d++) if (member[d]) pool[i++] = d;
  const stats = new PoolStats(ix, { k1: 0.9, b: 0.4, accurate: false }, pool);
  const whole = stats.arrays(store.idOrder);
  let t = performance.now();
  const sliced = slicePool(whole);
  console.log(`pool of ${poolSize}: sliced in ${((performance.now() - t) / 1000).toFixed(1)} s (${sliced.docs.length} postings)`);
  const overWhole = new QueryScorer(whole);
  const overSlice = new QueryScorer(sliced);
  t = performance.now();
  for (let i = 0; i < Number(nQueries); i++) {
    const q = pool[Math.floor(rnd() * poolSize)];
    const pq = stats.prepare(queryTermIds(analyzer, vocab, articleText(store.text(q))));
    const a = overSlice.search(pq, 1000, q);
    const b = overWhole.search(pq, 1000, q);
    if (!same(a, b)) {
      console.error(`pool ${poolSize}, query ${q}: the sliced pool's top 1000 differs from the whole index's`);
      process.exit(1);
    }
    const cands = Uint32Array.from({ length: 65 }, () => pool[Math.floor(rnd() * poolSize)]);
    const got = overWhole.search(pq, 65, q, cands);
    const full = overSlice.search(pq, poolSize, q);
    const want = new Set([...cands].filter((d) => d !== q));
    const ranked: [number, number][] = [];
    full.docs.forEach((d, j) => want.has(d) && ranked.push([d, full.scores[j]]));
    const reached = new Set(ranked.map(([d]) => d));
    const zero = [...want].filter((d) => !reached.has(d)).sort((x, y) => store.idOrder[y] - store.idOrder[x]).map((d): [number, number] => [d, 0]);
    const expect = [...ranked, ...zero];
    if (got.docs.length !== expect.length || expect.some(([d, s], j) => got.docs[j] !== d || !Object.is(got.scores[j], Math.fround(s)))) {
      console.error(`pool ${poolSize}, query ${q}: the candidates' lookup differs from the full ranking`);
      process.exit(1);
    }
    compared += 2;
  }
  console.log(`pool of ${poolSize}: ${nQueries} queries, both comparisons equal (${((performance.now() - t) / 1000).toFixed(1)} s)`);
}
console.log(`${compared} comparisons, all equal`);
