/**
 * Cross-encoder re-scoring speed (a benchmark, not a test): citebench's CrossEncoderScorer on a random-weight
 * checkpoint at a real shape vs Python onnxruntime on the same ONNX graph and the same padded batches, and vs
 * sentence-transformers CrossEncoder.predict (PyTorch CPU) on the same pairs, rounds interleaved. Pairs: SciRepEval queries × 20
 * candidates each (title + " " + abstract), max 512 tokens, batches of 16 sorted by length.
 * usage: node --import tsx bench/rerank/cross-encoder.ts minilm-l6|xlmr-base [THREADS=2] [QUERIES=2] [ROUNDS=2]
 * Needs ../shared (the SciRepEval sample) and a Python with torch, transformers 5.18, sentence-transformers 6 and
 * onnxruntime ($PYTHON, default python3).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadReranker } from '../../src/retrieval/rerank/load.ts';
import type { CrossEncoderScorer } from '../../src/retrieval/rerank/cross-encoder.ts';

const [shape = 'minilm-l6', threadsArg = '2', queriesArg = '2', roundsArg = '2'] = process.argv.slice(2);
const threads = Number(threadsArg);
const rounds = Number(roundsArg);
const py = process.env.PYTHON ?? 'python3';
const here = import.meta.dirname;
const work = join(tmpdir(), 'citebench-bench-rerank');
const dir = join(work, shape);
mkdirSync(work, { recursive: true });
if (!existsSync(join(dir, 'config.json'))) execFileSync(py, [join(here, 'make_and_peer.py'), 'make', dir, shape], { stdio: 'inherit' });

type Art = { title?: string; abstract?: string };
const data = JSON.parse(readFileSync(join(here, '..', '..', '..', 'shared', 'data', 'scirepeval-sample', 'specter_small.json'), 'utf8')) as { query: Art; pos: Art; neg: Art }[];
const text = (a: Art) => `${a.title ?? ''} ${a.abstract ?? ''}`;
const pairs: [string, string][] = [];
for (let q = 0; q < Number(queriesArg); q++) for (let j = 0; j < 10; j++) for (const c of [data[q * 10 + j].pos, data[q * 10 + j].neg]) pairs.push([text(data[q * 10].query), text(c)]);

const bs = 16;
const scorer = (await loadReranker(dir, { threads, batchSize: bs, maxLength: 512, log: (l) => console.error(l) })) as CrossEncoderScorer;
await scorer.logits(pairs); // warm-up
// The batches exactly as the scorer forms them (longest first, ties by position), for the onnxruntime peer.
const toks = pairs.map(([a, b]) => scorer.pairTokens(a, b));
const order = Array.from(toks.keys()).sort((x, y) => toks[y].ids.length - toks[x].ids.length || x - y);
const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { pad_token_id?: number };
writeFileSync(join(work, 'pairs.json'), JSON.stringify(pairs));
const onnx = (scorer as unknown as { spec: { onnxFile: string } }).spec.onnxFile;
const peer = <T>(args: string[]): T => JSON.parse(execFileSync(py, [join(here, 'make_and_peer.py'), ...args], { encoding: 'utf8' }).trim().split('\n').at(-1)!) as T;
// Rounds interleaved (citebench, onnxruntime, PyTorch, again): a loaded shared machine then weighs on all three alike.
const secs: number[] = [];
const ortSecs: number[] = [];
const stSecs: number[] = [];
let logits = new Float32Array();
let ortDiff = 0;
let st = { seconds: [] as number[], scores: [] as number[] };
for (let r = 0; r < rounds; r++) {
  const t = performance.now();
  logits = await scorer.logits(pairs);
  secs.push((performance.now() - t) / 1000);
  const batches = [];
  for (let s = 0; s < order.length; s += bs) {
    const b = order.slice(s, s + bs);
    batches.push({ ids: b.map((p) => [...toks[p].ids]), types: b.map((p) => [...toks[p].types]), logits: b.map((p) => logits[p]) });
  }
  writeFileSync(join(work, 'batches.json'), JSON.stringify({ pad: config.pad_token_id ?? 0, batches }));
  const o = peer<{ seconds: number[]; maxdiff: number }>(['ort', onnx, join(work, 'batches.json'), String(threads), '1']);
  ortSecs.push(...o.seconds);
  ortDiff = Math.max(ortDiff, o.maxdiff);
  st = peer<{ seconds: number[]; scores: number[] }>(['st', dir, join(work, 'pairs.json'), String(threads), '1']);
  stSecs.push(...st.seconds);
}
const ort = { seconds: ortSecs, maxdiff: ortDiff };
st.seconds = stSecs;
const stDiff = Math.max(...st.scores.map((s, i) => Math.abs(s - logits[i])));
const tokens = toks.reduce((n, t) => n + t.ids.length, 0);
const best = (a: number[]) => Math.min(...a);
console.log(JSON.stringify({
  shape, threads, pairs: pairs.length, tokens, citebench_s: secs, onnxruntime_py_s: ort.seconds, st_torch_s: st.seconds,
  ratio_vs_ort: best(secs) / best(ort.seconds), ratio_vs_st: best(secs) / best(st.seconds), pairs_per_s: pairs.length / best(secs),
  maxdiff_vs_ort: ort.maxdiff, maxdiff_vs_st: stDiff,
}));
await scorer.release();
