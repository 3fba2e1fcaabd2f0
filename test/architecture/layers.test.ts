/**
 * The floor plan: src/ folders import only their own floor or lower ones, and no file imports itself back.
 * Floors, lowest first: util → corpus → sampling → eval → retrieval → report → experiments → cli.
 * src/cli.ts and src/index.ts are entry points and may import anything.
 * CITEBENCH_ARCH_ROOT=/path/to/checkout checks another tree (e.g. to see this test fail on an older one).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { REPO } from '../helpers/shared.ts';
import { sourceFiles } from '../helpers/source-files.ts';

const FLOORS = ['util', 'corpus', 'sampling', 'eval', 'retrieval', 'report', 'experiments', 'cli'];
const ENTRY_POINTS = new Set(['cli.ts', 'index.ts']);
const ROOT = resolve(process.env.CITEBENCH_ARCH_ROOT ?? REPO);
const SRC = join(ROOT, 'src');


/** Every module specifier a file names: static imports/exports, `import('…')` and `new URL('./x.ts', import.meta.url)`. */
function specifiers(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) out.push(arg.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push(node.argument.literal.text); // `import('./x.ts').T` in a type position
    } else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'URL') {
      const [arg, base] = node.arguments ?? [];
      if (arg && ts.isStringLiteralLike(arg) && /\.ts$/.test(arg.text) && base && base.getText(sf) === 'import.meta.url') out.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The file's floor index, or undefined for an entry point. */
function floorOf(file: string): number | undefined {
  const rel = relative(SRC, file).split(sep);
  if (rel.length === 1) {
    assert.ok(ENTRY_POINTS.has(rel[0]), `src/${rel[0]} is neither an entry point nor in a floor folder`);
    return undefined;
  }
  const i = FLOORS.indexOf(rel[0]);
  assert.ok(i >= 0, `src/${rel[0]}/ is not a known floor (${FLOORS.join(', ')})`);
  return i;
}

const files = sourceFiles(SRC);
const graph = new Map<string, string[]>(); // file → src files it imports
for (const f of files) {
  const deps: string[] = [];
  for (const s of specifiers(f)) {
    if (!s.startsWith('.')) continue; // packages and node: built-ins
    const target = resolve(dirname(f), s);
    if (!target.startsWith(SRC + sep)) continue; // e.g. ../shared data files
    deps.push(target);
  }
  graph.set(f, deps);
}
const name = (f: string): string => relative(ROOT, f);

test('architecture: the parser sees imports, exports, dynamic imports and worker URLs', () => {
  assert.ok(files.length > 50, `only ${files.length} files under ${SRC}`);
  const edges = [...graph.values()].reduce((n, d) => n + d.length, 0);
  assert.ok(edges > 100, `only ${edges} imports found`);
  // The CLI registry loads commands with import('…'); the BM25 search pool starts workers with new URL(…).
  assert.ok(graph.get(join(SRC, 'cli/registry.ts'))!.some((d) => d.includes(`${sep}commands${sep}`)));
  assert.ok(graph.get(join(SRC, 'retrieval/bm25/parallel.ts'))!.some((d) => d.endsWith('search-worker.ts')));
});

test('architecture: no import from a lower floor to a higher one', () => {
  const bad: string[] = [];
  for (const [f, deps] of graph) {
    const from = floorOf(f);
    if (from === undefined) continue;
    for (const d of deps) {
      const to = floorOf(d);
      if (to === undefined) bad.push(`${name(f)} imports entry point ${name(d)}`);
      else if (to > from) bad.push(`${name(f)} (${FLOORS[from]}) imports ${name(d)} (${FLOORS[to]})`);
    }
  }
  assert.deepEqual(bad, [], `upward imports:\n  ${bad.join('\n  ')}`);
});

test('architecture: no import cycle between files', () => {
  // Depth-first search; a back edge closes a cycle, reported as the path around it.
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[] = [];
  const visit = (f: string): void => {
    state.set(f, 'open');
    stack.push(f);
    for (const d of graph.get(f) ?? []) {
      const s = state.get(d);
      if (s === 'open') cycles.push([...stack.slice(stack.indexOf(d)), d].map(name).join(' → '));
      else if (s === undefined) visit(d);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of files) if (!state.has(f)) visit(f);
  assert.deepEqual(cycles, [], `import cycles:\n  ${cycles.join('\n  ')}`);
});
