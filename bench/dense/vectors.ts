/**
 * Synthetic embedding matrices for the search benchmarks: clustered like real article embeddings (a random
 * centre per point out of 1,024, plus uniform noise of the same scale), deterministic from the seed, written
 * as raw little-endian float32 so the Python peers read exactly the same numbers.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, writeSync, statSync, renameSync } from 'node:fs';

export function generate(n: number, d: number, seed: number, centres = 1024): Float32Array {
  let s = (seed * 2654435761) >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296 - 0.5;
  };
  const C = new Float32Array(centres * d);
  for (let i = 0; i < C.length; i++) C[i] = next();
  const out = new Float32Array(new SharedArrayBuffer(n * d * 4)); // shared, as EmbeddingStore.load returns
  for (let i = 0; i < n; i++) {
    const c = Math.floor((next() + 0.5) * centres) * d;
    const o = i * d;
    for (let j = 0; j < d; j++) out[o + j] = C[c + j] + next();
  }
  return out;
}

export function writeF32(path: string, a: Float32Array): void {
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w');
  const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, Math.min(1 << 30, bytes.length - off));
  closeSync(fd);
  renameSync(tmp, path);
}

export function readF32(path: string): Float32Array {
  const size = statSync(path).size;
  const out = new Float32Array(new SharedArrayBuffer(size)); // shared, as EmbeddingStore.load returns
  const bytes = new Uint8Array(out.buffer);
  const fd = openSync(path, 'r');
  for (let off = 0; off < size; ) off += readSync(fd, bytes, off, Math.min(1 << 30, size - off), off);
  closeSync(fd);
  return out;
}

/** Load `path` or create it from the generator. */
export function cached(path: string, n: number, d: number, seed: number): Float32Array {
  if (existsSync(path) && statSync(path).size === n * d * 4) return readF32(path);
  const a = generate(n, d, seed);
  writeF32(path, a);
  return a;
}

export function peakRssMiB(): number {
  // VmHWM: the process's peak resident set so far.
  const s = readFileSync('/proc/self/status', 'utf8');
  const m = /VmHWM:\s+(\d+) kB/.exec(s);
  return m ? Number(m[1]) / 1024 : NaN;
}
