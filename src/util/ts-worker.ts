/**
 * Worker threads and child processes that run a TypeScript module of this package through tsx's loader —
 * whichever way the main thread loaded citebench (node --import tsx, bin/citebench.js, the test runner, or a
 * tslab notebook's CommonJS require, where import.meta.resolve does not exist).
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { fork, type ChildProcess, type ForkOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** URL of one of tsx's ESM entry points (the `import` condition of its package export `sub`). */
function tsxEntry(sub: '.' | './esm/api'): string {
  const meta = import.meta as { resolve?: (s: string) => string };
  if (typeof meta.resolve === 'function') return meta.resolve(sub === '.' ? 'tsx' : 'tsx/esm/api');
  const pkgPath = createRequire(import.meta.url).resolve('tsx/package.json');
  const entry = JSON.parse(readFileSync(pkgPath, 'utf8')).exports[sub];
  const rel = typeof entry === 'string' ? entry : (entry.import.default ?? entry.import);
  return pathToFileURL(join(dirname(pkgPath), rel)).href;
}

const tsxApi = tsxEntry('./esm/api');
/** tsx's loader, for `node --import` in a child process run any other way (e.g. spawnSync). */
export const tsxLoader = tsxEntry('.');

/** A worker running `moduleUrl` (e.g. `new URL('./search-worker.ts', import.meta.url)`). */
export function tsWorker(moduleUrl: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  const boot = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(moduleUrl.href)}); })`;
  return new Worker(boot, { ...options, eval: true });
}

/** A child process running `moduleUrl` with tsx's loader (IPC channel open, structured-clone messages). */
export function tsFork(moduleUrl: URL, options: ForkOptions = {}): ChildProcess {
  return fork(fileURLToPath(moduleUrl), [], {
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    ...options,
    execArgv: ['--import', tsxLoader, ...(options.execArgv ?? [])],
  });
}
