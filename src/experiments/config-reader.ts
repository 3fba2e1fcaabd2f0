/**
 * The YAML reader of configs: every value read with its position, so every error names the file, line and key
 * (InputError). config.ts reads the run's keys with it, each model kind's entry (kinds/) its own model's.
 */
import { isMap, isSeq, type Document, type LineCounter, type Node } from 'yaml';
import { InputError } from '../util/errors.ts';
import { parseMeasure } from '../eval/registry.ts';

type ConfigPath = (string | number)[];

/** Reads a YAML value tree with positions, so every error names its line. */
export class Reader {
  constructor(
    readonly file: string,
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  fail(path: (string | number)[], problem: string): never {
    let line: number | undefined;
    for (let n = path.length; n >= 0 && line === undefined; n--) {
      const node = (n === 0 ? this.doc.contents : this.doc.getIn(path.slice(0, n), true)) as Node | undefined;
      if (node && (node as Node).range) line = this.lines.linePos((node as Node).range![0]).line;
    }
    throw new InputError(this.file, line, path.join('.') || undefined, problem);
  }

  has(path: (string | number)[]): boolean {
    return this.doc.hasIn(path);
  }

  raw(path: (string | number)[]): unknown {
    const v = this.doc.getIn(path, false);
    return v && typeof v === 'object' && 'toJSON' in (v as object) ? (v as { toJSON(): unknown }).toJSON() : v;
  }

  keys(path: (string | number)[]): string[] {
    const node = path.length ? this.doc.getIn(path, true) : this.doc.contents;
    if (node === undefined || node === null) return [];
    if (!isMap(node)) this.fail(path, 'must be a mapping (key: value)');
    return node.items.map((p) => String((p.key as { value?: unknown })?.value ?? p.key));
  }

  checkKeys(path: (string | number)[], allowed: string[]): void {
    for (const k of this.keys(path)) if (!allowed.includes(k)) this.fail([...path, k], `unknown key '${k}' (expected one of: ${allowed.join(', ')})`);
  }

  num(path: (string | number)[], dflt: number | undefined, check: (n: number) => boolean = Number.isFinite, what = 'a number'): number {
    if (!this.has(path)) {
      if (dflt === undefined) this.fail(path, `is required (${what})`);
      return dflt;
    }
    const v = this.raw(path);
    if (typeof v !== 'number' || !check(v)) this.fail(path, `must be ${what}, got ${JSON.stringify(v)}`);
    return v;
  }

  str(path: (string | number)[], dflt?: string): string | undefined {
    if (!this.has(path)) return dflt;
    const v = this.raw(path);
    if (typeof v !== 'string' || v === '') this.fail(path, `must be a non-empty string, got ${JSON.stringify(v)}`);
    return v;
  }

  bool(path: (string | number)[], dflt: boolean): boolean {
    if (!this.has(path)) return dflt;
    const v = this.raw(path);
    if (typeof v !== 'boolean') this.fail(path, `must be true or false, got ${JSON.stringify(v)}`);
    return v;
  }

  list<T>(path: (string | number)[], item: (p: (string | number)[]) => T): T[] {
    const node = this.doc.getIn(path, true);
    if (!isSeq(node)) this.fail(path, 'must be a list');
    return node.items.map((_, i) => item([...path, i]));
  }
}

export const posInt = (n: number) => Number.isInteger(n) && n >= 1;

/** `fp16: true` (kept out of the canonical config when false, so existing configs keep their hash). */
export function precision(r: Reader, p: string[]): { fp16?: true } {
  if (!r.bool([...p, 'fp16'], false)) return {};
  if (r.bool([...p, 'quantized'], false)) r.fail([...p, 'fp16'], 'and quantized exclude each other: one ONNX export per model');
  return { fp16: true };
}

/** One tunable parameter of a kind: its default grid and the check each value must pass. */
export interface TunableParam {
  grid: number[];
  check: (n: number) => boolean;
  /** What a value must be, for the error (e.g. 'a number in [0, 1]'). */
  what: string;
}

/**
 * A model's `tune:` — `true` (every parameter's default grid), `false`/absent (not tuned), or
 * `{ <param>: [values], measure }` (a parameter not given keeps its default grid) — as a grid in the kind's
 * parameter order and a measure (default map). Errors name the file, line and key.
 */
export function readTune(r: Reader, p: string[], params: Record<string, TunableParam>, measure = 'map'): { grid: Record<string, number[]>; measure: string } | undefined {
  const t = [...p, 'tune'];
  const v = r.raw(t);
  if (v === undefined || v === false) return undefined;
  if (v !== true) r.checkKeys(t, [...Object.keys(params), 'measure']);
  const grid: Record<string, number[]> = {};
  for (const [name, spec] of Object.entries(params)) {
    grid[name] = v !== true && r.has([...t, name]) ? r.list([...t, name], (q) => r.num(q, undefined, spec.check, spec.what)) : [...spec.grid];
    if (grid[name].length === 0) r.fail([...t, name], 'give at least one value');
  }
  const m = v !== true ? r.str([...t, 'measure'], measure)! : measure;
  try {
    if (parseMeasure(m).length !== 1) r.fail([...t, 'measure'], `'${m}' names ${parseMeasure(m).length} measures; name one (e.g. map, ndcg_cut.10)`);
  } catch (e) {
    if (e instanceof InputError) throw e;
    r.fail([...t, 'measure'], (e as Error).message);
  }
  return { grid, measure: m };
}
