import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { CorpusStore } from '../../src/corpus/store.ts';
import { EmbeddingStore } from '../../src/retrieval/dense/store.ts';
import { cliArgv } from '../helpers/cli.ts';

const TINY = new URL('../../../shared/models/tiny-scibert-random', import.meta.url).pathname;
const S2ORC = new URL('../../../shared/data/s2orc-sample/metadata.jsonl', import.meta.url).pathname;
const skip = existsSync(TINY) && existsSync(S2ORC) ? false : `needs ${TINY} and ${S2ORC} (../shared)`;

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, cliArgv(args), { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('CLI: encode --ids, dense search over a pool (exact and --hnsw), TREC run, clear errors', { skip }, () => {
  const root = mkdtempSync(join(tmpdir(), 'cb-dense-cli-'));
  try {
    const storeDir = join(root, 'store');
    assert.equal(cli('corpus', 'build', '--input', S2ORC, '--out', storeDir, '--no-prefilter').code, 0);
    const corpus = CorpusStore.open(storeDir);
    const ids = Array.from({ length: corpus.size }, (_, i) => corpus.id(i));
    writeFileSync(join(root, 'q.txt'), ids.slice(0, 10).join('\n') + '\n');
    writeFileSync(join(root, 'pool.txt'), ids.slice(0, 300).join('\n') + '\n');
    writeFileSync(join(root, 'ids.txt'), ids.slice(0, 100).join('\n') + '\n');
    const emb = join(root, 'emb');

    let r = cli('encode', '--model', TINY, '--corpus', storeDir, '--ids', join(root, 'ids.txt'), '--out', emb, '--chunk', '64');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /100 of 100 requested articles encoded now/);
    r = cli('encode', '--model', TINY, '--corpus', storeDir, '--ids', join(root, 'ids.txt'), '--out', emb);
    assert.match(r.out, /0 of 100 requested articles encoded now, 100 already stored/);

    // Search encodes the 200 missing pool articles, then ranks.
    const run = join(root, 'run.trec');
    r = cli('dense', 'search', '--model', TINY, '--corpus', storeDir, '--queries', join(root, 'q.txt'), '--pool', join(root, 'pool.txt'), '--k', '25', '--emb', emb, '--out', run);
    assert.equal(r.code, 0, r.err);
    assert.equal(EmbeddingStore.open(emb).presentIndices().length, 300);
    const lines = readFileSync(run, 'utf8').trim().split('\n').map((l) => l.split(' '));
    assert.equal(lines.length, 10 * 25);
    for (let q = 0; q < 10; q++) {
      const mine = lines.slice(q * 25, q * 25 + 25);
      assert.ok(mine.every((l) => l[0] === ids[q] && l[1] === 'Q0'));
      assert.deepEqual(mine.map((l) => Number(l[3])), Array.from({ length: 25 }, (_, i) => i + 1));
      assert.ok(!mine.some((l) => l[2] === ids[q]), 'query excluded from its own list');
      assert.ok(mine.every((l) => ids.indexOf(l[2]) < 300), 'results come from the pool');
      const scores = mine.map((l) => Number(l[4]));
      assert.ok(scores.every((s, i) => s <= 0 && (i === 0 || s <= scores[i - 1])));
    }
    // HNSW on a 300-article pool finds the same lists (scores re-computed exactly).
    r = cli('dense', 'search', '--model', TINY, '--corpus', storeDir, '--queries', join(root, 'q.txt'), '--pool', join(root, 'pool.txt'), '--k', '25', '--emb', emb, '--out', join(root, 'h.trec'), '--hnsw', '--no-encode');
    assert.equal(r.code, 0, r.err);
    assert.equal(readFileSync(join(root, 'h.trec'), 'utf8').replaceAll(' tiny-scibert-random', ''), readFileSync(run, 'utf8').replaceAll(' tiny-scibert-random', ''));

    // Errors: a different model cannot write into this store; unknown ids name file and line; missing model.
    r = cli('encode', '--model', TINY, '--pooling', 'mean', '--corpus', storeDir, '--out', emb);
    assert.equal(r.code, 2);
    assert.match(r.err, /made with different settings: model fingerprint/);
    writeFileSync(join(root, 'bad.txt'), `${ids[0]}\nno-such-paper\n`);
    r = cli('dense', 'search', '--model', TINY, '--corpus', storeDir, '--queries', join(root, 'bad.txt'), '--emb', emb, '--out', join(root, 'x.trec'));
    assert.equal(r.code, 2);
    assert.match(r.err, /bad\.txt:2 \[paper_id\]: unknown paper id 'no-such-paper'/);
    r = cli('encode', '--model', 'scincl', '--models-dir', join(root, 'models'), '--corpus', storeDir);
    assert.equal(r.code, 2);
    assert.match(r.err, /malteos\/scincl.*not available locally.*optimum-cli export onnx --model malteos\/scincl/s);
    assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
