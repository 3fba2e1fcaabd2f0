/**
 * Errors meant for the user: the CLI prints their message alone (no stack trace) and exits with code 2.
 * Anything else that escapes is a bug and keeps its stack.
 */
export class CitebenchError extends Error {
  override name = 'CitebenchError';
}

/** Bad input data, located precisely: file, 1-based line, and the field at fault. */
export class InputError extends CitebenchError {
  override name = 'InputError';
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly field: string | undefined,
    readonly problem: string,
  ) {
    super(formatLocation(file, line, field) + problem);
  }
}

export function formatLocation(file: string, line?: number, field?: string): string {
  let s = file;
  if (line !== undefined) s += `:${line}`;
  if (field !== undefined) s += ` [${field}]`;
  return s + ': ';
}
