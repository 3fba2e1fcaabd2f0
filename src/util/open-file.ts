import { openSync } from 'node:fs';
import { CitebenchError } from './errors.ts';

/** A descriptor for reading `file`; a file that cannot be opened is one line naming it and why. */
export function openForReading(file: string): number {
  try {
    return openSync(file, 'r');
  } catch (e) {
    throw new CitebenchError(`${file}: cannot open (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}
