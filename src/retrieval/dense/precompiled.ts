/**
 * SentencePiece's `precompiled_charsmap` normaliser (XLM-R's nmt_nfkc), exactly as the Rust `tokenizers` library
 * applies it (normalizers/precompiled.rs over the spm_precompiled crate): the charsmap is a darts-clone double-array
 * trie over UTF-8 bytes plus a pool of NUL-terminated replacement strings; each grapheme cluster shorter than 6
 * bytes is replaced whole when a rule matches a prefix of it (the shortest matching rule wins, whatever its
 * length), else each character on its own. transformers.js approximates this with String.normalize('NFKC'),
 * which differs on control characters, some compatibility forms and grapheme clusters.
 */
import { CitebenchError } from '../../util/errors.ts';

export class PrecompiledCharsmap {
  private readonly units: Uint32Array;
  private readonly pool: Uint8Array;
  private readonly cache = new Map<string, string | null>();
  private static readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private static readonly encoder = new TextEncoder();
  private static readonly graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

  /** `base64`: the tokenizer.json `precompiled_charsmap`; `where` names it in errors. */
  constructor(base64: string, where: string) {
    const bytes = Buffer.from(base64, 'base64');
    const bad = (why: string) => new CitebenchError(`${where}: precompiled_charsmap is not a SentencePiece charsmap (${why})`);
    if (bytes.length < 4) throw bad('shorter than its header');
    const trieSize = bytes.readUInt32LE(0);
    if (trieSize % 4 !== 0 || 4 + trieSize > bytes.length) throw bad('trie size');
    this.units = new Uint32Array(trieSize / 4);
    for (let i = 0; i < this.units.length; i++) this.units[i] = bytes.readUInt32LE(4 + 4 * i);
    this.pool = new Uint8Array(bytes.buffer, bytes.byteOffset + 4 + trieSize, bytes.length - 4 - trieSize);
    if (this.units.length === 0) throw bad('empty trie');
  }

  /** The value of the shortest key that is a prefix of `key` (darts-clone commonPrefixSearch, first result). */
  private firstPrefix(key: Uint8Array): number | undefined {
    const u = this.units;
    const offset = (unit: number) => (unit >>> 10) << ((unit & (1 << 9)) >>> 6);
    let pos = offset(u[0]);
    for (const c of key) {
      if (c === 0) return undefined;
      pos ^= c;
      const unit = u[pos];
      if (unit === undefined || (unit & 0x800000ff) >>> 0 !== c) return undefined;
      pos ^= offset(unit);
      if ((unit >>> 8) & 1) return u[pos] & 0x7fffffff;
    }
    return undefined;
  }

  /** The replacement of `chunk`, or null when no rule matches a prefix of it. */
  private transform(chunk: string): string | null {
    const hit = this.cache.get(chunk);
    if (hit !== undefined) return hit;
    const v = this.firstPrefix(PrecompiledCharsmap.encoder.encode(chunk));
    let out: string | null = null;
    if (v !== undefined && v <= this.pool.length) {
      let end = v;
      while (end < this.pool.length && this.pool[end] !== 0) end++;
      out = PrecompiledCharsmap.decoder.decode(this.pool.subarray(v, end));
    }
    if (this.cache.size < 100_000) this.cache.set(chunk, out);
    return out;
  }

  normalize(text: string): string {
    let out = '';
    for (const { segment } of PrecompiledCharsmap.graphemes.segment(text)) {
      if (Buffer.byteLength(segment, 'utf8') < 6) {
        const whole = this.transform(segment);
        if (whole !== null) {
          out += whole;
          continue;
        }
      }
      for (const ch of segment) out += this.transform(ch) ?? ch;
    }
    return out;
  }
}
