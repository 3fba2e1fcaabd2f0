import { sha256 } from '../util/identity.ts';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Identity of a corpus store's index ↔ paper id mapping: SHA-256 of its id column. Embedding stores record it,
 * so vectors are never read against another corpus's numbering.
 */
export function corpusKey(corpusDir: string): string | undefined {
  const p = join(corpusDir, 'ids.bin');
  const o = join(corpusDir, 'ids.off');
  if (!existsSync(p) || !existsSync(o)) return undefined;
  return sha256().update(readFileSync(o)).update(readFileSync(p)).hex(32);
}
