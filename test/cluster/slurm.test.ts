// A real single-node SLURM cluster (scripts/slurm-local.sh: munged + slurmctld + slurmd, proctrack/linuxproc):
// `citebench slurm --submit` runs a small config (configs/ci.yaml's BM25 models plus a tiny random-weight
// encoder) as array jobs with two tasks at once; one cells task is cancelled while it runs and resubmitted; the results
// folder equals a local `citebench run` byte for byte. Skips where slurm is not installed or not root.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { REPO } from '../helpers/shared.ts';
import { assertSameTree, tree } from '../helpers/files.ts';

const CLI = join(REPO, 'src/cli.ts');
const LOCAL = join(REPO, 'scripts/slurm-local.sh');
const TINY = join(REPO, '../shared/models/tiny-scibert-random');
const have = (b: string) => spawnSync('bash', ['-c', `command -v ${b} || test -x /usr/sbin/${b}`]).status === 0;
const skip = !['slurmctld', 'slurmd', 'munged', 'sbatch'].every(have)
  ? 'slurm is not installed (apt-get install slurm-wlm munge, as scripts/setup.sh does)'
  : process.getuid?.() !== 0
    ? 'the local SLURM cluster needs root'
    : false;

function run(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    const p = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { env });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => done({ code, out, err }));
  });
}


const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('SLURM: citebench slurm --submit on a single-node cluster (array jobs, 2 tasks at once, a cancelled task resubmitted) = a local run, byte for byte', { skip, timeout: 1_200_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'cb-slurm-'));
  const cluster = join(root, 'cluster');
  const env = { ...process.env, SLURM_CONF: join(cluster, 'slurm.conf') };
  const sh = (cmd: string) => spawnSync('bash', ['-c', cmd], { env, encoding: 'utf8' });
  try {
    // ci.yaml with a tiny encoder (when ../shared has it): the encode stage runs as an array too.
    let yaml = readFileSync(join(REPO, 'configs/ci.yaml'), 'utf8');
    const dense = existsSync(TINY);
    if (dense) yaml = yaml.replace(/^models:\n/m, `models:\n  tiny: { model: ${TINY} }\n`);
    const cfg = join(root, 'ci-slurm.yaml');
    writeFileSync(cfg, yaml);

    const start = spawnSync(LOCAL, ['start', cluster, '1150'], { encoding: 'utf8' });
    assert.equal(start.status, 0, start.stderr);
    const local = run([ 'run', cfg, '--work', join(root, 'w1'), '--results', join(root, 'r1')]);

    const sub = await run(['slurm', cfg, '--work', join(root, 'w2'), '--results', join(root, 'r2'), '--dir', join(root, 'jobs'),
      '--encode-tasks', '2', '--cell-tasks', '3', '--cpus', '1', '--submit'], env);
    assert.equal(sub.code, 0, sub.err);
    const jobs = Object.fromEntries([...sub.out.matchAll(/^(\w+): job (\d+)/gm)].map((m) => [m[1], m[2]]));
    assert.deepEqual(Object.keys(jobs), dense ? ['prepare', 'encode', 'cells', 'assemble'] : ['prepare', 'cells', 'assemble']);
    const queue = () => sh('squeue -h -o "%i %T %r"').stdout.trim();
    const logs = () => readdirSync(join(root, 'jobs', 'logs')).map((f) => `--- ${f}\n${readFileSync(join(root, 'jobs', 'logs', f), 'utf8')}`).join('\n');
    // Generous waits (and the cluster's watchdog above, 1150 s, inside the test's timeout): on a loaded 2-core CI
    // machine the encode tasks alone have taken 145 s.
    const waitFor = async (what: string, ok: (q: string) => boolean, ms = 600_000) => {
      const t0 = Date.now();
      for (let q = queue(); !ok(q); q = queue()) {
        if (Date.now() - t0 > ms) assert.fail(`timed out waiting for ${what}; queue:\n${q}\n${logs()}`);
        await sleep(300);
      }
    };
    // Cells task 1 is cancelled while it runs (scancel: SIGTERM, SIGKILL after KillWait), as a task is lost on a
    // cluster; assemble (afterok) can then never run. What it was writing must not reach the results.
    await waitFor('cells task 1 to run', (q) => new RegExp(`^${jobs.cells}_1 RUNNING`, 'm').test(q));
    assert.equal(sh(`scancel ${jobs.cells}_1`).status, 0);
    await waitFor('the cells tasks 0 and 2 to end', (q) => !q.split('\n').some((l) => l.startsWith(`${jobs.cells}_`) && !/^\S+ \S+ DependencyNeverSatisfied/.test(l)) && q.includes(jobs.assemble));
    // Its dependency includes the cancelled task: still pending (reason Dependency or DependencyNeverSatisfied).
    assert.match(queue(), new RegExp(`^${jobs.assemble} PENDING Dependency`, 'm'));
    assert.ok(!existsSync(join(root, 'r2', 'results.json')), 'nothing assembled without the cancelled task');
    // Resubmit the cancelled task alone (its script fixes N = 3), and assemble after it.
    assert.equal(sh(`scancel ${jobs.assemble}`).status, 0);
    const again = sh(`sbatch --parsable --array=1 ${join(root, 'jobs', 'cells.sbatch')}`);
    assert.equal(again.status, 0, again.stderr);
    const re = again.stdout.trim().split(';')[0];
    const asm = sh(`sbatch --parsable --dependency=afterok:${re} ${join(root, 'jobs', 'assemble.sbatch')}`);
    assert.equal(asm.status, 0, asm.stderr);
    await waitFor('the queue to drain', (q) => q === '');

    const l = await local;
    assert.equal(l.code, 0, l.err);
    const log = logs();
    assert.ok(existsSync(join(root, 'r2', 'results.json')), `assemble did not finish:\n${log}`);
    for (const [stage, n] of [...(dense ? [['encode', 2]] : []), ['cells', 3]] as [string, number][]) {
      // Every task of the array ran (task 1 of cells in its resubmission), and two of them at once.
      const spans = readdirSync(join(root, 'jobs', 'logs')).filter((f) => f.startsWith(`${stage}-`)).map((f) => {
        const t = readFileSync(join(root, 'jobs', 'logs', f), 'utf8');
        const s = /citebench: start ([\d.]+)/.exec(t);
        const d = /citebench: done ([\d.]+)/.exec(t);
        return s && d ? [Number(s[1]), Number(d[1])] : undefined;
      }).filter((x): x is number[] => x !== undefined);
      assert.equal(spans.length, n, `${stage}: ${n} finished tasks\n${log}`);
      if (stage === 'encode' || !dense) {
        const overlap = spans.some((a, i) => spans.some((b, j) => i < j && a[0] < b[1] && b[0] < a[1]));
        assert.ok(overlap, `${stage}: no two tasks ran at once: ${JSON.stringify(spans)}`);
      }
    }
    assertSameTree(tree(join(root, 'r2')), tree(join(root, 'r1')), 'same files, no lock left');
  } finally {
    spawnSync(LOCAL, ['stop', cluster], { env });
    rmSync(root, { recursive: true, force: true });
  }
});
