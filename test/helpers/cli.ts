// How the tests start the command line. The light commands (bin/citebench.js's LIGHT_COMMANDS: eval, mdcr-eval,
// merge-runs) start through the installed binary, which runs them from dist/ while it is current (npm test
// rebuilds a stale dist/ first: scripts/run-tests.mjs) — no tsx loader per spawn, and the path users take; every
// other command through tsx from the sources, as before. test/eval/dist-entry.test.ts checks that dist and the
// sources print and write the same, and that the binary falls back to the sources when dist is stale.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(REPO, 'bin/citebench.js');
const LIGHT = JSON.parse(/LIGHT_COMMANDS = (\[[^\]]*\])/.exec(readFileSync(BIN, 'utf8'))![1]!.replaceAll("'", '"')) as string[];

/** node's arguments for `citebench ...args`: the binary for a light command, the sources through tsx otherwise. */
export function cliArgv(args: readonly string[]): string[] {
  return LIGHT.includes(args[0] ?? '') ? [BIN, ...args] : ['--import', 'tsx', join(REPO, 'src/cli.ts'), ...args];
}
