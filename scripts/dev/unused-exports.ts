/**
 * `node --import tsx scripts/dev/unused-exports.ts`: lists every `export` in src/ that no other file uses, one
 * `file:line name` a line (sorted), and says after the name when the module uses it itself (then drop the `export`
 * keyword rather than the code). Exits 0 either way: a row is a place to look, not a verdict.
 *
 * Uses are resolved by the TypeScript checker over the repository's tsconfig (src, test, bench, scripts): an
 * identifier that names the export's symbol, through any import, alias, namespace object, re-export or
 * `import()` — whose awaited contextual type names the properties a lazily loaded module must export (the CLI
 * registry's `load`). Whatever src/index.ts exports, directly or through `export *`, is the public API and counts
 * as used. Files the checker does not read — notebooks/src/, lib/ (except the generated lib/citebench.d.ts, which
 * declares every type the API reaches), and the JavaScript entry points in bin/ and scripts/ — count a name as used
 * where it stands there as a word.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(REPO, 'src');
const PUBLIC_API = join(SRC, 'index.ts');
/** Read as plain text: a name standing there as a word is a use. */
const TEXT_DIRS = ['notebooks/src', 'lib', 'bin', 'scripts'];
const TEXT_FILE = /\.(txt|cjs|mjs|js)$/;

interface ExportRecord {
  file: string;
  line: number;
  name: string;
  usedElsewhere: boolean;
  usedInOwnFile: boolean;
  /** Named in the type of another export of its module (part of that export's signature). */
  inExportedSignature: boolean;
}

function program(): ts.Program {
  const configFile = ts.findConfigFile(REPO, ts.sys.fileExists, 'tsconfig.json');
  if (!configFile) throw new Error('no tsconfig.json at the repository root');
  const config = ts.getParsedCommandLineOfConfigFile(configFile, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } });
  if (!config) throw new Error(`cannot read ${configFile}`);
  return ts.createProgram({ rootNames: config.fileNames, options: config.options });
}

const isSrc = (f: ts.SourceFile) => f.fileName.startsWith(SRC + '/') && !f.isDeclarationFile;

function main(): void {
  const prog = program();
  const checker = prog.getTypeChecker();
  /** The symbol and every alias step behind it (import → re-export → … → declaration). */
  const chain = (symbol: ts.Symbol): ts.Symbol[] => {
    const out = [symbol];
    for (let s = symbol; s.flags & ts.SymbolFlags.Alias; ) {
      const next = checker.getImmediateAliasedSymbol(s);
      if (!next || out.includes(next)) break;
      out.push((s = next));
    }
    return out;
  };

  // Every export of a src/ module but src/index.ts, keyed by the symbol its users reach: the declaration, or for
  // `export { a } from './x.ts'` the re-export itself (its users pass through it on the way to x's `a`).
  const records = new Map<ts.Symbol, ExportRecord[]>();
  const apiModule = prog.getSourceFile(PUBLIC_API);
  for (const sf of prog.getSourceFiles()) {
    if (!isSrc(sf) || sf === apiModule) continue;
    const moduleSymbol = checker.getSymbolAtLocation(sf);
    if (!moduleSymbol) continue;
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const decl = exported.declarations?.find((d) => d.getSourceFile() === sf);
      if (!decl) continue; // reached through `export *`: the module that declares it lists it
      let key = exported;
      if (exported.flags & ts.SymbolFlags.Alias) {
        // `export { a }` of a local (or imported) name: its uses in this module reach that name.
        const local = checker.getImmediateAliasedSymbol(exported);
        if (local?.declarations?.some((d) => d.getSourceFile() === sf)) key = local;
      }
      const at = ts.getNameOfDeclaration(decl) ?? decl;
      const line = sf.getLineAndCharacterOfPosition(at.getStart(sf)).line + 1;
      const record = { file: relative(REPO, sf.fileName), line, name: exported.name, usedElsewhere: false, usedInOwnFile: false, inExportedSignature: false };
      records.set(key, [...(records.get(key) ?? []), record]);
    }
  }
  const markUse = (symbol: ts.Symbol | undefined, from: ts.SourceFile, node?: ts.Node) => {
    if (!symbol) return;
    for (const s of chain(symbol)) {
      for (const r of records.get(s) ?? []) {
        if (join(REPO, r.file) !== from.fileName) r.usedElsewhere = true;
        else if (!node || !isDeclarationName(node)) {
          r.usedInOwnFile = true;
          if (node && inExportSignature(node)) r.inExportedSignature = true;
        }
      }
    }
  };

  // The public API: whatever src/index.ts exports, by name or through `export *`.
  if (apiModule) {
    const apiSymbol = checker.getSymbolAtLocation(apiModule);
    for (const exported of apiSymbol ? checker.getExportsOfModule(apiSymbol) : []) markUse(exported, apiModule);
  }
  for (const sf of prog.getSourceFiles()) {
    if (sf.isDeclarationFile) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node)) markUse(checker.getSymbolAtLocation(node), sf, node);
      // `const { a } = await import('./x.ts')`: the property `a` of the module object.
      if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
        const key = node.propertyName ?? node.name;
        if (ts.isIdentifier(key)) markUse(checker.getTypeAtLocation(node.parent).getProperty(key.text), sf);
      }
      // `load: () => import('./x.ts')` typed as returning Promise<T>: the module must export T's properties.
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const contextual = checker.getContextualType(node);
        const target = checker.getSymbolAtLocation(node.arguments[0] ?? node);
        const awaited = contextual && checker.getAwaitedType(contextual);
        if (awaited && target) {
          const moduleType = checker.getTypeOfSymbol(target);
          for (const p of awaited.getProperties()) markUse(moduleType.getProperty(p.name), sf);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }

  const all = [...records.values()].flat();
  const byName = new Map<string, ExportRecord[]>();
  for (const r of all) byName.set(r.name, [...(byName.get(r.name) ?? []), r]);
  for (const file of textFiles()) {
    for (const word of readFileSync(file, 'utf8').match(/[A-Za-z_$][\w$]*/g) ?? []) {
      for (const r of byName.get(word) ?? []) r.usedElsewhere = true;
    }
  }

  const unused = all.filter((r) => !r.usedElsewhere).sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  const note = (r: ExportRecord) => (r.inExportedSignature ? ' (in the signature of an export of its module)' : r.usedInOwnFile ? ' (used in its own module)' : '');
  for (const r of unused) console.log(`${r.file}:${r.line} ${r.name}${note(r)}`);
}

/** The declaration's own name (`export function f`), which is no use of f. */
function isDeclarationName(node: ts.Node): boolean {
  const parent = node.parent;
  return parent !== undefined && ts.getNameOfDeclaration(parent as ts.Declaration) === node && !ts.isShorthandPropertyAssignment(parent);
}

/** In a type that is part of an exported top-level declaration's signature (not inside a body). */
function inExportSignature(node: ts.Node): boolean {
  let inType = false;
  for (let n: ts.Node = node; n.parent; n = n.parent) {
    if (ts.isBlock(n)) return false;
    if (ts.isTypeNode(n)) inType = true;
    if (ts.isSourceFile(n.parent)) {
      const exported = ts.canHaveModifiers(n) && (ts.getModifiers(n) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
      return inType && exported;
    }
  }
  return false;
}

/** The files read as text (see the header): JavaScript entry points, notebook sources, lib/. */
function textFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (TEXT_FILE.test(name)) out.push(p);
    }
  };
  for (const d of TEXT_DIRS) walk(join(REPO, d));
  return out;
}

main();
