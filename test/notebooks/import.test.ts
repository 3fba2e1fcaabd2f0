// `import * as cb from 'citebench'` (package.json "exports"): in TypeScript run by tsx (this file), in CommonJS
// (what tslab turns a notebook's import into: lib/citebench.cjs) and from a notebook's folder; the installed
// command (bin/citebench.js) still starts. tslab's type check of the notebooks against lib/citebench.d.ts: types.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import * as cb from 'citebench';
import * as src from '../../src/index.ts';
import { REPO } from '../helpers/shared.ts';

test("import from 'citebench' is src/index.ts itself (ESM, tsx)", () => {
  assert.equal(cb.loadResults, src.loadResults);
  assert.equal(cb.notebookResults, src.notebookResults);
  assert.deepEqual(Object.keys(cb).sort(), Object.keys(src).sort());
});

test("require('citebench') from CommonJS, in the repository and in notebooks/, loads the same API", () => {
  for (const cwd of [REPO, join(REPO, 'notebooks')]) {
    const r = spawnSync(process.execPath, ['-e', "const cb = require('citebench'); console.log(JSON.stringify(Object.keys(cb).sort()))"], { cwd, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), Object.keys(src).sort(), cwd);
    assert.equal(r.stderr, '', 'no warning');
  }
});

test('bin/citebench.js still starts the command line', () => {
  const r = spawnSync(process.execPath, [join(REPO, 'bin/citebench.js'), '--help'], { cwd: REPO, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^citebench — citation recommendation/);
  assert.match(r.stdout, /\n  run +run a configuration/);
});
