#!/usr/bin/env node
// Installed entry point. The file-processing commands (LIGHT_COMMANDS) run from dist/, the sources compiled to
// JavaScript at install (scripts/build-cli.mjs), while dist is at least as new as every source it was built
// from: no tsx loader to start (≈ 0.3 s and 36 MB). Every other command — and these too without a fresh dist —
// registers tsx and runs the TypeScript sources as they are (their worker threads and child processes load
// .ts files).
import { readFileSync, statSync } from 'node:fs';

/** Commands whose code starts no worker or child process: dist runs them exactly as the sources do. */
const LIGHT_COMMANDS = ['eval', 'mdcr-eval', 'merge-runs', 'fuse'];

const root = new URL('../', import.meta.url);

function distIsFresh() {
  try {
    const built = statSync(new URL('dist/inputs.json', root)).mtimeMs;
    const { inputs } = JSON.parse(readFileSync(new URL('dist/inputs.json', root), 'utf8'));
    return inputs.every((p) => statSync(new URL(p, root)).mtimeMs <= built);
  } catch {
    return false; // not built, or a source is gone
  }
}

if (LIGHT_COMMANDS.includes(process.argv[2]) && process.env.CITEBENCH_DIST !== 'off' && distIsFresh()) {
  await import('../dist/cli.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
