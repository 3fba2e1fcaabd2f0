/**
 * Type-checks notebooks the way the tslab kernel does, without Jupyter: tslab's own converter (its TypeScript,
 * its compiler settings, its module resolution from notebooks/), fed each code cell in order with the
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
import { spawnSync } from 'node:child_process';
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

type Request = { op: 'check'; notebooks: Record<string, string[]> } | { op: 'complete'; cells: string[]; src: string; position: number };

function child(request: Request): unknown {
  const conv = converter();
  try {
    if (request.op === 'check') {
      return Object.fromEntries(Object.entries(request.notebooks).map(([name, cells]) => [name, checkHere(conv, cells).diagnostics]));
    }
    const { diagnostics, prevDecl } = checkHere(conv, request.cells);
    if (diagnostics.length) throw new Error(`the cells before the completion have type errors: ${JSON.stringify(diagnostics)}`);
    return conv.complete(prevDecl, request.src, request.position).candidates;
  } finally {
    conv.close();
  }
}

function inNotebookFolder(request: Request): unknown {
  const dir = mkdtempSync(join(tmpdir(), 'cb-nbtypes-'));
  try {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(REPO, join(dir, 'node_modules', 'citebench'), 'dir');
    symlinkSync(join(REPO, 'node_modules', '@types'), join(dir, 'node_modules', '@types'), 'dir');
    const r = spawnSync(process.execPath, ['--import', tsxLoader, fileURLToPath(import.meta.url)], { cwd: dir, input: JSON.stringify(request), encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.status !== 0) throw new Error(`notebook type check failed (exit ${r.status ?? r.signal}): ${r.stderr}`);
    return JSON.parse(r.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Type errors per notebook, by name (notebooks/<name>.ipynb), or of the given cells (`{ name: cells }`). */
export function typecheckNotebooks(notebooks: string[] | Record<string, string[]>): Record<string, CellDiagnostic[]> {
  const cells = Array.isArray(notebooks) ? Object.fromEntries(notebooks.map((n) => [n, codeCells(n)])) : notebooks;
  return inNotebookFolder({ op: 'check', notebooks: cells }) as Record<string, CellDiagnostic[]>;
}

/** What the kernel offers to complete `src` at `position` (default: its end) after running `cells`. */
export function completions(cells: string[], src: string, position = src.length): string[] {
  return inNotebookFolder({ op: 'complete', cells, src, position }) as string[];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const request = JSON.parse(readFileSync(0, 'utf8')) as Request;
  process.stdout.write(JSON.stringify(child(request)));
}
