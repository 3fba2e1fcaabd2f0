/**
 * Search benchmarks (synthetic clustered 768-d vectors, see vectors.ts), one mode per process so peak RSS is
 * per mode:
 *   exact200k   3,800 queries × 200 k pool: citebench exact search (ORT Gemm+TopK), plus usearch exactSearch
 *               and a plain JS loop on query subsets (extrapolated, labelled); writes ids for the faiss peer
 *   exact2m     3,800 queries × 2 M pool, exact
 *   hnsw2m      HNSW build over the 2 M pool (or DENSE_HNSW_N vectors) and 3,800 queries; recall@500 vs exact
 * usage: node --import tsx bench/dense/search.ts MODE   (data and results under bench/out/dense/)
 */
import { mkdirSync, existsSync, writeFileSync, readFileSync } from 'node:fs';
import usearch from 'usearch';
import { exactSearch } from '../../src/retrieval/dense/search.ts';
import type { PoolHits } from '../../src/retrieval/dense/hits.ts';
import { buildHnsw, searchHnsw } from '../../src/retrieval/dense/hnsw.ts';
import { cached, generate, peakRssMiB } from './vectors.ts';

const OUT = new URL('../out/dense/', import.meta.url).pathname;
mkdirSync(OUT, { recursive: true });
const d = 768;
const K = 500;
const NQ = 3800;
const mode = process.argv[2];
const log = (o: Record<string, unknown>) => {
  const line = JSON.stringify({ mode, ...o, peakRssMiB: Math.round(peakRssMiB()) });
  console.log(line);
  writeFileSync(`${OUT}results.jsonl`, line + '\n', { flag: 'a' });
};
const secs = (t0: number) => (performance.now() - t0) / 1000;
const queries = cached(`${OUT}queries3800.f32`, NQ, d, 2);
const selection = (process.env.DENSE_SELECTION ?? 'ort') as 'js' | 'ort'; // the library's default
const blocksOpt = {
  queryBlock: process.env.DENSE_QBLOCK ? Number(process.env.DENSE_QBLOCK) : undefined,
  poolBlock: process.env.DENSE_PBLOCK ? Number(process.env.DENSE_PBLOCK) : undefined,
};
const selLabel = `${selection === 'js' ? 'JS heap top-k' : 'ORT TopK'}, blocks ${blocksOpt.queryBlock ?? 'default'}×${blocksOpt.poolBlock ?? 'default'}`;

function saveIds(path: string, h: PoolHits, nq: number) {
  const ids = new Uint32Array(nq * K);
  for (let q = 0; q < nq; q++) ids.set(h.positions.subarray(h.offsets[q], h.offsets[q] + K), q * K);
  writeFileSync(path, ids);
}

if (mode === 'exact200k') {
  const pool = cached(`${OUT}pool200k.f32`, 200_000, d, 1);
  let t0 = performance.now();
  const h = await exactSearch(queries, pool, d, { k: K, distance: 'l2', selection, ...blocksOpt });
  log({ what: `citebench exact L2 (ORT Gemm, ${selLabel}, exact rescoring)`, queries: NQ, pool: 200_000, seconds: secs(t0) });
  saveIds(`${OUT}ours200k.ids`, h, NQ);
  t0 = performance.now();
  const hip = await exactSearch(queries, pool, d, { k: K, distance: 'ip', selection, ...blocksOpt });
  log({ what: `citebench exact inner product (ORT Gemm, ${selLabel}, exact rescoring)`, queries: NQ, pool: 200_000, seconds: secs(t0) });
  saveIds(`${OUT}ours200k-ip.ids`, hip, NQ);
  // faiss's semantics (float32 Gemm scores, no re-scoring): the like-for-like comparison with IndexFlat.
  for (const distance of ['l2', 'ip'] as const) {
    t0 = performance.now();
    const f = await exactSearch(queries, pool, d, { k: K, distance, selection, scores: 'float32', ...blocksOpt });
    log({ what: `citebench --scores float32 ${distance} (ORT Gemm, ${selLabel}, Gemm scores as faiss)`, queries: NQ, pool: 200_000, seconds: secs(t0) });
    saveIds(`${OUT}ours200k-f32${distance === 'ip' ? '-ip' : ''}.ids`, f, NQ);
  }
  if (process.env.DENSE_ONLY_OURS) process.exit(0);
  // usearch exactSearch on 380 queries (10 %), extrapolated.
  const sub = 380;
  t0 = performance.now();
  // (a private copy: usearch.exactSearch refuses SharedArrayBuffer memory; Index.add/search take it)
  const u = usearch.exactSearch(pool.slice(), queries.slice(0, sub * d), d, K, usearch.MetricKind.L2sq, 2) as unknown as { keys: BigUint64Array };
  const us = secs(t0);
  let same = 0;
  for (let q = 0; q < sub; q++) {
    const mine = new Set(h.positions.subarray(h.offsets[q], h.offsets[q] + K));
    for (let j = 0; j < K; j++) if (mine.has(Number(u.keys[q * K + j]))) same++;
  }
  log({ what: 'usearch exactSearch (2 threads), measured on 380 queries, EXTRAPOLATED to 3800', queries: sub, seconds: us, extrapolatedSeconds3800: (us * NQ) / sub, overlapWithOurs: same / (sub * K) });
  // Plain JS: dot products, one thread, 19 queries, extrapolated (2 threads would halve it at best).
  const js = 19;
  t0 = performance.now();
  const n = pool.length / d;
  const scores = new Float32Array(n);
  for (let q = 0; q < js; q++) {
    for (let p = 0; p < n; p++) {
      let a = 0;
      for (let j = 0, qo = q * d, po = p * d; j < d; j++) {
        const t = queries[qo + j] - pool[po + j];
        a += t * t;
      }
      scores[p] = a;
    }
    Float32Array.from(scores).sort();
  }
  const jss = secs(t0);
  log({ what: 'plain JS loop (1 thread), measured on 19 queries, EXTRAPOLATED to 3800', queries: js, seconds: jss, extrapolatedSeconds3800: (jss * NQ) / js });
} else if (mode === 'exact2m') {
  const n = Number(process.env.DENSE_EXACT_N ?? 2_000_000);
  let t0 = performance.now();
  const pool = generate(n, d, 3);
  log({ what: 'generate pool in memory', pool: n, seconds: secs(t0) });
  t0 = performance.now();
  const h = await exactSearch(queries, pool, d, { k: K, distance: 'l2', selection, ...blocksOpt });
  log({ what: `citebench exact L2 (ORT Gemm, ${selLabel}, exact rescoring)`, queries: NQ, pool: n, seconds: secs(t0) });
  saveIds(`${OUT}exact${n}.ids`, h, NQ);
  t0 = performance.now();
  await exactSearch(queries, pool, d, { k: K, distance: 'l2', selection, scores: 'float32', ...blocksOpt });
  log({ what: `citebench --scores float32 L2 (ORT Gemm, ${selLabel}, Gemm scores as faiss)`, queries: NQ, pool: n, seconds: secs(t0) });
} else if (mode === 'hnsw2m') {
  const n = Number(process.env.DENSE_HNSW_N ?? 2_000_000);
  const M = Number(process.env.DENSE_HNSW_M ?? 16);
  const efc = Number(process.env.DENSE_HNSW_EFC ?? 128);
  const quant = (process.env.DENSE_HNSW_Q ?? 'f32') as 'f32' | 'bf16' | 'f16' | 'i8';
  let t0 = performance.now();
  const pool = generate(n, d, 3);
  log({ what: 'generate pool in memory', pool: n, seconds: secs(t0) });
  const ef = Number(process.env.DENSE_HNSW_EF ?? 1000);
  const idx = buildHnsw(pool, d, 'l2', { connectivity: M, expansionAdd: efc, expansionSearch: ef, quantization: quant }, K);
  log({ what: `HNSW build (usearch, M ${M}, efConstruction ${efc}, ${quant} vectors, 2 threads)`, pool: n, seconds: idx.buildSeconds, vectorsPerSecond: n / idx.buildSeconds });
  const exactPath = `${OUT}exact${n}.ids`;
  t0 = performance.now();
  const h = searchHnsw(idx, queries, pool, d, 'l2', K);
  const s = secs(t0);
  let recall: number | undefined;
  if (existsSync(exactPath)) {
    const ex = new Uint32Array(readFileSync(exactPath).buffer.slice(0));
    let hit = 0;
    for (let q = 0; q < NQ; q++) {
      const mine = new Set(h.positions.subarray(h.offsets[q], h.offsets[q + 1]));
      for (let j = 0; j < K; j++) if (mine.has(ex[q * K + j])) hit++;
    }
    recall = hit / (NQ * K);
  }
  log({ what: `HNSW search ef ${ef}, ${quant} graph vectors (+ exact rescoring of its candidates)`, queries: NQ, pool: n, seconds: s, recallAt500VsExact: recall });
} else {
  console.error('usage: search.ts exact200k|exact2m|hnsw2m');
  process.exit(2);
}
