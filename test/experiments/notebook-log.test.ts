// A notebook's call that computes shows one line per job, rewritten in place from the jobs' progress events
// (count, rate, ETA), a summary line when the job ends, and writes every log line of the run to its log file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { NotebookLog } from '../../src/experiments/notebook-log.ts';
import { onProgress, Progress, type ProgressEvent } from '../../src/util/progress.ts';

/** What a notebook shows of the written text: each line as its last \r-rewrite leaves it. */
const shown = (s: string) => s.split('\n').map((l) => l.split('\r').pop()!.trimEnd());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('one line per job in the notebook, from progress events; every log line in the log file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-nblog-'));
  try {
    let out = '';
    const file = join(dir, 'results', 'run.log');
    const nl = new NotebookLog({ file, write: (s) => (out += s), redrawMs: 0 });
    const lines: string[] = [];
    const log = (l: string) => {
      lines.push(l);
      nl.log(l);
    };
    nl.say('results: data/x (small-data mode)');
    const corpus = new Progress({ label: 'synth', total: 3, unit: 'articles', enabled: false });
    log('[corpus] synthesizing 3 articles');
    corpus.tick(3);
    log('[corpus]       3 articles, 2 citations');
    corpus.finish();
    const tune = new Progress({ label: 'tune bm25-tuned', total: 2, unit: 'grid points', enabled: false });
    log('[tune] bm25-tuned: 2 points (2 k1 × 1 b) on 10 validation queries');
    const seen: string[] = [];
    for (let i = 0; i < 2; i++) {
      await sleep(210); // past the events' rate limit: each tick is heard
      log(`[tune] k1=0.${6 + 3 * i} a: map 77.${i} (1.2 s)`);
      tune.tick();
      seen.push(shown(out).filter(Boolean).pop()!);
    }
    tune.finish();
    const cells = new Progress({ label: 'cells', total: 4, unit: 'cells', enabled: false });
    for (let i = 0; i < 4; i++) {
      log(`[cells] bm25 g${i}: MAP 81.${i} (0.5 s)`);
      await sleep(300); // the fourth tick comes after more than a second: with a rate and an ETA
      cells.tick();
      seen.push(shown(out).filter(Boolean).pop()!);
    }
    cells.finish();
    nl.close();
    assert.equal(readFileSync(file, 'utf8'), lines.join('\n') + '\n', 'the full log, line for line');
    const final = shown(out).filter(Boolean);
    assert.equal(final.length, 5, final.join('\n'));
    assert.equal(final[0], 'results: data/x (small-data mode)');
    assert.match(final[1], /^\[synth\] 3 articles in \d\.\ds — \[corpus\] {7}3 articles, 2 citations$/);
    assert.match(final[2], /^\[tune bm25-tuned\] 2 grid points in \d\.\ds — \[tune\] k1=0\.9 a: map 77\.1 \(1\.2 s\)$/);
    assert.match(final[3], /^\[cells\] 4 cells in \d\.\ds — \[cells\] bm25 g3: MAP 81\.3 \(0\.5 s\)$/);
    assert.equal(final[4], `full log: ${file}`);
    // While a job runs, its line counts against its total (rate and ETA once a second has passed).
    assert.ok(seen.some((l) => /^\[cells\] 2\/4 cells(, [\d.]+\/s, ETA \d+s)? — \[cells\] bm25 g1: MAP 81\.1 \(0\.5 s\)$/.test(l)), seen.join('\n'));
    assert.ok(seen.some((l) => /^\[tune bm25-tuned\] 1\/2 grid points — \[tune\] k1=0\.6 a: map 77\.0 \(1\.2 s\)$/.test(l)), seen.join('\n'));
    assert.ok(seen.some((l) => /^\[cells\] 4\/4 cells, [\d.]+\/s, ETA 0s/.test(l)), seen.join('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('progress events: rate-limited ticks, every job\'s end, heard by every listener until it unsubscribes', async () => {
  const heard: ProgressEvent[] = [];
  const stop = onProgress((e) => heard.push(e));
  try {
    const p = new Progress({ label: 'encode', total: 100, unit: 'articles', enabled: false });
    for (let i = 0; i < 50; i++) p.tick(); // within 200 ms: only the first is emitted
    await sleep(210);
    p.tick(50);
    p.addTotal(10);
    p.finish();
    assert.deepEqual(heard.map((e) => [e.done, e.total, e.end]), [[1, 100, false], [100, 100, false], [100, 110, true]]);
    assert.ok(heard.every((e) => e.label === 'encode' && e.unit === 'articles' && e.id === heard[0].id));
  } finally {
    stop();
  }
  new Progress({ label: 'after', enabled: false }).finish();
  assert.equal(heard.length, 3, 'an unsubscribed listener hears nothing');
});
