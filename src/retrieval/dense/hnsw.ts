/**
 * Approximate search with an HNSW graph (usearch): for the 2 M pools, where exact search costs minutes of
 * sgemm per run. Candidates found by the graph are re-scored exactly (float64) so scores mean the same as in
 * exact search; what can differ is which articles are found (recall@k vs exact is reported by the benchmark).
 */
import { existsSync, renameSync, rmSync } from 'node:fs';
import { keyOf, stampStale, writeStamp } from '../../util/identity.ts';
import usearch from 'usearch';
import type { Metric } from './similarity.ts';
import type { PoolHits } from './hits.ts';

export interface HnswOptions {
  /** Graph degree M (usearch "connectivity"; default 16). */
  connectivity?: number;
  /** Beam width while building (efConstruction; default 128). */
  expansionAdd?: number;
  /**
   * How the graph stores its copy of the vectors: f32 (default), bf16 or f16 (half the memory, ~3× faster to
   * build here), i8 (usearch maps [−1, 1] to int8: only for vectors in that range). Candidates are always
   * re-scored from the float32 pool, so this affects which articles are found, not their scores.
   */
  quantization?: 'f32' | 'bf16' | 'f16' | 'i8';
  /** Beam width while searching (ef; default max(2·k, 512)). */
  expansionSearch?: number;
  /** Save the built graph here (atomically) and reuse it when present with the same cacheKey. */
  cachePath?: string;
  /** Identity of pool + vectors + graph settings; a cached graph with another key is rebuilt. */
  cacheKey?: string;
}

export interface HnswIndex {
  index: InstanceType<typeof usearch.Index>;
  buildSeconds: number;
  loaded: boolean;
}

export function buildHnsw(pool: Float32Array, d: number, distance: Metric, opts: HnswOptions = {}, kHint = 500): HnswIndex {
  const index = new usearch.Index({
    dimensions: d,
    metric: distance === 'l2' ? usearch.MetricKind.L2sq : usearch.MetricKind.IP,
    quantization: (opts.quantization ?? 'f32') as unknown as typeof usearch.ScalarKind.F32,
    connectivity: opts.connectivity ?? 16,
    expansion_add: opts.expansionAdd ?? 128,
    expansion_search: opts.expansionSearch ?? Math.max(2 * kHint, 512),
    multi: false,
  });
  const n = pool.length / d;
  const keyPath = `${opts.cachePath}.key`;
  const settings = { n, d, distance, connectivity: opts.connectivity ?? 16, expansionAdd: opts.expansionAdd ?? 128, quantization: opts.quantization ?? 'f32' };
  const key = keyOf({ vectors: opts.cacheKey ?? '', params: settings });
  // The key file an older citebench wrote for the same graph (its settings joined by '/'), still accepted.
  const legacy = [opts.cacheKey ?? '', ...Object.values(settings)].join('/');
  if (opts.cachePath && existsSync(opts.cachePath) && !stampStale(keyPath, key, legacy)) {
    index.load(opts.cachePath);
    if (index.size() === n) return { index, buildSeconds: 0, loaded: true };
  }
  const t0 = performance.now();
  const keys = new BigUint64Array(n);
  for (let i = 0; i < n; i++) keys[i] = BigInt(i);
  // Add in slices so a progress bar or a kill never waits on one giant native call.
  const slice = 65536;
  for (let lo = 0; lo < n; lo += slice) {
    const hi = Math.min(n, lo + slice);
    // One insertion thread: with concurrent insertion the graph (and so which articles a search finds) depends
    // on thread timing, and the same config must give the same bytes.
    index.add(keys.subarray(lo, hi), pool.subarray(lo * d, hi * d), 1);
  }
  const buildSeconds = (performance.now() - t0) / 1000;
  if (opts.cachePath) {
    const tmp = `${opts.cachePath}.tmp-${process.pid}`;
    rmSync(tmp, { force: true });
    index.save(tmp);
    rmSync(keyPath, { force: true });
    renameSync(tmp, opts.cachePath);
    writeStamp(keyPath, key);
  }
  return { index, buildSeconds, loaded: false };
}

/** Top-k by HNSW, re-scored exactly; ordering (float32 score desc, position asc) as in exact search. */
export function searchHnsw(
  h: HnswIndex,
  queries: Float32Array,
  pool: Float32Array,
  d: number,
  distance: Metric,
  k: number,
  exclude?: Int32Array,
  tieRank?: Uint32Array,
): PoolHits {
  const nq = queries.length / d;
  const l2 = distance === 'l2';
  const want = Math.min(k + 1, pool.length / d);
  // One thread: usearch sizes its per-thread search contexts when `add` grows the index, and the graph is built
  // on one thread (buildHnsw), so a graph built here has one context. Queries are independent, so this costs
  // time, not results.
  const res = h.index.search(queries, want, 1) as unknown as { keys: BigUint64Array; counts: BigUint64Array };
  const offsets = new Uint32Array(nq + 1);
  const lists: { pos: number[]; score: number[] }[] = [];
  for (let q = 0; q < nq; q++) {
    const cnt = Number(res.counts[q]);
    const cand: { p: number; s: number }[] = [];
    for (let j = 0; j < cnt; j++) {
      const p = Number(res.keys[q * want + j]);
      if (exclude && exclude[q] === p) continue;
      let a = 0;
      for (let t = 0; t < d; t++) {
        const x = queries[q * d + t];
        const y = pool[p * d + t];
        a += l2 ? (x - y) * (x - y) : x * y;
      }
      cand.push({ p, s: Math.fround(l2 ? 0 - a : a) });
    }
    cand.sort((a, b) => b.s - a.s || (tieRank ? tieRank[a.p] - tieRank[b.p] : a.p - b.p));
    const top = cand.slice(0, k);
    lists.push({ pos: top.map((c) => c.p), score: top.map((c) => c.s) });
    offsets[q + 1] = offsets[q] + top.length;
  }
  const positions = new Uint32Array(offsets[nq]);
  const scores = new Float32Array(offsets[nq]);
  lists.forEach((l, q) => {
    positions.set(l.pos, offsets[q]);
    scores.set(l.score, offsets[q]);
  });
  return { offsets, positions, scores };
}
