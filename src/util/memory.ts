/**
 * Memory this process may use: the machine's, or less where a cgroup limits it (a SLURM task's `--mem`, a
 * container's limit), since os.totalmem() reports the whole node.
 */
import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';

/** Where cgroup v2 and v1 keep the limit of the process's own group (the path in /proc/self/cgroup). */
export function cgroupLimit(read: (file: string) => string = (f) => readFileSync(f, 'utf8')): number | undefined {
  let groups: string;
  try {
    groups = read('/proc/self/cgroup');
  } catch {
    return undefined;
  }
  const candidates: string[] = [];
  for (const line of groups.split('\n')) {
    const [, controllers, path] = line.split(':');
    if (path === undefined) continue;
    if (controllers === '') candidates.push(`/sys/fs/cgroup${path}/memory.max`, '/sys/fs/cgroup/memory.max');
    if (controllers.split(',').includes('memory')) candidates.push(`/sys/fs/cgroup/memory${path}/memory.limit_in_bytes`, '/sys/fs/cgroup/memory/memory.limit_in_bytes');
  }
  for (const file of candidates) {
    try {
      const text = read(file).trim();
      if (text === 'max') return undefined;
      const n = Number(text);
      // cgroup v1 writes a huge number (≈ 2^63) for "no limit".
      if (Number.isFinite(n) && n > 0 && n < 2 ** 60) return n;
    } catch {
      /* not this layout */
    }
  }
  return undefined;
}

let cached: number | undefined;

export function memoryLimit(): number {
  cached ??= Math.min(totalmem(), cgroupLimit() ?? Infinity);
  return cached;
}
