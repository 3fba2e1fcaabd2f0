/** Sequential binary files with large buffers: temporary spools and columns written or read front to back. */
import { closeSync, existsSync, fstatSync, ftruncateSync, openSync, readSync, rmSync, writeSync } from 'node:fs';

/**
 * Sequential file writer with an 8 MiB buffer and a byte position. `inPlace` rewrites an existing file from its
 * start and cuts it at the last byte written on close: a filter that reads the same file ahead of what it writes
 * (a BufferedReader on it) compacts it without a second copy on disk.
 */
export class BufferedWriter {
  private readonly fd: number;
  private readonly buf = Buffer.allocUnsafe(8 << 20);
  private used = 0;
  position = 0;

  constructor(
    path: string,
    private readonly opts: { inPlace?: boolean } = {},
  ) {
    if (opts.inPlace) {
      this.fd = openSync(path, 'r+');
      return;
    }
    if (existsSync(path)) rmSync(path);
    this.fd = openSync(path, 'w');
  }

  write(s: string): void {
    if (s.length * 3 > this.buf.length - this.used) this.flush();
    if (s.length * 3 > this.buf.length) {
      this.writeBytes(Buffer.from(s, 'utf8'));
      return;
    }
    const n = this.buf.write(s, this.used, "utf8");
    this.used += n;
    this.position += n;
  }

  u32(v: number): void {
    if (this.buf.length - this.used < 4) this.flush();
    this.buf.writeUInt32LE(v, this.used);
    this.used += 4;
    this.position += 4;
  }

  u8(v: number): void {
    if (this.buf.length - this.used < 1) this.flush();
    this.buf[this.used++] = v;
    this.position++;
  }

  /** An unsigned integer in `bytes` (1–6) little-endian bytes. */
  uintLE(v: number, bytes: number): void {
    if (this.buf.length - this.used < bytes) this.flush();
    this.buf.writeUIntLE(v, this.used, bytes);
    this.used += bytes;
    this.position += bytes;
  }

  u16(v: number): void {
    if (this.buf.length - this.used < 2) this.flush();
    this.buf.writeUInt16LE(v, this.used);
    this.used += 2;
    this.position += 2;
  }

  writeBytes(b: Uint8Array): void {
    if (b.length > this.buf.length - this.used) this.flush();
    if (b.length > this.buf.length) {
      writeAllSync(this.fd, b);
    } else {
      this.buf.set(b, this.used);
      this.used += b.length;
    }
    this.position += b.length;
  }

  flush(): void {
    writeAllSync(this.fd, this.buf.subarray(0, this.used));
    this.used = 0;
  }

  close(): void {
    this.flush();
    if (this.opts.inPlace) ftruncateSync(this.fd, this.position);
    closeSync(this.fd);
  }
}

/** Sequential reader: `ensure(n)` guarantees n readable bytes at `buf[pos..]` (or throws at end of file). */
export class BufferedReader {
  private readonly fd: number;
  buf: Buffer;
  pos = 0;
  private end = 0;
  private eof = false;

  constructor(
    readonly path: string,
    size = 8 << 20,
  ) {
    this.fd = openSync(path, 'r');
    this.buf = Buffer.allocUnsafe(size);
  }

  /** True when every byte has been consumed. */
  get done(): boolean {
    if (this.pos < this.end) return false;
    if (!this.eof) this.fill(1);
    return this.pos >= this.end;
  }

  ensure(n: number): void {
    if (this.end - this.pos < n) this.fill(n);
    if (this.end - this.pos < n) throw new Error(`${this.path}: unexpected end of file`);
  }

  u32(): number {
    this.ensure(4);
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }

  u16(): number {
    this.ensure(2);
    const v = this.buf.readUInt16LE(this.pos);
    this.pos += 2;
    return v;
  }

  private fill(n: number): void {
    const rest = this.end - this.pos;
    if (n > this.buf.length) {
      const bigger = Buffer.allocUnsafe(n);
      this.buf.copy(bigger, 0, this.pos, this.end);
      this.buf = bigger;
    } else {
      this.buf.copy(this.buf, 0, this.pos, this.end);
    }
    this.pos = 0;
    this.end = rest;
    while (!this.eof && this.end < this.buf.length) {
      const got = readSync(this.fd, this.buf, this.end, this.buf.length - this.end, null);
      if (got <= 0) this.eof = true;
      else this.end += got;
      if (this.end >= n) break;
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * A whole file's bytes in a new (or shared, for worker threads) buffer, read in 1 GiB slices: readFileSync stops
 * at 2 GiB and V8's Uint8Array at 2^32 elements, which a 16 M-article index's postings (7.9 GB) pass. Wrap the
 * buffer in the typed array the file holds.
 */
export function readFileBuffer(path: string, opts: { shared?: boolean } = {}): ArrayBuffer | SharedArrayBuffer {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const buffer = opts.shared ? new SharedArrayBuffer(size) : new ArrayBuffer(size);
    let got = 0;
    while (got < size) {
      const slice = new Uint8Array(buffer, got, Math.min(size - got, IO_SLICE));
      const r = readSync(fd, slice, 0, slice.length, got);
      if (r <= 0) throw new Error(`${path}: short read (${got} of ${size} bytes)`);
      got += r;
    }
    return buffer;
  } finally {
    closeSync(fd);
  }
}

/**
 * The most bytes one read or write call moves: readFileSync stops at 2 GiB, writeSync refuses more than 2 GiB per
 * call, and V8 refuses a Uint8Array of more than 2^32 elements.
 */
export const IO_SLICE = 1 << 30;

/** Write all of `bytes` at the file's position, in calls of at most IO_SLICE bytes (a call may write fewer). */
export function writeAllSync(fd: number, bytes: Uint8Array): void {
  let off = 0;
  while (off < bytes.byteLength) off += writeSync(fd, bytes, off, Math.min(bytes.byteLength - off, IO_SLICE));
}
