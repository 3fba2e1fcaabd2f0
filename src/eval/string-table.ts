/**
 * Interns byte strings (docnos, qids) to dense integer ids without creating a JS string per line: bytes are
 * copied once into an arena and found again through an open-addressing hash table. compare() is byte-wise, as
 * trec_eval's strcmp, so it can serve as the evaluator's docno tie-break order.
 */
export class StringTable {
  private arena = Buffer.allocUnsafe(1 << 16);
  private used = 0;
  /** starts[id]..starts[id+1] are the bytes of id. */
  private starts = new Uint32Array(1024);
  private hashes = new Int32Array(1024);
  private slots = new Int32Array(2048).fill(-1);
  /**
   * One bit per hash value modulo its size (≈ 16 bits per string, a few hundred KB): a clear bit proves a
   * string absent without touching the table, which makes the common case of find(), a run docno that is not
   * in the qrels, cheap and cache-friendly.
   */
  private filter = new Int32Array(2048);
  private filterMask = 2048 * 32 - 1;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Id of buf[start, end), adding it if new. */
  intern(buf: Uint8Array, start: number, end: number): number {
    const h = fnv1a(buf, start, end);
    const mask = this.slots.length - 1;
    let slot = h & mask;
    const len = end - start;
    for (;;) {
      const id = this.slots[slot];
      if (id < 0) break;
      if (this.hashes[id] === h) {
        const s = this.starts[id];
        if (this.starts[id + 1] - s === len && bytesEqual(this.arena, s, buf, start, len)) return id;
      }
      slot = (slot + 1) & mask;
    }
    return this.add(buf, start, end, h, slot);
  }

  /** Id of a JS string (encoded latin1 so each char is one byte, as the readers decode). */
  internString(s: string): number {
    const b = Buffer.from(s, 'latin1');
    return this.intern(b, 0, b.length);
  }

  /** Hash of the bytes looked up by the last find() (callers reuse it for their own sets). */
  lastHash = 0;

  /** Id of buf[start, end), or -1. */
  find(buf: Uint8Array, start: number, end: number): number {
    const h = fnv1a(buf, start, end);
    this.lastHash = h;
    return this.findHashed(buf, start, end, h);
  }

  /** find() with the hash already computed by the caller as fnv1a(buf, start, end). */
  findHashed(buf: Uint8Array, start: number, end: number, h: number): number {
    const bit = h & this.filterMask;
    if ((this.filter[bit >>> 5] & (1 << (bit & 31))) === 0) return -1;
    const mask = this.slots.length - 1;
    let slot = h & mask;
    const len = end - start;
    for (;;) {
      const id = this.slots[slot];
      if (id < 0) return -1;
      if (this.hashes[id] === h) {
        const s = this.starts[id];
        if (this.starts[id + 1] - s === len && bytesEqual(this.arena, s, buf, start, len)) return id;
      }
      slot = (slot + 1) & mask;
    }
  }

  /**
   * The arrays findHashed() probes, as they are now (valid until the next intern), for the compiled run reader
   * (native/trec-reader.cc), which looks docnos up in them exactly as findHashed() does.
   */
  lookupArrays(): { arena: Uint8Array; starts: Uint32Array; hashes: Int32Array; slots: Int32Array; filter: Int32Array; filterMask: number } {
    return { arena: this.arena, starts: this.starts, hashes: this.hashes, slots: this.slots, filter: this.filter, filterMask: this.filterMask };
  }

  /**
   * Take over a table the compiled qrels reader (native/trec-reader.cc) built as intern() builds one: id i is
   * arena[starts[i], starts[i + 1]) with hash hashes[i]; slots and filter as lookupArrays() has them. The table
   * must be empty; interning goes on from there.
   */
  adopt(t: { arena: Uint8Array; starts: Uint32Array; hashes: Int32Array; slots: Int32Array; filter: Int32Array; filterMask: number; count: number }): void {
    if (this.count !== 0) throw new Error('StringTable.adopt: the table is not empty');
    this.arena = Buffer.from(t.arena.buffer, t.arena.byteOffset, t.arena.byteLength);
    this.used = t.starts[t.count];
    this.starts = t.starts;
    this.hashes = t.hashes;
    this.slots = t.slots;
    this.filter = t.filter;
    this.filterMask = t.filterMask;
    this.count = t.count;
  }

  /** Start of id's bytes in bytes(). */
  start(id: number): number {
    return this.starts[id];
  }

  /** End of id's bytes in bytes(). */
  end(id: number): number {
    return this.starts[id + 1];
  }

  /** The arena holding every id's bytes (valid until the next intern). */
  bytes(): Uint8Array {
    return this.arena;
  }

  /** strcmp sign of the bytes of a and b. */
  compare(a: number, b: number): number {
    return this.arena.compare(this.arena, this.starts[b], this.starts[b + 1], this.starts[a], this.starts[a + 1]);
  }

  /** The string (latin1: one char per byte, so JS string order equals byte order). */
  get(id: number): string {
    return this.arena.toString('latin1', this.starts[id], this.starts[id + 1]);
  }

  /** Ids sorted by bytes ascending. */
  sortedIds(): Uint32Array {
    const ids = new Uint32Array(this.count);
    for (let i = 0; i < ids.length; i++) ids[i] = i;
    return ids.sort((a, b) => this.compare(a, b));
  }

  private add(buf: Uint8Array, start: number, end: number, h: number, slot: number): number {
    const id = this.count;
    const len = end - start;
    if (this.used + len > this.arena.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.arena.length * 2, this.used + len));
      this.arena.copy(bigger, 0, 0, this.used);
      this.arena = bigger;
    }
    const arena = this.arena;
    for (let i = 0, o = this.used; i < len; i++) arena[o + i] = buf[start + i];
    if (id + 2 > this.starts.length) {
      const s = new Uint32Array(this.starts.length * 2);
      s.set(this.starts);
      this.starts = s;
      const hs = new Int32Array(s.length);
      hs.set(this.hashes.subarray(0, id));
      this.hashes = hs;
    }
    this.starts[id] = this.used;
    this.used += len;
    this.starts[id + 1] = this.used;
    this.hashes[id] = h;
    this.slots[slot] = id;
    const bit = h & this.filterMask;
    this.filter[bit >>> 5] |= 1 << (bit & 31);
    this.count++;
    if (this.count * 2 > this.slots.length) this.rehash();
    return id;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2).fill(-1);
    const mask = slots.length - 1;
    for (let id = 0; id < this.count; id++) {
      let slot = this.hashes[id] & mask;
      while (slots[slot] >= 0) slot = (slot + 1) & mask;
      slots[slot] = id;
    }
    this.slots = slots;
    // The filter keeps ≥ 16 bits per string.
    if (this.count * 16 > this.filterMask + 1) {
      const filter = new Int32Array(((this.filterMask + 1) * 4) >>> 5);
      const fmask = filter.length * 32 - 1;
      for (let id = 0; id < this.count; id++) {
        const bit = this.hashes[id] & fmask;
        filter[bit >>> 5] |= 1 << (bit & 31);
      }
      this.filter = filter;
      this.filterMask = fmask;
    }
  }
}

/**
 * FNV-1a with a final avalanche, as a signed 32-bit integer: V8 keeps it a small integer everywhere, where an
 * unsigned value above 2^31 becomes a heap number whenever it is passed to a function V8 did not inline.
 */
export function fnv1a(buf: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i], 0x01000193);
  // Final avalanche so linear probing on the low bits stays short for similar docnos.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h;
}

function bytesEqual(a: Uint8Array, as: number, b: Uint8Array, bs: number, len: number): boolean {
  for (let i = 0; i < len; i++) if (a[as + i] !== b[bs + i]) return false;
  return true;
}

/** Bytes as a latin1 string (one char per byte, as every reader and writer of TREC files decodes them). */
export function latin1(buf: Uint8Array, s: number, e: number): string {
  return Buffer.from(buf.buffer, buf.byteOffset + s, e - s).toString('latin1');
}
