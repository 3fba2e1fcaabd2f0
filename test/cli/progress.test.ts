// Progress bars only on a terminal. The long commands (synth, corpus build, embeddings import, encode, run with
// its encode stage and an imported-vectors model, mdcr score) run with stderr sent to a file and CI unset, as a user's
// `citebench … 2> log.txt` does: the file must hold no carriage return and no escape code. On a terminal the
// bar keeps its count, rate and ETA (the unit test below draws one on a stand-in TTY).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, cpSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { Progress } from '../../src/util/progress.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { npyBytes, bytesOf } from '../dense/embeddings-files.ts';
import { REPO } from '../helpers/shared.ts';
import { cliArgv } from '../helpers/cli.ts';

const CHECKPOINTS = join(REPO, 'test/dense/fixtures/checkpoints');
let tmp = '';
let tiny = '';

/** Runs the CLI with stderr to a file (not a TTY) and CI unset; returns the exit code and the file's text. */
function cliToFile(name: string, args: string[]): { code: number | null; err: string; out: string } {
  const errFile = join(tmp, `${name}.err.txt`);
  const fd = openSync(errFile, 'w');
  const env = { ...process.env };
  delete env.CI;
  try {
    const r = spawnSync(process.execPath, cliArgv(args), { cwd: REPO, env, encoding: 'utf8', stdio: ['ignore', 'pipe', fd] });
    return { code: r.status, out: r.stdout, err: readFileSync(errFile, 'utf8') };
  } finally {
    closeSync(fd);
  }
}

function assertClean(what: string, r: { code: number | null; err: string }): void {
  assert.equal(r.code, 0, `${what} failed:\n${r.err}`);
  assert.ok(!r.err.includes('\r'), `${what}: a carriage return in stderr sent to a file:\n${JSON.stringify(r.err.slice(0, 400))}`);
  assert.ok(!r.err.includes('\x1b'), `${what}: an escape code in stderr sent to a file:\n${JSON.stringify(r.err.slice(0, 400))}`);
}

const config = (storeDir: string) => `name: progress
seed: 7
work: ${join(tmp, 'work')}
results: ${join(tmp, 'results')}
corpus: { store: ${storeDir} }
k: 50
measures: [MAP]
models:
  bm25: { k1: 0.9, b: 0.4 }
  tiny: { model: ${tiny} }
  vecs: { embeddings: ${join(tmp, 'X.npy')}, distance: l2 }
protocols:
  dataset: { queries: 6, pools: [400], repeats: 1 }
  field: { queries: 2, pool: 300, repeats: 1, fields: [Medicine, Biology] }
  mdcr: {}
`;

before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'cb-progress-'));
  // A random-weight BERT checkpoint the repository carries (hidden 16, 2 layers), converted in-process.
  tiny = join(tmp, 'tiny-random');
  cpSync(join(CHECKPOINTS, 'safetensors-f32-bertmodel'), tiny, { recursive: true });
  for (const f of ['vocab.txt', 'tokenizer_config.json']) cpSync(join(CHECKPOINTS, f), join(tiny, f));
});

after(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test('synth, corpus build, embeddings import, encode, run (encode stage, imported vectors), mdcr score: no \\r or ESC in stderr sent to a file', () => {
  const shards = join(tmp, 'shards');
  const storeDir = join(tmp, 'store');
  assertClean('citebench synth', cliToFile('synth', ['synth', '--articles', '2500', '--seed', '7', '--out', shards]));
  assertClean('citebench corpus build', cliToFile('build', ['corpus', 'build', '--input', shards, '--out', storeDir]));

  // Vectors from elsewhere for every article of the store: an .npy with its ids file.
  const store = CorpusStore.open(storeDir);
  const ids = Array.from({ length: store.size }, (_, i) => store.id(i));
  store.close();
  const D = 8;
  const v = Float32Array.from({ length: ids.length * D }, (_, i) => Math.sin(i * 12.9898) * 0.5);
  writeFileSync(join(tmp, 'X.npy'), npyBytes('<f4', [ids.length, D], bytesOf(v)));
  writeFileSync(join(tmp, 'X.ids.txt'), ids.join('\n') + '\n');
  writeFileSync(join(tmp, 'some.txt'), ids.slice(0, 100).join('\n') + '\n');

  assertClean('citebench embeddings import', cliToFile('import', ['embeddings', 'import', join(tmp, 'X.npy'), '--corpus', storeDir, '--out', join(tmp, 'imported')]));
  assertClean('citebench encode', cliToFile('encode', ['encode', '--model', tiny, '--corpus', storeDir, '--ids', join(tmp, 'some.txt'), '--out', join(tmp, 'emb'), '--threads', '1']));

  // A run with a dense model (its encode stage) and an imported-vectors model (imported inside the run).
  writeFileSync(join(tmp, 'run.yaml'), config(storeDir));
  assertClean('citebench run', cliToFile('run', ['run', join(tmp, 'run.yaml'), '--threads', '1']));

  const mdcr = join(tmp, 'results', 'mdcr');
  assert.ok(existsSync(join(mdcr, 'mdcr_test.json')), 'the run built an MDCR benchmark');
  assertClean('citebench mdcr score', cliToFile('mdcr', ['mdcr', 'score', '--benchmark', join(mdcr, 'mdcr_test.json'), '--data', join(mdcr, 'mdcr_test_data.jsonl'), '--model', tiny, '--out', join(tmp, 's.json'), '--threads', '1']));
});

/** Runs `body` with stderr standing in for a terminal (or not) and CI set or unset; returns what was written. */
function onStderr(tty: boolean, ci: string | undefined, body: () => void): string {
  const saved = { isTTY: process.stderr.isTTY, write: process.stderr.write, ci: process.env.CI };
  let text = '';
  process.stderr.isTTY = tty;
  if (ci === undefined) delete process.env.CI;
  else process.env.CI = ci;
  process.stderr.write = ((chunk: string | Uint8Array) => ((text += String(chunk)), true)) as typeof process.stderr.write;
  try {
    body();
  } finally {
    process.stderr.write = saved.write;
    process.stderr.isTTY = saved.isTTY;
    if (saved.ci === undefined) delete process.env.CI;
    else process.env.CI = saved.ci;
  }
  return text;
}

test('on a terminal the bar draws count, percentage, rate and ETA in place; off a terminal, in CI or silenced, nothing', () => {
  const draw = (opts: { enabled?: boolean } = {}) => {
    const p = new Progress({ label: 'encode x', total: 20_000, unit: 'articles', ...opts });
    p.tick(5_000);
    p.finish();
  };
  const tty = onStderr(true, undefined, () => draw());
  assert.match(tty, /^\r\x1b\[Kencode x: 5000\/20\.0k \(25\.0%\)  \S+ articles\/s  ETA \S+/);
  assert.ok(tty.endsWith('\n'), 'finish() ends the line');
  assert.equal(onStderr(false, undefined, () => draw()), '', 'stderr not a terminal');
  assert.equal(onStderr(false, undefined, () => draw({ enabled: true })), '', 'a caller cannot force the bar onto a file');
  assert.equal(onStderr(true, 'true', () => draw()), '', 'CI set');
  assert.equal(onStderr(true, undefined, () => draw({ enabled: false })), '', 'silenced by the caller');
});
