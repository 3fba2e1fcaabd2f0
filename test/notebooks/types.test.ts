// The notebooks' types: lib/citebench.d.ts is generated from src/ by the install step (git-ignored; it must be current), and every
// notebook's code cells type-check against it on tslab's own compiler, cell after cell as the kernel runs them —
// a misspelt member or a wrong argument fails here, not first in Jupyter. Completion (`res.` in a cell) offers
// the API's members. No Jupyter needed: this is tslab's converter, the part of the kernel that checks and completes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import * as src from '../../src/index.ts';
import { TYPES_FILE, notebookTypes } from '../../scripts/notebook-types.ts';
import { checkNotebooks, codeCells, notebookCells, sourceLocation, type CheckAnswer } from '../../scripts/notebook-typecheck.ts';
import { PYTHON, notebookNames } from '../../scripts/notebooks.ts';

const names = notebookNames();
const hasJupyter = existsSync('/usr/bin/jupyter-nbconvert') && existsSync(new URL('../../node_modules/.bin/tslab', import.meta.url));
const OPEN = "import * as cb from 'citebench';\nconst res = await cb.notebookResults({ protocols: ['dataset'] });";
/** A notebook with two mistakes in its second cell: the check must find both, where they are. */
const WRONG = [OPEN, '// a cell with two mistakes\nawait cb.show(res.table(1).selec(0));\nconst n: number = res.cells;'];
const PROBE = '__wrong__';
/** One compiler start for every check of this file, in a child process while the first test generates the types. */
const checking: Promise<CheckAnswer> = checkNotebooks({ notebooks: { ...notebookCells(names), [PROBE]: WRONG }, complete: { after: [OPEN], probes: ['cb.', 'res.'] } });
checking.catch(() => {}); // reported by the tests that await it
/** The same on a real kernel, over Jupyter's protocol (scripts/kernel-complete.py --quick), also meanwhile. */
const kernel = hasJupyter
  ? promisify(execFile)(PYTHON, [fileURLToPath(new URL('../../scripts/kernel-complete.py', import.meta.url)), '--quick'], { env: { ...process.env, PYDEVD_DISABLE_FILE_VALIDATION: '1' }, timeout: 180_000 })
  : undefined;
kernel?.catch(() => {});
/** Every `res.<member>` the notebooks use. */
const usedMembers = () => [...new Set(names.flatMap((n) => codeCells(n).join('\n').match(/\bres\.\w+/g) ?? []).map((m) => m.slice(4)))].sort();

test('lib/citebench.d.ts is what npm run types generates from src/ now', () => {
  const fresh = notebookTypes();
  assert.match(fresh, /^declare module "citebench" \{\n {4}export \* from "citebench\/src\/index";\n\}$/m);
  assert.ok(existsSync(TYPES_FILE), 'lib/citebench.d.ts is missing: run npm run types (npm ci makes it)');
  assert.ok(readFileSync(TYPES_FILE, 'utf8') === fresh, 'lib/citebench.d.ts is out of date with src/: run npm run types');
});

test('every notebook type-checks on the tslab kernel against lib/citebench.d.ts', { timeout: 120_000 }, async () => {
  assert.ok(names.length >= 3);
  const found = (await checking).diagnostics;
  const errors = names.flatMap((n) => found[n].map((d) => `${sourceLocation(n, d)} - ${d.message}`));
  assert.deepEqual(errors, [], errors.join('\n'));
});

test('the notebook check fails on a type error and says where (notebook source file:line:column)', { timeout: 120_000 }, async () => {
  const found = (await checking).diagnostics[PROBE];
  assert.deepEqual(found.map((d) => [d.cell, d.line, d.column]), [[1, 2, 28], [1, 3, 7]], JSON.stringify(found));
  assert.match(found[0].message, /Property 'selec' does not exist on type 'ColumnTable'. Did you mean 'select'\?/);
  assert.match(found[1].message, /'ColumnTable' is not assignable to type 'number'/);
  // The location in the reviewable source: 02's first code cell starts right after its first `# %%` line.
  const txt = readFileSync(new URL('../../notebooks/src/02-dataset-level.txt', import.meta.url), 'utf8').split('\n');
  const at = sourceLocation('02-dataset-level', { cell: 0, line: 2, column: 7, message: '' });
  assert.equal(at, `notebooks/src/02-dataset-level.txt:${txt.indexOf('# %%') + 3}:7`);
  assert.equal(txt[txt.indexOf('# %%') + 2], codeCells('02-dataset-level')[0].split('\n')[1]);
});

test('completion in a notebook: cb. offers every export of src/index.ts, res. every member the notebooks use', { timeout: 120_000 }, async () => {
  const [cb, res] = (await checking).completions;
  assert.deepEqual([...cb].sort(), Object.keys(src).sort(), 'cb. completes to exactly the runtime exports (typed, not any)');
  const used = usedMembers();
  assert.ok(used.length >= 8, `the notebooks use res.${used.join(', res.')}`);
  assert.deepEqual(used.filter((m) => !res.includes(m)), [], `res. offers ${res.join(', ')}`);
  for (const m of ['cells', 'table', 'reportTable', 'chart', 'queries', 'about']) assert.ok(res.includes(m), m);
});

test('a real tslab kernel answers complete_request for cb. and res. with the API, inspect_request with the doc comment (Jupyter protocol)', { skip: hasJupyter ? false : 'Jupyter or tslab is not installed (run scripts/setup.sh)', timeout: 180_000 }, async () => {
  const answer = JSON.parse((await kernel!).stdout) as { status: string; outputs: unknown[]; cb: string[]; res: string[]; inspect: string };
  assert.equal(answer.status, 'ok', JSON.stringify(answer.outputs));
  assert.deepEqual(answer.outputs, [], 'the cell printed nothing (no type error on stderr)');
  assert.deepEqual([...answer.cb].sort(), Object.keys(src).sort());
  assert.deepEqual(usedMembers().filter((m) => !answer.res.includes(m)), [], `res. offers ${answer.res.join(', ')}`);
  // Shift-Tab on res.table: its signature, then its doc comment from src/report/frames.ts.
  assert.match(answer.inspect, /^\(method\) ResultsFrames\.table\(n: number/);
  assert.match(answer.inspect, /\n\nThe paper's Table `n`/);
});
