/**
 * External sorts with bounded memory: items are collected into runs of at most `runBytes`, each run is sorted in
 * memory and spilled to a file under `dir`, and `sorted()` merges the runs with a heap, reading each through a
 * small buffer. Memory is O(runBytes + runs × merge buffer) whatever the input size; the disk holds one copy of
 * the data. `sorted()` may be called again (the runs stay until `dispose()`), and a sort can be reopened from its
 * run files (`runFiles`) by a later process: a long job resumes with the runs it has already written.
 *   - PairSorter: (key, value) pairs of u32, ordered by key then value (a total order: the output does not depend
 *     on the input order). Packed into u64 words and sorted natively.
 *   - KeyValueSorter: (key, value), key a safe integer (< 2^53), value a u32, ordered by key then value (radix
 *     sorted runs).
 *   - RecordSorter: (key, payload bytes), key a non-negative safe integer, ordered by key, then by `tie` on the
 *     payloads when one is given, then by arrival (stable).
 */
import { rmSync, statfsSync } from 'node:fs';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { BufferedReader, BufferedWriter } from './buffered-file.ts';
import { CitebenchError } from './errors.ts';

if (endianness() !== 'LE') throw new CitebenchError('citebench needs a little-endian machine (external sort packs u32 pairs into u64 words)');

const TWO32 = 2 ** 32;

/** Free bytes on the file system holding `dir`. */
function freeBytes(dir: string): number {
  const fs = statfsSync(dir);
  return fs.bavail * fs.bsize;
}

/** Read buffer per run while merging: 1 MiB, less when many runs would together take more than 512 MiB. */
function mergeBuffer(runs: number): number {
  return Math.max(64 << 10, Math.min(1 << 20, Math.floor((512 << 20) / Math.max(1, runs))));
}

abstract class Runs {
  protected readonly files: string[];
  /** Replaceable for tests (a full disk cannot be made on demand). */
  free: (dir: string) => number = freeBytes;
  constructor(
    protected readonly dir: string,
    protected readonly name: string,
    runs: readonly string[] = [],
  ) {
    this.files = [...runs];
  }

  /** Run files spilled so far (a sort that fit in memory has one, or none when empty). */
  get runs(): number {
    return this.files.length;
  }

  /** The run files, in order: what a later process passes back to reopen the sort. */
  get runFiles(): string[] {
    return [...this.files];
  }

  /** Take over runs another sorter of the same kind wrote (a worker's), after this one's: they merge as if spilled here. */
  adopt(runs: readonly string[]): void {
    this.files.push(...runs);
  }

  /** The path of the next run, once the disk is known to have room for its `bytes`. */
  protected nextRunPath(bytes: number): string {
    const free = this.free(this.dir);
    if (free < bytes) {
      throw new CitebenchError(
        `${this.dir}: no room for the next external-sort run of ${this.name}: ${bytes} bytes needed, ${free} free (runs so far: ${this.files.length}); free space there or move the output`,
      );
    }
    const p = join(this.dir, `${this.name}.run${this.files.length}`);
    this.files.push(p);
    return p;
  }

  protected readers(): BufferedReader[] {
    const size = mergeBuffer(this.files.length);
    return this.files.map((f) => new BufferedReader(f, size));
  }

  /**
   * The runs' fixed-size (key, u32 value) records merged in (key, value) order, equal records from the earlier
   * run first: `bytes` a record; within it the key's low u32 at `lowAt`, its high u32 at `highAt` (−1: none), the
   * value at `valueAt`. Offsets, not a callback: one monomorphic loop for both sorters. Yields one array, overwritten.
   */
  protected *mergeKeyValue(bytes: number, lowAt: number, highAt: number, valueAt: number): Generator<[number, number]> {
    const readers = this.readers();
    const key = new Float64Array(readers.length); // exact for every key either sorter holds (< 2^53)
    const val = new Uint32Array(readers.length);
    const next = (r: number): boolean => {
      const rd = readers[r];
      if (rd.done) return false;
      rd.ensure(bytes);
      key[r] = rd.buf.readUInt32LE(rd.pos + lowAt) + (highAt < 0 ? 0 : rd.buf.readUInt32LE(rd.pos + highAt) * TWO32);
      val[r] = rd.buf.readUInt32LE(rd.pos + valueAt);
      rd.pos += bytes;
      return true;
    };
    const heap = new Heap((a, b) => key[a] < key[b] || (key[a] === key[b] && (val[a] < val[b] || (val[a] === val[b] && a < b))));
    try {
      for (let r = 0; r < readers.length; r++) if (next(r)) heap.push(r);
      const out: [number, number] = [0, 0];
      while (heap.items.length) {
        const r = heap.items[0];
        out[0] = key[r];
        out[1] = val[r];
        yield out;
        heap.fixTop(!next(r));
      }
    } finally {
      for (const rd of readers) rd.close();
    }
  }

  /** Delete the run files. */
  dispose(): void {
    for (const f of this.files) rmSync(f, { force: true });
  }
}

/** A binary min-heap of run indices, ordered by `less`. */
class Heap {
  readonly items: number[] = [];
  constructor(private readonly less: (a: number, b: number) => boolean) {}
  push(x: number): void {
    const h = this.items;
    h.push(x);
    for (let i = h.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (!this.less(h[i], h[p])) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }
  /** Restore order after the top's key changed (or remove it when `remove`). */
  fixTop(remove: boolean): void {
    const h = this.items;
    if (remove) {
      const last = h.pop()!;
      if (h.length === 0) return;
      h[0] = last;
    }
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.less(h[l], h[m])) m = l;
      if (r < h.length && this.less(h[r], h[m])) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m], h[i]];
      i = m;
    }
  }
}

export class PairSorter extends Runs {
  private words = new BigUint64Array(0);
  private halves = new Uint32Array(0);
  private used = 0;
  count = 0;

  constructor(
    dir: string,
    name: string,
    private readonly runBytes = 256 << 20,
    runs: readonly string[] = [],
  ) {
    super(dir, name, runs);
  }

  add(key: number, value: number): void {
    if (this.used === this.words.length) {
      if (this.words.length === 0) {
        // Allocated on first use: a sorter that never receives a pair costs nothing.
        this.words = new BigUint64Array(Math.max(2, Math.floor(this.runBytes / 8)));
        this.halves = new Uint32Array(this.words.buffer);
      } else this.spill();
    }
    // Little-endian: the high half (key) sorts first.
    this.halves[2 * this.used] = value;
    this.halves[2 * this.used + 1] = key;
    this.used++;
    this.count++;
  }

  /** Write what is in memory as a run (nothing when empty). */
  spill(): void {
    if (this.used === 0) return;
    const run = this.words.subarray(0, this.used).sort();
    const w = new BufferedWriter(this.nextRunPath(run.byteLength));
    w.writeBytes(new Uint8Array(run.buffer, run.byteOffset, run.byteLength));
    w.close();
    this.used = 0;
  }

  /** Every pair in order, as [key, value] (the same array, overwritten on each step). */
  sorted(): Generator<[number, number]> {
    this.spill();
    this.words = new BigUint64Array(0); // the buffer is not needed while merging
    this.halves = new Uint32Array(0);
    return this.mergeKeyValue(8, 4, -1, 0); // little-endian u64 words: value, then key
  }
}

export class KeyValueSorter extends Runs {
  private hi = new Uint32Array(0);
  private lo = new Uint32Array(0);
  private val = new Uint32Array(0);
  private used = 0;
  count = 0;

  constructor(
    dir: string,
    name: string,
    private readonly runBytes = 256 << 20,
    runs: readonly string[] = [],
  ) {
    super(dir, name, runs);
  }

  add(key: number, value: number): void {
    if (this.used === this.hi.length) {
      if (this.hi.length === 0) {
        // 12 bytes an item, and as much again for the radix sort's second buffers.
        const n = Math.max(2, Math.floor(this.runBytes / 24));
        this.hi = new Uint32Array(n);
        this.lo = new Uint32Array(n);
        this.val = new Uint32Array(n);
      } else this.spill();
    }
    this.hi[this.used] = Math.floor(key / TWO32);
    this.lo[this.used] = key >>> 0;
    this.val[this.used] = value;
    this.used++;
    this.count++;
  }

  /** Write what is in memory as a run (nothing when empty). */
  spill(): void {
    if (this.used === 0) return;
    const n = this.used;
    radixSort3(this.hi, this.lo, this.val, n);
    const w = new BufferedWriter(this.nextRunPath(12 * n));
    const rec = Buffer.allocUnsafe(12);
    for (let i = 0; i < n; i++) {
      rec.writeUInt32LE(this.lo[i], 0);
      rec.writeUInt32LE(this.hi[i], 4);
      rec.writeUInt32LE(this.val[i], 8);
      w.writeBytes(rec);
    }
    w.close();
    this.used = 0;
  }

  /** Every item in order, as [key, value] (the same array, overwritten on each step). */
  sorted(): Generator<[number, number]> {
    this.spill();
    this.hi = this.lo = this.val = new Uint32Array(0);
    return this.mergeKeyValue(12, 0, 4, 8); // key low, key high, value
  }
}

/**
 * Sort the first n items of three parallel u32 columns by (hi, lo, val): least-significant-digit radix sort,
 * 16 bits a pass, a pass skipped where every item has the same digit. The columns are sorted in place.
 */
function radixSort3(hi: Uint32Array, lo: Uint32Array, val: Uint32Array, n: number): void {
  let cols = [hi.subarray(0, n), lo.subarray(0, n), val.subarray(0, n)];
  let spare = [new Uint32Array(n), new Uint32Array(n), new Uint32Array(n)];
  let swapped = false;
  const counts = new Uint32Array(65537);
  // Least significant first: the value, then lo, then hi.
  for (const [col, shift] of [[2, 0], [2, 16], [1, 0], [1, 16], [0, 0], [0, 16]] as const) {
    const src = cols[col];
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[((src[i] >>> shift) & 0xffff) + 1]++;
    if (counts.some((c) => c === n)) continue;
    for (let d = 0; d < 65536; d++) counts[d + 1] += counts[d];
    const [h, l, v] = cols;
    const [h2, l2, v2] = spare;
    for (let i = 0; i < n; i++) {
      const p = counts[(src[i] >>> shift) & 0xffff]++;
      h2[p] = h[i];
      l2[p] = l[i];
      v2[p] = v[i];
    }
    [cols, spare] = [spare, cols];
    swapped = !swapped;
  }
  if (swapped) {
    hi.set(cols[0]);
    lo.set(cols[1]);
    val.set(cols[2]);
  }
}

export class RecordSorter extends Runs {
  private keys: number[] = [];
  private payloads: Uint8Array[] = [];
  private bytes = 0;
  count = 0;

  /**
   * `tie` orders two payloads of equal keys (negative: the first sorts first); without it, or where it returns 0,
   * arrival order decides.
   */
  constructor(
    dir: string,
    name: string,
    private readonly runBytes = 256 << 20,
    private readonly tie?: (a: Uint8Array, b: Uint8Array) => number,
    runs: readonly string[] = [],
  ) {
    super(dir, name, runs);
  }

  add(key: number, payload: Uint8Array): void {
    if (!Number.isSafeInteger(key) || key < 0) throw new CitebenchError(`external sort: key ${key} is not a non-negative integer`);
    this.keys.push(key);
    this.payloads.push(payload);
    // Payload plus the per-item overhead of the arrays and the Buffer object.
    this.bytes += payload.length + 96;
    this.count++;
    if (this.bytes >= this.runBytes) this.spill();
  }

  /** Write what is in memory as a run (nothing when empty). */
  spill(): void {
    const n = this.keys.length;
    if (n === 0) return;
    const idx = new Uint32Array(n);
    for (let i = 0; i < n; i++) idx[i] = i;
    const { keys, payloads, tie } = this;
    // Stable: ties keep arrival order (the index).
    idx.sort((a, b) => keys[a] - keys[b] || (tie ? tie(payloads[a], payloads[b]) : 0) || a - b);
    let bytes = 0;
    for (const p of payloads) bytes += 12 + p.length;
    const w = new BufferedWriter(this.nextRunPath(bytes));
    const head = Buffer.allocUnsafe(12);
    for (const i of idx) {
      head.writeDoubleLE(keys[i], 0);
      head.writeUInt32LE(payloads[i].length, 8);
      w.writeBytes(head);
      w.writeBytes(payloads[i]);
    }
    w.close();
    this.keys = [];
    this.payloads = [];
    this.bytes = 0;
  }

  /** Every record in order; `payload` is a view valid until the next step. */
  *sorted(): Generator<{ key: number; payload: Buffer }> {
    this.spill();
    const readers = this.readers();
    const key = new Float64Array(readers.length);
    const len = new Uint32Array(readers.length);
    const next = (r: number): boolean => {
      const rd = readers[r];
      if (rd.done) return false;
      rd.ensure(12);
      key[r] = rd.buf.readDoubleLE(rd.pos);
      len[r] = rd.buf.readUInt32LE(rd.pos + 8);
      rd.pos += 12;
      rd.ensure(len[r]);
      return true;
    };
    const tie = this.tie;
    const view = (r: number) => readers[r].buf.subarray(readers[r].pos, readers[r].pos + len[r]);
    // Runs hold consecutive stretches of the input, so equal records are taken from the earlier run first.
    const heap = new Heap((a, b) => key[a] < key[b] || (key[a] === key[b] && ((tie ? tie(view(a), view(b)) : 0) || a - b) < 0));
    try {
      for (let r = 0; r < readers.length; r++) if (next(r)) heap.push(r);
      while (heap.items.length) {
        const r = heap.items[0];
        const rd = readers[r];
        yield { key: key[r], payload: rd.buf.subarray(rd.pos, rd.pos + len[r]) };
        rd.pos += len[r];
        heap.fixTop(!next(r));
      }
    } finally {
      for (const rd of readers) rd.close();
    }
  }
}
