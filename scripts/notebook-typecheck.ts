/**
 * Type-checks notebooks the way the tslab kernel does, without Jupyter: tslab's own converter (its TypeScript,
 * its compiler settings, its module resolution from a notebook's folder), fed each code cell in order with the
 * declarations of the cells before, as the kernel's executor does. `import * as cb from 'citebench'` gets
 * lib/citebench.d.ts (scripts/notebook-types.ts), so a misspelt member or a wrong argument is a type error here
 * exactly when it would be one in Jupyter. Also answers completion requests (what `res.` offers).
 *
 * tslab's converter resolves from the process's folder, so the exported functions run this file in a child process
 * (JSON request on stdin, answer on stdout) in a scratch notebook folder whose node_modules/citebench is this
 * checkout, as an installed checkout's is: a checkout sharing another's node_modules still checks its own types.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tsxLoader } from '../src/util/ts-worker.ts';

const REPO = fileURLToPath(new URL('../', import.meta.url));
const NB_DIR = join(REPO, 'notebooks');

/** One type error: code cell `cell` (0-based among the notebook's code cells), 1-based line and column. */
export interface CellDiagnostic {
  cell: number;
  line: number;
  column: number;
  message: string;
}

interface Converter {
  convert(prevDecl: string, src: string): { declOutput?: string; diagnostics: { start: { line: number; character: number }; messageText: string; fileName?: string }[] };
  complete(prevDecl: string, src: string, position: number): { candidates: string[] };
  close(): void;
}

function converter(): Converter {
  const req = createRequire(join(REPO, 'package.json'));
  return req('tslab/dist/converter.js').createConverter({ isJS: false, isBrowser: false }) as Converter;
}

/** The code cells of notebooks/<name>.ipynb. */
export function codeCells(name: string): string[] {
  const nb = JSON.parse(readFileSync(join(NB_DIR, `${name}.ipynb`), 'utf8')) as { cells: { cell_type: string; source: string | string[] }[] };
  return nb.cells.filter((c) => c.cell_type === 'code').map((c) => [c.source].flat().join(''));
}

/**
 * Where a diagnostic of notebooks/<name>.ipynb is in its source: `notebooks/src/<name>.txt:LINE:COLUMN` (code cells
 * start after their `# %%` line, leading empty lines dropped, as scripts/make-notebook.py writes them).
 */
export function sourceLocation(name: string, d: CellDiagnostic): string {
  const lines = readFileSync(join(NB_DIR, 'src', `${name}.txt`), 'utf8').split('\n');
  let code = -1;
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith('# %%') || lines[i].includes('[md]') || ++code !== d.cell) continue;
    let first = i + 1;
    while (first < lines.length && lines[first] === '') first++;
    return `notebooks/src/${name}.txt:${first + d.line}:${d.column}`;
  }
  return `notebooks/${name}.ipynb code cell ${d.cell + 1}:${d.line}:${d.column}`;
}

/** In this process (its folder is a notebook folder): the type errors of `cells` run in order; and the declarations they leave. */
function checkHere(conv: Converter, cells: string[]): { diagnostics: CellDiagnostic[]; prevDecl: string } {
  let prevDecl = '';
  const diagnostics: CellDiagnostic[] = [];
  cells.forEach((src, cell) => {
    const r = conv.convert(prevDecl, src);
    for (const d of r.diagnostics) diagnostics.push({ cell, line: d.start.line + 1, column: d.start.character + 1, message: `${d.fileName ? `${d.fileName}: ` : ''}${d.messageText}` });
    // The kernel keeps the previous declarations when a cell fails; later cells are checked against them.
    if (!r.diagnostics.length) prevDecl = r.declOutput ?? '';
  });
  return { diagnostics, prevDecl };
}

/** Notebooks to check (name → code cells) and, optionally, completion probes (e.g. `res.`) after some cells. */
export interface CheckRequest {
  notebooks: Record<string, string[]>;
  complete?: { after: string[]; probes: string[] };
}

export interface CheckAnswer {
  /** The type errors of each notebook, by name ([] when it type-checks). */
  diagnostics: Record<string, CellDiagnostic[]>;
  /** What the kernel offers at the end of each probe, in the order asked. */
  completions: string[][];
}

function child(request: CheckRequest): CheckAnswer {
  const conv = converter();
  try {
    const diagnostics = Object.fromEntries(Object.entries(request.notebooks).map(([name, cells]) => [name, checkHere(conv, cells).diagnostics]));
    let completions: string[][] = [];
    if (request.complete) {
      const before = checkHere(conv, request.complete.after);
      if (before.diagnostics.length) throw new Error(`the cells before the completion have type errors: ${JSON.stringify(before.diagnostics)}`);
      completions = request.complete.probes.map((src) => conv.complete(before.prevDecl, src, src.length).candidates);
    }
    return { diagnostics, completions };
  } finally {
    conv.close();
  }
}

/** Runs `request` in a child process, in a scratch notebook folder (one compiler start for all of it). */
export async function checkNotebooks(request: CheckRequest): Promise<CheckAnswer> {
  const dir = mkdtempSync(join(tmpdir(), 'cb-nbtypes-'));
  try {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(REPO, join(dir, 'node_modules', 'citebench'), 'dir');
    symlinkSync(join(REPO, 'node_modules', '@types'), join(dir, 'node_modules', '@types'), 'dir');
    const child = spawn(process.execPath, ['--import', tsxLoader, fileURLToPath(import.meta.url)], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
    child.stdin.end(JSON.stringify(request));
    const code = await new Promise<number | null>((resolve, reject) => child.on('error', reject).on('close', resolve));
    if (code !== 0) throw new Error(`notebook type check failed (exit ${code}): ${err}`);
    return JSON.parse(out) as CheckAnswer;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every code cell of the named notebooks (notebooks/<name>.ipynb), for checkNotebooks. */
export function notebookCells(names: string[]): Record<string, string[]> {
  return Object.fromEntries(names.map((n) => [n, codeCells(n)]));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const request = JSON.parse(readFileSync(0, 'utf8')) as CheckRequest;
  process.stdout.write(JSON.stringify(child(request)));
}
