/**
 * Seeded pseudo-random numbers, identical on every platform and Node version (pure 32-bit integer math),
 * so the same config + seed gives byte-identical corpora, pools and significance tests.
 * Generator: xoshiro128** seeded through splitmix32. Streams are derived by name (`rng.fork("pools/200k/1")`)
 * so adding a new consumer never shifts the numbers an existing one sees.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number | string) {
    let s = typeof seed === 'number' ? seed >>> 0 : hashString(seed);
    const next = () => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1;
  }

  /** A uniformly random unsigned 32-bit integer. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** Uniform double in [0, 1) with 53 random bits. */
  next(): number {
    const hi = this.nextU32() >>> 5; // 27 bits
    const lo = this.nextU32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Uniform integer in [0, n), unbiased (rejection sampling); n ≤ 2^32. */
  nextInt(n: number): number {
    if (n <= 0) throw new RangeError(`nextInt(${n})`);
    if (n > 0x100000000) return Math.floor(this.next() * n);
    const limit = 0x100000000 - (0x100000000 % n);
    let x: number;
    do x = this.nextU32();
    while (x >= limit);
    return x % n;
  }

  /** Standard normal (Box–Muller; one value per call, deterministic). */
  normal(): number {
    let u = 0;
    while (u === 0) u = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }

  /** Fisher–Yates shuffle in place. */
  shuffle<T extends { length: number; [i: number]: any }>(arr: T): T {
    for (let i = arr.length - 1; i > 0; i--) {
      const j = this.nextInt(i + 1);
      const t = arr[i];
      arr[i] = arr[j];
      arr[j] = t;
    }
    return arr;
  }

  /**
   * k distinct items drawn uniformly from [0, n), returned sorted ascending.
   * Floyd's algorithm for small k, a partial shuffle otherwise.
   */
  sampleIndices(n: number, k: number): Uint32Array {
    if (k > n) throw new RangeError(`cannot sample ${k} of ${n}`);
    let out: Uint32Array;
    if (k * 4 < n) {
      const chosen = new Set<number>();
      for (let j = n - k; j < n; j++) {
        const t = this.nextInt(j + 1);
        chosen.add(chosen.has(t) ? j : t);
      }
      out = Uint32Array.from(chosen);
    } else {
      const all = new Uint32Array(n);
      for (let i = 0; i < n; i++) all[i] = i;
      for (let i = 0; i < k; i++) {
        const j = i + this.nextInt(n - i);
        const t = all[i];
        all[i] = all[j];
        all[j] = t;
      }
      out = all.slice(0, k);
    }
    return out.sort();
  }

  /** An independent generator for a named sub-stream. */
  fork(name: string): Rng {
    return new Rng((hashString(name) ^ this.nextU32()) >>> 0);
  }
}

/** Independent stream for (seed, name) without consuming numbers from any other generator. */
export function rngFor(seed: number, name: string): Rng {
  return new Rng((hashString(name) ^ Math.imul(seed >>> 0, 0x9e3779b1)) >>> 0);
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** FNV-1a over UTF-16 code units: a stable 32-bit hash for stream names. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
