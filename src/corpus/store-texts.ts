/**
 * The texts of a corpus store (text.bin + text.off.f64): read by position, or scanned sequentially in 8 MiB
 * blocks. CorpusStore reads its texts through this class; index workers open it alone, because they need
 * neither ids nor the citation graph (~300 MB at a million articles).
 */
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { ArticleText, TextSource } from './article.ts';
import { FILES } from './store-format.ts';
import { CitebenchError } from '../util/errors.ts';

export class StoreTexts implements TextSource {
  readonly size: number;
  private readonly off: Float64Array;
  private readonly fd: number;
  private readonly decoder = new TextDecoder();

  constructor(readonly dir: string) {
    const offPath = join(dir, FILES.textOff);
    if (!existsSync(offPath) || !existsSync(join(dir, FILES.text))) {
      throw new CitebenchError(`${dir}: not a corpus store (missing ${FILES.text} or ${FILES.textOff})`);
    }
    const b = readFileSync(offPath);
    this.off = new Float64Array(b.byteLength / 8);
    new Uint8Array(this.off.buffer).set(b);
    if (this.off.length % 2 !== 1) throw new CitebenchError(`${offPath}: expected 2N+1 offsets, got ${this.off.length}`);
    this.size = (this.off.length - 1) / 2;
    this.fd = openSync(join(dir, FILES.text), 'r');
  }

  close(): void {
    closeSync(this.fd);
  }

  private read(start: number, end: number, buf = Buffer.allocUnsafe(end - start)): Buffer {
    let got = 0;
    while (got < end - start) {
      const r = readSync(this.fd, buf, got, end - start - got, start + got);
      if (r <= 0) throw new CitebenchError(`${this.dir}: ${FILES.text} is shorter than its offsets say`);
      got += r;
    }
    return buf;
  }

  text(i: number): ArticleText {
    const [start, mid, end] = [this.off[2 * i], this.off[2 * i + 1], this.off[2 * i + 2]];
    const buf = this.read(start, end);
    return { title: buf.toString('utf8', 0, mid - start), abstract: buf.toString('utf8', mid - start) };
  }

  *texts(from = 0, to = this.size): Generator<ArticleText & { index: number }> {
    for (const r of this.scan(from, to)) {
      yield { index: r.index, title: this.decoder.decode(r.buf.subarray(r.start, r.mid)), abstract: this.decoder.decode(r.buf.subarray(r.mid, r.end)) };
    }
  }

  /**
   * Sequential scan of each article's BM25 text, `title + " " + abstract` or the title alone (analyzer.ts
   * articleText), decoded at once into one flat string: the concatenation of two decoded strings is a rope that
   * the tokenizer reads more slowly, character by character.
   */
  *articleTexts(from = 0, to = this.size): Generator<{ index: number; text: string }> {
    let joined = Buffer.allocUnsafe(1 << 16);
    for (const r of this.scan(from, to)) {
      const { buf, start, mid, end } = r;
      // A byte-order mark opening the abstract is dropped by its own decoding (as texts() gives it), kept inside
      // one: those few take the concatenation.
      if (end - mid >= 3 && buf[mid] === 0xef && buf[mid + 1] === 0xbb && buf[mid + 2] === 0xbf) {
        const title = this.decoder.decode(buf.subarray(start, mid));
        const abstract = this.decoder.decode(buf.subarray(mid, end));
        yield { index: r.index, text: abstract ? `${title} ${abstract}` : title };
        continue;
      }
      if (mid === end) {
        yield { index: r.index, text: this.decoder.decode(buf.subarray(start, mid)) };
        continue;
      }
      const n = end - start + 1;
      if (n > joined.length) joined = Buffer.allocUnsafe(n);
      buf.copy(joined, 0, start, mid);
      joined[mid - start] = 0x20;
      buf.copy(joined, mid - start + 1, mid, end);
      yield { index: r.index, text: this.decoder.decode(joined.subarray(0, n)) };
    }
  }

  /** The bytes of each article in [from, to): title [start, mid), abstract [mid, end) of `buf` (valid until the next). */
  private *scan(from: number, to: number): Generator<{ index: number; buf: Buffer; start: number; mid: number; end: number }> {
    const off = this.off;
    let buf = Buffer.allocUnsafe(8 << 20);
    let bufStart = 0;
    let bufEnd = 0;
    for (let i = from; i < to; i++) {
      const start = off[2 * i];
      const mid = off[2 * i + 1];
      const end = off[2 * i + 2];
      if (start < bufStart || end > bufEnd) {
        if (end - start > buf.length) buf = Buffer.allocUnsafe(end - start);
        const want = Math.min(buf.length, off[2 * to] - start);
        this.read(start, start + want, buf);
        bufStart = start;
        bufEnd = start + want;
      }
      const a = start - bufStart;
      yield { index: i, buf, start: a, mid: a + (mid - start), end: a + (end - start) };
    }
  }
}
