#!/usr/bin/env node
// Runs every test/**/*.test.ts with node's built-in test runner (Node 20 has no --test globbing for .ts).
// Extra arguments filter by path substring: `npm test -- eval bm25`.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.ts')) files.push(relative(root, p));
  }
})(join(root, 'test'));
const selected = filters.length ? files.filter((f) => filters.some((s) => f.includes(s))) : files;
if (selected.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}
const reporter = process.stdout.isTTY ? 'spec' : 'tap';
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-reporter=${reporter}`, '--test-concurrency=2', ...selected], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(r.status ?? 1);
