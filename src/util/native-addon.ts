/**
 * The compiled addons (binding.gyp → build/Release/NAME.node, built by `npm ci`), each loaded once per thread.
 * Every one has a TypeScript counterpart giving the same results, used where the addon was not built (no
 * compiler at install time), does not load, or is turned off: `why` says which, for callers that print a notice.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface LoadedAddon<T> {
  addon: T | null;
  /** Why addon is null: 'off', 'not built', or 'does not load: …'. */
  why?: string;
}

const loaded = new Map<string, LoadedAddon<unknown>>();

/** The built addon NAME; `setting` 'off' turns it off, any other non-empty value is the path of one to load instead. */
export function loadAddon<T>(name: string, setting?: string): LoadedAddon<T> {
  const key = `${name}\0${setting ?? ''}`;
  const seen = loaded.get(key);
  if (seen) return seen as LoadedAddon<T>;
  let result: LoadedAddon<T>;
  if (setting === 'off') result = { addon: null, why: 'off' };
  else {
    const path = setting || builtPath(name);
    try {
      result = { addon: createRequire(import.meta.url)(path) as T };
    } catch (e) {
      const why = (e as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' ? 'not built' : `does not load: ${(e as Error).message.split('\n')[0]}`;
      result = { addon: null, why };
    }
  }
  loaded.set(key, result);
  return result;
}

/** Where `npm ci` builds the addon NAME. */
export function builtPath(name: string): string {
  return fileURLToPath(new URL(`../../build/Release/${name}.node`, import.meta.url));
}
