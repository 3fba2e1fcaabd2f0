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

export type LayerType = 'full_attention' | 'sliding_attention';

/** config.json's `layer_types`, one per layer; undefined where absent or null. */
export function readLayerTypes(k: Keys, layers: number): LayerType[] | undefined {
  const given = k.raw.layer_types;
  if (given === undefined || given === null) return undefined;
  if (!Array.isArray(given) || given.length !== layers || !given.every((t) => t === 'full_attention' || t === 'sliding_attention'))
    k.bad('layer_types', `${JSON.stringify(given).slice(0, 80)} is not one of "full_attention" / "sliding_attention" per layer (${layers})`);
  return given as LayerType[];
}

/** Rotary angles of one layer type: θ, and linear scaling's factor (positions divided by it; 1 = none). */
export interface RopeSpec {
  theta: number;
  factor: number;
}

/** config.json's `rope_parameters` (transformers 5), checked to be an object; undefined where absent or null. */
export function readRopeParameters(k: Keys): Record<string, unknown> | undefined {
  const params = k.raw.rope_parameters ?? undefined;
  if (params !== undefined && (typeof params !== 'object' || Array.isArray(params))) k.bad('rope_parameters', 'not an object');
  return params as Record<string, unknown> | undefined;
}

/**
 * One dict of rotary parameters under `key` (`rope_parameters`, a layer type's entry `at` of it, or 4.x
 * `rope_scaling`), θ `theta` where it names none; `types`: the rotary types the architecture's graph computes
 * (linear: positions divided by `factor` ≥ 1). Absent: θ `theta`, no scaling.
 */
export function readRope(k: Keys, key: string, p: unknown, theta: number, types: readonly ('default' | 'linear')[], at?: string): RopeSpec {
  const where = at === undefined ? '' : `${at}.`;
  if (p === undefined || p === null) return { theta, factor: 1 };
  if (typeof p !== 'object' || Array.isArray(p)) k.bad(key, at === undefined ? 'not an object' : `${at} is not an object`);
  const o = p as Record<string, unknown>;
  const type = o.rope_type ?? o.type ?? 'default';
  if (!types.includes(type as 'default'))
    k.bad(key, `${at === undefined ? 'rope type' : `${where}rope_type`} ${JSON.stringify(type)} is not computed (citebench builds the ${types.join(' and ')} rotary embedding${types.length > 1 ? 's' : ''})`);
  if (o.partial_rotary_factor !== undefined && o.partial_rotary_factor !== null && o.partial_rotary_factor !== 1)
    k.bad(key, `${where}partial_rotary_factor ${JSON.stringify(o.partial_rotary_factor)} is not computed (rotary over the whole head only)`);
  const t = o.rope_theta ?? theta;
  if (typeof t !== 'number' || !(t > 0)) k.bad(key, `${where}rope_theta ${JSON.stringify(t)} is not a positive number`);
  let factor = 1;
  if (type === 'linear') {
    factor = o.factor as number;
    if (typeof factor !== 'number' || !(factor >= 1)) k.bad(key, `${where}linear factor ${JSON.stringify(o.factor)} is not a number ≥ 1`);
  }
  return { theta: t, factor };
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
