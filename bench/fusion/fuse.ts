/**
 * Fusion's speed (docs/benchmarks.md, "Fusion"): 3 runs × 3,800 queries × 1,000 documents (each query's runs
 * drawn from 2,000 candidates, so they overlap by about half: ≈ 1,750 documents fused per query; scores positive,
 * cosines and negative distances; each list best first, as runs are), fused per query from the lists as typed arrays — each run sorted as ranx sorts
 * it, the union numbered, normalised, fused and sorted (prepareQuery + fuseQuery, what `citebench fuse` and
 * FusionRetriever do per query). Reading and writing TREC files is not timed (docs/benchmarks.md, "Evaluation",
 * has the reader's speed).
 *
 *   npx tsx bench/fusion/fuse.ts [--queries 3800] [--docs 1000] [--reps 3] [--methods rrf/none,wsum/min-max,…]
 *   npx tsx bench/fusion/fuse.ts --write DIR    # the same runs as TREC files DIR/run{0,1,2}.trec, for `citebench fuse`
 */
import { fuseQuery, prepareQuery, type FusionMethod, type FusionNorm, type FusionParams } from '../../src/retrieval/fusion/index.ts';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { writeRun } from '../../src/eval/trec-write.ts';
import { Rng } from '../../src/util/rng.ts';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const Q = Number(arg('queries', '3800'));
const D = Number(arg('docs', '1000'));
const reps = Number(arg('reps', '3'));
const pairs = arg('methods', 'rrf/none,sum/min-max,wsum/min-max,mnz/zmuv,med/max,rbc/none,bordafuse/none,sum/borda,condorcet/none').split(',');
const PARAMS: Record<string, FusionParams> = { wsum: { weights: [0.5, 0.3, 0.2] }, wmnz: { weights: [0.5, 0.3, 0.2] }, gmnz: { gamma: 1.5 }, rbc: { phi: 0.8 } };

const rng = new Rng(45);
const draw = [() => 1 + 29 * rng.next(), () => 2 * rng.next() - 1, () => -0.2 - 2.8 * rng.next()];
const runs = draw.map((f) => {
  const docs = new Uint32Array(Q * D);
  const scores = new Float64Array(Q * D);
  for (let q = 0; q < Q; q++) {
    // Best first, as a retriever's list or a run file is.
    const pick = rng.sampleIndices(2 * D, D);
    const s = Float64Array.from({ length: D }, f).sort().reverse();
    for (let i = 0; i < D; i++) {
      docs[q * D + i] = q * 2 * D + pick[i];
      scores[q * D + i] = s[i];
    }
  }
  return { docs, scores };
});

const write = process.argv.includes('--write') ? arg('write', '') : undefined;
if (write) {
  mkdirSync(write, { recursive: true });
  const qids = Array.from({ length: Q }, (_, q) => `q${q}`);
  const offsets = Uint32Array.from({ length: Q + 1 }, (_, q) => q * D);
  runs.forEach((run, i) => writeRun(join(write, `run${i}.trec`), { qids, docnos: (d) => `d${d}`, run: { offsets, docs: run.docs, scores: run.scores }, tag: `run${i}`, keepOrder: true }));
  console.log(`${write}: run0.trec run1.trec run2.trec (${Q} queries × ${D} documents)`);
  process.exit(0);
}

for (const pair of pairs) {
  const [method, norm] = pair.split('/') as [FusionMethod, FusionNorm];
  const spec = { method, norm, params: PARAMS[method] ?? {} };
  const times: number[] = [];
  const cpu: number[] = [];
  let fused = 0;
  for (let r = 0; r < reps; r++) {
    fused = 0;
    const t0 = process.hrtime.bigint();
    const c0 = process.cpuUsage();
    for (let q = 0; q < Q; q++) {
      const lists = runs.map((run) => ({ keys: run.docs.subarray(q * D, (q + 1) * D), scores: run.scores.subarray(q * D, (q + 1) * D) }));
      const { query } = prepareQuery(lists);
      fused += fuseQuery(query, spec).order.length;
    }
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1e6);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  console.log(JSON.stringify({ method, norm, queries: Q, docsPerRun: D, fusedDocs: fused, seconds: times.map((t) => +t.toFixed(3)), median: +times[reps >> 1].toFixed(3), cpuMedian: +cpu[reps >> 1].toFixed(3) }));
}
