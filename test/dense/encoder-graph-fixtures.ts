// Helpers for the encoder-graph fixture tests: expected hidden states stored as float32 blocks (expected.bin) with
// a JSON index, and citebench's graph for a fixture folder run by onnxruntime with the encoder's session options.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { readCheckpoint } from '../../src/retrieval/dense/checkpoint/index.ts';
import { buildEncoderGraph, readAdapter, readEncoderConfig } from '../../src/retrieval/dense/encoder-graph/index.ts';
import { buildModel } from '../../src/retrieval/dense/onnx-graph.ts';
import { CitebenchError } from '../../src/util/errors.ts';

export interface Run {
  /** Element offsets into expected.bin of hidden_states[0..N] (N = layers; the last is last_hidden_state). */
  hidden_states: number[];
}

/** The float32 values of expected.bin beside `json`. */
export function expectedValues(dir: string): Float32Array {
  const bin = readFileSync(join(dir, 'expected.bin'));
  return new Float32Array(bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength));
}

/** A writable copy of a fixture folder. */
export function copyOf(dir: string): string {
  const to = join(mkdtempSync(join(tmpdir(), 'cb-encoder-graph-')), 'model');
  cpSync(dir, to, { recursive: true });
  return to;
}

/** A session on the graph citebench builds for `dir` (every hidden state exposed), options as createSession's. */
export async function graphSession(dir: string, opts: { adapter?: string; quantize?: boolean } = {}): Promise<ort.InferenceSession> {
  const config = readEncoderConfig(join(dir, 'config.json'));
  const adapter = opts.adapter ? readAdapter(opts.adapter, config) : undefined;
  const graph = buildEncoderGraph(config, readCheckpoint(dir), { quantize: opts.quantize, adapter, hiddenStates: true });
  return ort.InferenceSession.create(buildModel(graph), { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
}

export type Outputs = Record<string, Float32Array>;

export async function run(session: ort.InferenceSession, ids: number[][], mask: number[][]): Promise<Outputs> {
  const dims = [ids.length, ids[0]!.length];
  const t = (a: number[][]) => new ort.Tensor('int64', BigInt64Array.from(a.flat().map(BigInt)), dims);
  const feeds: Record<string, ort.Tensor> = { input_ids: t(ids), attention_mask: t(mask) };
  if (session.inputNames.includes('token_type_ids')) feeds.token_type_ids = t(ids.map((r) => r.map(() => 0)));
  const r = await session.run(feeds);
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.data as Float32Array]));
}

export function maxAbsDiff(got: Float32Array, want: Float32Array): number {
  assert.equal(got.length, want.length);
  let m = 0;
  for (let i = 0; i < want.length; i++) m = Math.max(m, Math.abs(got[i]! - want[i]!));
  return m;
}

/**
 * Every hidden state the graph outputs against the reference's (≤ tol), and last_hidden_state and
 * mean_hidden_states (the mean of hidden_states[1:]) against theirs; returns the largest difference seen.
 */
export function compareStates(out: Outputs, expected: Run, values: Float32Array, n: number, tol: number, what: string): number {
  const states = expected.hidden_states.map((o) => values.subarray(o, o + n));
  let worst = 0;
  const check = (got: Float32Array | undefined, want: Float32Array, name: string) => {
    assert.ok(got, `${what}: no output ${name}`);
    const d = maxAbsDiff(got, want);
    assert.ok(d <= tol, `${what}: ${name} differs by ${d}`);
    worst = Math.max(worst, d);
  };
  states.forEach((s, i) => check(out[`hidden_states.${i}`], s, `hidden_states.${i}`));
  check(out.last_hidden_state, states.at(-1)!, 'last_hidden_state');
  const mean = new Float32Array(n);
  for (let k = 0; k < n; k++) {
    let s = 0;
    for (let i = 1; i < states.length; i++) s += states[i]![k]!;
    mean[k] = s / (states.length - 1);
  }
  check(out.mean_hidden_states, mean, 'mean_hidden_states');
  return worst;
}

/**
 * int8 against float32: the root-mean-square difference relative to the states' own RMS. Quantization's rounding
 * (per-tensor scales) gives a few percent (up to ~6 % on the fixtures' large random weights in ModernBERT's pre-norm
 * residual stream); a wiring error (a wrong scale, zero point or transposition) gives as much as the states
 * themselves. That int8 graphs equal onnxruntime's quantize_dynamic of the float32 graph is checked by
 * scripts/dev/check-quantized-convert.py.
 */
export function assertInt8Close(got: Float32Array, want: Float32Array, what: string): void {
  assert.equal(got.length, want.length);
  let d2 = 0;
  let w2 = 0;
  for (let i = 0; i < want.length; i++) {
    d2 += (got[i]! - want[i]!) ** 2;
    w2 += want[i]! ** 2;
  }
  const rel = Math.sqrt(d2 / w2);
  assert.ok(rel > 0 && rel < 0.1, `${what}: int8 RMS difference ${rel.toFixed(4)} of the states' RMS`);
}

/** The one-line CitebenchError `fn` throws. */
export function oneLine(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof CitebenchError, `not a CitebenchError: ${(e as Error).stack}`);
    assert.ok(!e.message.includes('\n'), e.message);
    return e.message;
  }
  assert.fail('no error');
}

/**
 * Each case: a copy of `dir/fixture` whose config.json gets `change`; converting it must fail in one line that
 * starts with that config.json and `[key]` and matches `why`.
 */
export function assertConfigErrors(dir: string, cases: [string, Record<string, unknown>, string, RegExp][], convert: (modelDir: string) => unknown): void {
  for (const [fixture, change, key, why] of cases) {
    const model = copyOf(join(dir, fixture));
    const file = join(model, 'config.json');
    writeFileSync(file, JSON.stringify({ ...(JSON.parse(readFileSync(file, 'utf8')) as object), ...change }));
    const msg = oneLine(() => convert(model));
    assert.ok(msg.startsWith(`${file} [${key}]: `), `${key}: ${msg}`);
    assert.match(msg, why, key);
  }
}
