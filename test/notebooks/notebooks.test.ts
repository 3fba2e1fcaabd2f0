// Notebooks are generated from notebooks/src/*.txt, committed without outputs, and must run headless on the
// tslab kernel (scripts/setup.sh installs Jupyter from Debian and registers the kernel).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { REPO } from '../helpers/shared.ts';

const NB = join(REPO, 'notebooks');
const notebooks = readdirSync(NB).filter((f) => f.endsWith('.ipynb')).sort();
const python = '/usr/bin/python3';
const tslab = join(REPO, 'node_modules/.bin/tslab');
const hasJupyter = existsSync('/usr/bin/jupyter-nbconvert') && existsSync(tslab);
/**
 * A kernelspec of this checkout's tslab, first on JUPYTER_PATH: the system-wide `tslab` kernel points at
 * whichever checkout ran scripts/setup.sh last (possibly one that no longer exists).
 */
function privateKernelPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cb-kernel-'));
  mkdirSync(join(dir, 'kernels', 'tslab'), { recursive: true });
  writeFileSync(join(dir, 'kernels', 'tslab', 'kernel.json'), JSON.stringify({
    argv: [tslab, 'kernel', '--config-path', '{connection_file}'], display_name: 'TypeScript', language: 'typescript',
  }));
  return dir;
}

test('every notebook is generated from its source and committed without outputs', { skip: existsSync(python) ? false : 'no /usr/bin/python3' }, () => {
  assert.ok(notebooks.length > 0);
  for (const nb of notebooks) {
    const src = join(NB, 'src', nb.replace(/\.ipynb$/, '.txt'));
    assert.ok(existsSync(src), `${nb} has a source ${src}`);
    const out = join(mkdtempSync(join(tmpdir(), 'cb-nb-')), nb);
    const r = spawnSync(python, [join(REPO, 'scripts/make-notebook.py'), src, out], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(readFileSync(join(NB, nb), 'utf8'), readFileSync(out, 'utf8'), `${nb} is out of date: run scripts/make-notebook.py`);
    const json = JSON.parse(readFileSync(join(NB, nb), 'utf8'));
    for (const c of json.cells) if (c.cell_type === 'code') assert.deepEqual(c.outputs, [], `${nb}: outputs must be stripped`);
  }
});

for (const nb of notebooks) {
  test(`notebook ${nb} runs headless on the tslab kernel`, { skip: hasJupyter ? false : 'Jupyter (nbconvert) or tslab is not installed (run scripts/setup.sh)', timeout: 240_000 }, () => {
    const work = mkdtempSync(join(tmpdir(), 'cb-nbrun-'));
    const r = spawnSync('jupyter', ['nbconvert', '--to', 'notebook', '--execute', '--ExecutePreprocessor.kernel_name=tslab', '--ExecutePreprocessor.timeout=200', nb, '--output', join(work, nb)], {
      cwd: NB,
      encoding: 'utf8',
      env: { ...process.env, JUPYTER_PATH: [privateKernelPath(), process.env.JUPYTER_PATH].filter(Boolean).join(':'), CITEBENCH_ARTICLES: '4000', CITEBENCH_SCALE: '0.002', CITEBENCH_STORE: join(work, 'store'), CITEBENCH_DEMO_DIR: work, PYDEVD_DISABLE_FILE_VALIDATION: '1' },
    });
    assert.equal(r.status, 0, r.stderr.split('\n').filter((l) => !/Debug|frozen|PYDEVD/.test(l)).slice(-25).join('\n'));
    const executed = JSON.parse(readFileSync(join(work, nb), 'utf8'));
    const text = executed.cells.flatMap((c: any) => (c.outputs ?? []).map((o: any) => [].concat(o.text ?? '').join(''))).join('\n');
    assert.doesNotMatch(text, /Error/, 'no error output');
    assert.ok(text.length > 0, 'the notebook printed something');
  });
}
