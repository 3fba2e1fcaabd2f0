import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CitebenchError } from '../util/errors.ts';

export type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Thrown by parse() when --help was given: the CLI prints the usage and exits 0. It carries the options the
 * command's parser accepts, so a test can check every one is named in the usage (test/cli/help.test.ts).
 */
export class HelpRequested extends Error {
  constructor(readonly usage: string, readonly options: Options = {}) {
    super('help');
  }
}

/**
 * parseArgs with citebench conventions: `--help/-h` everywhere, unknown options are a clear error,
 * and positionals allowed. Returns the typed values and positionals.
 */
export function parse<O extends Options>(args: string[], options: O, usage: string) {
  if (args.includes('--help') || args.includes('-h')) throw new HelpRequested(usage, options);
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new CitebenchError(`${(e as Error).message}\n\n${usage}`);
  }
}

/** Parse a numeric option, naming it in the error. */
export function num(name: string, v: string | undefined, dflt?: number): number {
  if (v === undefined) {
    if (dflt === undefined) throw new CitebenchError(`--${name} is required`);
    return dflt;
  }
  const n = Number(v);
  if (!Number.isFinite(n)) throw new CitebenchError(`--${name} must be a number, got '${v}'`);
  return n;
}

export function required<T>(name: string, v: T | undefined): T {
  if (v === undefined || v === '') throw new CitebenchError(`--${name} is required`);
  return v;
}
