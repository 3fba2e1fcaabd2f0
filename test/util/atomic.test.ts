// Temp files of killed writers: swept from a results folder, those of live processes and other hosts kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sweepDeadTemps, writeFileAtomic } from '../../src/util/atomic.ts';

test('sweepDeadTemps removes what dead processes of this host left, nothing else', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-sweep-'));
  try {
    // A pid that surely is dead: a child that has exited.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout.trim();
    const host = hostname();
    mkdirSync(join(dir, 'runs/bm25/dataset'), { recursive: true });
    writeFileAtomic(join(dir, 'runs/bm25/dataset/800-r2.trec'), 'finished\n');
    const stale = join(dir, `runs/bm25/dataset/800-r2.trec.tmp-${host}-${dead}`);
    const staleDir = join(dir, `index.tmp-${host}-${dead}`);
    const live = join(dir, `runs/bm25/dataset/800-r1.trec.tmp-${host}-${process.pid}`);
    const otherHost = join(dir, `runs/bm25/dataset/800-r3.trec.tmp-${host}x-${dead}`);
    const lookalike = join(dir, 'runs/bm25/dataset/notes.tmp-ok');
    writeFileSync(stale, 'half');
    mkdirSync(join(staleDir, 'deep'), { recursive: true });
    for (const f of [live, otherHost, lookalike]) writeFileSync(f, 'x');
    assert.equal(sweepDeadTemps(dir), 2);
    assert.ok(!existsSync(stale) && !existsSync(staleDir));
    for (const f of [live, otherHost, lookalike, join(dir, 'runs/bm25/dataset/800-r2.trec')]) assert.ok(existsSync(f), f);
    assert.equal(sweepDeadTemps(join(dir, 'absent')), 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
