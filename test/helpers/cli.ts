// How the tests start the command line. Starting the TypeScript sources through tsx costs about a second of CPU per
// process for the larger commands (the loader, and every module transformed or read from tsx's cache); dist/, the
// same sources compiled by scripts/build-cli.mjs (worker threads and child processes included), starts in a third
// of that. npm test rebuilds a stale dist/ first (scripts/run-tests.mjs); a test file run on its own with a stale
// dist/ runs the sources.
//   cliArgv        the installed binary (bin/citebench.js), the user's way: dist/ while it is current, else the
//                  sources
// test/eval/dist-entry.test.ts checks that dist prints and writes what the sources do and that the binary falls
// back to the sources when dist is stale.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(REPO, 'bin/citebench.js');

/** node's arguments for `citebench ...args`, as the installed binary runs it. */
export function cliArgv(args: readonly string[]): string[] {
  return [BIN, ...args];
}
