import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { CorpusStore } from '../../src/corpus/store.ts';
import { cliArgv } from '../helpers/cli.ts';

const TINY = new URL('../../../shared/models/tiny-scibert-random', import.meta.url).pathname;
const S2ORC = new URL('../../../shared/data/s2orc-sample/metadata.jsonl', import.meta.url).pathname;
const skip = existsSync(TINY) && existsSync(S2ORC) ? false : `needs ${TINY} and ${S2ORC} (../shared)`;

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, cliArgv(args), { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('bm25 search / dense search --shard I/N + merge-runs = the unsharded run, byte for byte; clear errors', { skip, timeout: 180_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), 'cb-search-shard-'));
  try {
    const store = join(root, 'store');
    assert.equal(cli('corpus', 'build', '--input', S2ORC, '--out', store, '--no-prefilter').code, 0);
    const c = CorpusStore.open(store);
    const ids = Array.from({ length: c.size }, (_, i) => c.id(i));
    c.close();
    // 23 queries in shuffled order (the merged run must keep the query-file order), a 400-article pool.
    const qs = Array.from({ length: 23 }, (_, i) => ids[(i * 37) % ids.length]);
    writeFileSync(join(root, 'q.txt'), qs.join('\n') + '\n');
    writeFileSync(join(root, 'pool.txt'), ids.slice(0, 400).join('\n') + '\n');
    const index = join(root, 'index');
    assert.equal(cli('bm25', 'index', '--corpus', store, '--out', index).code, 0);

    const searches: [string, string[]][] = [
      ['bm25', ['bm25', 'search', '--index', index, '--corpus', store, '--queries', join(root, 'q.txt'), '--k', '20', '--threads', '1']],
      ['dense', ['dense', 'search', '--model', TINY, '--corpus', store, '--queries', join(root, 'q.txt'), '--pool', join(root, 'pool.txt'), '--k', '20', '--emb', join(root, 'emb'), '--threads', '1']],
    ];
    for (const [name, args] of searches) {
      const whole = join(root, `${name}.trec`);
      let r = cli(...args, '--out', whole);
      assert.equal(r.code, 0, r.err);
      const shards = [0, 1, 2].map((i) => join(root, `${name}-${i}.trec`));
      for (let i = 0; i < 3; i++) {
        r = cli(...args, '--out', shards[i], '--shard', `${i}/3`);
        assert.equal(r.code, 0, r.err);
      }
      // 23 queries in blocks of 7, 8, 8.
      const qids = (f: string) => new Set(readFileSync(f, 'latin1').trim().split('\n').map((l) => l.split(' ')[0]));
      assert.deepEqual(shards.map((f) => qids(f).size), [7, 8, 8]);
      const merged = join(root, `${name}-merged.trec`);
      r = cli('merge-runs', merged, ...shards);
      assert.equal(r.code, 0, r.err);
      assert.ok(readFileSync(merged).equals(readFileSync(whole)), `${name}: merged run differs from the unsharded one`);
      // Given out of order, --queries restores the order.
      r = cli('merge-runs', merged, shards[2], shards[0], shards[1], '--queries', join(root, 'q.txt'));
      assert.equal(r.code, 0, r.err);
      assert.ok(readFileSync(merged).equals(readFileSync(whole)), `${name}: merge with --queries differs`);
    }
    // Errors: overlapping shards, an unfinished shard, a missing one.
    let r = cli('merge-runs', join(root, 'x.trec'), join(root, 'bm25-0.trec'), join(root, 'bm25-0.trec'));
    assert.equal(r.code, 2);
    assert.match(r.err, /bm25-0\.trec.*query '.*' is also in .*bm25-0\.trec/);
    writeFileSync(join(root, 'bm25-1.trec.partial'), '');
    r = cli('merge-runs', join(root, 'x.trec'), join(root, 'bm25-0.trec'), join(root, 'bm25-1.trec'));
    assert.equal(r.code, 2);
    assert.match(r.err, /bm25-1\.trec: its search has not finished/);
    r = cli('merge-runs', join(root, 'x.trec'), join(root, 'nope.trec'));
    assert.match(r.err, /nope\.trec: no such run/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
