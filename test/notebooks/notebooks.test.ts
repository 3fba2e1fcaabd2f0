// Notebooks are generated from notebooks/src/*.txt, committed without outputs, and must run headless on the
// tslab kernel (scripts/setup.sh installs Jupyter from Debian and registers the kernel). Every source in
// notebooks/src is a notebook here: a new one is generated, run and checked without touching this file.
// The runs use small-data mode (CITEBENCH_SMALL=1) in one temporary work folder, so the corpus and the
// results are built once and shared, as the notebooks share them in an interactive session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { REPO } from '../helpers/shared.ts';
import { NB_DIR, PYTHON, executeNotebook, generateNotebook, notebookNames, outputProblems } from '../../scripts/notebooks.ts';

const names = notebookNames();
const hasJupyter = existsSync('/usr/bin/jupyter-nbconvert') && existsSync(join(REPO, 'node_modules/.bin/tslab'));
const work = mkdtempSync(join(tmpdir(), 'cb-nbrun-'));

test('every notebook source has its notebook, generated from it and committed without outputs', { skip: existsSync(PYTHON) ? false : 'no /usr/bin/python3' }, () => {
  assert.ok(names.length >= 3, `notebooks/src has the notebooks (${names.join(', ')})`);
  const ipynb = readdirSync(NB_DIR).filter((f) => f.endsWith('.ipynb')).map((f) => f.replace(/\.ipynb$/, '')).sort();
  assert.deepEqual(ipynb, names, 'one notebooks/<name>.ipynb per notebooks/src/<name>.txt');
  const tmp = mkdtempSync(join(tmpdir(), 'cb-nb-'));
  for (const name of names) {
    const out = join(tmp, `${name}.ipynb`);
    generateNotebook(name, out);
    assert.equal(readFileSync(join(NB_DIR, `${name}.ipynb`), 'utf8'), readFileSync(out, 'utf8'), `${name}.ipynb is out of date: run npm run notebooks (or scripts/make-notebook.py)`);
    const json = JSON.parse(readFileSync(join(NB_DIR, `${name}.ipynb`), 'utf8'));
    for (const c of json.cells) if (c.cell_type === 'code') assert.deepEqual(c.outputs, [], `${name}: outputs must be stripped`);
    const code = json.cells.filter((c: { cell_type: string }) => c.cell_type === 'code').map((c: { source: string }) => c.source).join('\n');
    assert.match(code, /import \* as cb from 'citebench'/, `${name} imports citebench the documented way`);
    assert.doesNotMatch(code, /console\.table/, `${name}: tables go through cb.show (HTML), not console.table`);
  }
});

test('the output check finds errors, stderr and missing tables or charts', () => {
  const cell = (outputs: object[]) => ({ cell_type: 'code', outputs });
  const good = [cell([{ output_type: 'display_data', data: { 'text/html': '<div><table class="x"></table></div>' } }]), cell([{ output_type: 'display_data', data: { 'text/html': '<figure><svg width="1"></svg></figure>' } }])];
  assert.deepEqual(outputProblems({ cells: good as never }), []);
  assert.match(outputProblems({ cells: [good[0]] as never }).join(), /no chart/);
  assert.match(outputProblems({ cells: [good[1]] as never }).join(), /no HTML table/);
  assert.match(outputProblems({ cells: [...good, cell([{ output_type: 'error', ename: 'TypeError', evalue: 'x is undefined' }])] as never }).join(), /cell 2: TypeError/);
  assert.match(outputProblems({ cells: [...good, cell([{ output_type: 'stream', name: 'stderr', text: ['1:5 - Cannot find name'] }])] as never }).join(), /stderr: 1:5 - Cannot find name/);
});

for (const name of names) {
  test(`notebook ${name} runs headless in small-data mode: no error, at least one table and one chart`, { skip: hasJupyter ? false : 'Jupyter (nbconvert) or tslab is not installed (run scripts/setup.sh)', timeout: 420_000 }, () => {
    const e = executeNotebook(name, { outDir: work, cellTimeout: 300, env: { CITEBENCH_SMALL: '1', CITEBENCH_WORK: join(work, 'data') } });
    console.log(`# ${name}: ${e.seconds.toFixed(1)} s`);
    assert.deepEqual(e.problems, [], `${name}:\n${e.problems.join('\n')}`);
  });
}
