/**
 * Exact nearest-neighbour search restricted to a pool, for single-vector and multi-vector (ASPIRE) models.
 *
 * Candidate generation runs as a tiny ONNX graph in onnxruntime (Gemm = MLAS sgemm, then TopK), one
 * single-threaded session per worker thread over a shared pool: BLAS-class speed, 6× usearch's exactSearch and
 * two orders of magnitude over JS loops on the same data (see docs/benchmarks.md). Float32 Gemm rounds, so the candidates are then re-scored exactly (float64 sums) and
 * ordered by (float32 score desc, pool position asc). A per-query certificate makes the result exact: every
 * article left out has a Gemm score ≤ T, hence a true score ≤ T + ε (ε = a worst-case bound on the float32
 * rounding of the Gemm); when the k-th exact score is not above T + ε the query is retried with more candidates.
 * So the output equals a float64 brute force, independent of block sizes and thread counts.
 *
 * Scores: `l2` → −squared Euclidean distance (what faiss IndexFlatL2 reports, negated); `ip` → inner product.
 */
import { cpus, endianness } from 'node:os';
import * as ort from 'onnxruntime-node';
import { buildModel, ElemType, type NodeSpec } from './onnx-graph.ts';
import type { Distance } from './models.ts';
import { tsWorker } from '../../util/ts-worker.ts';
import type { Worker } from 'node:worker_threads';

/** Per-query results in CSR form over pool positions (0..poolSize-1), best first. */
export interface PoolHits {
  offsets: Uint32Array;
  positions: Uint32Array;
  scores: Float32Array;
}

export interface ExactOptions {
  k: number;
  distance: Distance;
  /** Tie order per pool position (lower first; default: the position itself), e.g. trec_eval's docno order. */
  tieRank?: Uint32Array;
  /** Pool position to leave out of each query's list (−1: none), e.g. the query article itself. */
  exclude?: Int32Array;
  /** Queries per Gemm call (single-vector: default 512). */
  queryBlock?: number;
  /** Pool vectors per Gemm call (single-vector: default 131,072; the score block is queryBlock × poolBlock float32). */
  poolBlock?: number;
  threads?: number;
  /** Top-K per block by onnxruntime's TopK operator (default, measured faster) or a JS heap over the Gemm scores. */
  selection?: 'js' | 'ort';
  /** Called with the number of queries finished so far (for progress). */
  onProgress?: (done: number) => void;
  /**
   * 'exact' (default): candidates re-scored in float64 and certified, so results equal a float64 brute force.
   * 'float32': rank by the float32 Gemm scores as faiss IndexFlat does (L2: |q|² + |p|² − 2q·p in float32,
   * negated), no re-scoring: faiss's semantics at faiss's speed; near-ties may order differently from exact.
   */
  scores?: 'exact' | 'float32';
}

const U = 2 ** -24;
if (endianness() !== 'LE') throw new Error('citebench dense search reads int64 indices as 32-bit words: little-endian CPUs only');
/** Extra candidates beyond k fetched per block, so the certificate usually holds on the first pass. */
const MARGIN = 32;

const sessions = new Map<string, Promise<ort.InferenceSession>>();

function session(kind: 'l2-topk' | 'ip-topk' | 'l2-gemm' | 'ip-gemm' | 'l2-full' | 'ip-full', d: number, threads: number): Promise<ort.InferenceSession> {
  const key = `${kind}/${d}/${threads}`;
  let s = sessions.get(key);
  if (!s) {
    const l2 = kind.startsWith('l2');
    const topk = kind.endsWith('topk');
    const full = kind.endsWith('full');
    const inputs: { name: string; type: number; shape: (number | string)[] }[] = [
      { name: 'Q', type: ElemType.FLOAT, shape: ['b', d] },
      { name: 'P', type: ElemType.FLOAT, shape: ['n', d] },
    ];
    const nodes: NodeSpec[] = [];
    if (l2) {
      // S = 2·Q·Pᵀ − |p|² (+ −|q|² for the full graph): −squared distance up to the per-query constant.
      inputs.push({ name: 'C', type: ElemType.FLOAT, shape: ['n'] });
      nodes.push({ op: 'Gemm', inputs: ['Q', 'P', 'C'], outputs: [full ? 'G' : 'S'], attrs: { alpha: { f: 2 }, transB: { i: 1 } } });
      if (full) {
        inputs.push({ name: 'R', type: ElemType.FLOAT, shape: ['b', 1] });
        nodes.push({ op: 'Add', inputs: ['G', 'R'], outputs: ['S'] });
      }
    } else {
      nodes.push({ op: 'Gemm', inputs: ['Q', 'P'], outputs: ['S'], attrs: { transB: { i: 1 } } });
    }
    const outputs = [] as { name: string; type: number; shape: (number | string)[] }[];
    if (topk) {
      inputs.push({ name: 'K', type: ElemType.INT64, shape: [1] });
      nodes.push({ op: 'TopK', inputs: ['S', 'K'], outputs: ['V', 'I'], attrs: { axis: { i: 1 }, largest: { i: 1 }, sorted: { i: 1 } } });
      outputs.push({ name: 'V', type: ElemType.FLOAT, shape: ['b', 'k'] }, { name: 'I', type: ElemType.INT64, shape: ['b', 'k'] });
    } else {
      outputs.push({ name: 'S', type: ElemType.FLOAT, shape: ['b', 'n'] });
    }
    s = ort.InferenceSession.create(buildModel({ inputs, outputs, nodes }), {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    });
    sessions.set(key, s);
  }
  return s;
}

function norms2(v: Float32Array, d: number, shared = false): Float64Array {
  const n = v.length / d;
  const out = shared ? new Float64Array(new SharedArrayBuffer(n * 8)) : new Float64Array(n);
  let i = 0;
  // Four rows per sweep (independent sums, each in its own order, as in exactScores).
  for (; i + 4 <= n; i += 4) {
    const o = i * d;
    let a0 = 0;
    let a1 = 0;
    let a2 = 0;
    let a3 = 0;
    for (let j = 0; j < d; j++) {
      const x0 = v[o + j];
      const x1 = v[o + d + j];
      const x2 = v[o + 2 * d + j];
      const x3 = v[o + 3 * d + j];
      a0 += x0 * x0;
      a1 += x1 * x1;
      a2 += x2 * x2;
      a3 += x3 * x3;
    }
    out[i] = a0;
    out[i + 1] = a1;
    out[i + 2] = a2;
    out[i + 3] = a3;
  }
  for (; i < n; i++) {
    let a = 0;
    for (let j = i * d, e = j + d; j < e; j++) a += v[j] * v[j];
    out[i] = a;
  }
  return out;
}

/** Exact score of one pair in float64: −Σ(q−p)² or Σq·p. */
function exactScore(q: Float32Array, qo: number, p: Float32Array, po: number, d: number, l2: boolean): number {
  let a = 0;
  if (l2) {
    for (let j = 0; j < d; j++) {
      const t = q[qo + j] - p[po + j];
      a += t * t;
    }
    return 0 - a; // +0, not −0, for identical vectors
  }
  for (let j = 0; j < d; j++) a += q[qo + j] * p[po + j];
  return a;
}

/**
 * exactScore of one query row against many pool rows, four rows per sweep of the query: each sum keeps its
 * own accumulator and order (so the values equal exactScore's), but the four independent chains let the CPU
 * overlap them instead of waiting on one add after another (≈ 3× faster).
 */
function exactScores(q: Float32Array, qo: number, p: Float32Array, rows: number[], d: number, l2: boolean): number[] {
  const out = new Array<number>(rows.length);
  let i = 0;
  for (; i + 4 <= rows.length; i += 4) {
    const o0 = rows[i] * d;
    const o1 = rows[i + 1] * d;
    const o2 = rows[i + 2] * d;
    const o3 = rows[i + 3] * d;
    let a0 = 0;
    let a1 = 0;
    let a2 = 0;
    let a3 = 0;
    if (l2) {
      for (let j = 0; j < d; j++) {
        const x = q[qo + j];
        const t0 = x - p[o0 + j];
        const t1 = x - p[o1 + j];
        const t2 = x - p[o2 + j];
        const t3 = x - p[o3 + j];
        a0 += t0 * t0;
        a1 += t1 * t1;
        a2 += t2 * t2;
        a3 += t3 * t3;
      }
      out[i] = 0 - a0;
      out[i + 1] = 0 - a1;
      out[i + 2] = 0 - a2;
      out[i + 3] = 0 - a3;
    } else {
      for (let j = 0; j < d; j++) {
        const x = q[qo + j];
        a0 += x * p[o0 + j];
        a1 += x * p[o1 + j];
        a2 += x * p[o2 + j];
        a3 += x * p[o3 + j];
      }
      out[i] = a0;
      out[i + 1] = a1;
      out[i + 2] = a2;
      out[i + 3] = a3;
    }
  }
  for (; i < rows.length; i++) out[i] = exactScore(q, qo, p, rows[i] * d, d, l2);
  return out;
}

/** Rounding bound of a float32 Gemm score (worst case over summation orders, ×2 for safety). */
function epsilon(d: number, l2: boolean, qNorm2: number, pMaxNorm2: number): number {
  const g = (d + 4) * U * 1.1;
  const qn = Math.sqrt(qNorm2);
  const pn = Math.sqrt(pMaxNorm2);
  return 2 * g * (l2 ? 2 * qn * pn + pMaxNorm2 + qNorm2 : qn * pn) + 1e-30;
}

/**
 * scores 'float32': the k best candidates by their Gemm score (L2: 2q·p − |p|² from the Gemm, then − |q|² in
 * float32, i.e. −(|q|² + |p|² − 2q·p) as faiss computes it), ties by tie rank.
 */
function finishFloat32(pos: Int32Array, g: Float32Array, ex: number, qNorm32: number, k: number, tie?: Uint32Array): { pos: number[]; score: Float32Array } {
  const idx: number[] = [];
  for (let j = 0; j < pos.length; j++) if (pos[j] !== ex) idx.push(j);
  const sc = new Float32Array(pos.length);
  for (const j of idx) sc[j] = Math.fround(g[j] - qNorm32);
  idx.sort((a, b) => sc[b] - sc[a] || (tie ? tie[pos[a]] - tie[pos[b]] : pos[a] - pos[b]));
  const take = idx.slice(0, k);
  return { pos: take.map((j) => pos[j]), score: Float32Array.from(take, (j) => sc[j]) };
}

/** Sort candidates by (float32 score desc, tie rank asc) and cut to k; also returns the k-th exact score. */
function finishQuery(pos: number[], exact: number[], k: number, tie?: Uint32Array): { pos: number[]; score: Float32Array; kth: number } {
  const f32 = exact.map((x) => Math.fround(x));
  const order = pos.map((_, i) => i).sort((a, b) => f32[b] - f32[a] || (tie ? tie[pos[a]] - tie[pos[b]] : pos[a] - pos[b]));
  const take = order.slice(0, k);
  return {
    pos: take.map((i) => pos[i]),
    score: Float32Array.from(take, (i) => f32[i]),
    kth: take.length ? Math.min(...take.map((i) => exact[i])) : Infinity,
  };
}

/**
 * Exact top-k of each query row over the pool rows (single-vector models). `queries` is nq×d, `pool` np×d.
 * With several threads and more than one query block, the queries are split over worker threads that each run
 * a single-threaded onnxruntime session: here two such sessions reach 177 GFLOP/s of sgemm against 160 for one
 * session on two MLAS threads (numpy/OpenBLAS: 180), and the JS re-scoring runs in parallel too. The pool is
 * shared with the workers when it lives in a SharedArrayBuffer (EmbeddingStore.load gives one); otherwise it
 * is copied into one first.
 */
export async function exactSearch(queries: Float32Array, pool: Float32Array, d: number, opts: ExactOptions): Promise<PoolHits> {
  const nq = queries.length / d;
  const threads = opts.threads ?? cpus().length;
  const workers = Math.min(threads, Math.ceil(nq / (opts.queryBlock ?? 512)));
  if (workers <= 1) return searchBlocks(queries, pool, d, opts, threads);
  // Workers start (module loading, onnxruntime) while this thread computes the pool's norms.
  const spawned = Array.from({ length: workers }, () => tsWorker(new URL('./exact-worker.ts', import.meta.url)));
  try {
    return await searchOnWorkers(spawned, queries, pool, d, opts);
  } finally {
    // Also on failure: a worker left running would keep the process alive.
    await Promise.all(spawned.map((w) => w.terminate()));
  }
}

async function searchOnWorkers(spawned: Worker[], queries: Float32Array, pool: Float32Array, d: number, opts: ExactOptions): Promise<PoolHits> {
  const nq = queries.length / d;
  const workers = spawned.length;
  const sharedPool = pool.buffer instanceof SharedArrayBuffer ? pool : shareCopy(pool);
  const pN = norms2(sharedPool, d, true);
  const tieRank = opts.tieRank;
  const init: ExactWorkerInit = {
    // The buffer, not the view: Node 20 clones a typed array over more than 4 GiB with a truncated length.
    pool: { buffer: sharedPool.buffer as SharedArrayBuffer, byteOffset: sharedPool.byteOffset, length: sharedPool.length }, d, pN,
    opts: { k: opts.k, distance: opts.distance, tieRank, queryBlock: opts.queryBlock, poolBlock: opts.poolBlock, selection: opts.selection, scores: opts.scores },
  };
  // Equal contiguous slices: every query costs the same (one pass over the pool).
  const parts = Array.from({ length: workers }, (_, w) => [Math.floor((w * nq) / workers), Math.floor(((w + 1) * nq) / workers)] as const);
  const doneBy = new Array<number>(workers).fill(0);
  const hits = await Promise.all(
    parts.map(([q0, q1], w) =>
      new Promise<PoolHits>((resolve, reject) => {
        const worker = spawned[w];
        worker.on('message', (m: { progress?: number; hits?: PoolHits }) => {
          if (m.hits) return resolve(m.hits);
          doneBy[w] = m.progress!;
          opts.onProgress?.(doneBy.reduce((a, b) => a + b, 0));
        });
        worker.on('error', reject);
        worker.on('exit', (code) => reject(new Error(`exact search worker exited with code ${code} before finishing`)));
        const task: ExactWorkerTask = { queries: queries.slice(q0 * d, q1 * d), exclude: opts.exclude?.slice(q0, q1) };
        worker.postMessage({ init, task }, [task.queries.buffer as ArrayBuffer]);
      }),
    ),
  );
  return concatHits(hits);
}

/** What exact-worker.ts receives once (shared pool and its squared norms) and per task (a slice of queries). */
export interface ExactWorkerInit {
  pool: { buffer: SharedArrayBuffer; byteOffset: number; length: number };
  d: number;
  pN: Float64Array;
  opts: Omit<ExactOptions, 'exclude' | 'threads' | 'onProgress'>;
}
export interface ExactWorkerTask {
  queries: Float32Array;
  exclude?: Int32Array;
}

function shareCopy(a: Float32Array): Float32Array {
  const out = new Float32Array(new SharedArrayBuffer(a.byteLength));
  out.set(a);
  return out;
}

function concatHits(parts: PoolHits[]): PoolHits {
  const nq = parts.reduce((a, h) => a + h.offsets.length - 1, 0);
  const total = parts.reduce((a, h) => a + h.positions.length, 0);
  const offsets = new Uint32Array(nq + 1);
  const positions = new Uint32Array(total);
  const scores = new Float32Array(total);
  let q = 0;
  let at = 0;
  for (const h of parts) {
    for (let i = 1; i < h.offsets.length; i++) offsets[++q] = at + h.offsets[i];
    positions.set(h.positions, at);
    scores.set(h.scores, at);
    at += h.positions.length;
  }
  return { offsets, positions, scores };
}

/** exactSearch in this thread: one onnxruntime session with `threads` intra-op threads. */
export async function searchBlocks(queries: Float32Array, pool: Float32Array, d: number, opts: ExactOptions, threads: number, poolNorms?: Float64Array): Promise<PoolHits> {
  const l2 = opts.distance === 'l2';
  const nq = queries.length / d;
  const np = pool.length / d;
  const k = Math.min(opts.k, np);
  const qBlock = opts.queryBlock ?? 512;
  const pBlock = opts.poolBlock ?? 131072;
  const selectInJs = opts.selection === 'js';
  const gemmScores = opts.scores === 'float32';
  const sess = await session(l2 ? (selectInJs ? 'l2-gemm' : 'l2-topk') : selectInJs ? 'ip-gemm' : 'ip-topk', d, threads);
  const pN = poolNorms ?? norms2(pool, d);
  const qN = norms2(queries, d);
  let pMax = 0;
  for (let i = 0; i < np; i++) pMax = Math.max(pMax, pN[i]);
  const C = Float32Array.from(pN, (x) => -x);
  const blocks: { lo: number; hi: number; C?: ort.Tensor }[] = [];
  for (let lo = 0; lo < np; lo += pBlock) {
    const hi = Math.min(np, lo + pBlock);
    blocks.push({ lo, hi, C: l2 ? new ort.Tensor('float32', C.subarray(lo, hi), [hi - lo]) : undefined });
  }
  // onnxruntime-node refuses SharedArrayBuffer-backed tensors: a shared pool is fed block by block through a
  // private copy (one copy per block and pass, not per Gemm call).
  const poolShared = pool.buffer instanceof SharedArrayBuffer;
  let scratch: Float32Array | undefined;
  const poolTensor = (lo: number, hi: number): ort.Tensor => {
    const rows = pool.subarray(lo * d, hi * d);
    if (!poolShared) return new ort.Tensor('float32', rows, [hi - lo, d]);
    if (!scratch || scratch.length < rows.length) scratch = new Float32Array(rows.length);
    const own = scratch.subarray(0, rows.length);
    own.set(rows);
    return new ort.Tensor('float32', own, [hi - lo, d]);
  };
  const results: { pos: number[]; score: Float32Array }[] = new Array(nq);
  let finished = 0;

  /**
   * One pass over the pool for the given query rows with `want` candidates per block; returns rows that failed.
   * Pool blocks outside, query blocks inside: each pool block is set up once per pass.
   */
  const pass = async (rows: number[], want: number): Promise<number[]> => {
    const nr = rows.length;
    // Candidates of row i: slots [i·stride, i·stride + fill[i]) of candPos/candG.
    const stride = blocks.reduce((a, b) => a + Math.min(want, b.hi - b.lo), 0);
    const candPos = new Int32Array(nr * stride);
    const candG = new Float32Array(nr * stride);
    const fill = new Int32Array(nr);
    const T = new Float64Array(nr).fill(-Infinity);
    const qTensors: ort.Tensor[] = [];
    for (let b0 = 0; b0 < nr; b0 += qBlock) {
      const part = rows.slice(b0, b0 + qBlock);
      const Q = new Float32Array(part.length * d);
      part.forEach((r, i) => Q.set(queries.subarray(r * d, (r + 1) * d), i * d));
      qTensors.push(new ort.Tensor('float32', Q, [part.length, d]));
    }
    const steps = blocks.length * qTensors.length;
    let step = 0;
    for (const blk of blocks) {
      const n = blk.hi - blk.lo;
      const K = Math.min(want, n);
      const P = poolTensor(blk.lo, blk.hi);
      for (let qb = 0; qb < qTensors.length; qb++) {
        const Qt = qTensors[qb];
        const m = Qt.dims[0];
        const first = qb * qBlock;
        const feeds: Record<string, ort.Tensor> = { Q: Qt, P };
        if (blk.C) feeds.C = blk.C;
        if (selectInJs) {
          // Gemm only; a bounded min-heap per row picks the K best (most values fail one comparison).
          const S = (await sess.run(feeds)).S.data as Float32Array;
          for (let i = 0; i < m; i++) {
            const row = first + i;
            const thr = heapSelect(S, i * n, n, K, candPos, candG, row * stride + fill[row], blk.lo);
            fill[row] += K;
            if (K < n) T[row] = Math.max(T[row], thr);
          }
        } else {
          feeds.K = new ort.Tensor('int64', BigInt64Array.of(BigInt(K)), [1]);
          const out = await sess.run(feeds);
          const V = out.V.data as Float32Array;
          const I64 = out.I.data as BigInt64Array;
          // The int64 indices (< 2^31) read as their low 32-bit words (little-endian, checked at load): no
          // BigInt per candidate.
          const I = new Int32Array(I64.buffer, I64.byteOffset, I64.length * 2);
          for (let i = 0; i < m; i++) {
            const row = first + i;
            const o = row * stride + fill[row];
            for (let j = 0; j < K; j++) {
              candPos[o + j] = blk.lo + I[2 * (i * K + j)];
              candG[o + j] = V[i * K + j];
            }
            fill[row] += K;
            if (K < n) T[row] = Math.max(T[row], V[i * K + K - 1]);
          }
        }
        // Queries are only final after the last pool block: report the scanned share meanwhile.
        opts.onProgress?.(finished + Math.floor((nr * ++step) / (steps + 1)));
      }
    }
    const failed: number[] = [];
    rows.forEach((r, i) => {
      // Keep the `want` best by Gemm score (all ties at the cut); the rest only raise T.
      const all = candPos.subarray(i * stride, i * stride + fill[i]);
      const g = candG.subarray(i * stride, i * stride + fill[i]);
      let pos: ArrayLike<number> = all;
      if (all.length > want) {
        const tau = kthLargest(Float32Array.from(g), want);
        const keep: number[] = [];
        for (let j = 0; j < all.length; j++) {
          if (g[j] >= tau) keep.push(all[j]);
          else if (g[j] > T[i]) T[i] = g[j];
        }
        pos = keep;
      }
      const ex = opts.exclude?.[r] ?? -1;
      if (gemmScores) {
        results[r] = finishFloat32(all, g, ex, l2 ? Math.fround(qN[r]) : 0, k, opts.tieRank);
        finished++;
        return;
      }
      const keptPos: number[] = [];
      for (let j = 0; j < pos.length; j++) if (pos[j] !== ex) keptPos.push(pos[j]);
      const exact = exactScores(queries, r * d, pool, keptPos, d, l2);
      const fin = finishQuery(keptPos, exact, k, opts.tieRank);
      // Upper bound on the true score of anything left out (L2 Gemm scores lack the −|q|² term). Compared in
      // float32, the precision of the ordering, so a left-out article cannot even tie with the k-th.
      const bound = (l2 ? T[i] - qN[r] : T[i]) + epsilon(d, l2, qN[r], pMax);
      const complete = T[i] === -Infinity;
      const certified = complete || (fin.pos.length >= k && Math.fround(bound) < Math.fround(fin.kth));
      if (certified) {
        results[r] = fin;
        finished++;
      } else failed.push(r);
    });
    opts.onProgress?.(finished);
    return failed;
  };

  let pending = Array.from({ length: nq }, (_, i) => i);
  let want = k + MARGIN + 1;
  for (;;) {
    pending = await pass(pending, want);
    if (pending.length === 0) break;
    want = want >= np ? np : Math.min(np, want * 4);
  }
  return toCsr(results);
}

function toCsr(results: { pos: number[]; score: Float32Array }[]): PoolHits {
  const offsets = new Uint32Array(results.length + 1);
  results.forEach((r, i) => (offsets[i + 1] = offsets[i] + r.pos.length));
  const positions = new Uint32Array(offsets[results.length]);
  const scores = new Float32Array(offsets[results.length]);
  results.forEach((r, i) => {
    positions.set(r.pos, offsets[i]);
    scores.set(r.score, offsets[i]);
  });
  return { offsets, positions, scores };
}

/**
 * The K largest of S[off, off+n) into a min-heap at outG/outPos[o, o+K) (positions offset by `base`);
 * returns the smallest kept value. Requires K ≤ n.
 */
function heapSelect(S: Float32Array, off: number, n: number, K: number, outPos: Int32Array, outG: Float32Array, o: number, base: number): number {
  for (let j = 0; j < K; j++) {
    // sift up
    let c = j;
    const v = S[off + j];
    while (c > 0) {
      const p = (c - 1) >> 1;
      if (outG[o + p] <= v) break;
      outG[o + c] = outG[o + p];
      outPos[o + c] = outPos[o + p];
      c = p;
    }
    outG[o + c] = v;
    outPos[o + c] = base + j;
  }
  let thr = outG[o];
  for (let j = K; j < n; j++) {
    const v = S[off + j];
    if (v <= thr) continue;
    // replace the root, sift down
    let c = 0;
    for (;;) {
      const l = 2 * c + 1;
      if (l >= K) break;
      const r = l + 1;
      const m = r < K && outG[o + r] < outG[o + l] ? r : l;
      if (outG[o + m] >= v) break;
      outG[o + c] = outG[o + m];
      outPos[o + c] = outPos[o + m];
      c = m;
    }
    outG[o + c] = v;
    outPos[o + c] = base + j;
    thr = outG[o];
  }
  return thr;
}

/** The m-th largest value (1-based) of a (scratch) array, by quickselect. */
export function kthLargest(a: Float32Array, m: number): number {
  let lo = 0;
  let hi = a.length - 1;
  const target = m - 1; // index in descending order
  while (lo < hi) {
    const pivot = a[(lo + hi) >>> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] > pivot) i++;
      while (a[j] < pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return a[target];
  }
  return a[target];
}

export interface MultiVectors {
  /** Article i owns rows offsets[i]..offsets[i+1] of `vectors`. */
  offsets: Uint32Array;
  vectors: Float32Array;
}

/**
 * Exact top-k articles for multi-vector models (ts-ASPIRE): the score of a (query, article) pair is the best
 * score over all (query sentence, article sentence) pairs. Every sentence pair is scored by Gemm, reduced to
 * one value per (query, article) in JS, the top articles re-scored exactly and certified as in exactSearch.
 */
export async function exactSearchMulti(queries: MultiVectors, pool: MultiVectors, d: number, opts: ExactOptions): Promise<PoolHits> {
  const l2 = opts.distance === 'l2';
  const nq = queries.offsets.length - 1;
  const na = pool.offsets.length - 1;
  const k = Math.min(opts.k, na);
  const threads = opts.threads ?? cpus().length;
  const rowBudget = opts.queryBlock ?? 512; // query sentence rows per Gemm
  const colBudget = opts.poolBlock ?? 32768; // pool sentence rows per Gemm
  const sess = await session(l2 ? 'l2-full' : 'ip-full', d, threads);
  // onnxruntime-node refuses SharedArrayBuffer-backed tensors (what EmbeddingStore.load returns): one private copy.
  if (pool.vectors.buffer instanceof SharedArrayBuffer) pool = { offsets: pool.offsets, vectors: pool.vectors.slice() };
  if (queries.vectors.buffer instanceof SharedArrayBuffer) queries = { offsets: queries.offsets, vectors: queries.vectors.slice() };
  const pN = norms2(pool.vectors, d);
  const qN = norms2(queries.vectors, d);
  let pMax = 0;
  for (const x of pN) pMax = Math.max(pMax, x);
  const C = Float32Array.from(pN, (x) => -x);
  // Pool blocks end at article boundaries.
  const blocks: { a0: number; a1: number; P: ort.Tensor; C?: ort.Tensor }[] = [];
  for (let a0 = 0; a0 < na; ) {
    let a1 = a0 + 1;
    while (a1 < na && pool.offsets[a1 + 1] - pool.offsets[a0] <= colBudget) a1++;
    const r0 = pool.offsets[a0];
    const r1 = pool.offsets[a1];
    blocks.push({
      a0,
      a1,
      P: new ort.Tensor('float32', pool.vectors.subarray(r0 * d, r1 * d), [r1 - r0, d]),
      C: l2 ? new ort.Tensor('float32', C.subarray(r0, r1), [r1 - r0]) : undefined,
    });
    a0 = a1;
  }
  const results: { pos: number[]; score: Float32Array }[] = new Array(nq);
  for (let q0 = 0; q0 < nq; ) {
    let q1 = q0 + 1;
    while (q1 < nq && queries.offsets[q1 + 1] - queries.offsets[q0] <= rowBudget) q1++;
    const r0 = queries.offsets[q0];
    const r1 = queries.offsets[q1];
    const rows = r1 - r0;
    const Qt = new ort.Tensor('float32', queries.vectors.subarray(r0 * d, r1 * d), [rows, d]);
    const Rt = new ort.Tensor('float32', Float32Array.from(qN.subarray(r0, r1), (x) => -x), [rows, 1]);
    const best = new Float32Array((q1 - q0) * na).fill(-Infinity);
    for (const blk of blocks) {
      if (rows === 0 || blk.P.dims[0] === 0) continue;
      const feeds: Record<string, ort.Tensor> = { Q: Qt, P: blk.P };
      if (l2) {
        feeds.C = blk.C!;
        feeds.R = Rt;
      }
      const S = (await sess.run(feeds)).S.data as Float32Array;
      const cols = blk.P.dims[0];
      const c0 = pool.offsets[blk.a0];
      for (let q = q0; q < q1; q++) {
        const base = (q - q0) * na;
        for (let r = queries.offsets[q] - r0; r < queries.offsets[q + 1] - r0; r++) {
          const row = r * cols - c0;
          for (let a = blk.a0; a < blk.a1; a++) {
            let m = best[base + a];
            for (let c = pool.offsets[a]; c < pool.offsets[a + 1]; c++) if (S[row + c] > m) m = S[row + c];
            best[base + a] = m;
          }
        }
      }
    }
    for (let q = q0; q < q1; q++) {
      const g = best.subarray((q - q0) * na, (q - q0 + 1) * na);
      const ex = opts.exclude?.[q] ?? -1;
      let qMax = 0;
      for (let r = queries.offsets[q]; r < queries.offsets[q + 1]; r++) qMax = Math.max(qMax, qN[r]);
      const eps = epsilon(d, l2, qMax, pMax);
      for (let want = k + MARGIN + 1; ; want = Math.min(na, want * 4)) {
        const tau = want >= na ? -Infinity : kthLargest(Float32Array.from(g), want);
        let T = -Infinity;
        const pos: number[] = [];
        const exact: number[] = [];
        for (let a = 0; a < na; a++) {
          if (g[a] >= tau) {
            if (a === ex) continue;
            pos.push(a);
            let m = -Infinity;
            for (let r = queries.offsets[q]; r < queries.offsets[q + 1]; r++)
              for (let c = pool.offsets[a]; c < pool.offsets[a + 1]; c++) m = Math.max(m, exactScore(queries.vectors, r * d, pool.vectors, c * d, d, l2));
            exact.push(m);
          } else T = Math.max(T, g[a]);
        }
        const fin = finishQuery(pos, exact, k, opts.tieRank);
        if (T === -Infinity || (fin.pos.length >= k && Math.fround(T + eps) < Math.fround(fin.kth))) {
          results[q] = fin;
          break;
        }
      }
    }
    opts.onProgress?.(q1);
    q0 = q1;
  }
  return toCsr(results);
}
