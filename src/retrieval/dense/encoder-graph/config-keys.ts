/**
 * Typed reads of a model folder's config.json: each wrong value is one line naming the file and the key. Shared by
 * the encoder configs (config.ts) and the decoder configs (decoder-config.ts).
 */
import { readFileSync } from 'node:fs';
import { CitebenchError } from '../../../util/errors.ts';

export const EXPORT_HINT = 'export the model to ONNX with optimum-cli instead (docs/dense.md, "Getting a real model into citebench")';

export class Keys {
  constructor(
    readonly file: string,
    readonly raw: Record<string, unknown>,
  ) {}
  bad(key: string, why: string): never {
    throw new CitebenchError(`${this.file} [${key}]: ${why}; ${EXPORT_HINT}`);
  }
  /** Present and not null. */
  has(key: string): boolean {
    return this.raw[key] !== undefined && this.raw[key] !== null;
  }
  int(key: string, dflt?: number, min = 1): number {
    const v = this.raw[key] ?? dflt;
    if (!Number.isSafeInteger(v) || (v as number) < min) this.bad(key, `${JSON.stringify(this.raw[key])} is not an integer ≥ ${min}`);
    return v as number;
  }
  positive(key: string, dflt: number): number {
    const v = this.raw[key] ?? dflt;
    if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) this.bad(key, `${JSON.stringify(v)} is not a positive number`);
    return v;
  }
  bool(key: string, dflt: boolean): boolean {
    const v = this.raw[key] ?? dflt;
    if (typeof v !== 'boolean') this.bad(key, `${JSON.stringify(v)} is not true or false`);
    return v;
  }
  /** A key whose value must be one of `ok` (absent counts as `dflt`). */
  oneOf(key: string, dflt: unknown, ok: readonly unknown[], what: string): void {
    const v = this.raw[key] ?? dflt;
    if (!ok.includes(v)) this.bad(key, `${JSON.stringify(v)} is not ${what}`);
  }
}

export function readConfigJson(configPath: string): Record<string, unknown> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(configPath, 'utf8'));
  } catch (e) {
    throw new CitebenchError(`${configPath}: cannot read the model config (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new CitebenchError(`${configPath}: not a JSON object`);
  return raw as Record<string, unknown>;
}
