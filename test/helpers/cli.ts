// How the tests start the command line. Starting the TypeScript sources through tsx costs about a second of CPU per
// process for the larger commands (the loader, and every module transformed or read from tsx's cache); dist/, the
// same sources compiled by scripts/build-cli.mjs, starts in a third of that. npm test rebuilds a stale dist/ first
// (scripts/run-tests.mjs); a test file run on its own with a stale dist/ runs the sources.
//   cliArgv        for tests that need the command only: eval, mdcr-eval and merge-runs (bin/citebench.js's
//                  LIGHT_COMMANDS) through the installed binary, every other command from dist/ while it is current
//                  (its worker threads and child processes still run their .ts modules through tsx), else the sources
//   installedArgv  the installed binary's own way: the light commands through bin/citebench.js, every other
//                  command from the sources through tsx (test/experiments/run.test.ts, the end-to-end run)
// test/eval/dist-entry.test.ts checks that dist prints and writes what the sources do and that the binary falls
// back to the sources when dist is stale.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(REPO, 'bin/citebench.js');
const SOURCES = join(REPO, 'src/cli.ts');
const LIGHT = JSON.parse(/LIGHT_COMMANDS = (\[[^\]]*\])/.exec(readFileSync(BIN, 'utf8'))![1]!.replaceAll("'", '"')) as string[];

/** bin/citebench.js's check: dist/ exists and none of the sources it was built from is newer. */
function distIsFresh(): boolean {
  try {
    const stamp = join(REPO, 'dist/inputs.json');
    const built = statSync(stamp).mtimeMs;
    return (JSON.parse(readFileSync(stamp, 'utf8')) as { inputs: string[] }).inputs.every((p) => statSync(join(REPO, p)).mtimeMs <= built);
  } catch {
    return false;
  }
}
let fresh: boolean | undefined;

/** node's arguments for `citebench ...args` the way the installed binary runs it. */
export function installedArgv(args: readonly string[]): string[] {
  return LIGHT.includes(args[0] ?? '') ? [BIN, ...args] : ['--import', 'tsx', SOURCES, ...args];
}

/** node's arguments for `citebench ...args`, started the quickest way that runs the current sources' code. */
export function cliArgv(args: readonly string[]): string[] {
  if (LIGHT.includes(args[0] ?? '')) return [BIN, ...args];
  fresh ??= distIsFresh();
  return fresh ? [join(REPO, 'dist/cli.js'), ...args] : ['--import', 'tsx', SOURCES, ...args];
}
