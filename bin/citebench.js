#!/usr/bin/env node
// Installed entry point. Commands run from dist/, the sources compiled to JavaScript at install
// (scripts/build-cli.mjs) with their worker threads and child processes, while dist is at least as new as every
// source it was built from: no tsx loader to start in any process (≈ 0.3 s and 36 MB each). Otherwise — a source
// edited since, no dist, or CITEBENCH_DIST=off — it registers tsx and runs the TypeScript sources as they are.
import { readFileSync, statSync } from 'node:fs';

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

if (process.env.CITEBENCH_DIST !== 'off' && distIsFresh()) {
  await import('../dist/cli.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
