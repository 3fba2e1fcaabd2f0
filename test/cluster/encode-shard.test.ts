import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { assertSameTree } from '../helpers/files.ts';

const TINY = new URL('../../../shared/models/tiny-scibert-random', import.meta.url).pathname;
const S2ORC = new URL('../../../shared/data/s2orc-sample/metadata.jsonl', import.meta.url).pathname;
const skip = existsSync(TINY) && existsSync(S2ORC) ? false : `needs ${TINY} and ${S2ORC} (../shared)`;
const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
const KILL = new URL('../dense/fixtures/kill-after-chunks.mjs', import.meta.url).pathname;

function cli(args: string[], env: Record<string, string> = {}, preload: string[] = []) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', ...preload.flatMap((p) => ['--import', p]), CLI, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

function cliAsync(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    const p = spawn(process.execPath, ['--import', 'tsx', CLI, ...args]);
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => done({ code, out, err }));
  });
}

function files(dir: string): Map<string, Buffer> {
  return new Map(readdirSync(dir).sort().map((f) => [f, readFileSync(join(dir, f))]));
}

test('encode --shard: two shards at once on one store, a third killed and resumed = one process, byte for byte; --status', { skip, timeout: 180_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'cb-encode-shard-'));
  try {
    const store = join(root, 'store');
    assert.equal(cli(['corpus', 'build', '--input', S2ORC, '--out', store, '--no-prefilter']).code, 0);
    const enc = (out: string, ...more: string[]) => ['encode', '--model', TINY, '--corpus', store, '--out', out, '--chunk', '64', '--threads', '1', ...more];
    const single = join(root, 'single');
    let r = cli(enc(single));
    assert.equal(r.code, 0, r.err);

    const sharded = join(root, 'sharded');
    r = cli(['encode', '--status', '--corpus', store, '--out', sharded]);
    assert.equal(r.code, 1);
    assert.match(r.out, /no embedding store yet; all 1000 requested articles are missing/);
    // Shards 0/3 and 1/3 at once: both create the manifest (exclusively) and write disjoint chunks.
    const [a, b] = await Promise.all([cliAsync(enc(sharded, '--shard', '0/3')), cliAsync(enc(sharded, '--shard', '1/3'))]);
    assert.equal(a.code, 0, a.err);
    assert.equal(b.code, 0, b.err);
    assert.match(a.out, /shard 0\/3: \d+ articles encoded now/);
    // Shard 2/3 is killed after its second chunk; --status names what is missing; a re-run completes it.
    r = cli(enc(sharded, '--shard', '2/3'), { KILL_AFTER_CHUNKS: '2' }, [KILL]);
    assert.equal(r.signal, 'SIGKILL');
    r = cli(['encode', '--status', '--corpus', store, '--out', sharded]);
    assert.equal(r.code, 1);
    // 1000 articles in chunks of 64: chunks 0…15; shard 2/3 owns 2, 5, 8, 11, 14 and finished the first two.
    assert.match(r.out, /13 of 16 chunks complete/);
    assert.match(r.out, /missing chunks \(3\): 8, 11, 14/);
    r = cli(enc(sharded, '--shard', '2/3'));
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /shard 2\/3: 192 articles encoded now/);
    r = cli(['encode', '--status', '--corpus', store, '--out', sharded]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /1000 of 1000 requested articles stored; 16 of 16 chunks complete/);

    assertSameTree(files(sharded), files(single), 'same files (no temp files left)');

    // A shard run with other settings cannot join the store; a bad --shard is one clear line.
    r = cli(enc(sharded, '--shard', '0/3', '--fp16'));
    assert.equal(r.code, 2);
    assert.match(r.err, /made with different settings: dtype float32 ≠ float16/);
    r = cli(enc(sharded, '--shard', '3/3'));
    assert.equal(r.code, 2);
    assert.match(r.err, /--shard must be I\/N with 0 ≤ I < N/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('an int8 model that quantises activations at run time: a chunk filled in two calls, or with 2 threads, = one call, byte for byte', { skip, timeout: 180_000 }, async () => {
  const { usesDynamicQuantization } = await import('../../src/retrieval/dense/encoder.ts');
  const root = mkdtempSync(join(tmpdir(), 'cb-encode-int8-'));
  try {
    // The tiny model with its int8 export only (as the BERT-base-shaped shared model is): loaded by default.
    const int8 = join(root, 'int8');
    cpSync(TINY, int8, { recursive: true });
    rmSync(join(int8, 'onnx', 'model.onnx'));
    assert.equal(usesDynamicQuantization(join(int8, 'onnx', 'model_quantized.onnx')), true);
    assert.equal(usesDynamicQuantization(join(TINY, 'onnx', 'model.onnx')), false);
    const store = join(root, 'store');
    assert.equal(cli(['corpus', 'build', '--input', S2ORC, '--out', store, '--no-prefilter']).code, 0);
    const { CorpusStore } = await import('../../src/corpus/store.ts');
    const c = CorpusStore.open(store);
    // Every other article first, then all 64 of chunk 0: the second call encodes the rest beside other articles.
    writeFileSync(join(root, 'odd.txt'), Array.from({ length: 32 }, (_, i) => c.id(2 * i + 1)).join('\n') + '\n');
    writeFileSync(join(root, 'all.txt'), Array.from({ length: 64 }, (_, i) => c.id(i)).join('\n') + '\n');
    c.close();
    const enc = (out: string, ids: string, threads: string) => ['encode', '--model', int8, '--corpus', store, '--out', join(root, out), '--ids', join(root, ids), '--chunk', '64', '--threads', threads];
    for (const args of [enc('two', 'odd.txt', '1'), enc('two', 'all.txt', '1'), enc('one', 'all.txt', '2')]) {
      const r = cli(args);
      assert.equal(r.code, 0, r.err);
    }
    const one = readFileSync(join(root, 'one', 'chunk-000000.bin'));
    assert.equal(one.readUInt32LE(24), 64, 'chunk 0 holds 64 articles');
    assert.ok(one.equals(readFileSync(join(root, 'two', 'chunk-000000.bin'))), 'vectors depend on the batch or the threads');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('encode --device: cuda without a CUDA execution provider is one clear error; auto falls back to cpu; bad value named', { skip, timeout: 240_000 }, async () => {
  const { cudaProviderMissing } = await import('../../src/retrieval/dense/encoder.ts');
  const root = mkdtempSync(join(tmpdir(), 'cb-encode-device-'));
  try {
    const store = join(root, 'store');
    assert.equal(cli(['corpus', 'build', '--input', S2ORC, '--out', store, '--no-prefilter']).code, 0);
    const enc = (...more: string[]) => ['encode', '--model', TINY, '--corpus', store, '--out', join(root, 'e'), '--chunk', '512', ...more];
    let r = cli(enc('--device', 'gpu'));
    assert.equal(r.code, 2);
    assert.match(r.err, /--device must be cpu, cuda or auto, got 'gpu'/);
    if (cudaProviderMissing() === undefined) return; // a CUDA installation: the error path cannot be shown here
    r = cli(enc('--device', 'cuda'));
    assert.equal(r.code, 2);
    assert.match(r.err, /--device cuda: this onnxruntime-node installation has no CUDA execution provider \(.*libonnxruntime_providers_cuda\.so is missing\)/);
    assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
    const { CorpusStore } = await import('../../src/corpus/store.ts');
    const c = CorpusStore.open(store);
    writeFileSync(join(root, 'q.txt'), `${c.id(0)}\n${c.id(1)}\n`);
    c.close();
    // Two articles are enough to show the fallback (the whole corpus took a minute on a loaded CI machine).
    r = cli(enc('--device', 'auto', '--ids', join(root, 'q.txt')));
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /device auto: cpu \(no CUDA execution provider/);
    r = cli(['dense', 'search', '--model', TINY, '--corpus', store, '--queries', join(root, 'q.txt'), '--out', join(root, 'r.trec'), '--emb', join(root, 'e'), '--device', 'cuda']);
    assert.equal(r.code, 2);
    assert.match(r.err, /--device cuda: this onnxruntime-node installation has no CUDA execution provider/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
