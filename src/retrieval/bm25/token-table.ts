/**
 * A cache from raw token text (a range of the document string) to an integer, looked up without allocating a
 * string: at millions of documents, slicing and hashing a fresh string per token dominated indexing time.
 * Open addressing on a 32-bit FNV-1a hash of the UTF-16 units. Each slot holds its hash, value and the key's
 * place in one flat array of UTF-16 units, side by side: a lookup touches one slot and one run of units, where
 * a table of slot → entry → hash, entry → key string took four scattered loads (≈ 250 ns a token, most of a
 * build's time, bench/bm25).
 */
export const ABSENT = -2;

export function hashRange(text: string, s: number, e: number): number {
  let h = 0x811c9dc5;
  for (let i = s; i < e; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Int32 fields per slot: hash, value, key start in `units`, key length (0 = empty slot; tokens are never empty). */
const SLOT = 4;

export class TokenTable {
  private slots: Int32Array;
  private units = new Uint16Array(1 << 14);
  private unitsUsed = 0;
  private count = 0;

  constructor(
    /** Entries kept before the cache is emptied (bounded memory on huge vocabularies). */
    private readonly maxEntries = 4_000_000,
  ) {
    this.slots = new Int32Array(SLOT << 12);
  }

  get size(): number {
    return this.count;
  }

  /** Value stored for text[s, e) with hash h, or ABSENT. */
  get(text: string, s: number, e: number, h: number): number {
    const slots = this.slots;
    const units = this.units;
    const mask = (slots.length >> 2) - 1;
    const len = e - s;
    const hs = h | 0;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const at = i << 2;
      const keyLen = slots[at + 3];
      if (keyLen === 0) return ABSENT;
      if (slots[at] !== hs || keyLen !== len) continue;
      const from = slots[at + 2] - s;
      let j = s;
      while (j < e && units[from + j] === text.charCodeAt(j)) j++;
      if (j === e) return slots[at + 1];
    }
  }

  /** Store a key known to be absent (non-empty). */
  add(key: string, h: number, value: number): void {
    if (this.count >= this.maxEntries) this.clear();
    const len = key.length;
    if (this.unitsUsed + len > this.units.length) {
      let cap = this.units.length * 2;
      while (this.unitsUsed + len > cap) cap *= 2;
      const u = new Uint16Array(cap);
      u.set(this.units.subarray(0, this.unitsUsed));
      this.units = u;
    }
    const start = this.unitsUsed;
    for (let j = 0; j < len; j++) this.units[start + j] = key.charCodeAt(j);
    this.unitsUsed += len;
    this.count++;
    if (this.count * 2 > this.slots.length >> 2) this.rehash((this.slots.length >> 2) * 2);
    this.place(this.slots, h | 0, value, start, len);
  }

  private place(slots: Int32Array, h: number, value: number, start: number, len: number): void {
    const mask = (slots.length >> 2) - 1;
    let i = h & mask;
    while (slots[(i << 2) + 3] !== 0) i = (i + 1) & mask;
    const at = i << 2;
    slots[at] = h;
    slots[at + 1] = value;
    slots[at + 2] = start;
    slots[at + 3] = len;
  }

  private rehash(size: number): void {
    const old = this.slots;
    const slots = new Int32Array(SLOT * size);
    for (let at = 0; at < old.length; at += SLOT) {
      if (old[at + 3] !== 0) this.place(slots, old[at], old[at + 1], old[at + 2], old[at + 3]);
    }
    this.slots = slots;
  }

  clear(): void {
    this.count = 0;
    this.unitsUsed = 0;
    this.slots = new Int32Array(SLOT << 12);
  }
}
