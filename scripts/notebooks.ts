/**
 * `npm run notebooks [-- --small] [NAME …]`: regenerates notebooks/*.ipynb from notebooks/src/*.txt, executes each
 * headlessly (jupyter nbconvert on a private tslab kernelspec of this checkout) and fails on any cell error,
 * stderr output or a notebook showing no table or no chart. Executed copies go to data/notebooks-out/.
 * The notebook tests (test/notebooks/) use the same functions.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../', import.meta.url));
export const NB_DIR = join(REPO, 'notebooks');
export const PYTHON = '/usr/bin/python3';
const TSLAB = join(REPO, 'node_modules/.bin/tslab');

/** Every notebook, by its source notebooks/src/<name>.txt (a new source is a new notebook). */
export function notebookNames(): string[] {
  return readdirSync(join(NB_DIR, 'src')).filter((f) => f.endsWith('.txt')).map((f) => f.replace(/\.txt$/, '')).sort();
}

/** Writes `out` from notebooks/src/<name>.txt (scripts/make-notebook.py). */
export function generateNotebook(name: string, out = join(NB_DIR, `${name}.ipynb`)): void {
  const r = spawnSync(PYTHON, [join(REPO, 'scripts/make-notebook.py'), join(NB_DIR, 'src', `${name}.txt`), out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`make-notebook.py ${name}: ${r.stderr}`);
}

/**
 * A kernelspec of this checkout's tslab, first on JUPYTER_PATH: the system-wide `tslab` kernel points at
 * whichever checkout ran scripts/setup.sh last (possibly one that no longer exists).
 */
export function privateKernelPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cb-kernel-'));
  mkdirSync(join(dir, 'kernels', 'tslab'), { recursive: true });
  writeFileSync(join(dir, 'kernels', 'tslab', 'kernel.json'), JSON.stringify({
    argv: [TSLAB, 'kernel', '--config-path', '{connection_file}'], display_name: 'TypeScript', language: 'typescript',
  }));
  return dir;
}

export interface Execution {
  name: string;
  /** The executed notebook (nbformat JSON). */
  file: string;
  seconds: number;
  status: number | null;
  /** nbconvert's stderr, less the debugger noise. */
  log: string;
  problems: string[];
}

type Output = { output_type: string; name?: string; text?: string | string[]; data?: Record<string, string | string[]>; ename?: string; evalue?: string };
const joined = (x: string | string[] | undefined) => [x ?? ''].flat().join('');

/**
 * What is wrong with an executed notebook: error outputs, stderr streams (tslab prints type errors there), and
 * no HTML table or no chart (SVG, as image/svg+xml or inside text/html) among its outputs.
 */
/** The most lines a notebook's first code cell may print (its run's log goes to run.log). */
export const MAX_FIRST_CELL_LINES = 25;

export function outputProblems(nb: { cells: { cell_type: string; outputs?: Output[] }[] }): string[] {
  const problems: string[] = [];
  let tables = 0, charts = 0;
  nb.cells.forEach((c, i) => {
    for (const o of c.outputs ?? []) {
      if (o.output_type === 'error') problems.push(`cell ${i}: ${o.ename}: ${o.evalue}`);
      if (o.output_type === 'stream' && o.name === 'stderr') problems.push(`cell ${i} wrote to stderr: ${joined(o.text).slice(0, 500)}`);
      const html = joined(o.data?.['text/html']);
      if (/<table[\s>]/.test(html)) tables++;
      if (o.data?.['image/svg+xml'] || /<svg[\s>]/.test(html)) charts++;
    }
  });
  // Results, not logs: the first call that computes shows a line per stage (progress rewritten in place with \r).
  const first = nb.cells.findIndex((c) => c.cell_type === 'code');
  const printed = (nb.cells[first]?.outputs ?? []).filter((o) => o.output_type === 'stream').map((o) => joined(o.text)).join('');
  const lines = printed.split('\n').filter((l, i, all) => i < all.length - 1 || l !== '').length;
  if (lines > MAX_FIRST_CELL_LINES) problems.push(`cell ${first} (the first code cell) printed ${lines} lines (at most ${MAX_FIRST_CELL_LINES}: a notebook shows results, not logs): ${printed.split('\n').slice(0, 3).join(' | ').slice(0, 300)} …`);
  if (!tables) problems.push('no HTML table among the outputs');
  if (!charts) problems.push('no chart (SVG) among the outputs');
  return problems;
}

/** Executes notebooks/<name>.ipynb into `outDir` (cwd notebooks/, as in Jupyter). */
export function executeNotebook(name: string, opts: { outDir: string; env?: Record<string, string>; cellTimeout?: number }): Execution {
  const file = join(opts.outDir, `${name}.ipynb`);
  const t0 = Date.now();
  const r = spawnSync('jupyter', ['nbconvert', '--to', 'notebook', '--execute', '--allow-errors', '--ExecutePreprocessor.kernel_name=tslab',
    `--ExecutePreprocessor.timeout=${opts.cellTimeout ?? -1}`, `${name}.ipynb`, '--output', file], {
    cwd: NB_DIR,
    encoding: 'utf8',
    env: { ...process.env, ...opts.env, JUPYTER_PATH: [privateKernelPath(), process.env.JUPYTER_PATH].filter(Boolean).join(':'), PYDEVD_DISABLE_FILE_VALIDATION: '1' },
  });
  const seconds = (Date.now() - t0) / 1000;
  const log = (r.stderr ?? '').split('\n').filter((l) => l && !/Debug|frozen|PYDEVD|Converting notebook|Writing \d+ bytes/.test(l)).slice(-25).join('\n');
  let problems: string[];
  try {
    problems = outputProblems(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    problems = [];
  }
  if (r.status !== 0) problems.unshift(`nbconvert exited with ${r.status ?? r.signal}: ${log}`);
  else if (!problems.length) signNotebook(file);
  return { name, file, seconds, status: r.status, log, problems };
}

/**
 * Marks an executed notebook trusted in this user's Jupyter, as running it in Jupyter would: nbconvert does not
 * sign, and the classic notebook strips an untrusted output's styles and SVG charts. (Debian's Jupyter has no
 * `jupyter trust`; nbformat's notary is what it calls.)
 */
export function signNotebook(file: string): void {
  const r = spawnSync(PYTHON, ['-c', 'import sys, nbformat\nfrom nbformat.sign import NotebookNotary\nnb = nbformat.read(sys.argv[1], as_version=4)\nNotebookNotary().sign(nb)', file], { encoding: 'utf8' });
  if (r.status !== 0) console.error(`could not mark ${file} trusted (Jupyter will show its outputs unstyled): ${r.stderr.trim().split('\n').pop()}`);
}

/** Exports an executed notebook to HTML (nbconvert's lab template); returns the file. */
export function exportHtml(executed: string, outDir: string): string {
  const r = spawnSync('jupyter', ['nbconvert', '--to', 'html', executed, '--output-dir', outDir], { encoding: 'utf8', env: { ...process.env, PYDEVD_DISABLE_FILE_VALIDATION: '1' } });
  if (r.status !== 0) throw new Error(`nbconvert --to html ${executed}: ${r.stderr}`);
  return join(outDir, basename(executed).replace(/\.ipynb$/, '.html'));
}

function main(argv: string[]): number {
  const small = argv.includes('--small');
  const wanted = argv.filter((a) => !a.startsWith('--'));
  const names = notebookNames().filter((n) => !wanted.length || wanted.some((w) => n.includes(w)));
  if (!names.length) {
    console.error(`no notebook matches ${wanted.join(' ')} (notebooks/src/*.txt: ${notebookNames().join(', ')})`);
    return 1;
  }
  const outDir = join(REPO, 'data', 'notebooks-out');
  mkdirSync(outDir, { recursive: true });
  let failed = 0;
  for (const name of names) {
    generateNotebook(name);
    process.stdout.write(`${name}: running${small ? ' (small-data mode)' : ''} … `);
    const e = executeNotebook(name, { outDir, env: small ? { CITEBENCH_SMALL: '1' } : {} });
    console.log(`${e.problems.length ? 'FAILED' : 'ok'} in ${e.seconds.toFixed(1)} s → ${e.file}`);
    for (const p of e.problems) console.log(`  ${p}`);
    if (e.problems.length) failed++;
  }
  console.log(failed ? `${failed} of ${names.length} notebooks failed` : `all ${names.length} notebooks ran`);
  return failed ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main(process.argv.slice(2));
