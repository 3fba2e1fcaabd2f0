/**
 * Deterministic benchmark input for `citebench eval`: a TREC run of 3,800 queries × 500 docs (1.9 M lines) and
 * qrels with 29 relevant docs per query (about half of them retrieved), like the paper's citation recommendation
 * runs. Same seed ⇒ byte-identical files. Written atomically; skipped when already present.
 */
import { closeSync, existsSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Rng } from '../../src/util/rng.ts';

export interface BenchFiles {
  qrels: string;
  run: string;
}

export function generateBenchFiles(dir: string, opts = { queries: 3800, perQuery: 500, relevant: 29, corpus: 1_999_993, seed: 20261122 }): BenchFiles {
  const tag = `${opts.queries}x${opts.perQuery}r${opts.relevant}s${opts.seed}`;
  const qrels = join(dir, `bench-${tag}.qrels`);
  const run = join(dir, `bench-${tag}.run`);
  if (existsSync(qrels) && existsSync(run)) return { qrels, run };
  mkdirSync(dir, { recursive: true });
  const rng = new Rng(opts.seed);
  const docno = (i: number) => `W${(1_000_000_000 + i * 7919 % 1_999_993).toString()}${String.fromCharCode(65 + (i % 26))}`;
  const qrelsTmp = `${qrels}.tmp-${process.pid}`;
  const runTmp = `${run}.tmp-${process.pid}`;
  const fq = openSync(qrelsTmp, 'w');
  const fr = openSync(runTmp, 'w');
  let qbuf: string[] = [];
  let rbuf: string[] = [];
  for (let q = 0; q < opts.queries; q++) {
    const qid = `Q${100000 + q * 37}`;
    const picked = rng.sampleIndices(opts.corpus, opts.perQuery + opts.relevant);
    rng.shuffle(picked);
    const retrieved = picked.subarray(0, opts.perQuery);
    // Relevant: about half among the retrieved (biased to the top), the rest never retrieved.
    const rel = new Set<number>();
    while (rel.size < Math.ceil(opts.relevant / 2)) rel.add(retrieved[Math.floor(rng.next() ** 2 * opts.perQuery)]);
    for (let i = opts.perQuery; rel.size < opts.relevant; i++) rel.add(picked[i]);
    for (const d of rel) qbuf.push(`${qid} 0 ${docno(d)} 1\n`);
    // A few non-relevant judged docs, as qrels files have.
    for (let i = 0; i < 5; i++) {
      const d = retrieved[rng.nextInt(opts.perQuery)];
      if (!rel.has(d)) qbuf.push(`${qid} 0 ${docno(d)} 0\n`);
      rel.add(d);
    }
    // Scores descending with 6 decimals; some exact ties, as real runs have.
    let score = 30 + rng.next() * 10;
    for (let r = 0; r < opts.perQuery; r++) {
      rbuf.push(`${qid} Q0 ${docno(retrieved[r])} ${r + 1} ${score.toFixed(6)} bench\n`);
      if (rng.next() > 0.05) score -= rng.next() * 0.05;
    }
    if (rbuf.length > 50_000) {
      writeSync(fr, rbuf.join(''));
      rbuf = [];
      writeSync(fq, qbuf.join(''));
      qbuf = [];
    }
  }
  writeSync(fr, rbuf.join(''));
  writeSync(fq, qbuf.join(''));
  closeSync(fq);
  closeSync(fr);
  renameSync(qrelsTmp, qrels);
  renameSync(runTmp, run);
  return { qrels, run };
}
