/**
 * Loading the paper's checkpoints: convert BERT-base-shape checkpoints (scripts/dev/make-checkpoint-fixtures.py
 * --base DIR) to ONNX and check them against PyTorch.
 *   node --import tsx bench/dense/convert.ts DIR [EXPORT.onnx [EXPORT_INT8.onnx]]
 * For every case folder in DIR: conversion wall time and peak RSS (a child
 * process per conversion, measured by /usr/bin/time -v), then max |Δ| against PyTorch's last_hidden_state and
 * all-layer mean for the 8 texts (alone and padded in one batch). With EXPORT.onnx (scripts/dev/export-bert-onnx.py
 * of the safetensors-f32 case, torch.onnx.export standing in for optimum) also the encode time of the same
 * tokens through both graphs, same session options (createSession, 2 threads), batch of 8 texts, fp32; with
 * EXPORT_INT8.onnx (onnxruntime quantize_dynamic(EXPORT.onnx, weight_type=QInt8)) also citebench's int8
 * conversion of that case against it.
 * Each conversion runs in a child process (convert-child.ts).
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { CONVERT_CACHE } from '../../src/retrieval/dense/convert.ts';
import { createSession } from '../../src/retrieval/dense/encoder.ts';
import { convertChild } from './convert-child.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: bench/dense/convert.ts DIR [EXPORT.onnx]');
const exportFile = process.argv[3];
const exportInt8 = process.argv[4];

interface Expected {
  hidden: number;
  texts: { input_ids: number[]; single: { last: number; mean: number }; batch: { last: number; mean: number } }[];
}

function load(kind: string) {
  const exp = JSON.parse(readFileSync(join(dir!, `expected-${kind}.json`), 'utf8')) as Expected;
  const bin = readFileSync(join(dir!, `expected-${kind}.bin`));
  return { exp, values: new Float32Array(bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength)) };
}

function feeds(rows: number[][], width: number) {
  const t = (f: (r: number[], j: number) => number) =>
    new ort.Tensor('int64', BigInt64Array.from(rows.flatMap((r) => Array.from({ length: width }, (_, j) => BigInt(j < r.length ? f(r, j) : 0)))), [rows.length, width]);
  return { input_ids: t((r, j) => r[j]!), attention_mask: t(() => 1), token_type_ids: t(() => 0) };
}

/** Max |Δ| of the session's outputs against PyTorch's, over every text alone and all texts padded in one batch. */
async function maxDelta(session: ort.InferenceSession, exp: Expected, values: Float32Array): Promise<{ last: number; mean: number }> {
  const H = exp.hidden;
  const d = { last: 0, mean: 0 };
  const cmp = (got: Float32Array, from: number, offset: number, n: number, key: 'last' | 'mean') => {
    for (let k = 0; k < n * H; k++) d[key] = Math.max(d[key], Math.abs(got[from + k]! - values[offset + k]!));
  };
  for (const x of exp.texts) {
    const n = x.input_ids.length;
    const r = await session.run(feeds([x.input_ids], n));
    cmp(r.last_hidden_state!.data as Float32Array, 0, x.single.last, n, 'last');
    cmp(r.mean_hidden_states!.data as Float32Array, 0, x.single.mean, n, 'mean');
  }
  const width = Math.max(...exp.texts.map((x) => x.input_ids.length));
  const r = await session.run(feeds(exp.texts.map((x) => x.input_ids), width));
  exp.texts.forEach((x, i) => {
    cmp(r.last_hidden_state!.data as Float32Array, i * width * H, x.batch.last, x.input_ids.length, 'last');
    cmp(r.mean_hidden_states!.data as Float32Array, i * width * H, x.batch.mean, x.input_ids.length, 'mean');
  });
  return d;
}

/**
 * Median seconds of one forward pass over all 8 texts padded in one batch, for each session; the sessions take
 * turns (after one warm-up pass each) so a change in the shared machine's load hits both alike.
 */
async function encodeSeconds(sessions: ort.InferenceSession[], exp: Expected): Promise<number[]> {
  const width = Math.max(...exp.texts.map((x) => x.input_ids.length));
  const f = feeds(exp.texts.map((x) => x.input_ids), width);
  for (const s of sessions) await s.run(f);
  const times: number[][] = sessions.map(() => []);
  for (let k = 0; k < 5; k++)
    for (const [i, s] of sessions.entries()) {
      const t0 = performance.now();
      await s.run(f);
      times[i]!.push((performance.now() - t0) / 1000);
    }
  return times.map((t) => +t.sort((a, b) => a - b)[2]!.toFixed(3));
}

console.log(`machine: ${(await import('node:os')).cpus().length} cores; ${new Date().toISOString()}`);
for (const c of readdirSync(dir).filter((d) => existsSync(join(dir, d, 'config.json'))).sort()) {
  const caseDir = join(dir, c);
  rmSync(join(caseDir, CONVERT_CACHE), { recursive: true, force: true });
  const conv = convertChild(caseDir, false);
  const { exp, values } = load(c.includes('f16') ? 'f16' : 'f32');
  const session = await createSession(conv.out, { threads: 2 });
  const delta = await maxDelta(session, exp, values);
  const row: Record<string, unknown> = {
    case: c, ...conv.row, maxAbsDeltaLast: delta.last, maxAbsDeltaMean: delta.mean,
  };
  if (exportFile && c === 'safetensors-f32-bertmodel') {
    const exported = await createSession(exportFile, { threads: 2 });
    const dExp = await maxDelta(exported, exp, values);
    const tokens = exp.texts.reduce((a, x) => a + x.input_ids.length, 0);
    Object.assign(row, {
      exportMaxAbsDeltaLast: dExp.last, exportMaxAbsDeltaMean: dExp.mean, batchTokens: tokens,
      batchWidth: Math.max(...exp.texts.map((x) => x.input_ids.length)),
    });
    const sessions = [session, exported];
    if (exportInt8) {
      const q = convertChild(caseDir, true);
      const qSession = await createSession(q.out, { threads: 2 });
      const qExport = await createSession(exportInt8, { threads: 2 });
      const dq = await maxDelta(qSession, exp, values);
      const dqe = await maxDelta(qExport, exp, values);
      row.int8 = { ...q.row, maxAbsDeltaLast: dq.last, maxAbsDeltaMean: dq.mean, exportMaxAbsDeltaLast: dqe.last, exportMaxAbsDeltaMean: dqe.mean };
      sessions.push(qSession, qExport);
    }
    const [converted, exportedSeconds, int8Converted, int8Export] = await encodeSeconds(sessions, exp);
    Object.assign(row, { encodeSecondsConverted: converted, encodeSecondsExport: exportedSeconds, encodeSecondsInt8Converted: int8Converted, encodeSecondsInt8Export: int8Export });
    for (const s of sessions.slice(1)) await s.release();
  }
  await session.release();
  console.log(JSON.stringify(row));
}
