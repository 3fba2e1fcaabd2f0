/**
 * Worker threads that run a TypeScript module of this package: the worker first registers tsx's loader,
 * then imports the module — whichever way the main thread loaded citebench (node --import tsx, bin/citebench.js,
 * the test runner, or a tslab notebook's CommonJS require, where import.meta.resolve does not exist).
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** URL of tsx's ESM API (the `import` condition of its `./esm/api` export). */
function tsxEsmApi(): string {
  const meta = import.meta as { resolve?: (s: string) => string };
  if (typeof meta.resolve === 'function') return meta.resolve('tsx/esm/api');
  const pkgPath = createRequire(import.meta.url).resolve('tsx/package.json');
  const entry = JSON.parse(readFileSync(pkgPath, 'utf8')).exports['./esm/api'];
  return pathToFileURL(join(dirname(pkgPath), entry.import.default ?? entry.import)).href;
}

const tsxApi = tsxEsmApi();

/** A worker running `moduleUrl` (e.g. `new URL('./search-worker.ts', import.meta.url)`). */
export function tsWorker(moduleUrl: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  const boot = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(moduleUrl.href)}); })`;
  return new Worker(boot, { ...options, eval: true });
}
