// citebench rerank on a built store: the top K of a TREC run re-scored by a reranker folder and written as a run
// whose scores are the reranker's (full double precision) in the reranker's order; bad input is one line naming the
// file, line and field or the flag, with no stack trace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CorpusStore } from '../../src/corpus/store.ts';
import { parseConfig } from '../../src/experiments/config.ts';
import { loadReranker } from '../../src/retrieval/rerank/load.ts';
import { rerankText } from '../../src/retrieval/rerank/pair-scorer.ts';
import { cliArgv } from '../helpers/cli.ts';
import { seedCorpusStage } from '../helpers/corpus-fixture.ts';

const FIX = new URL('../dense/fixtures/', import.meta.url).pathname;

test('citebench rerank: the top K re-scored as the reranker scores them, ranked by it; bad input in one line', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'cb-rerank-cli-'));
  try {
    const cfg = parseConfig('name: rr\nseed: 2\ncorpus: {synthetic: {articles: 700, seed: 2}}\nmodels: {bm25: {}}\nprotocols: {dataset: {queries: 3, pools: [200], repeats: 1}}\n', 'rr.yaml', { work: join(tmp, 'work'), results: join(tmp, 'res') });
    await seedCorpusStage(cfg, join(tmp, 'work'));
    const storeDir = join(tmp, 'work', 'store');
    const model = join(tmp, 'bert-reranker-random');
    cpSync(join(FIX, 'rerankers/bert-plain'), model, { recursive: true });
    copyFileSync(join(FIX, 'tokenizers/bert-wordpiece/tokenizer.json'), join(model, 'tokenizer.json'));
    const store = CorpusStore.open(storeDir);
    const id = (i: number) => store.id(i);
    // Two queries, six candidates each, scores that put them in an order the reranker will change.
    const lines: string[] = [];
    const lists: Record<string, string[]> = { [id(3)]: [10, 11, 12, 13, 14, 15].map(id), [id(40)]: [50, 51, 52, 53, 54, 55].map(id) };
    for (const [q, docs] of Object.entries(lists)) docs.forEach((d, r) => lines.push(`${q} Q0 ${d} ${r + 1} ${10 - r} bm25`));
    const run = join(tmp, 'bm25.trec');
    writeFileSync(run, lines.join('\n') + '\n');
    const cli = (args: string[]) => spawnSync(process.execPath, cliArgv(['rerank', ...args]), { encoding: 'utf8', env: { ...process.env, CI: 'true' } });
    const out = join(tmp, 'rr.trec');
    const ok = cli(['--model', model, '--corpus', storeDir, '--run', run, '--depth', '4', '--out', out, '--batch', '3', '--threads', '1']);
    assert.equal(ok.status, 0, ok.stderr);
    assert.ok(!existsSync(`${out}.partial`), 'the journal is removed once the run is written');

    // The reference: the same folder scoring the same texts in this process.
    const scorer = await loadReranker(model, { threads: 1 });
    const got = readFileSync(out, 'utf8').trim().split('\n').map((l) => l.split(' '));
    assert.equal(got.length, 8, 'the top 4 of each query');
    for (const [q, docs] of Object.entries(lists)) {
      const top = docs.slice(0, 4);
      const want = await scorer.scoreTexts(top.map((d) => [rerankText(store.text(store.indexOf(q))), rerankText(store.text(store.indexOf(d)))] as const));
      const rows = got.filter((r) => r[0] === q);
      const byDoc = new Map(rows.map((r) => [r[2], Number(r[4])]));
      top.forEach((d, i) => assert.equal(byDoc.get(d), want[i], `${q} ${d}: the reranker's score, at full precision`));
      const order = [...top].sort((a, b) => byDoc.get(b)! - byDoc.get(a)! || (a < b ? 1 : -1));
      assert.deepEqual(rows.map((r) => r[2]), order, 'ranked by the reranker');
      assert.deepEqual(rows.map((r) => Number(r[3])), [1, 2, 3, 4]);
      assert.ok(rows.every((r) => r[5] === 'rerank-bert-reranker-random'));
    }
    await scorer.release();
    store.close();

    const oneLine = (args: string[], re: RegExp) => {
      const r = cli(args);
      assert.notEqual(r.status, 0, args.join(' '));
      const err = r.stderr.trim().split('\n');
      assert.equal(err.length, 1, r.stderr);
      assert.match(err[0], re);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    };
    const base = ['--model', model, '--corpus', storeDir, '--out', join(tmp, 'bad.trec')];
    const missingQuery = join(tmp, 'missing-query.trec');
    writeFileSync(missingQuery, `${lines[0]}\nnot-a-paper Q0 ${id(10)} 1 3 bm25\n`);
    oneLine([...base, '--run', missingQuery, '--depth', '4'], /missing-query\.trec:2 \[qid\]: query not-a-paper is not a paper of the corpus store/);
    const missingDoc = join(tmp, 'missing-doc.trec');
    writeFileSync(missingDoc, `${lines[0]}\n${id(3)} Q0 no-such-doc 2 9 bm25\n`);
    oneLine([...base, '--run', missingDoc, '--depth', '4'], /missing-doc\.trec:2 \[docno\]: paper no-such-doc is not a paper of the corpus store/);
    oneLine([...base, '--run', run, '--depth', '0'], /--depth must be a positive integer, got 0/);
    oneLine([...base, '--run', join(tmp, 'absent.trec'), '--depth', '4'], /--run .*absent\.trec: no such file/);
    oneLine([...base, '--run', run, '--depth', '4', '--instruction', 'cite'], /takes no instruction/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
