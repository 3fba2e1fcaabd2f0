/**
 * Cross-encoder re-scoring speed (a benchmark, not a test): citebench's CrossEncoderScorer on a random-weight
 * checkpoint at a real shape vs Python onnxruntime on the same ONNX graph and the same padded batches, and vs
 * sentence-transformers CrossEncoder.predict (PyTorch CPU, float32) on the same pairs. Pairs: SciRepEval queries ×
 * 20 candidates each (title + " " + abstract), max 512 tokens, batches of 16 sorted by length.
 * On a shared machine the load moves within seconds, so citebench and onnxruntime alternate batch by batch (which
 * side goes first alternating too; the Python side is a server that answers one batch per line), and PyTorch's
 * whole passes alternate with them round by round. Forward passes only on the onnxruntime comparison (the tokens
 * are made once); citebench's tokenisation is timed apart.
 * usage: node --import tsx bench/rerank/cross-encoder.ts minilm-l6|xlmr-base [THREADS=2] [QUERIES=2] [ROUNDS=2]
 * Needs ../shared (the SciRepEval sample) and a Python with torch, transformers 5.18, sentence-transformers 6 and
 * onnxruntime ($PYTHON, default python3).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { loadReranker } from '../../src/retrieval/rerank/load.ts';
import type { CrossEncoderScorer } from '../../src/retrieval/rerank/cross-encoder.ts';

const [shape = 'minilm-l6', threadsArg = '2', queriesArg = '2', roundsArg = '2'] = process.argv.slice(2);
const threads = Number(threadsArg);
const rounds = Number(roundsArg);
const py = process.env.PYTHON ?? 'python3';
const here = import.meta.dirname;
const peerScript = join(here, 'make_and_peer.py');
const work = join(tmpdir(), 'citebench-bench-rerank');
const dir = join(work, shape);
mkdirSync(work, { recursive: true });
if (!existsSync(join(dir, 'config.json'))) execFileSync(py, [peerScript, 'make', dir, shape], { stdio: 'inherit' });

type Art = { title?: string; abstract?: string };
const data = JSON.parse(readFileSync(join(here, '..', '..', '..', 'shared', 'data', 'scirepeval-sample', 'specter_small.json'), 'utf8')) as { query: Art; pos: Art; neg: Art }[];
const text = (a: Art) => `${a.title ?? ''} ${a.abstract ?? ''}`;
const pairs: [string, string][] = [];
for (let q = 0; q < Number(queriesArg); q++) for (let j = 0; j < 10; j++) for (const c of [data[q * 10 + j].pos, data[q * 10 + j].neg]) pairs.push([text(data[q * 10].query), text(c)]);

const bs = 16;
const scorer = (await loadReranker(dir, { threads, batchSize: bs, maxLength: 512, log: (l) => console.error(l) })) as CrossEncoderScorer;
const t0 = performance.now();
const toks = pairs.map(([a, b]) => scorer.pairTokens(a, b));
const tokenizeS = (performance.now() - t0) / 1000;
// The batches as the scorer forms them: longest first, ties by position.
const order = Array.from(toks.keys()).sort((x, y) => toks[y].ids.length - toks[x].ids.length || x - y);
const batches: number[][] = [];
for (let s = 0; s < order.length; s += bs) batches.push(order.slice(s, s + bs));
const logits = new Float32Array(pairs.length);
for (const b of batches) (await scorer.forward(b.map((p) => toks[p]))).forEach((v, r) => (logits[b[r]] = v)); // warm-up
const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { pad_token_id?: number };
writeFileSync(join(work, 'batches.json'), JSON.stringify({ pad: config.pad_token_id ?? 0, batches: batches.map((b) => ({ ids: b.map((p) => [...toks[p].ids]), types: b.map((p) => [...toks[p].types]), logits: b.map((p) => logits[p]) })) }));
writeFileSync(join(work, 'pairs.json'), JSON.stringify(pairs));

const onnx = (scorer as unknown as { spec: { onnxFile: string } }).spec.onnxFile;
const server = spawn(py, [peerScript, 'serve', onnx, join(work, 'batches.json'), String(threads)], { stdio: ['pipe', 'pipe', 'inherit'] });
const lines = createInterface({ input: server.stdout! })[Symbol.asyncIterator]();
const next = async () => (await lines.next()).value as string;
if ((await next()) !== 'ready') throw new Error('peer did not start');
let ortDiff = 0;
const askPeer = async (i: number): Promise<number> => {
  server.stdin!.write(`${i}\n`);
  const r = JSON.parse(await next()) as { s: number; maxdiff: number };
  ortDiff = Math.max(ortDiff, r.maxdiff);
  return r.s;
};
const runOurs = async (i: number): Promise<number> => {
  const t = performance.now();
  await scorer.forward(batches[i].map((p) => toks[p]));
  return (performance.now() - t) / 1000;
};

const ours: number[] = [];
const theirs: number[] = [];
const torch: number[] = [];
let stScores: number[] = [];
for (let r = 0; r < rounds; r++) {
  let a = 0;
  let b = 0;
  for (let i = 0; i < batches.length; i++) {
    if ((i + r) % 2 === 0) {
      a += await runOurs(i);
      b += await askPeer(i);
    } else {
      b += await askPeer(i);
      a += await runOurs(i);
    }
  }
  ours.push(a);
  theirs.push(b);
  const st = JSON.parse(execFileSync(py, [peerScript, 'st', dir, join(work, 'pairs.json'), String(threads), '1'], { encoding: 'utf8' }).trim().split('\n').at(-1)!) as { seconds: number[]; scores: number[] };
  torch.push(...st.seconds);
  stScores = st.scores;
}
server.stdin!.end();
const tokens = toks.reduce((n, t) => n + t.ids.length, 0);
const median = (x: number[]) => [...x].sort((p, q) => p - q)[Math.floor((x.length - 1) / 2)];
console.log(JSON.stringify({
  shape, threads, pairs: pairs.length, tokens, batches: batches.length, citebench_forward_s: ours, onnxruntime_py_s: theirs, citebench_tokenize_s: tokenizeS, st_torch_predict_s: torch,
  ratio_vs_ort: median(ours) / median(theirs), ratio_vs_st: (median(ours) + tokenizeS) / median(torch),
  maxdiff_vs_ort: ortDiff, maxdiff_vs_st: Math.max(...stScores.map((s, i) => Math.abs(s - logits[i]))),
}));
await scorer.release();
