/**
 * The one identity of everything citebench caches or derives (result records, stores and their stamps, indexes,
 * converted graphs, vector stores, HNSW graphs, BEIR stores, pool indexes): SHA-256, here and nowhere else in
 * src/. `identity` hashes a canonical serialisation of what determines an artifact — the content of its data
 * inputs, its parameters and the version of the code that computes it — so two values that mean the same thing
 * (objects with their keys in another order) hash the same, and two that differ (the string "1" and the number 1,
 * a Uint32Array and a Float32Array of the same bytes, ["ab"] and ["a", "b"]) never do. `keyOf` names each input
 * of an artifact by a short description, so a record that no longer matches says which inputs changed (`whyStale`).
 */
import { createHash, type Hash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { writeFileAtomic } from './atomic.ts';

const SLICE = 1 << 30;

/** A streaming SHA-256: raw bytes and UTF-8 strings in, hex digest out (for files and byte-exact digests). */
export class Sha256 {
  private readonly h: Hash = createHash('sha256');

  update(x: string | ArrayBufferView): this {
    if (typeof x === 'string') this.h.update(x);
    else {
      // In slices: an HNSW pool's vectors are gigabytes, beyond what one call into OpenSSL should be handed.
      const b = bytesOf(x);
      for (let o = 0; o < b.length; o += SLICE) this.h.update(b.subarray(o, Math.min(b.length, o + SLICE)));
    }
    return this;
  }

  /** A file's bytes, read in blocks (a file of any size in little memory). */
  updateFile(path: string): this {
    const fd = openSync(path, 'r');
    try {
      const buf = Buffer.allocUnsafe(Math.min(Math.max(fstatSync(fd).size, 1), 8 << 20));
      for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0; ) this.h.update(buf.subarray(0, n));
    } finally {
      closeSync(fd);
    }
    return this;
  }

  /** The hex digest, cut to `chars` hex digits (64: the whole digest). */
  hex(chars = 64): string {
    return this.h.digest('hex').slice(0, chars);
  }
}

export function sha256(): Sha256 {
  return new Sha256();
}

/** SHA-256 (hex) of the concatenated bytes of the parts (strings as UTF-8). */
export function sha256Hex(...parts: (string | ArrayBufferView)[]): string {
  const h = sha256();
  for (const p of parts) h.update(p);
  return h.hex();
}

/** Short content hash (32 hex digits) of typed arrays (graphs, tie keys, postings) for fingerprints. */
export function arrayDigest(...arrays: ArrayBufferView[]): string {
  const h = sha256();
  for (const a of arrays) h.update(a);
  return h.hex(32);
}

/** The bytes of a typed array or DataView, without a copy. */
export function bytesOf(a: ArrayBufferView): Uint8Array {
  return a instanceof Uint8Array ? a : new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

/**
 * SHA-256 (hex, `chars` digits) of the canonical serialisation of a value: every item tagged with its type and
 * length-prefixed; object keys sorted (a key whose value is undefined is left out, as JSON does); typed arrays by
 * their type name and bytes; numbers as their shortest round-trip decimal.
 */
export function identity(value: unknown, chars = 64): string {
  const h = sha256();
  feed(h, value);
  return h.hex(chars);
}

function feed(h: Sha256, v: unknown): void {
  if (v === null || v === undefined) {
    h.update('n;');
  } else if (typeof v === 'boolean') {
    h.update(v ? 't;' : 'f;');
  } else if (typeof v === 'number' || typeof v === 'bigint') {
    h.update(`${typeof v === 'number' ? 'd' : 'i'}${Object.is(v, -0) ? '-0' : String(v)};`);
  } else if (typeof v === 'string') {
    h.update(`s${Buffer.byteLength(v)}:`).update(v);
  } else if (ArrayBuffer.isView(v)) {
    h.update(`a${v.constructor.name}:${v.byteLength}:`).update(v);
  } else if (Array.isArray(v)) {
    h.update(`[${v.length}:`);
    for (const x of v) feed(h, x);
  } else if (v instanceof Map) {
    feed(h, Object.fromEntries([...v].map(([k, x]) => [String(k), x])));
  } else if (typeof v === 'object') {
    const keys = Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined).sort();
    h.update(`{${keys.length}:`);
    for (const k of keys) (feed(h, k), feed(h, (v as Record<string, unknown>)[k]));
  } else {
    throw new TypeError(`identity: cannot serialise a ${typeof v}`);
  }
}

/** What an artifact's key was made of: each input named, with a short description (debugging, and `whyStale`). */
export type InputsDescription = Record<string, string>;

export interface Keyed {
  /** SHA-256 (32 hex digits) over every input's identity. */
  key: string;
  inputs: InputsDescription;
}

/**
 * The key of an artifact from its named inputs (data, parameters, code version; undefined ones left out), and
 * each input's short description: a short string, number or boolean as itself, anything else as its shape and
 * the first 12 hex digits of its identity (`Uint32Array[800] 3fa2b1c4d5e6`).
 */
export function keyOf(inputs: Record<string, unknown>): Keyed {
  const full: Record<string, string> = {};
  const described: InputsDescription = {};
  for (const name of Object.keys(inputs).sort()) {
    const v = inputs[name];
    if (v === undefined) continue;
    full[name] = identity(v);
    described[name] = describe(v, full[name]);
  }
  return { key: identity(full, 32), inputs: described };
}

function describe(v: unknown, id: string): string {
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  if (typeof v === 'string' && v.length <= 40) return JSON.stringify(v);
  const shape = ArrayBuffer.isView(v) ? `${v.constructor.name}[${(v as unknown as ArrayLike<unknown>).length ?? v.byteLength}]` : Array.isArray(v) ? `[${v.length}]` : typeof v === 'string' ? `string[${v.length}]` : 'object';
  return `${shape} ${id.slice(0, 12)}`;
}

/** What an input is called in a line that says why something is made again. */
const INPUT_WORDS: Record<string, string> = {
  topics: 'topic ids', pool: 'pool ids', candidates: 'candidate lists', qrels: 'qrels', benchmark: 'MDCR benchmark',
  model: 'model fingerprint', params: 'parameters', code: 'code version', corpus: 'corpus', vectors: 'vectors',
  dtype: 'stored dtype', normalized: 'normalisation',
};

/**
 * Why a stored artifact (its recorded key and inputs) is not the wanted one, in words ("pool ids changed"), or
 * undefined when its key matches. A record from before inputs were recorded says so.
 */
export function whyStale(stored: { key?: unknown; inputs?: unknown } | undefined, want: Keyed): string | undefined {
  if (stored?.key === want.key) return undefined;
  const was = stored?.inputs;
  if (!was || typeof was !== 'object') return 'written by an older citebench (its key names no inputs)';
  const names = [...new Set([...Object.keys(want.inputs), ...Object.keys(was)])].sort();
  const changed = names.filter((n) => (was as InputsDescription)[n] !== want.inputs[n]);
  if (!changed.length) return 'its key changed (same inputs: another key recipe)';
  return `${changed.map((n) => INPUT_WORDS[n] ?? n).join(', ')} changed`;
}

/**
 * Why the artifact a stamp file stands beside is not the wanted one (undefined: it is). The stamp holds the key
 * and inputs it was made with (writeStamp); a stamp in an older key format (not this JSON) is stale.
 */
export function stampStale(path: string, want: Keyed): string | undefined {
  if (!existsSync(path)) return 'no stamp records what it was made of';
  const text = readFileSync(path, 'utf8');
  let stored: { key?: unknown; inputs?: unknown };
  try {
    stored = JSON.parse(text);
  } catch {
    return text.trimStart().startsWith('{') ? `its stamp ${path} is damaged` : 'written by an older citebench (another key format)';
  }
  return whyStale(stored && typeof stored === 'object' ? stored : {}, want);
}

/** Record what an artifact was made of, beside it (written atomically, after the artifact). */
export function writeStamp(path: string, made: Keyed): void {
  writeFileAtomic(path, JSON.stringify(made) + '\n');
}
