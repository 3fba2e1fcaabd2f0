/**
 * A cache from raw token text (a range of the document string) to an integer, looked up without allocating a
 * string: at millions of documents, slicing and hashing a fresh string per token dominated indexing time.
 * Open addressing on a 32-bit FNV-1a hash of the UTF-16 units; keys kept as strings for the equality check.
 */
export const ABSENT = -2;

export function hashRange(text: string, s: number, e: number): number {
  let h = 0x811c9dc5;
  for (let i = s; i < e; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export class TokenTable {
  private slots: Int32Array;
  private keys: string[] = [];
  private hashes = new Uint32Array(1024);
  private values = new Int32Array(1024);

  constructor(
    /** Entries kept before the cache is emptied (bounded memory on huge vocabularies). */
    private readonly maxEntries = 4_000_000,
  ) {
    this.slots = new Int32Array(1 << 12).fill(-1);
  }

  get size(): number {
    return this.keys.length;
  }

  /** Value stored for text[s, e) with hash h, or ABSENT. */
  get(text: string, s: number, e: number, h: number): number {
    const mask = this.slots.length - 1;
    const len = e - s;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const slot = this.slots[i];
      if (slot < 0) return ABSENT;
      if (this.hashes[slot] !== h) continue;
      const key = this.keys[slot];
      if (key.length !== len) continue;
      let same = true;
      for (let j = 0; j < len; j++) {
        if (key.charCodeAt(j) !== text.charCodeAt(s + j)) {
          same = false;
          break;
        }
      }
      if (same) return this.values[slot];
    }
  }

  /** Store a key known to be absent. */
  add(key: string, h: number, value: number): void {
    if (this.keys.length >= this.maxEntries) this.clear();
    const entry = this.keys.length;
    if (entry === this.hashes.length) {
      const hs = new Uint32Array(entry * 2);
      hs.set(this.hashes);
      this.hashes = hs;
      const vs = new Int32Array(entry * 2);
      vs.set(this.values);
      this.values = vs;
    }
    this.keys.push(key);
    this.hashes[entry] = h;
    this.values[entry] = value;
    if (this.keys.length * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    else this.place(entry);
  }

  private place(entry: number): void {
    const mask = this.slots.length - 1;
    let i = this.hashes[entry] & mask;
    while (this.slots[i] >= 0) i = (i + 1) & mask;
    this.slots[i] = entry;
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size).fill(-1);
    for (let e = 0; e < this.keys.length; e++) this.place(e);
  }

  clear(): void {
    this.keys = [];
    this.slots = new Int32Array(1 << 12).fill(-1);
  }
}
