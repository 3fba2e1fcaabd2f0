/**
 * paper_id → dense index, sized for tens of millions of ids. S2ORC ids are decimal strings; those without a
 * leading zero and with at most 15 digits are kept as numbers in an open-addressing hash table of typed arrays
 * (~24 bytes per id instead of ~100 for a Map of strings). Any other id falls back to a Map.
 */
export class IdIndex {
  private keys: Float64Array;
  private vals: Int32Array;
  private used = 0;
  private readonly other = new Map<string, number>();

  constructor(capacity = 1 << 16) {
    let cap = 1 << 4;
    while (cap < capacity * 2) cap <<= 1;
    this.keys = new Float64Array(cap).fill(-1);
    this.vals = new Int32Array(cap);
  }

  get size(): number {
    return this.used + this.other.size;
  }

  /** The index of `id`, or -1. */
  get(id: string): number {
    const k = numericKey(id);
    if (k < 0) return this.other.get(id) ?? -1;
    const mask = this.keys.length - 1;
    for (let h = hash(k) & mask; ; h = (h + 1) & mask) {
      const cur = this.keys[h];
      if (cur === k) return this.vals[h];
      if (cur === -1) return -1;
    }
  }

  /** Like get(), for an id given as UTF-8 bytes buf[start, end) — no string is made for numeric ids. */
  getBytes(buf: Buffer, start: number, end: number): number {
    const n = end - start;
    let v = -1;
    if (n > 0 && n <= 15 && !(n > 1 && buf[start] === 48)) {
      v = 0;
      for (let i = start; i < end; i++) {
        const c = buf[i] - 48;
        if (c < 0 || c > 9) {
          v = -1;
          break;
        }
        v = v * 10 + c;
      }
    }
    if (v < 0) return this.other.get(buf.toString('utf8', start, end)) ?? -1;
    const mask = this.keys.length - 1;
    for (let h = hash(v) & mask; ; h = (h + 1) & mask) {
      const cur = this.keys[h];
      if (cur === v) return this.vals[h];
      if (cur === -1) return -1;
    }
  }

  /** Insert id → index; returns the existing index instead if the id is already present. */
  add(id: string, index: number): number {
    const k = numericKey(id);
    if (k < 0) {
      const prev = this.other.get(id);
      if (prev !== undefined) return prev;
      this.other.set(id, index);
      return index;
    }
    if ((this.used + 1) * 2 > this.keys.length) this.grow();
    const mask = this.keys.length - 1;
    for (let h = hash(k) & mask; ; h = (h + 1) & mask) {
      const cur = this.keys[h];
      if (cur === k) return this.vals[h];
      if (cur === -1) {
        this.keys[h] = k;
        this.vals[h] = index;
        this.used++;
        return index;
      }
    }
  }

  private grow(): void {
    const oldK = this.keys;
    const oldV = this.vals;
    this.keys = new Float64Array(oldK.length * 2).fill(-1);
    this.vals = new Int32Array(oldK.length * 2);
    const mask = this.keys.length - 1;
    for (let i = 0; i < oldK.length; i++) {
      const k = oldK[i];
      if (k === -1) continue;
      let h = hash(k) & mask;
      while (this.keys[h] !== -1) h = (h + 1) & mask;
      this.keys[h] = k;
      this.vals[h] = oldV[i];
    }
  }
}

/** The id as a number when it is a canonical decimal of ≤ 15 digits, else -1. */
function numericKey(id: string): number {
  const n = id.length;
  if (n === 0 || n > 15) return -1;
  if (n > 1 && id.charCodeAt(0) === 48) return -1; // leading zero: "012" ≠ "12"
  let v = 0;
  for (let i = 0; i < n; i++) {
    const c = id.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

function hash(k: number): number {
  const lo = k >>> 0;
  const hi = Math.floor(k / 4294967296) >>> 0;
  let h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
