/** End to end through the CLI: synthetic corpus → store → bm25 index → bm25 search / tune, and bad input. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CorpusStore } from '../../src/corpus/store.ts';
import { buildIndex } from '../../src/retrieval/bm25/index.ts';
import { loadIndex } from '../../src/retrieval/bm25/index-format.ts';
import { Bm25Retriever } from '../../src/retrieval/bm25/retriever.ts';
import { StoreTexts } from '../../src/corpus/store-texts.ts';
import { cliArgv } from '../helpers/cli.ts';

const root = new URL('../..', import.meta.url).pathname;
const cli = (...args: string[]) =>
  spawnSync(process.execPath, cliArgv(args), { encoding: 'utf8', cwd: root });

test('bm25 index / search / tune on a synthetic store; unknown ids are named by file and line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bm25-cli-'));
  try {
    let r = cli('synth', '--articles', '3000', '--seed', '4', '--out', join(dir, 'shards'));
    assert.equal(r.status, 0, r.stderr);
    r = cli('corpus', 'build', '--input', join(dir, 'shards'), '--out', join(dir, 'store'), '--no-prefilter');
    assert.equal(r.status, 0, r.stderr);
    r = cli('bm25', 'index', '--corpus', join(dir, 'store'), '--out', join(dir, 'index'), '--chunk-docs', '700', '--threads', '2');
    assert.equal(r.status, 0, r.stderr);
    assert.ok(!existsSync(join(dir, 'index.work')), 'chunk directory removed after the build');
    const store = CorpusStore.open(join(dir, 'store'));
    // The index reads texts through StoreTexts (no ids or citations loaded): same texts as CorpusStore.
    const texts = new StoreTexts(join(dir, 'store'));
    assert.equal(texts.size, store.size);
    assert.deepEqual([...texts.texts(100, 2100)], [...store.texts(100, 2100)]);
    assert.deepEqual(texts.text(2999), store.text(2999));
    // The CLI built it on 2 child processes (chunks merged in chunk order): the same index as one builder.
    const single = await buildIndex(texts, { chunkDocs: 700 });
    const built = loadIndex(join(dir, 'index'));
    assert.deepEqual(built.terms, single.terms);
    for (const key of ['offsets', 'docs', 'tfNorms', 'tfBigPos', 'tfBigVal', 'lengths'] as const) {
      assert.deepEqual([...built[key]], [...single[key]], key);
    }
    texts.close();
    const qIdx = [0, 17, 999, 2500];
    writeFileSync(join(dir, 'queries.txt'), qIdx.map((i) => store.id(i)).join('\n') + '\n');
    const pool = Array.from({ length: 3000 }, (_, i) => i).filter((i) => i % 3 !== 1);
    writeFileSync(join(dir, 'pool.txt'), pool.map((i) => store.id(i)).join('\n'));
    r = cli('bm25', 'search', '--index', join(dir, 'index'), '--corpus', join(dir, 'store'), '--queries', join(dir, 'queries.txt'),
      '--pool', join(dir, 'pool.txt'), '--k', '50', '--threads', '2', '--out', join(dir, 'run.trec'));
    assert.equal(r.status, 0, r.stderr);
    const lines = readFileSync(join(dir, 'run.trec'), 'utf8').trim().split('\n').map((l) => l.split(' '));
    r = cli('bm25', 'search', '--index', join(dir, 'index'), '--corpus', join(dir, 'store'), '--queries', join(dir, 'queries.txt'),
      '--pool', join(dir, 'pool.txt'), '--k', '50', '--threads', '2', '--shared-memory', '--out', join(dir, 'run-procs.trec'));
    assert.equal(r.status, 0, r.stderr);
    assert.equal(readFileSync(join(dir, 'run-procs.trec'), 'utf8'), readFileSync(join(dir, 'run.trec'), 'utf8'));
    assert.equal(lines.length, 4 * 50);
    // Same lists as the library call, in trec_eval order, the query itself excluded, pool members only.
    const ret = new Bm25Retriever(loadIndex(join(dir, 'index')), store, { tieKey: store.idOrder });
    const lib = await ret.search({ queries: Uint32Array.from(qIdx), pool: Uint32Array.from(pool), k: 50 });
    for (let q = 0; q < 4; q++) {
      const mine = lines.filter((l) => l[0] === store.id(qIdx[q]));
      const expect = [...lib.docs.subarray(lib.offsets[q], lib.offsets[q + 1])].map((d) => store.id(d));
      assert.deepEqual(mine.map((l) => l[2]), expect);
      assert.deepEqual(mine.map((l) => Number(l[3])), expect.map((_, i) => i + 1));
      assert.ok(!mine.some((l) => l[2] === store.id(qIdx[q])));
      for (const l of mine) assert.notEqual(store.indexOf(l[2]) % 3, 1);
    }
    // A search SIGKILLed mid-way resumes from its journal: the final run is byte-identical to an uninterrupted
    // one, and only the unfinished queries are searched again.
    const many = Array.from({ length: 300 }, (_, i) => store.id(i * 10));
    writeFileSync(join(dir, 'many.txt'), many.join('\n') + '\n');
    const searchMany = (out: string, env: NodeJS.ProcessEnv = {}, pre: string[] = []) =>
      spawnSync(process.execPath, ['--import', 'tsx', ...pre, join(root, 'src/cli.ts'), 'bm25', 'search', '--index', join(dir, 'index'),
        '--corpus', join(dir, 'store'), '--queries', join(dir, 'many.txt'), '--pool', join(dir, 'pool.txt'), '--k', '40', '--threads', '2', '--out', out],
      { encoding: 'utf8', cwd: root, env: { ...process.env, ...env } });
    r = searchMany(join(dir, 'whole.trec'));
    assert.equal(r.status, 0, r.stderr);
    const killed = join(dir, 'killed.trec');
    r = searchMany(killed, { KILL_AFTER_RECORDS: '120' }, ['--import', join(root, 'test/bm25/fixtures/kill-after-journal.mjs')]);
    assert.equal(r.signal, 'SIGKILL', r.stderr);
    assert.ok(!existsSync(killed) && existsSync(`${killed}.partial`));
    appendFileSync(`${killed}.partial`, Buffer.from([7, 0, 0])); // a torn record, as a kill mid-write leaves
    r = searchMany(killed);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /resuming: 120 of 300 queries already in/);
    assert.equal(readFileSync(killed, 'utf8'), readFileSync(join(dir, 'whole.trec'), 'utf8'));
    assert.ok(!existsSync(`${killed}.partial`), 'journal removed once the run is written');
    // A journal of other arguments (here k) is discarded, not mixed in.
    r = searchMany(killed, { KILL_AFTER_RECORDS: '50' }, ['--import', join(root, 'test/bm25/fixtures/kill-after-journal.mjs')]);
    assert.equal(r.signal, 'SIGKILL', r.stderr);
    r = spawnSync(process.execPath, cliArgv(['bm25', 'search', '--index', join(dir, 'index'),
      '--corpus', join(dir, 'store'), '--queries', join(dir, 'many.txt'), '--pool', join(dir, 'pool.txt'), '--k', '30', '--threads', '1', '--out', killed]),
    { encoding: 'utf8', cwd: root });
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /resuming/);
    const k30 = readFileSync(killed, 'utf8').trim().split('\n');
    const k40 = readFileSync(join(dir, 'whole.trec'), 'utf8').trim().split('\n');
    assert.ok(k30.length > 280 * 30);
    assert.deepEqual(k30, k40.filter((l) => Number(l.split(' ')[3]) <= 30));
    // Tuning: a qrels of each query's outbound citations; the grid is reported and the best one picked.
    const qrels = qIdx.flatMap((q) => [...store.outbound(q)].map((d) => `${store.id(q)} 0 ${store.id(d)} 1`));
    writeFileSync(join(dir, 'qrels.txt'), qrels.join('\n') + '\nother 0 x 1\n');
    r = cli('bm25', 'tune', '--index', join(dir, 'index'), '--corpus', join(dir, 'store'), '--queries', join(dir, 'queries.txt'),
      '--qrels', join(dir, 'qrels.txt'), '--k1-grid', '0.5,1.2', '--b-grid', '0.3,0.75', '--threads', '1', '--out', join(dir, 'tune.json'));
    assert.equal(r.status, 0, r.stderr);
    const tuned = JSON.parse(readFileSync(join(dir, 'tune.json'), 'utf8'));
    assert.equal(tuned.grid.length, 4);
    const best = Math.max(...tuned.grid.map((p: { score: number }) => p.score));
    assert.deepEqual(tuned.chosen, tuned.grid.find((p: { score: number }) => p.score === best).params, 'the first point of the best score');
    assert.deepEqual(tuned.params, { k1: [0.5, 1.2], b: [0.3, 0.75] });
    assert.match(tuned.topics, /^corpus-[0-9a-f]{12}\/files-[0-9a-f]{12}$/, 'the split named by the corpus and the files\' content, not a file name');
    assert.match(r.stdout, /1 qrels lines of other queries skipped/);
    // The qrels go through the eval module's reader: a doc judged twice is named by file and line.
    writeFileSync(join(dir, 'dup-qrels.txt'), `${qrels[0]}\n${qrels[0]}\n`);
    r = cli('bm25', 'tune', '--index', join(dir, 'index'), '--corpus', join(dir, 'store'), '--queries', join(dir, 'queries.txt'),
      '--qrels', join(dir, 'dup-qrels.txt'), '--k1-grid', '0.5', '--b-grid', '0.3', '--threads', '1');
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /dup-qrels\.txt:2 \[docno\]: query '.*' has docno '.*' judged twice \(first at line 1\)/);
    // Bad input: an unknown paper id names file, line and field; no stack trace.
    writeFileSync(join(dir, 'bad.txt'), `${store.id(3)}\n\nno-such-paper\n`);
    r = cli('bm25', 'search', '--index', join(dir, 'index'), '--corpus', join(dir, 'store'), '--queries', join(dir, 'bad.txt'), '--out', join(dir, 'x.trec'));
    assert.equal(r.status, 2);
    assert.match(r.stderr, /bad\.txt:3 \[paper_id\]: unknown paper id 'no-such-paper'/);
    assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/);
    writeFileSync(join(dir, 'dup.txt'), `${store.id(3)}\n${store.id(4)}\n${store.id(3)}\n`);
    r = cli('bm25', 'search', '--index', join(dir, 'index'), '--corpus', join(dir, 'store'), '--queries', join(dir, 'queries.txt'), '--pool', join(dir, 'dup.txt'), '--out', join(dir, 'x.trec'));
    assert.equal(r.status, 2);
    assert.match(r.stderr, /dup\.txt:3 \[paper_id\]: paper id '.*' repeats line 1/);
    r = cli('bm25', 'search', '--index', join(dir, 'index'), '--corpus', join(dir, 'store'), '--queries', join(dir, 'dup.txt'), '--out', join(dir, 'x.trec'));
    assert.equal(r.status, 2);
    assert.match(r.stderr, /dup\.txt:3 \[paper_id\]: paper id '.*' repeats line 1/);
    r = cli('bm25', 'search', '--index', join(dir, 'nope'), '--corpus', join(dir, 'store'), '--queries', join(dir, 'queries.txt'), '--out', join(dir, 'x.trec'));
    assert.equal(r.status, 2);
    assert.match(r.stderr, /not a BM25 index/);
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
