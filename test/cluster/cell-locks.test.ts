import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { tryLock, staleReason } from '../../src/util/lock.ts';
import { assertSameTree, tree } from '../helpers/files.ts';
import { cliArgv } from '../helpers/cli.ts';

const CI = new URL('../../configs/ci.yaml', import.meta.url).pathname;

function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

test('lock files: O_EXCL, live holder kept, dead pid on this host and missing heartbeat taken over, release only our own', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-lock-'));
  try {
    const p = join(dir, 'a', 'cell.json.lock');
    const a = tryLock(p)!;
    assert.ok(a, 'first taker gets it');
    assert.equal(tryLock(p), undefined, 'held by a live process (this one)');
    assert.equal(staleReason(p), undefined);
    a.release();
    assert.ok(!existsSync(p));

    const dead = deadPid();
    writeFileSync(p, JSON.stringify({ pid: dead, host: hostname(), time: new Date().toISOString() }) + '\n');
    assert.match(staleReason(p)!, new RegExp(`pid ${dead} on .* is not running`));
    let why = '';
    const b = tryLock(p, { onTakeover: (w) => (why = w) })!;
    assert.ok(b, 'dead worker\'s lock taken over');
    assert.match(why, /is not running/);
    assert.equal(JSON.parse(readFileSync(p, 'utf8')).pid, process.pid);
    b.release();

    // Another host: only the heartbeat can tell. Fresh: kept; older than the timeout: taken over.
    writeFileSync(p, JSON.stringify({ pid: 1, host: 'other-node', time: new Date().toISOString() }) + '\n');
    assert.equal(tryLock(p, { staleMs: 60_000 }), undefined);
    const old = new Date(Date.now() - 120_000);
    utimesSync(p, old, old);
    const c = tryLock(p, { staleMs: 60_000 })!;
    assert.ok(c);
    // A worker whose lock was taken over must not remove the new owner's lock.
    writeFileSync(p, JSON.stringify({ pid: 1, host: 'other-node', time: new Date().toISOString() }) + '\n');
    c.release();
    assert.ok(existsSync(p), 'someone else\'s lock stays');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function run(args: string[], env: Record<string, string> = {}, preload: string[] = []): Promise<{ code: number | null; signal: NodeJS.Signals | null; err: string }> {
  return new Promise((done) => {
    const p = spawn(process.execPath, [...preload.flatMap((f) => ['--import', f]), ...cliArgv(['run', CI, ...args])], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code, signal) => done({ code, signal, err }));
  });
}

/** Temp files (NAME.tmp-HOST-PID) anywhere under `dir`. */
/** The single-process run into root/r1, then `--stage prepare` of the split run into root/r2: its arguments. */
async function oneProcessThenPrepared(root: string): Promise<string[]> {
  const local = await run(['--work', join(root, 'w1'), '--results', join(root, 'r1')]);
  assert.equal(local.code, 0, local.err);
  const work = ['--work', join(root, 'w2'), '--results', join(root, 'r2')];
  const r = await run([...work, '--stage', 'prepare']);
  assert.equal(r.code, 0, r.err);
  return work;
}

function temps(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => /\.tmp-/.test(f));
}

const KILL = new URL('./fixtures/kill-mid-cell.mjs', import.meta.url).pathname;

test('a cells task stopped mid-cell: SIGTERM takes its temp file with it, SIGKILL leaves one the final run sweeps; the results = one process', { timeout: 240_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'cb-killed-'));
  try {
    const work = await oneProcessThenPrepared(root);
    let r;
    // As scancel stops a running task: SIGTERM while a run file is being written. It exits 143, leaving no temp file.
    r = await run([...work, '--stage', 'cells', '--shard', '0/2'], { KILL_AT_RUN_FILE: '2', KILL_SIGNAL: 'SIGTERM' }, [KILL]);
    assert.equal(r.code, 143, r.err);
    assert.deepEqual(temps(join(root, 'r2')), [], 'a temp file outlived the SIGTERMed task');
    // SIGKILL (scancel after KillWait) cannot be caught: its half-written run file stays until the final run.
    r = await run([...work, '--stage', 'cells', '--shard', '1/2'], { KILL_AT_RUN_FILE: '2' }, [KILL]);
    assert.equal(r.signal, 'SIGKILL', r.err);
    assert.equal(temps(join(root, 'r2')).length, 1);
    r = await run(work);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /removed 1 temp file\(s\) left by killed processes/);
    assertSameTree(tree(join(root, 'r2')), tree(join(root, 'r1')), 'same files: no temp file, no lock left');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});


test('citebench run --worker: two workers share one results folder (a stale lock taken over, a live one skipped), the final run assembles the bytes of one process', { timeout: 240_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'cb-workers-'));
  const holder = spawn('sleep', ['300'], { stdio: 'ignore' });
  try {
    const work = await oneProcessThenPrepared(root);
    let r;
    // A dead worker's lock on one cell, a live worker's (the sleeping process) on another.
    const lock = (model: string, group: string, pid: number) => {
      const p = join(root, 'r2', 'cells', model, `${group}.json.lock`);
      mkdirSync(join(p, '..'), { recursive: true });
      writeFileSync(p, JSON.stringify({ pid, host: hostname(), time: new Date().toISOString() }) + '\n');
    };
    lock('bm25', 'dataset/800-r1', deadPid());
    lock('bm25-tuned', 'field/Bio/r1', holder.pid!);
    const [a, b] = await Promise.all([run([...work, '--worker', '--threads', '1']), run([...work, '--worker', '--threads', '1'])]);
    assert.equal(a.code, 0, a.err);
    assert.equal(b.code, 0, b.err);
    const logs = a.err + b.err;
    assert.match(logs, /bm25 dataset\/800-r1: taking over a stale lock \(pid \d+ on .* is not running/);
    assert.match(logs, /bm25-tuned field\/Bio\/r1: another worker holds it; skipped/);
    // Every cell was computed once: the two workers' "computed now" counts add up to all cells but the held one.
    const computed = [a.err, b.err].map((e) => Number(/cells done \((\d+) now\)/.exec(e)![1]));
    const total = (readdirSync(join(root, 'r1', 'cells'), { recursive: true }) as string[]).filter((f) => f.endsWith('.json')).length;
    assert.equal(computed[0] + computed[1], total - 1);
    assert.ok(!existsSync(join(root, 'r2', 'results.json')), 'workers write no results.json');
    // The holder dies; the final run takes its lock over and assembles.
    holder.kill('SIGKILL');
    await new Promise((res) => holder.on('exit', res));
    r = await run(work);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /bm25-tuned field\/Bio\/r1: taking over a stale lock/);
    assertSameTree(tree(join(root, 'r2')), tree(join(root, 'r1')), 'same files, no lock left');
  } finally {
    holder.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  }
});
