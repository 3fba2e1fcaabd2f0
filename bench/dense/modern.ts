/**
 * Today's architectures at their real shapes: convert ModernBERT-base-, XLM-RoBERTa-base-, Qwen3-Embedding-0.6B-
 * and EmbeddingGemma-300m-shape checkpoints (scripts/dev/make-base-shape-checkpoints.py DIR, random weights, a
 * scratch folder) and encode with them.
 *   [ROUNDS=5] flock /tmp/citebench-heavy.lock node --import tsx bench/dense/modern.ts DIR [N_TEXTS=64] [BATCH=16] [CASE,CASE…]
 * For each case: conversion seconds and peak RSS (a child process under /usr/bin/time -v, convert-child.ts), fp32
 * and int8; max |Δ| of the converted graph against PyTorch's last_hidden_state and all-layer mean (4 sequences of
 * 16-512 tokens padded in one batch); then encoding N_TEXTS token sequences (seeded random ids, lengths uniform in
 * 32..512) through citebench's Encoder (encodeTokenized: length-sorted batches, forward, mean pooling; 2 threads)
 * and through Python onnxruntime on the same ONNX file and the same batches (encode_modern_peer.py, 2 threads,
 * the same session options): each side a warm-up round, then ROUNDS rounds back to back; the median round of
 * each, and the largest difference between the two sides' vectors; and the user's alternative, PyTorch
 * transformers in float32 on the same batches and threads (encode_torch_peer.py). Run it on a quiet machine.
 * PY (default python3) must have numpy and onnxruntime, the version onnxruntime-node bundles.
 */
import { spawnSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { CONVERT_CACHE } from '../../src/retrieval/dense/convert.ts';
import { createSession, Encoder, type TokenizedArticle } from '../../src/retrieval/dense/encoder.ts';
import type { ResolvedModel } from '../../src/retrieval/dense/models.ts';
import { convertChild } from './convert-child.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: bench/dense/modern.ts DIR [N_TEXTS] [BATCH]');
const nTexts = Number(process.argv[3] ?? 64);
const batch = Number(process.argv[4] ?? 16);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const OUT = new URL('../out/dense/', import.meta.url).pathname;
const PEER = new URL('./encode_modern_peer.py', import.meta.url).pathname;
const TORCH_PEER = new URL('./encode_torch_peer.py', import.meta.url).pathname;
const CASES = (process.argv[5] ?? 'modernbert-base,xlm-roberta-base,qwen3-0.6b,embeddinggemma-300m').split(',');
mkdirSync(OUT, { recursive: true });

/** Max |Δ| of last_hidden_state and mean_hidden_states on the real (unpadded) positions of PyTorch's batch. */
async function exactness(onnx: string, caseDir: string): Promise<{ last: number; mean: number }> {
  const e = JSON.parse(readFileSync(join(caseDir, 'expected.json'), 'utf8')) as { input_ids: number[][]; attention_mask: number[][]; hidden: number; last: number; mean: number };
  const bin = readFileSync(join(caseDir, 'expected.bin'));
  const ref = new Float32Array(bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength));
  const session = await createSession(onnx, { threads: 2 });
  const dims = [e.input_ids.length, e.input_ids[0]!.length];
  const t = (a: number[][]) => new ort.Tensor('int64', BigInt64Array.from(a.flat().map(BigInt)), dims);
  const feeds: Record<string, ort.Tensor> = { input_ids: t(e.input_ids), attention_mask: t(e.attention_mask) };
  if (session.inputNames.includes('token_type_ids')) feeds.token_type_ids = t(e.input_ids.map((r) => r.map(() => 0)));
  const r = await session.run(feeds);
  const d = { last: 0, mean: 0 };
  for (const key of ['last', 'mean'] as const) {
    const got = r[key === 'last' ? 'last_hidden_state' : 'mean_hidden_states']!.data as Float32Array;
    e.attention_mask.flat().forEach((m, pos) => {
      if (!m) return;
      for (let j = 0; j < e.hidden; j++) d[key] = Math.max(d[key], Math.abs(got[pos * e.hidden + j]! - ref[e[key] + pos * e.hidden + j]!));
    });
  }
  await session.release();
  return d;
}

/** Seeded token sequences: bos, random ids, eos; lengths uniform in 32..512. */
function texts(config: { vocab_size: number; bos_token_id: number; eos_token_id: number }): TokenizedArticle[] {
  let s = 12345;
  const next = () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32);
  return Array.from({ length: nTexts }, () => {
    const n = 32 + Math.floor(next() * 481);
    const ids = new Int32Array(n);
    for (let i = 1; i < n - 1; i++) ids[i] = 5 + Math.floor(next() * (config.vocab_size - 5));
    ids[0] = config.bos_token_id;
    ids[n - 1] = config.eos_token_id;
    return { ids };
  });
}

const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;

console.log(`machine: ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB; onnxruntime-node ${ort.env.versions.common}; ${new Date().toISOString()}`);
for (const name of CASES) {
  const caseDir = join(dir, name);
  if (!existsSync(join(caseDir, 'config.json'))) continue;
  rmSync(join(caseDir, CONVERT_CACHE), { recursive: true, force: true });
  const fp32 = convertChild(caseDir, false);
  const int8 = convertChild(caseDir, true);
  const delta = await exactness(fp32.out, caseDir);
  console.log(JSON.stringify({ case: name, convert: fp32.row, convertInt8: int8.row, maxAbsDeltaLast: delta.last, maxAbsDeltaMean: delta.mean }));

  // The Encoder reads a tokenizer from the model folder; these sequences are token ids already, so any will do.
  if (!existsSync(join(caseDir, 'vocab.txt'))) writeFileSync(join(caseDir, 'vocab.txt'), '[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\na\n');
  const config = JSON.parse(readFileSync(join(caseDir, 'config.json'), 'utf8')) as { vocab_size: number; bos_token_id: number; eos_token_id: number; hidden_size: number };
  const toks = texts(config);
  const tokens = toks.reduce((a, t) => a + t.ids.length, 0);
  let torchRow: Record<string, unknown> | undefined;
  for (const [variant, onnxFile] of [['fp32', fp32.out], ['int8', int8.out]] as const) {
    const model: ResolvedModel = {
      name, dir: caseDir, transformerDir: caseDir, folder: 'transformers', onnxFile, hiddenSize: config.hidden_size, dim: config.hidden_size, pooling: 'mean', distance: 'ip', maxLength: 512,
      normalize: false, includePrompt: true, lowercase: false, prompts: { query: '', document: '' }, promptSource: 'none', fingerprint: name, roleFingerprint: { query: name, document: name },
    };
    const enc = await Encoder.load(model, { batchSize: batch, threads: 2 });
    // The batches exactly as Encoder forms them (length-sorted, ties by input order), for the Python side.
    const order = toks.map((_, i) => i).sort((a, b) => toks[b]!.ids.length - toks[a]!.ids.length || a - b);
    const batches: number[][][] = [];
    for (let b = 0; b < order.length; b += batch) batches.push(order.slice(b, b + batch).map((i) => Array.from(toks[i]!.ids)));
    const batchesFile = join(OUT, `modern-${name}-batches.json`);
    const vectorsFile = join(OUT, `modern-${name}-${variant}-node.f32`);
    writeFileSync(batchesFile, JSON.stringify({ order, batches }));
    // Each side: a warm-up round over all batches (a fresh session's first pass pays for touching its weights and
    // arena: 1.7x a later round here), then ROUNDS timed rounds back to back in one process. (Rounds alternating
    // between the sides were tried first: the idle side's pages were reclaimed while the other ran, so each side's
    // rounds after the first paid the first-pass cost again.)
    await enc.encodeTokenized(toks);
    const node: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const t0 = performance.now();
      const v = await enc.encodeTokenized(toks);
      node.push((performance.now() - t0) / 1000);
      if (r === 0) writeFileSync(vectorsFile, v.vectors);
    }
    const child = spawnSync(process.env.PY ?? 'python3', [PEER, onnxFile, batchesFile, vectorsFile, '2', String(ROUNDS)], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`${PEER}: ${child.stderr}`);
    const peer = JSON.parse(child.stdout.trim().split('\n').pop()!) as { seconds: number[]; onnxruntime: string; maxAbsDiffVsNode: number };
    const python = peer.seconds;
    await enc.release();
    if (!torchRow) {
      // PyTorch transformers, float32, the same batches and threads: what a user would run instead.
      const t = spawnSync(process.env.PY ?? 'python3', [TORCH_PEER, caseDir, batchesFile, '2', String(Math.min(ROUNDS, 3))], { encoding: 'utf8' });
      if (t.status !== 0) throw new Error(`${TORCH_PEER}: ${t.stderr}`);
      const r = JSON.parse(t.stdout.trim().split('\n').pop()!) as { seconds: number[]; torch: string; transformers: string; peakRssMiB: number };
      torchRow = { case: name, variant: 'transformers-fp32', tokens, seconds: r.seconds.map((x) => +x.toFixed(3)), median: +median(r.seconds).toFixed(3), tokensPerSecond: Math.round(tokens / median(r.seconds)), torch: r.torch, transformers: r.transformers, peakRssMiB: r.peakRssMiB };
      console.log(JSON.stringify(torchRow));
    }
    console.log(
      JSON.stringify({
        case: name, variant, texts: nTexts, batch, tokens, threads: 2,
        nodeSeconds: node.map((x) => +x.toFixed(3)), pythonSeconds: python.map((x) => +x.toFixed(3)),
        nodeMedian: +median(node).toFixed(3), pythonMedian: +median(python).toFixed(3), ratio: +(median(node) / median(python)).toFixed(3),
        nodeTokensPerSecond: Math.round(tokens / median(node)), nodePeakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
        pythonOnnxruntime: peer.onnxruntime, maxAbsDiffVectors: peer.maxAbsDiffVsNode,
      }),
    );
  }
}
