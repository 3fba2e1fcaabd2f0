import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { REPO } from '../helpers/shared.ts';
import { cliArgv } from '../helpers/cli.ts';

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, cliArgv(args), { encoding: 'utf8', cwd: REPO });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('citebench slurm --dry-run: a script per stage, arrays with a fixed N, GPU encode, afterok chain, resources; clear errors', () => {
  const r = cli('slurm', 'configs/paper.yaml', '--dry-run', '--encode-tasks', '16', '--cell-tasks', '6', '--partition', 'cpu', '--gpu-partition', 'gpu', '--gpus', '1', '--mem', 'cells=64G', '--time', 'encode=12:00:00', '--sbatch=--qos=long', '--dir', '/tmp/cb-jobs');
  assert.equal(r.code, 0, r.err);
  const scripts = Object.fromEntries(r.out.split(/^# ---- /m).slice(1).map((s) => [/\/(\w+)\.sbatch/.exec(s)![1], s]));
  assert.deepEqual(Object.keys(scripts), ['prepare', 'encode', 'cells', 'assemble']);
  assert.match(scripts.encode, /#SBATCH --array=0-15\n/);
  assert.match(scripts.encode, /#SBATCH --partition=gpu\n#SBATCH --gres=gpu:1\n/);
  assert.match(scripts.encode, /#SBATCH --time=12:00:00\n/);
  assert.match(scripts.encode, /--stage encode --shard "\$\{SLURM_ARRAY_TASK_ID:-0\}\/16" --device cuda/);
  assert.match(scripts.cells, /#SBATCH --array=0-5\n/);
  assert.match(scripts.cells, /#SBATCH --mem=64G\n/);
  assert.match(scripts.cells, /#SBATCH --partition=cpu\n/);
  assert.match(scripts.cells, /--stage cells --shard "\$\{SLURM_ARRAY_TASK_ID:-0\}\/6"/);
  assert.match(scripts.cells, /#SBATCH --output=\/tmp\/cb-jobs\/logs\/cells-%A_%a\.out/);
  assert.match(scripts.prepare, /--stage prepare/);
  assert.doesNotMatch(scripts.prepare, /--array/);
  assert.doesNotMatch(scripts.assemble, /--stage/);
  for (const s of Object.values(scripts)) assert.match(s, /#SBATCH --qos=long\n/);
  assert.match(r.out, /cells=\$\(sbatch --parsable --dependency=afterok:\$\{encode%%;\*\} \/tmp\/cb-jobs\/cells\.sbatch\)/);
  assert.match(r.out, /assemble=\$\(sbatch --parsable --dependency=afterok:\$\{cells%%;\*\}/);
  // BM25-only configs have no encode stage.
  const ci = cli('slurm', 'configs/ci.yaml', '--dry-run');
  assert.equal(ci.code, 0, ci.err);
  assert.doesNotMatch(ci.out, /encode\.sbatch/);
  assert.match(ci.out, /cells=\$\(sbatch --parsable --dependency=afterok:\$\{prepare%%;\*\}/);

  let e = cli('slurm', 'configs/ci.yaml', '--dry-run', '--mem', 'cellz=4G');
  assert.equal(e.code, 2);
  assert.match(e.err, /--mem must be STAGE=VALUE with STAGE one of prepare, encode, cells, assemble, got 'cellz=4G'/);
  e = cli('slurm', 'configs/ci.yaml', '--dry-run', '--gpu-partition', 'gpu');
  assert.match(e.err, /--gpu-partition needs --gpus N/);
  e = cli('run', 'configs/ci.yaml', '--shard', '0/2');
  assert.match(e.err, /--shard needs --stage encode or --stage cells/);
  e = cli('run', 'configs/ci.yaml', '--stage', 'encodes');
  assert.match(e.err, /--stage must be prepare, encode or cells, got 'encodes'/);
});
