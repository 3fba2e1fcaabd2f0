// A notebook's call that computes shows one line per stage, rewritten in place (count, rate, ETA), a summary line
// when the stage ends, and writes every line of the run to its log file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { NotebookLog } from '../../src/experiments/notebook-log.ts';

/** What a notebook shows of the written text: each line as its last \r-rewrite leaves it. */
const shown = (s: string) => s.split('\n').map((l) => l.split('\r').pop()!.trimEnd());

test('one line per stage in the notebook, every line in the log file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-nblog-'));
  try {
    let t = 0;
    let out = '';
    const file = join(dir, 'results', 'run.log');
    const nl = new NotebookLog({ file, write: (s) => (out += s), now: () => t, totals: { cells: 4 } });
    const lines = [
      'results: data/x (small-data mode)',
      '[corpus] synthesizing 10000 articles', '[corpus]       7734 articles, 203101 citations',
      '[tune] bm25-tuned: 2 points (2 k1 × 1 b) on 10 validation queries', '[tune] k1=0.6 a: 10 queries', '[tune] k1=0.6 a: map 77.1 (1.2 s)', '[tune] k1=0.9 a: 10 queries', '[tune] k1=0.9 a: map 77.3 (0.2 s)',
      ...Array.from({ length: 4 }, (_, i) => [`[cells] bm25 g${i}: 10 queries over 400 articles`, `[cells] bm25 g${i}: MAP 81.${i} (0.5 s)`]).flat(),
    ];
    const seen: string[] = [];
    for (const l of lines) {
      t += 600;
      nl.log(l);
      seen.push(shown(out).filter(Boolean).pop()!);
    }
    nl.close();
    assert.equal(readFileSync(file, 'utf8'), lines.join('\n') + '\n', 'the full log, line for line');
    assert.deepEqual(shown(out).filter(Boolean), [
      'results: data/x (small-data mode)',
      '[corpus] done in 1.2s — 7734 articles, 203101 citations',
      '[tune] 2 grid points in 3.0s — k1=0.9 a: map 77.3 (0.2 s)',
      '[cells] 4 cells in 4.2s — bm25 g3: MAP 81.3 (0.5 s)',
      `full log: ${file}`,
    ]);
    // While a stage runs its line counts, with rate and ETA where the total is known.
    assert.ok(seen.includes('[cells] 2/4 cells, 1.1/s, ETA 2s — bm25 g1: MAP 81.1 (0.5 s)'), seen.join('\n'));
    assert.ok(seen.includes('[tune] 1/2 grid points, 0.8/s, ETA 1s — k1=0.6 a: map 77.1 (1.2 s)'), seen.join('\n'));
    assert.equal(out.split('\n').length - 1, 5, 'five lines printed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
