// The main job end to end on a tiny corpus: corpus → BM25 → dataset-level cells → report; cells resume from
// the cache, outputs are byte-identical for the same seed, and a cell's MAP equals an independent AP
// computation over the same ranked lists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { reproduce } from '../../src/experiments/reproduce.ts';
import { sampleQueries, samplePool, citationQrels } from '../../src/sampling/pools.ts';
import { Bm25Retriever } from '../../src/retrieval/bm25/retriever.ts';
import { loadIndex } from '../../src/retrieval/bm25/index-format.ts';

const cfg = (workDir: string) => ({ articles: 16000, seed: 4, workDir, scale: 0.004, repeats: 2 });

function files(dir: string): string[] {
  const out: string[] = [];
  (function walk(d: string) {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(p);
    }
  })(dir);
  return out;
}

test('reproduce: report, resumable cells, byte-identical results, MAP = independent AP', { timeout: 240_000 }, async () => {
  const a = mkdtempSync(join(tmpdir(), 'cb-repro-a-'));
  const b = mkdtempSync(join(tmpdir(), 'cb-repro-b-'));
  const ra = await reproduce(cfg(a), () => {});
  assert.match(ra.report, /\| bm25 \| [0-9.]+ \|/);
  const cells = files(join(a, 'results'));
  assert.equal(cells.length, 4 * 2, '4 pool sizes × 2 repeats');

  // resume: delete one cell, run again: only that cell is recomputed, the report is unchanged
  rmSync(cells[3]);
  const again = await reproduce(cfg(a), () => {});
  assert.equal(again.report, ra.report);
  assert.equal(files(join(a, 'results')).length, 8);

  // same config + seed in another directory: byte-identical results and report
  const rb = await reproduce(cfg(b), () => {});
  assert.equal(rb.report, ra.report);
  for (const f of files(join(a, 'results'))) assert.ok(readFileSync(f).equals(readFileSync(f.replace(a, b))), f);

  // independent AP over the same ranked lists (ties: docno descending, as trec_eval)
  const store = ra.store;
  const cell = JSON.parse(readFileSync(files(join(a, 'results'))[0], 'utf8'));
  const queries = sampleQueries(store, { count: cell.queries, seed: 4 });
  const pool = samplePool(store, queries, { size: cell.poolSize, repeat: cell.repeat, seed: 4 });
  const bm25 = new Bm25Retriever(loadIndex(join(a, 'bm25-index')), store, { tieKey: store.idOrder });
  const lists = await bm25.search({ queries, pool: pool.members, k: 500 });
  const rel = citationQrels(store, queries, pool.members);
  let sum = 0;
  for (let q = 0; q < queries.length; q++) {
    const relevant = new Set(rel.docs.subarray(rel.offsets[q], rel.offsets[q + 1]));
    const docs = Array.from(lists.docs.subarray(lists.offsets[q], lists.offsets[q + 1]));
    const score = new Map(docs.map((d, k) => [d, Math.fround(lists.scores[lists.offsets[q] + k])]));
    docs.sort((x, y) => score.get(y)! - score.get(x)! || (store.id(y) < store.id(x) ? -1 : store.id(y) > store.id(x) ? 1 : 0));
    assert.ok(!docs.includes(queries[q]), 'the query article is not in its own list');
    let hits = 0;
    let ap = 0;
    docs.forEach((d, r) => {
      if (relevant.has(d)) ap += ++hits / (r + 1);
    });
    sum += relevant.size ? ap / relevant.size : 0;
  }
  assert.ok(Math.abs(sum / queries.length - cell.means.MAP) < 1e-12, `MAP ${cell.means.MAP} vs independent ${sum / queries.length}`);
  store.close();
  rb.store.close();
});
