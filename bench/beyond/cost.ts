/**
 * The extra cost of citation-graph navigation and of building sparse Profiler profiles (docs/benchmarks.md,
 * "Beyond the paper"), on a corpus store and its BM25 index:
 *
 *   npx tsx --expose-gc bench/beyond/cost.ts --work data/default --pools 40000,100000,200000 --queries 200 --threads 2 [--top-terms N] [--no-profiles]
 *
 * Per pool size: BM25 top 1000 (the baseline); BM25 + navigation (k_d 300, k_c 700, T 1, ranked by BM25) and the
 * part of it that is navigation + re-scoring; sparse profile building (citing sets + profiles + inverted
 * postings; bytes of its arrays and the RSS growth) and the Profiler's search over them. One JSON line per size.
 */
import { join } from 'node:path';
import { CorpusStore } from '../../src/corpus/store.ts';
import { loadIndex } from '../../src/retrieval/bm25/index-format.ts';
import { Bm25Retriever } from '../../src/retrieval/bm25/retriever.ts';
import { NavigationRetriever } from '../../src/retrieval/navigation.ts';
import { SparseProfiler, buildSparseProfiles } from '../../src/retrieval/profiler/sparse.ts';
import { citingSets } from '../../src/retrieval/profiler/citing.ts';
import { sampleQueries, samplePool } from '../../src/sampling/pools.ts';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const work = arg('work', 'data/default');
const pools = arg('pools', '40000').split(',').map(Number);
const Q = Number(arg('queries', '200'));
const threads = Number(arg('threads', '2'));
const topTerms = Number(arg('top-terms', '0'));
// --no-profiles: the BM25 and navigation timings only (a profile build at 2 M takes minutes).
const profiles = !process.argv.includes('--no-profiles');

const store = CorpusStore.open(join(work, 'store'));
const index = loadIndex(join(work, 'bm25-index'));
const queries = sampleQueries(store, { count: Q, seed: 1 });
const tieKey = store.idOrder;
const secs = async <T>(f: () => Promise<T> | T): Promise<[T, number]> => {
  const t0 = performance.now();
  const r = await f();
  return [r, (performance.now() - t0) / 1000];
};
const mib = (b: number) => +(b / 2 ** 20).toFixed(1);
// Warm the graph columns (loaded lazily) so no timing below includes reading them.
void store.outOffsets, store.outTargets, store.inOffsets, store.inSources;

for (const size of pools) {
  const pool = samplePool(store, queries, { size, repeat: 1, seed: 1 }).members;
  const bm25 = new Bm25Retriever(index, store, { params: { k1: 0.9, b: 0.4 }, tieKey, threads });
  bm25.stats(pool); // pool statistics once, as in a cell
  const [, tBm25] = await secs(() => bm25.search({ queries, pool, k: 1000 }));
  const [, tFirst300] = await secs(() => bm25.search({ queries, pool, k: 300 }));
  const nav = new NavigationRetriever({ name: 'nav', first: bm25, scorer: [{ retriever: bm25, weight: 1 }], kd: [300], kc: [700], graph: store, tieKey });
  const [, tNav] = await secs(() => nav.search({ queries, pool, k: 1000 }));
  if (!profiles) {
    console.log(JSON.stringify({ pool: pool.length, queries: Q, threads, bm25_top1000_s: +tBm25.toFixed(2), navigation_s: +tNav.toFixed(2), navigation_extra_s: +(tNav - tFirst300).toFixed(2), first_stage_top300_s: +tFirst300.toFixed(2) }));
    continue;
  }
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  const [citing, tCiting] = await secs(() => citingSets(store, pool, queries, null));
  const [P, tProfiles] = await secs(() => buildSparseProfiles(index, pool, citing, { k1: 0.9, b: 0.4, beta: 0.5, topTerms }));
  const rss1 = process.memoryUsage().rss;
  const bytes = [P.fwdOffsets, P.fwdTerms, P.fwdWeights, P.lengths, P.invOffsets, P.invPos, P.invWeights, P.normInv, citing.offsets, citing.sources].reduce((s, a) => s + a.byteLength, 0);
  const prof = new SparseProfiler(index, store, store, { name: 'prof', k1: 0.9, b: 0.4, beta: 0.5, topTerms, tieKey });
  prof.profiles(pool, queries, null); // built (and cached) before timing the search
  const [, tProfSearch] = await secs(() => prof.search({ queries, pool, k: 1000, setting: 'transductive' }));
  console.log(JSON.stringify({
    pool: pool.length, queries: Q, threads, topTerms,
    bm25_top1000_s: +tBm25.toFixed(2),
    navigation_s: +tNav.toFixed(2), navigation_extra_s: +(tNav - tFirst300).toFixed(2), first_stage_top300_s: +tFirst300.toFixed(2),
    citing_sets_s: +tCiting.toFixed(2), citing_edges: citing.sources.length,
    profiles_build_s: +tProfiles.toFixed(2), profile_postings: P.fwdTerms.length, profile_arrays_mib: mib(bytes), rss_growth_mib: mib(rss1 - rss0),
    profiler_search_s: +tProfSearch.toFixed(2),
    rss_mib: mib(process.memoryUsage().rss),
  }));
}
