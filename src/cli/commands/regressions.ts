import { existsSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, num } from '../args.ts';
import { loadConfig } from '../../experiments/config.ts';
import { runExperiment } from '../../experiments/run.ts';
import { readResults } from '../../report/results.ts';
import {
  compareRegressions, formatRegressionDiff, readRegressionFile, regressionRows, writeRegressionFile, type RegressionFile,
} from '../../report/regressions.ts';
import { CitebenchError } from '../../util/errors.ts';

/** The checkout's root: shipped configs live in configs/, their expected values in regressions/. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export const usage = `usage: citebench regressions check|update CONFIG [--work DIR] [--results DIR] [--expected FILE] [--threads N]

Regression values: every number a config's results.json holds (each cell's means, query count and pool size,
the BM25 tuning grid and choice, MDCR per model, candidate type and field with its AVG, paired tests), kept in
the repository (regressions/<config name>.json) and compared by equality, to the last bit, with a fresh run.

  check    run the config (every finished cell and stage is reused) and compare its results.json with the
           expected values; on any difference print one line per changed, missing or extra value (expected
           vs got, full precision) and exit 1
  update   run the config and write its values as the expected ones, printing what changed; commit the file's
           diff with the change that moved the numbers, so a reviewer sees every number that moved

CONFIG is a config file or the name of one in configs/ (ci, default). npm test checks configs/ci.yaml;
\`npm run bench:regression -- default\` checks configs/default.yaml (minutes).

options:
  --work DIR       cache folder (default: the config's)
  --results DIR    results folder (default: <work>/results with --work, else the config's)
  --expected FILE  expected values (default: regressions/<config name>.json in the citebench checkout)
  --threads N      searcher threads (default: all cores)`;

const optionSpec = {
  work: { type: 'string' }, results: { type: 'string' }, expected: { type: 'string' }, threads: { type: 'string' },
} as const;

/** A config file, or the name of a shipped one (configs/NAME.yaml). */
function configPath(arg: string): string {
  if (/[\\/]/.test(arg) || /\.ya?ml$/.test(arg)) return arg;
  const p = join(ROOT, 'configs', `${arg}.yaml`);
  if (!existsSync(p)) throw new CitebenchError(`no config '${arg}': give a config file or the name of one in configs/`);
  return p;
}

/** How the header names the config: relative to the checkout when inside it (never a machine's path). */
function shownPath(p: string): string {
  const rel = relative(ROOT, resolve(p));
  return rel.startsWith('..') || isAbsolute(rel) ? basename(p) : rel;
}

/** update: the values it replaces, to print what moved; an unreadable file (a merge conflict) is replaced whole. */
function readPrevious(p: string): RegressionFile | undefined {
  if (!existsSync(p)) return undefined;
  try {
    return readRegressionFile(p);
  } catch (e) {
    if (!(e instanceof CitebenchError)) throw e;
    console.error(`citebench regressions: ${e.message} (replacing it)`);
    return undefined;
  }
}

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, optionSpec, usage);
  const [action, arg] = positionals;
  if (positionals.length !== 2 || (action !== 'check' && action !== 'update')) throw new CitebenchError(`give check or update and one config\n\n${usage}`);
  const threads = values.threads === undefined ? undefined : num('threads', values.threads);
  if (threads !== undefined && (!Number.isInteger(threads) || threads < 1)) throw new CitebenchError(`--threads must be a positive integer, got ${values.threads}`);
  const path = configPath(arg);
  // --work moves the results with it unless --results says otherwise (as for citebench reproduce).
  const cfg = loadConfig(path, { work: values.work, results: values.results ?? (values.work ? join(values.work, 'results') : undefined) });
  const expectedPath = values.expected ?? join(ROOT, 'regressions', `${cfg.name}.json`);
  if (action === 'check' && !existsSync(expectedPath)) throw new CitebenchError(`${expectedPath}: no expected values for config ${cfg.name}; record them with citebench regressions update ${arg}`);
  const previous = action === 'check' ? readRegressionFile(expectedPath) : readPrevious(expectedPath);

  // How the header names the config: the same text however it was given (a name or a path).
  const shipped = resolve(path) === join(ROOT, 'configs', basename(path)) && path.endsWith('.yaml');
  const configArg = shipped ? basename(path, '.yaml') : shownPath(path);

  const { store, resultsDir } = await runExperiment(cfg, { threads });
  store.close();
  const results = readResults(resultsDir);
  const got: RegressionFile = {
    format: 'citebench-regressions',
    version: 1,
    about: [
      `Regression values of ${shownPath(path)}: every number its results.json holds, compared by equality.`,
      results.corpus.kind === 'synthetic'
        ? 'The corpus is synthetic: these numbers catch a change of behaviour; they are not findings.'
        : 'These numbers catch a change of behaviour on this corpus store; the report says what they measure.',
      `Made by: citebench regressions update ${configArg}. Checked by: citebench regressions check ${configArg}.`,
    ],
    config: cfg.name,
    configHash: results.configHash,
    rows: regressionRows(results),
  };
  const diffs = previous ? compareRegressions(previous, got) : [];
  const shownExpected = shownPath(expectedPath);
  if (action === 'check') {
    if (diffs.length === 0) {
      console.error(`citebench regressions: ${Object.keys(got.rows).length} rows of ${shownExpected} equal the run's (results in ${resultsDir})`);
      return 0;
    }
    console.error(
      `citebench regressions: ${diffs.length} difference${diffs.length === 1 ? '' : 's'} between ${shownExpected} and the run of ${shownPath(path)} (results in ${resultsDir}):\n` +
        formatRegressionDiff(diffs, previous!.rows, got.rows) +
        `\nIf the change is intended: citebench regressions update ${configArg}, and commit the file's diff with the change that moved the numbers.`,
    );
    return 1;
  }
  writeRegressionFile(expectedPath, got);
  if (!previous) console.error(`citebench regressions: wrote ${Object.keys(got.rows).length} rows to ${shownExpected}`);
  else if (diffs.length === 0) console.error(`citebench regressions: ${shownExpected} unchanged (${Object.keys(got.rows).length} rows)`);
  else console.error(`citebench regressions: ${shownExpected} updated, ${diffs.length} difference${diffs.length === 1 ? '' : 's'}:\n${formatRegressionDiff(diffs, previous.rows, got.rows)}`);
  return 0;
}
