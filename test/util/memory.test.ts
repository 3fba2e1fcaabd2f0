import { test } from 'node:test';
import assert from 'node:assert/strict';
import { totalmem } from 'node:os';
import { cgroupLimit, memoryLimit } from '../../src/util/memory.ts';

const fs = (files: Record<string, string>) => (f: string) => {
  if (!(f in files)) throw new Error(`ENOENT ${f}`);
  return files[f];
};

test('cgroupLimit: a SLURM task or container limit (cgroup v2 and v1); none when unlimited or absent', () => {
  const v2 = { '/proc/self/cgroup': '0::/slurm/uid_1/job_7/step_0\n', '/sys/fs/cgroup/slurm/uid_1/job_7/step_0/memory.max': '17179869184\n' };
  assert.equal(cgroupLimit(fs(v2)), 16 * 2 ** 30);
  assert.equal(cgroupLimit(fs({ ...v2, '/sys/fs/cgroup/slurm/uid_1/job_7/step_0/memory.max': 'max\n' })), undefined);
  // A container sees its own group as / .
  assert.equal(cgroupLimit(fs({ '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/memory.max': '8589934592' })), 8 * 2 ** 30);
  const v1 = { '/proc/self/cgroup': '12:cpu,cpuacct:/job\n9:memory:/slurm/job_9\n', '/sys/fs/cgroup/memory/slurm/job_9/memory.limit_in_bytes': '4294967296\n' };
  assert.equal(cgroupLimit(fs(v1)), 4 * 2 ** 30);
  assert.equal(cgroupLimit(fs({ ...v1, '/sys/fs/cgroup/memory/slurm/job_9/memory.limit_in_bytes': '9223372036854771712' })), undefined, 'v1 writes ≈ 2^63 for no limit');
  assert.equal(cgroupLimit(fs({})), undefined, 'no /proc (not Linux)');
  assert.ok(memoryLimit() > 0 && memoryLimit() <= totalmem());
});
