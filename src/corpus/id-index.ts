/**
 * paper_id → dense index, sized for tens of millions of ids. Indices are dense: the i-th distinct id added gets
 * index i (every caller numbers ids in input order). S2ORC ids are decimal strings; those without a leading zero
 * and with at most 15 digits are kept as numbers: the key of index i in a chunked float64 column, and an
 * open-addressing table of int32 slots holding index + 1, at most half full — 16–24 bytes per id (a Map of
 * strings takes ~100), and no copy of the keys when the table doubles. Any other id falls back to a Map.
 */
const CHUNK_BITS = 16;
const CHUNK = 1 << CHUNK_BITS;

export class IdIndex {
  private slots: Int32Array;
  private readonly keys: Float64Array[] = [];
  private numeric = 0;
  private count = 0;
  private readonly other = new Map<string, number>();

  constructor(capacity = 1 << 16) {
    let cap = 1 << 4;
    while (cap < capacity * 2) cap <<= 1;
    this.slots = new Int32Array(cap);
  }

  get size(): number {
    return this.count;
  }

  private key(index: number): number {
    return this.keys[index >>> CHUNK_BITS][index & (CHUNK - 1)];
  }

  private find(k: number): number {
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let h = hash(k) & mask; ; h = (h + 1) & mask) {
      const s = slots[h];
      if (s === 0) return -1;
      if (this.key(s - 1) === k) return s - 1;
    }
  }

  /** The index of `id`, or -1. */
  get(id: string): number {
    const k = numericKey(id);
    return k < 0 ? (this.other.get(id) ?? -1) : this.find(k);
  }

  /** Like get(), for an id that numericKey() turned into the number k (≥ 0). */
  getNumeric(k: number): number {
    return this.find(k);
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
    return v < 0 ? (this.other.get(buf.toString('utf8', start, end)) ?? -1) : this.find(v);
  }

  /**
   * Insert id with the next index (`index` must equal `size`: indices are dense); returns the existing index
   * instead if the id is already present.
   */
  add(id: string, index: number): number {
    const k = numericKey(id);
    const prev = k < 0 ? (this.other.get(id) ?? -1) : this.find(k);
    if (prev >= 0) return prev;
    if (index !== this.count) throw new Error(`IdIndex.add: index ${index} given, ${this.count} expected (indices are dense)`);
    const c = index >>> CHUNK_BITS;
    if (c === this.keys.length) this.keys.push(new Float64Array(CHUNK));
    this.count++;
    if (k < 0) {
      this.other.set(id, index);
      return index;
    }
    this.keys[c][index & (CHUNK - 1)] = k;
    if ((this.numeric + 1) * 2 > this.slots.length) this.grow();
    this.place(this.slots, index);
    this.numeric++;
    return index;
  }

  private place(slots: Int32Array, index: number): void {
    const mask = slots.length - 1;
    let h = hash(this.key(index)) & mask;
    while (slots[h] !== 0) h = (h + 1) & mask;
    slots[h] = index + 1;
  }

  private grow(): void {
    const old = this.slots;
    const next = new Int32Array(old.length * 2);
    for (let i = 0; i < old.length; i++) if (old[i] !== 0) this.place(next, old[i] - 1);
    this.slots = next;
  }
}

/** The id as a number when it is a canonical decimal of ≤ 15 digits, else -1. */
export function numericKey(id: string): number {
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
