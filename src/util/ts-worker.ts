/**
 * Worker threads and child processes that run a module of this package: compiled, from dist/, when this
 * process itself runs from dist/ (scripts/build-cli.mjs builds every worker module there); otherwise the
 * TypeScript module through tsx's loader — whichever way the main thread loaded citebench (node --import tsx, the
 * test runner, or a tslab notebook's CommonJS require, where import.meta.resolve does not exist). A compiled
 * child starts without tsx's loader thread (≈ 0.3 s and 36 MB each).
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { fork, type ChildProcess, type ForkOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Set by the banner of every file scripts/build-cli.mjs writes (the chunk's own URL); undefined in the sources. */
declare const __citebenchChunkUrl: string | undefined;

/**
 * The compiled form of a worker module (`src/x/y.ts` → `dist/worker-x.y.js`) when this code runs from dist/
 * and that file exists; undefined otherwise (the module then runs through tsx).
 */
function compiledWorker(moduleUrl: URL): URL | undefined {
  if (typeof __citebenchChunkUrl !== 'string') return undefined;
  const srcRoot = new URL('../', import.meta.url).href; // this file is src/util/ts-worker.ts
  if (!moduleUrl.href.startsWith(srcRoot) || !moduleUrl.href.endsWith('.ts')) return undefined;
  const compiled = new URL(`worker-${moduleUrl.href.slice(srcRoot.length, -3).replaceAll('/', '.')}.js`, __citebenchChunkUrl);
  return existsSync(compiled) ? compiled : undefined;
}

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
  const compiled = compiledWorker(moduleUrl);
  if (compiled) return new Worker(compiled, options);
  const boot = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(moduleUrl.href)}); })`;
  return new Worker(boot, { ...options, eval: true });
}

/** A child process running `moduleUrl` with tsx's loader (IPC channel open, structured-clone messages). */
export function tsFork(moduleUrl: URL, options: ForkOptions = {}): ChildProcess {
  const compiled = compiledWorker(moduleUrl);
  return fork(fileURLToPath(compiled ?? moduleUrl), [], {
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    ...options,
    execArgv: [...(compiled ? [] : ['--import', tsxLoader]), ...(options.execArgv ?? [])],
  });
}
