/**
 * Approximate search with an HNSW graph (usearch): for the 2 M pools, where exact search costs minutes of
 * sgemm per run. Candidates found by the graph are re-scored exactly (float64) so scores mean the same as in
 * exact search; what can differ is which articles are found (recall@k vs exact is reported by the benchmark).
 */
import { existsSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { keyOf, sha256, stampStale } from '../../util/identity.ts';
import { tmpDirFor, writeFileAtomic } from '../../util/atomic.ts';
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
  /**
   * Save the built graph here (atomically, with its key in `<cachePath>.key`) and reuse it when its key is the
   * wanted one. The key is made from content: the vectors the graph indexes (their bytes, as indexed), the
   * graph's settings and `cacheInputs`; a cached graph of anything else is built again, with one line to `log`.
   */
  cachePath?: string;
  /** What else the graph's key names (the store's model fingerprint, dtype, corpus, pool ids, normalisation). */
  cacheInputs?: Record<string, unknown>;
  /** Where the line saying why a cached graph is not reused goes. */
  log?: (line: string) => void;
}

export interface HnswIndex {
  index: InstanceType<typeof usearch.Index>;
  buildSeconds: number;
  loaded: boolean;
}

export function buildHnsw(pool: Float32Array, d: number, distance: Metric, opts: HnswOptions = {}, kHint = 500): HnswIndex {
  const make = () => new usearch.Index({
    dimensions: d,
    metric: distance === 'l2' ? usearch.MetricKind.L2sq : usearch.MetricKind.IP,
    quantization: (opts.quantization ?? 'f32') as unknown as typeof usearch.ScalarKind.F32,
    connectivity: opts.connectivity ?? 16,
    expansion_add: opts.expansionAdd ?? 128,
    expansion_search: opts.expansionSearch ?? Math.max(2 * kHint, 512),
    multi: false,
  });
  let index = make();
  const n = pool.length / d;
  const keyPath = `${opts.cachePath}.key`;
  const settings = { n, d, distance, connectivity: opts.connectivity ?? 16, expansionAdd: opts.expansionAdd ?? 128, quantization: opts.quantization ?? 'f32' };
  if (opts.cachePath) {
    // The vectors themselves (6 GB for 2 M × 768 float32: seconds of SHA-256, against minutes of building).
    const key = keyOf({ ...opts.cacheInputs, vectors: pool, params: settings, graph: HNSW_GRAPH_VERSION });
    const stale = existsSync(opts.cachePath) ? stampStale(keyPath, key) : undefined;
    const loaded = existsSync(opts.cachePath) && !stale ? loadCached(index, opts.cachePath, keyPath, n) : undefined;
    if (loaded === true) return { index, buildSeconds: 0, loaded: true };
    const why = stale ?? loaded;
    if (why) opts.log?.(`HNSW graph ${opts.cachePath} not reused (${why}): building it again`);
    if (loaded !== undefined) index = make(); // a graph that loaded but cannot serve: start from an empty one
    const built = build(index, pool, d, n);
    // NAME.tmp-HOST-PID, as every temp file: removed if this process is stopped, swept if it is killed.
    const tmp = tmpDirFor(opts.cachePath);
    rmSync(tmp, { force: true });
    index.save(tmp);
    rmSync(keyPath, { force: true });
    renameSync(tmp, opts.cachePath);
    writeFileAtomic(keyPath, JSON.stringify({ ...key, file: fileRecord(opts.cachePath) }) + '\n');
    return { index, buildSeconds: built, loaded: false };
  }
  return { index, buildSeconds: build(index, pool, d, n), loaded: false };
}

/** Bump when what a graph holds for the same inputs changes. */
const HNSW_GRAPH_VERSION = 2;

/** The graph file's size and SHA-256, recorded in its key file. */
function fileRecord(path: string): { size: number; sha256: string } {
  return { size: statSync(path).size, sha256: sha256().updateFile(path).hex() };
}

/**
 * Load a cached graph: true, or why it cannot serve. The file must be the one its key file recorded (size and
 * SHA-256) before usearch reads it: usearch crashes or hangs on a damaged file, where a damaged cache must only be
 * built again.
 */
function loadCached(index: InstanceType<typeof usearch.Index>, path: string, keyPath: string, n: number): true | string {
  let rec: { size?: unknown; sha256?: unknown } | undefined;
  try {
    rec = (JSON.parse(readFileSync(keyPath, 'utf8')) as { file?: { size?: unknown; sha256?: unknown } }).file;
  } catch {
    rec = undefined;
  }
  if (!rec) return 'its key file records no graph file';
  if (rec.size !== statSync(path).size || rec.sha256 !== sha256().updateFile(path).hex()) return 'the graph file differs from the one its key records: damaged or replaced';
  try {
    index.load(path);
  } catch (e) {
    return `unreadable: ${(e as Error).message}`;
  }
  return index.size() === n ? true : `it holds ${index.size()} vectors, not ${n}`;
}

/** Add the pool's rows (keys 0..n−1); the seconds it took. */
function build(index: InstanceType<typeof usearch.Index>, pool: Float32Array, d: number, n: number): number {
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
  return (performance.now() - t0) / 1000;
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
