/** Append-only typed arrays that double their capacity: columnar accumulation without JS object graphs. */
type TypedArray = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float32Array | Float64Array;
type Ctor<T extends TypedArray> = { new (n: number): T };

export class Growable<T extends TypedArray> {
  private buf: T;
  length = 0;

  constructor(
    private readonly ctor: Ctor<T>,
    capacity = 1024,
  ) {
    this.buf = new ctor(Math.max(16, capacity));
  }

  push(v: number): void {
    if (this.length === this.buf.length) this.reserve(this.length + 1);
    this.buf[this.length++] = v;
  }

  reserve(n: number): void {
    if (n <= this.buf.length) return;
    let cap = this.buf.length;
    while (cap < n) cap *= 2;
    const next = new this.ctor(cap);
    next.set(this.buf.subarray(0, this.length) as any);
    this.buf = next;
  }

  /** Append every value of `values` (e.g. the bytes of a string into a Growable<Uint8Array>). */
  pushAll(values: ArrayLike<number>): void {
    this.reserve(this.length + values.length);
    (this.buf as TypedArray).set(values, this.length);
    this.length += values.length;
  }

  get(i: number): number {
    return this.buf[i];
  }

  /** Add to element i in place (counters kept beside pushed columns). */
  add(i: number, delta: number): void {
    this.buf[i] += delta;
  }

  /** A view of the filled part (shares memory until the next push that grows). */
  view(): T {
    return this.buf.subarray(0, this.length) as T;
  }

  /** Shrink the capacity to the length (a right-sized copy replaces the buffer): frees the doubling's slack. */
  compact(): void {
    if (this.buf.length > this.length) this.buf = this.buf.slice(0, Math.max(16, this.length)) as T;
  }

  /** A right-sized copy; the growable can then be dropped. */
  toArray(): T {
    return this.buf.slice(0, this.length) as T;
  }
}
