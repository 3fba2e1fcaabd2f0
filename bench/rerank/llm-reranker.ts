/**
 * LLM reranker speed at Qwen3-Reranker-0.6B's shape: citebench's converted graph (int8 by default; FP32=1 adds
 * float32) against the model card's code in PyTorch transformers float32, on the same pairs, cores and threads.
 *   python bench/rerank/llm_reranker_peer.py make DIR/qwen3-reranker-0.6b        (1.2 GB of bfloat16, random weights)
 *   [ROUNDS=3] [PAIRS=8] [MAXLEN=256] [FP32=1] PY=<python with torch, transformers 5.18> \
 *     node --import tsx bench/rerank/llm-reranker.ts DIR/qwen3-reranker-0.6b
 * PAIRS made-up (query, candidate) texts long enough that every prompt is cut to MAXLEN tokens, one batch of all
 * pairs, 2 threads; conversion timed once (cached in the folder afterwards); each side a warm-up round, then
 * ROUNDS timed rounds; the median round, pairs/s, and the largest |Δ| of P(yes) between the two sides (float32:
 * ≤ 1e-4 expected; int8: the quantization's effect). Random weights: nothing they rank means anything.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCausalReranker } from '../../src/retrieval/rerank/causal-lm.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: bench/rerank/llm-reranker.ts DIR');
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const N = Number(process.env.PAIRS ?? 8);
const MAXLEN = Number(process.env.MAXLEN ?? 256);
const THREADS = 2;
const PY = process.env.PY ?? 'python3';
const INSTRUCTION = 'Given the title and abstract of a scientific article, judge whether the candidate article is one that it cites';
const PEER = new URL('./llm_reranker_peer.py', import.meta.url).pathname;

const words = 'citation recommendation ranks candidate articles by title and abstract with sparse dense retrieval reranking fields study graph neural protein attention transformer corpus evaluation'.split(' ');
const text = (seed: number, n: number) => Array.from({ length: n }, (_, i) => words[(seed * 7 + i * 13 + ((i * i) % 5)) % words.length]).join(' ');
const pairs = Array.from({ length: N }, (_, i) => [text(i, 150), text(i + 100, 150)] as [string, string]);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const tmp = mkdtempSync(join(tmpdir(), 'citebench-llmrr-bench-'));
writeFileSync(join(tmp, 'pairs.json'), JSON.stringify(pairs));
const peer = spawnSync(PY, [PEER, 'score', dir, join(tmp, 'pairs.json'), String(MAXLEN), INSTRUCTION, String(ROUNDS), String(THREADS)], { encoding: 'utf8', maxBuffer: 1 << 26 });
if (peer.status !== 0) throw new Error(`peer failed: ${peer.stderr.slice(-2000)}`);
const ref = JSON.parse(peer.stdout.trim().split('\n').at(-1)!) as { seconds: number[]; scores: number[]; tokens: number };
const torchS = median(ref.seconds);
console.log(`transformers float32: ${torchS.toFixed(2)} s per round (${ref.seconds.map((s) => s.toFixed(2)).join(', ')}), ${(N / torchS).toFixed(2)} pairs/s, ${ref.tokens} tokens per round`);

for (const quantized of process.env.FP32 ? [false, true] : [true]) {
  const t0 = performance.now();
  const s = await loadCausalReranker(dir, { quantized, threads: THREADS, maxLength: MAXLEN, batchSize: N, instruction: INSTRUCTION, log: (l) => console.log(l) });
  const load = (performance.now() - t0) / 1000;
  const lens = pairs.map(([q, c]) => (s as unknown as { pairIds(q: string, c: string): Int32Array }).pairIds(q, c).length);
  await s.scoreTexts(pairs);
  const secs: number[] = [];
  let got = new Float64Array();
  for (let r = 0; r < ROUNDS; r++) {
    const t = performance.now();
    got = await s.scoreTexts(pairs);
    secs.push((performance.now() - t) / 1000);
  }
  await s.release();
  const m = median(secs);
  const dmax = Math.max(...ref.scores.map((x, i) => Math.abs(x - got[i])));
  console.log(
    `citebench ${quantized ? 'int8' : 'float32'}: load+convert ${load.toFixed(1)} s; ${m.toFixed(2)} s per round (${secs.map((x) => x.toFixed(2)).join(', ')}), ${(N / m).toFixed(2)} pairs/s = ${(torchS / m).toFixed(2)}× transformers; tokens per pair ${Math.min(...lens)}..${Math.max(...lens)}; max |ΔP(yes)| ${dmax.toExponential(2)}`,
  );
}
