/**
 * On-disk embedding store for one model over one corpus, keyed by dense corpus index.
 *
 * Layout of a store folder:
 *   manifest.json            model name + fingerprint, dim, dtype, kind, chunk size, corpus size/key (immutable)
 *   chunk-000042.bin         vectors of the encoded articles with index in [42·S, 43·S), S = chunk size
 *
 * A chunk file is self-describing (header, sorted corpus indices, for multi-vector models an offsets table, then
 * the vectors) and written atomically, so a killed run leaves only complete chunks; the next run skips every
 * chunk that already holds the requested articles and continues with the first missing one. Each article is
 * encoded once per model; later runs with other --ids add only the missing articles to their chunks.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TextSource, ArticleText } from '../../corpus/article.ts';
import { createFileExclusive, writeFileAtomic } from '../../util/atomic.ts';
import { inShard, type Shard } from '../../util/shard.ts';
import { CitebenchError } from '../../util/errors.ts';
import { Progress } from '../../util/progress.ts';
import { decodeHalf, encodeHalf } from './float16.ts';
import type { ArticleEncoder, Encoder } from './encoder.ts';
import { sortedFind } from '../../util/sorted.ts';
import type { Role } from './prompts.ts';
import type { Distance } from './similarity.ts';

export type VectorKind = 'single' | 'multi';
export type StoredType = 'float32' | 'float16';

export interface StoreManifest {
  format: 'citebench-embeddings';
  version: 1;
  model: string;
  fingerprint: string;
  dim: number;
  dtype: StoredType;
  kind: VectorKind;
  chunkSize: number;
  corpusSize: number;
  /** Optional identity of the corpus (e.g. a hash of its id column); checked when both sides have one. */
  corpusKey?: string;
  /** The model's distance, recorded so `dense search` can work from the store alone. */
  distance?: Distance;
  /** For a model whose query and document prompts differ: the role whose vectors this store holds, and its prompt. */
  role?: Role;
  prompt?: string;
}

/** Vectors of a set of articles: article i's rows are offsets[i]..offsets[i+1] (single-vector: offsets[i] = i). */
export interface VectorSet {
  dim: number;
  offsets: Uint32Array;
  vectors: Float32Array;
}

interface Chunk {
  indices: Uint32Array;
  /** Length indices.length + 1. */
  offsets: Uint32Array;
  vectors: Float32Array;
}

const MAGIC = 'CBEMB001';
const HEADER = 64;
export const DEFAULT_CHUNK_SIZE = 4096;

export interface EncodeOptions {
  /** Called after each chunk file is committed (tests use it to simulate a kill). */
  onChunkWritten?: (chunk: number) => void;
  progress?: boolean;
  /**
   * Encode only the chunks c with c mod N = I. Shards never write the same chunk file, so any number may run
   * at once on one store; together they write exactly the chunks one process would, with the same bytes
   * (each chunk's missing articles are encoded in one call, whichever process does it).
   */
  shard?: Shard;
}

/**
 * Where a store's vectors come from: an encoder over corpus texts, or a file of vectors computed elsewhere
 * (import/). `vectors` returns the rows of the given sorted corpus indices, all within chunk `chunk`.
 */
export interface VectorSource {
  /** Must equal the store's manifest fingerprint: vectors of another model never enter a store. */
  fingerprint: string;
  /** Progress label (default `encode <model>`). */
  label?: string;
  vectors(indices: Uint32Array, chunk: number, onBatch: (articles: number) => void): Promise<{ dim: number; offsets: Uint32Array; vectors: Float32Array }>;
}

/** Which chunks of a request are complete (`citebench encode --status`). */
export interface StoreStatus {
  /** Chunks that hold requested articles, ascending. */
  chunks: number[];
  /** Those that lack at least one requested article, with how many they lack. */
  missing: { chunk: number; articles: number }[];
  requested: number;
  present: number;
}

export class EmbeddingStore {
  private constructor(
    readonly dir: string,
    readonly manifest: StoreManifest,
  ) {}

  /** Open an existing store (for search). */
  static open(dir: string): EmbeddingStore {
    const p = join(dir, 'manifest.json');
    if (!existsSync(p)) throw new CitebenchError(`${dir}: no embedding store here (manifest.json missing); run 'citebench encode' first`);
    let m: StoreManifest;
    try {
      m = JSON.parse(readFileSync(p, 'utf8')) as StoreManifest;
    } catch (e) {
      throw new CitebenchError(`${p}: not valid JSON (${(e as Error).message})`);
    }
    if (m.format !== 'citebench-embeddings' || m.version !== 1) throw new CitebenchError(`${p}: not a citebench embedding store (version 1)`);
    return new EmbeddingStore(dir, m);
  }

  /**
   * Open the store at `dir` for writing, creating it when absent. An existing store must have been made by the
   * same model (fingerprint), dtype and corpus — a different model can never resume into it.
   */
  static openOrCreate(dir: string, want: Omit<StoreManifest, 'format' | 'version'>): EmbeddingStore {
    const p = join(dir, 'manifest.json');
    // Several shards may start at once on one (shared) folder: the manifest is created exclusively, and a
    // process that finds one already there checks it was made with the same settings.
    if (!existsSync(p)) {
      const m: StoreManifest = { format: 'citebench-embeddings', version: 1, ...want };
      if (createFileExclusive(p, JSON.stringify(m, null, 2) + '\n').created) return new EmbeddingStore(dir, m);
    }
    const s = EmbeddingStore.open(dir);
    const m = s.manifest;
    const clash: string[] = [];
    if (m.fingerprint !== want.fingerprint) clash.push(`model fingerprint ${m.fingerprint} (model '${m.model}') ≠ ${want.fingerprint} (model '${want.model}')`);
    if (m.dtype !== want.dtype) clash.push(`dtype ${m.dtype} ≠ ${want.dtype}`);
    if (m.dim !== want.dim) clash.push(`dim ${m.dim} ≠ ${want.dim}`);
    if (m.kind !== want.kind) clash.push(`kind ${m.kind} ≠ ${want.kind}`);
    if (m.corpusSize !== want.corpusSize) clash.push(`corpus size ${m.corpusSize} ≠ ${want.corpusSize}`);
    if (m.corpusKey && want.corpusKey && m.corpusKey !== want.corpusKey) clash.push(`corpus key ${m.corpusKey} ≠ ${want.corpusKey}`);
    if (clash.length)
      throw new CitebenchError(`${p}: this embedding store was made with different settings: ${clash.join('; ')}. Use another --out folder or delete this one.`);
    return s;
  }

  chunkPath(c: number): string {
    return join(this.dir, `chunk-${String(c).padStart(6, '0')}.bin`);
  }

  /** Chunk numbers that have a committed file. */
  chunks(): number[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .map((f) => /^chunk-(\d{6})\.bin$/.exec(f))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
  }

  private readChunk(c: number): Chunk | undefined {
    const p = this.chunkPath(c);
    if (!existsSync(p)) return undefined;
    const buf = readFileSync(p);
    const bad = (why: string) => new CitebenchError(`${p}: corrupt embedding chunk (${why}); delete it and re-run 'citebench encode'`);
    if (buf.length < HEADER || buf.toString('latin1', 0, 8) !== MAGIC) throw bad('bad header');
    const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const [dim, dtype, kind, chunk, count, nvec] = [8, 12, 16, 20, 24, 28].map((o) => dv.getUint32(o, true));
    const m = this.manifest;
    if (dim !== m.dim || dtype !== (m.dtype === 'float16' ? 1 : 0) || kind !== (m.kind === 'multi' ? 1 : 0) || chunk !== c) throw bad('header disagrees with manifest');
    const copyU32 = (off: number, n: number) => new Uint32Array(buf.buffer.slice(buf.byteOffset + off, buf.byteOffset + off + 4 * n));
    let off = HEADER;
    const indices = copyU32(off, count);
    off += 4 * count;
    let offsets: Uint32Array;
    if (m.kind === 'multi') {
      offsets = copyU32(off, count + 1);
      off += 4 * (count + 1);
    } else offsets = Uint32Array.from({ length: count + 1 }, (_, i) => i);
    off = (off + 7) & ~7;
    const width = m.dtype === 'float16' ? 2 : 4;
    if (buf.length !== off + nvec * dim * width || offsets[count] !== nvec) throw bad('size mismatch');
    const raw = buf.buffer.slice(buf.byteOffset + off, buf.byteOffset + off + nvec * dim * width);
    const vectors = m.dtype === 'float16' ? decodeHalf(new Uint16Array(raw)) : new Float32Array(raw);
    return { indices, offsets, vectors };
  }

  private writeChunk(c: number, ch: Chunk): void {
    const m = this.manifest;
    const count = ch.indices.length;
    const nvec = ch.offsets[count];
    let off = HEADER + 4 * count + (m.kind === 'multi' ? 4 * (count + 1) : 0);
    off = (off + 7) & ~7;
    const width = m.dtype === 'float16' ? 2 : 4;
    const buf = Buffer.alloc(off + nvec * m.dim * width);
    buf.write(MAGIC, 0, 'latin1');
    [m.dim, m.dtype === 'float16' ? 1 : 0, m.kind === 'multi' ? 1 : 0, c, count, nvec].forEach((v, i) => buf.writeUInt32LE(v, 8 + 4 * i));
    let o = HEADER;
    Buffer.from(ch.indices.buffer, ch.indices.byteOffset, ch.indices.byteLength).copy(buf, o);
    o += 4 * count;
    if (m.kind === 'multi') Buffer.from(ch.offsets.buffer, ch.offsets.byteOffset, ch.offsets.byteLength).copy(buf, o);
    const data = m.dtype === 'float16' ? encodeHalf(ch.vectors.subarray(0, nvec * m.dim)) : ch.vectors.subarray(0, nvec * m.dim);
    Buffer.from(data.buffer, data.byteOffset, data.byteLength).copy(buf, off);
    writeFileAtomic(this.chunkPath(c), buf);
  }

  /**
   * Encode every requested article (default: the whole corpus) that the store lacks, chunk by chunk in index
   * order, with the encoder of this store's role (`Encoder.forRole`; an Encoder itself encodes documents).
   * Returns how many articles were encoded now.
   */
  async encodeMissing(by: ArticleEncoder | Encoder, texts: TextSource, indices?: Uint32Array, opts: EncodeOptions = {}): Promise<number> {
    const encoder = 'forRole' in by ? by.forRole('document') : by;
    if (texts.size !== this.manifest.corpusSize) throw new CitebenchError(`${this.dir}: store is for a corpus of ${this.manifest.corpusSize} articles, this corpus has ${texts.size}`);
    const S = this.manifest.chunkSize;
    const source: VectorSource = {
      fingerprint: encoder.fingerprint,
      label: encoder.label,
      vectors: (missing, c, onBatch) => encoder.encode(readTexts(texts, missing, c * S, Math.min((c + 1) * S, texts.size)), onBatch),
    };
    return this.fillMissing(source, indices, opts);
  }

  /**
   * Store every requested article (default: the whole corpus) that the store lacks, from `source`, chunk by
   * chunk in index order: the one write path of encoded and imported vectors, so both resume and shard alike.
   * Returns how many articles were written now.
   */
  async fillMissing(source: VectorSource, indices?: Uint32Array, opts: EncodeOptions = {}): Promise<number> {
    const m = this.manifest;
    if (source.fingerprint !== m.fingerprint) throw new CitebenchError(`${this.dir}: store fingerprint ${m.fingerprint} ≠ the source's ${source.fingerprint}`);
    const S = m.chunkSize;
    const want = indices ?? Uint32Array.from({ length: m.corpusSize }, (_, i) => i);
    for (let i = 0; i < want.length; i++) {
      if (want[i] >= m.corpusSize) throw new CitebenchError(`corpus index ${want[i]} out of range (corpus size ${m.corpusSize})`);
      if (i > 0 && want[i] <= want[i - 1]) throw new CitebenchError(`requested indices must be sorted and distinct (at position ${i})`);
    }
    const total = opts.shard ? countInShard(want, S, opts.shard) : want.length;
    const progress = new Progress({ label: source.label ?? `encode ${m.model}`, total, unit: 'articles', enabled: opts.progress });
    let written = 0;
    for (let lo = 0; lo < want.length; ) {
      const c = Math.floor(want[lo] / S);
      let hi = lo;
      while (hi < want.length && want[hi] < (c + 1) * S) hi++;
      const asked = want.subarray(lo, hi);
      lo = hi;
      if (!inShard(c, opts.shard)) continue;
      // The header's index list says whether anything is missing; the vectors are read only to merge into.
      const have = this.chunkIndices(c);
      const missing = have ? asked.filter((x) => !sortedHas(have, x)) : asked;
      const old = have && missing.length > 0 ? this.readChunk(c) : undefined;
      if (missing.length > 0) {
        const enc = await source.vectors(missing, c, (n) => progress.tick(n));
        if (enc.dim !== m.dim || enc.offsets.length !== missing.length + 1 || enc.vectors.length < enc.offsets[missing.length] * m.dim)
          throw new Error(`vector source gave ${enc.offsets.length - 1} articles of dim ${enc.dim} for ${missing.length} of dim ${m.dim}`);
        this.writeChunk(c, old ? merge(old, missing, enc, m.dim) : { indices: Uint32Array.from(missing), offsets: enc.offsets, vectors: enc.vectors });
        written += missing.length;
        opts.onChunkWritten?.(c);
      }
      progress.tick(asked.length - missing.length); // already stored ones
    }
    progress.finish();
    return written;
  }

  /** Sorted corpus indices a chunk file holds (read from its header, not its vectors), or undefined. */
  chunkIndices(c: number): Uint32Array | undefined {
    const p = this.chunkPath(c);
    let fd: number;
    try {
      fd = openSync(p, 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    try {
      const head = Buffer.alloc(HEADER);
      if (readSync(fd, head, 0, HEADER, 0) !== HEADER || head.toString('latin1', 0, 8) !== MAGIC || head.readUInt32LE(20) !== c)
        throw new CitebenchError(`${p}: corrupt embedding chunk (bad header); delete it and re-run 'citebench encode'`);
      const count = head.readUInt32LE(24);
      const out = new Uint32Array(count);
      const got = readSync(fd, new Uint8Array(out.buffer), 0, 4 * count, HEADER);
      if (got !== 4 * count) throw new CitebenchError(`${p}: corrupt embedding chunk (truncated)`);
      return out;
    } finally {
      closeSync(fd);
    }
  }

  /** Which chunks lack requested articles (default: the whole corpus); reads chunk headers only. */
  status(indices?: Uint32Array): StoreStatus {
    const m = this.manifest;
    const S = m.chunkSize;
    const want = indices ?? Uint32Array.from({ length: m.corpusSize }, (_, i) => i);
    const out: StoreStatus = { chunks: [], missing: [], requested: want.length, present: 0 };
    for (let lo = 0; lo < want.length; ) {
      const c = Math.floor(want[lo] / S);
      let hi = lo;
      while (hi < want.length && want[hi] < (c + 1) * S) hi++;
      const have = this.chunkIndices(c);
      let lack = 0;
      for (let i = lo; i < hi; i++) if (!have || !sortedHas(have, want[i])) lack++;
      out.chunks.push(c);
      out.present += hi - lo - lack;
      if (lack) out.missing.push({ chunk: c, articles: lack });
      lo = hi;
    }
    return out;
  }

  /** Per corpus index, 1 where the store holds its vector(s): from chunk headers only. */
  presentMask(): Uint8Array {
    const out = new Uint8Array(this.manifest.corpusSize);
    for (const c of this.chunks()) for (const i of this.chunkIndices(c)!) out[i] = 1;
    return out;
  }

  /** Sorted corpus indices present in the store. */
  presentIndices(): Uint32Array {
    const parts = this.chunks().map((c) => this.readChunk(c)!.indices);
    const out = new Uint32Array(parts.reduce((a, p) => a + p.length, 0));
    let o = 0;
    for (const p of parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }

  /**
   * Vectors of the given articles (sorted, distinct corpus indices), in that order. Throws naming the first
   * missing article if any is not encoded yet.
   */
  load(indices: Uint32Array): VectorSet {
    const m = this.manifest;
    const S = m.chunkSize;
    const offsets = new Uint32Array(indices.length + 1);
    // Two passes over the chunks: count rows, then copy. Only one chunk is in memory at a time.
    const groups: { c: number; lo: number; hi: number }[] = [];
    for (let lo = 0; lo < indices.length; ) {
      const c = Math.floor(indices[lo] / S);
      let hi = lo;
      while (hi < indices.length && indices[hi] < (c + 1) * S) {
        if (hi > lo && indices[hi] <= indices[hi - 1]) throw new CitebenchError(`indices must be sorted and distinct`);
        hi++;
      }
      groups.push({ c, lo, hi });
      lo = hi;
    }
    if (m.kind === 'single') {
      // One pass: rows are known up front.
      const vectors = sharedF32(indices.length * m.dim);
      for (const g of groups) {
        const ch = this.readChunk(g.c);
        for (let i = g.lo; i < g.hi; i++) {
          const p = ch ? sortedFind(ch.indices, indices[i]) : -1;
          if (p < 0) throw new CitebenchError(`${this.dir}: article with corpus index ${indices[i]} is not encoded; run 'citebench encode' for it first`);
          vectors.set(ch!.vectors.subarray(p * m.dim, (p + 1) * m.dim), i * m.dim);
        }
      }
      for (let i = 0; i <= indices.length; i++) offsets[i] = i;
      return { dim: m.dim, offsets, vectors };
    }
    const rows: { c: number; pos: Int32Array }[] = [];
    for (const g of groups) {
      const ch = this.readChunk(g.c);
      const pos = new Int32Array(g.hi - g.lo);
      for (let i = g.lo; i < g.hi; i++) {
        const p = ch ? sortedFind(ch.indices, indices[i]) : -1;
        if (p < 0) throw new CitebenchError(`${this.dir}: article with corpus index ${indices[i]} is not encoded; run 'citebench encode' for it first`);
        pos[i - g.lo] = p;
        offsets[i + 1] = offsets[i] + (ch!.offsets[p + 1] - ch!.offsets[p]);
      }
      rows.push({ c: g.c, pos });
    }
    const vectors = sharedF32(offsets[indices.length] * m.dim);
    groups.forEach((g, k) => {
      const ch = this.readChunk(g.c)!;
      const pos = rows[k].pos;
      for (let i = g.lo; i < g.hi; i++) {
        const p = pos[i - g.lo];
        vectors.set(ch.vectors.subarray(ch.offsets[p] * m.dim, ch.offsets[p + 1] * m.dim), offsets[i] * m.dim);
      }
    });
    return { dim: m.dim, offsets, vectors };
  }
}


function countInShard(want: Uint32Array, S: number, shard: Shard): number {
  let n = 0;
  for (const x of want) if (inShard(Math.floor(x / S), shard)) n++;
  return n;
}

function sortedHas(a: Uint32Array, x: number): boolean {
  return sortedFind(a, x) >= 0;
}

/** Texts of sorted indices within [from, to): a sequential scan when many are needed, random reads otherwise. */
function readTexts(src: TextSource, idx: Uint32Array, from: number, to: number): ArticleText[] {
  if (idx.length * 8 < to - from) return Array.from(idx, (i) => src.text(i));
  const out: ArticleText[] = [];
  let k = 0;
  for (const t of src.texts(idx[0], idx[idx.length - 1] + 1)) {
    if (t.index === idx[k]) {
      out.push({ title: t.title, abstract: t.abstract });
      if (++k === idx.length) break;
    }
  }
  if (k !== idx.length) throw new CitebenchError(`text source yielded ${k} of ${idx.length} requested articles in [${from}, ${to})`);
  return out;
}

function merge(old: Chunk, added: Uint32Array, enc: { offsets: Uint32Array; vectors: Float32Array }, dim: number): Chunk {
  const n = old.indices.length + added.length;
  const indices = new Uint32Array(n);
  const offsets = new Uint32Array(n + 1);
  const vectors = new Float32Array((old.offsets[old.indices.length] + enc.offsets[added.length]) * dim);
  let i = 0;
  let j = 0;
  for (let k = 0; k < n; k++) {
    const fromOld = j >= added.length || (i < old.indices.length && old.indices[i] < added[j]);
    const [src, srcOff, p] = fromOld ? [old.vectors, old.offsets, i++] : [enc.vectors, enc.offsets, j++];
    indices[k] = fromOld ? old.indices[p] : added[p];
    const rows = srcOff[p + 1] - srcOff[p];
    vectors.set(src.subarray(srcOff[p] * dim, srcOff[p + 1] * dim), offsets[k] * dim);
    offsets[k + 1] = offsets[k] + rows;
  }
  return { indices, offsets, vectors };
}

/** Loaded vectors live in shared memory: exact search's worker threads then read the pool without a copy. */
function sharedF32(n: number): Float32Array {
  return new Float32Array(new SharedArrayBuffer(n * 4));
}
