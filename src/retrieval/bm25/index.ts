/**
 * The BM25 inverted index: term dictionary + postings in typed arrays, built streaming from any TextSource
 * (title + abstract, analysed like Anserini), persisted as one directory of little-endian binary files.
 *
 * Build: documents are analysed chunk by chunk; each chunk's postings are grouped by term (counting sort) and,
 * when a work directory is given, written to disk so a killed build resumes at the next unfinished chunk.
 * The merge then places every chunk's per-term segments into one postings array (docs ascending per term),
 * so peak memory is the final index plus one chunk, not the corpus text.
 *
 * Layout of an index directory:
 *   meta.json       format, version, counts, analyzer, text field
 *   terms.txt       the vocabulary, one term per line, line i = term id i (first-occurrence order)
 *   offsets.f64     postings of term t = [offsets[t], offsets[t+1])
 *   docs.u32        corpus index of each posting (ascending within a term)
 *   tfnorm.u16      per posting: term frequency << 8 | Lucene norm byte (SmallFloat.intToByte4 of the length) of
 *                   its document. The norm next to the posting lets lossy-length scoring read postings
 *                   sequentially, with no random access per document; one 16-bit load indexes the per-term
 *                   score table directly. Frequency 255 = look up tfbig.*
 *   tfbig.pos.f64 / tfbig.val.u32   postings whose frequency is ≥ 255, ascending by position
 *   lengths.u32     analysed length (token count after stop words) of each document: exact, for `accurate`
 */
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { deserialize } from 'node:v8';
import type { TextSource } from '../../corpus/article.ts';
import { writeFileAtomic, commitDirectory } from '../../util/atomic.ts';
import { CitebenchError } from '../../util/errors.ts';
import { Progress } from '../../util/progress.ts';
import { intToByte4 } from './norms.ts';
import { ChunkBuilder, type LocalChunk, type WorkerSource } from './chunk-builder.ts';
import { tsFork, tsWorker } from '../../util/ts-worker.ts';
import type { BuildProcessInit } from './index-process.ts';

export const INDEX_FORMAT = 'citebench-bm25-index';
export const INDEX_VERSION = 2;
export const ANALYZER_NAME = 'lucene-8.7-english (StandardTokenizer, possessive, lowercase, 33 stop words, Porter)';
/** tfNorm frequency marker: the posting's frequency is ≥ 255 and stored in tfBig*. */
export const TF_BIG = 255;

export interface Bm25Index {
  /** Number of documents (= corpus size; documents without any term included). */
  docCount: number;
  /** Term id → term. */
  terms: string[];
  offsets: Float64Array;
  docs: Uint32Array;
  /** Per posting: min(tf, 255) << 8 | norm byte of its document (tf 255 = the frequency is in tfBig*). */
  tfNorms: Uint16Array;
  tfBigPos: Float64Array;
  tfBigVal: Uint32Array;
  lengths: Uint32Array;
}

export interface BuildOptions {
  /** Documents per chunk (bounded build memory). Default 50,000. */
  chunkDocs?: number;
  /** Directory for chunk files: makes the build resumable. Without it chunks stay in memory. */
  workDir?: string;
  progress?: boolean;
  /**
   * Builders analysing chunks in parallel (default 1): child processes for a store source, worker threads for
   * in-memory texts. The index is identical for any count.
   */
  threads?: number;
  /** How builders reach the texts; default: the source's texts copied to each worker (fine for small sources). */
  workerSource?: WorkerSource;
}

/** A chunk in global term ids, as merged (and as saved for resuming); newTerms are the terms it added. */
interface Chunk extends Omit<LocalChunk, 'index'> {
  /** Global vocabulary size after this chunk. */
  vocabAfter: number;
}

/** Term id lookup for a vocabulary. */
export function termIdMap(terms: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < terms.length; i++) m.set(terms[i], i);
  return m;
}

function chunkName(i: number) {
  return `chunk-${String(i).padStart(5, '0')}`;
}

function saveChunk(dir: string, i: number, c: Chunk): void {
  const base = join(dir, chunkName(i));
  writeFileAtomic(`${base}.terms`, c.newTerms.join('\n'));
  writeFileAtomic(`${base}.gterms`, c.groupTerms);
  writeFileAtomic(`${base}.gcounts`, c.groupCounts);
  writeFileAtomic(`${base}.docs`, c.docs);
  writeFileAtomic(`${base}.tfs`, c.tfs);
  writeFileAtomic(`${base}.lengths`, c.lengths);
  // Written last: its presence marks the chunk complete.
  writeFileAtomic(`${base}.json`, JSON.stringify({ from: c.from, to: c.to, vocabAfter: c.vocabAfter, postings: c.docs.length }));
}

function readU32(path: string): Uint32Array {
  const b = readFileSync(path);
  const out = new Uint32Array(b.byteLength / 4);
  new Uint8Array(out.buffer).set(b);
  return out;
}

function loadChunk(dir: string, i: number, withPostings: boolean): Chunk {
  const base = join(dir, chunkName(i));
  const meta = JSON.parse(readFileSync(`${base}.json`, 'utf8'));
  const termsText = readFileSync(`${base}.terms`, 'utf8');
  const u32 = (ext: string) => (withPostings ? readU32(`${base}.${ext}`) : new Uint32Array(0));
  return {
    from: meta.from,
    to: meta.to,
    vocabAfter: meta.vocabAfter,
    newTerms: termsText === '' ? [] : termsText.split('\n'),
    groupTerms: u32('gterms'),
    groupCounts: u32('gcounts'),
    docs: u32('docs'),
    tfs: u32('tfs'),
    lengths: u32('lengths'),
  };
}

/** Build chunks on child processes (store sources) or worker threads (in-memory texts); any order of arrival. */
function buildInParallel(
  src: WorkerSource,
  ranges: [number, number, number][],
  threads: number,
  scratchDir: string,
  onChunk: (c: LocalChunk, builder: number) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let next = 0;
    let done = 0;
    let finished = false;
    const stops: (() => unknown)[] = [];
    const finish = (e?: unknown) => {
      if (finished) return;
      finished = true;
      for (const stop of stops) stop();
      if (e) reject(e);
      else resolve();
    };
    const take = (c: LocalChunk, t: number, feed: () => void) => {
      try {
        onChunk(c, t);
      } catch (e) {
        return finish(e);
      }
      if (++done === ranges.length) finish();
      else feed();
    };
    for (let t = 0; t < Math.min(threads, ranges.length); t++) {
      if (src.kind === 'store') {
        const c = tsFork(new URL('./index-process.ts', import.meta.url));
        const feed = () => {
          if (next < ranges.length) c.send({ range: ranges[next++] });
        };
        stops.push(() => c.kill());
        c.on('message', (m: { index: number; path: string }) => {
          let chunk: LocalChunk;
          try {
            chunk = deserialize(readFileSync(m.path)) as LocalChunk;
            rmSync(m.path, { force: true });
          } catch (e) {
            return finish(e);
          }
          take(chunk, t, feed);
        });
        c.on('error', finish);
        c.on('exit', (code) => finish(new Error(`bm25 index process exited with code ${code} before finishing`)));
        const init: BuildProcessInit = { storeDir: src.dir, scratchDir };
        c.send({ init });
        feed();
      } else {
        const w = tsWorker(new URL('./index-worker.ts', import.meta.url), { workerData: src });
        const feed = () => {
          if (next < ranges.length) w.postMessage(ranges[next++]);
        };
        stops.push(() => void w.terminate());
        w.on('message', (c: LocalChunk) => take(c, t, feed));
        w.on('error', finish);
        feed();
      }
    }
  });
}

/** Build the index of every document of `source` (title + abstract). */
export async function buildIndex(source: TextSource, opts: BuildOptions = {}): Promise<Bm25Index> {
  const chunkDocs = Math.max(1, opts.chunkDocs ?? 50_000);
  const n = source.size;
  const vocab = new Map<string, number>();
  const terms: string[] = [];
  const progress = new Progress({ label: 'bm25 index', total: n, unit: 'docs', enabled: opts.progress });
  const nChunks = Math.ceil(n / chunkDocs);
  const inMemory: (Chunk | undefined)[] = [];
  const dir = opts.workDir;
  if (dir) {
    mkdirSync(dir, { recursive: true });
    // Chunks a killed build's processes had analysed but not yet merged: built again below.
    for (const f of readdirSync(dir)) if (f.startsWith('local-')) rmSync(join(dir, f), { force: true });
  }
  // Resume: finished chunks on disk only contribute their new terms to the vocabulary.
  let resumed = 0;
  while (dir && resumed < nChunks && existsSync(join(dir, `${chunkName(resumed)}.json`))) {
    const c = loadChunk(dir, resumed, false);
    const from = resumed * chunkDocs;
    if (c.from !== from || c.to !== Math.min(n, from + chunkDocs) || terms.length + c.newTerms.length !== c.vocabAfter) {
      throw new CitebenchError(`${dir}: chunk ${resumed} was built with other settings or another corpus; delete the directory`);
    }
    for (const t of c.newTerms) {
      vocab.set(t, terms.length);
      terms.push(t);
    }
    progress.tick(c.to - c.from);
    resumed++;
  }
  // Later chunks: built (in this thread or on workers), then mapped to global ids strictly in chunk order.
  const ranges: [number, number, number][] = [];
  for (let i = resumed; i < nChunks; i++) ranges.push([i, i * chunkDocs, Math.min(n, (i + 1) * chunkDocs)]);
  const localToGlobal: number[][] = [];
  const waiting = new Map<number, { c: LocalChunk; builder: number }>();
  let nextChunk = resumed;
  const accept = (c: LocalChunk, builder: number) => {
    waiting.set(c.index, { c, builder });
    while (waiting.has(nextChunk)) {
      const { c: lc, builder: b } = waiting.get(nextChunk)!;
      waiting.delete(nextChunk);
      const map = (localToGlobal[b] ??= []);
      const added: string[] = [];
      for (const t of lc.newTerms) {
        let id = vocab.get(t);
        if (id === undefined) {
          id = terms.length;
          terms.push(t);
          vocab.set(t, id);
          added.push(t);
        }
        map.push(id);
      }
      const chunk: Chunk = {
        from: lc.from, to: lc.to, vocabAfter: terms.length, newTerms: added,
        groupTerms: lc.groupTerms.map((l) => map[l]), groupCounts: lc.groupCounts,
        docs: lc.docs, tfs: lc.tfs, lengths: lc.lengths,
      };
      if (dir) saveChunk(dir, nextChunk, chunk);
      else inMemory[nextChunk] = chunk;
      progress.tick(lc.to - lc.from);
      nextChunk++;
    }
  };
  const threads = Math.max(1, Math.min(opts.threads ?? 1, ranges.length));
  if (threads > 1) {
    const src: WorkerSource = opts.workerSource ??
      { kind: 'texts', items: Array.from(source.texts(), (a) => ({ title: a.title, abstract: a.abstract })) };
    const scratch = dir ?? mkdtempSync(join(tmpdir(), 'citebench-bm25-'));
    try {
      await buildInParallel(src, ranges, threads, scratch, accept);
    } finally {
      if (!dir) rmSync(scratch, { recursive: true, force: true });
    }
  } else {
    const builder = new ChunkBuilder();
    for (const [i, from, to] of ranges) accept(builder.build(source, i, from, to), 0);
  }
  progress.finish();
  // Merge: total postings per term, then each chunk's segments in chunk order.
  const V = terms.length;
  const totals = new Float64Array(V);
  const getChunk = (i: number) => (dir ? loadChunk(dir, i, true) : inMemory[i]!);
  for (let i = 0; i < nChunks; i++) {
    const c = getChunk(i);
    for (let g = 0; g < c.groupTerms.length; g++) totals[c.groupTerms[g]] += c.groupCounts[g];
  }
  const offsets = new Float64Array(V + 1);
  for (let t = 0; t < V; t++) offsets[t + 1] = offsets[t] + totals[t];
  const P = offsets[V];
  const docs = new Uint32Array(P);
  const tfNorms = new Uint16Array(P);
  const big: [number, number][] = [];
  const lengths = new Uint32Array(n);
  const cursor = offsets.slice(0, V);
  for (let i = 0; i < nChunks; i++) {
    const c = getChunk(i);
    lengths.set(c.lengths, c.from);
    const docNorm = Uint8Array.from(c.lengths, intToByte4);
    let src = 0;
    for (let g = 0; g < c.groupTerms.length; g++) {
      const t = c.groupTerms[g];
      const cnt = c.groupCounts[g];
      const at = cursor[t];
      docs.set(c.docs.subarray(src, src + cnt), at);
      for (let j = 0; j < cnt; j++) {
        const norm = docNorm[c.docs[src + j] - c.from];
        const tf = c.tfs[src + j];
        if (tf >= TF_BIG) big.push([at + j, tf]);
        tfNorms[at + j] = (Math.min(tf, TF_BIG) << 8) | norm;
      }
      cursor[t] = at + cnt;
      src += cnt;
    }
    if (!dir) inMemory[i] = undefined; // free as we go
  }
  big.sort((a, b) => a[0] - b[0]);
  return {
    docCount: n,
    terms,
    offsets,
    docs,
    tfNorms,
    tfBigPos: Float64Array.from(big, (x) => x[0]),
    tfBigVal: Uint32Array.from(big, (x) => x[1]),
    lengths,
  };
}

/** Term frequency of posting p (resolves the ≥ 255 escape). */
export function postingTf(ix: Pick<Bm25Index, 'tfNorms' | 'tfBigPos' | 'tfBigVal'>, p: number): number {
  const tf = ix.tfNorms[p] >> 8;
  if (tf !== TF_BIG) return tf;
  let lo = 0;
  let hi = ix.tfBigPos.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = ix.tfBigPos[mid];
    if (v === p) return ix.tfBigVal[mid];
    if (v < p) lo = mid + 1;
    else hi = mid - 1;
  }
  throw new Error(`bm25 index: posting ${p} has the ≥255 marker but no stored frequency`);
}

const FILES = {
  meta: 'meta.json',
  terms: 'terms.txt',
  offsets: 'offsets.f64',
  docs: 'docs.u32',
  tfNorms: 'tfnorm.u16',
  tfBigPos: 'tfbig.pos.f64',
  tfBigVal: 'tfbig.val.u32',
  lengths: 'lengths.u32',
} as const;

export interface IndexMeta {
  format: string;
  version: number;
  docCount: number;
  vocabulary: number;
  postings: number;
  sumTotalTermFreq: number;
  analyzer: string;
  text: string;
  corpus?: { dir: string; articles: number };
}

/** Write the index directory atomically (built aside, then swapped in). */
export function saveIndex(ix: Bm25Index, dir: string, extra: Partial<IndexMeta> = {}): void {
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  let sum = 0;
  for (let i = 0; i < ix.lengths.length; i++) sum += ix.lengths[i];
  for (const t of ix.terms) if (t.includes('\n')) throw new Error(`bm25 index: term contains a newline: ${JSON.stringify(t)}`);
  writeFileAtomic(join(tmp, FILES.terms), ix.terms.join('\n'));
  writeFileAtomic(join(tmp, FILES.offsets), ix.offsets);
  writeFileAtomic(join(tmp, FILES.docs), ix.docs);
  writeFileAtomic(join(tmp, FILES.tfNorms), ix.tfNorms);
  writeFileAtomic(join(tmp, FILES.tfBigPos), ix.tfBigPos);
  writeFileAtomic(join(tmp, FILES.tfBigVal), ix.tfBigVal);
  writeFileAtomic(join(tmp, FILES.lengths), ix.lengths);
  const meta: IndexMeta = {
    format: INDEX_FORMAT,
    version: INDEX_VERSION,
    docCount: ix.docCount,
    vocabulary: ix.terms.length,
    postings: ix.docs.length,
    sumTotalTermFreq: sum,
    analyzer: ANALYZER_NAME,
    text: 'title + " " + abstract',
    ...extra,
  };
  writeFileAtomic(join(tmp, FILES.meta), JSON.stringify(meta, null, 2) + '\n');
  commitDirectory(tmp, dir);
}

/** Read a binary column straight into shared memory (worker threads then use it without copying). */
function readShared<T extends Uint8Array | Uint16Array | Uint32Array | Float64Array>(
  dir: string,
  name: string,
  ctor: { new (b: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number },
): T {
  const path = join(dir, name);
  if (!existsSync(path)) throw new CitebenchError(`${dir}: BM25 index is missing ${name}: rebuild it`);
  const size = statSync(path).size;
  if (size % ctor.BYTES_PER_ELEMENT) throw new CitebenchError(`${path}: size ${size} is not a multiple of ${ctor.BYTES_PER_ELEMENT}`);
  const sab = new SharedArrayBuffer(size);
  const bytes = new Uint8Array(sab);
  const fd = openSync(path, 'r');
  try {
    let got = 0;
    while (got < size) {
      const r = readSync(fd, bytes, got, Math.min(size - got, 1 << 30), got);
      if (r <= 0) throw new CitebenchError(`${path}: short read`);
      got += r;
    }
  } finally {
    closeSync(fd);
  }
  return new ctor(sab);
}

export function readIndexMeta(dir: string): IndexMeta {
  const path = join(dir, FILES.meta);
  if (!existsSync(path)) throw new CitebenchError(`${dir}: not a BM25 index (no meta.json). Build one with: citebench bm25 index --corpus STORE --out ${dir}`);
  let meta: IndexMeta;
  try {
    meta = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new CitebenchError(`${path}: unreadable (${(e as Error).message})`);
  }
  if (meta.format !== INDEX_FORMAT) throw new CitebenchError(`${path}: format is '${meta.format}', expected '${INDEX_FORMAT}'`);
  if (meta.version !== INDEX_VERSION) throw new CitebenchError(`${path}: index version ${meta.version}, this citebench reads ${INDEX_VERSION}: rebuild it`);
  return meta;
}

/** Load an index directory; postings land in SharedArrayBuffers. */
export function loadIndex(dir: string): Bm25Index {
  const meta = readIndexMeta(dir);
  const termsText = readFileSync(join(dir, FILES.terms), 'utf8');
  const ix: Bm25Index = {
    docCount: meta.docCount,
    terms: termsText === '' ? [] : termsText.split('\n'),
    offsets: readShared(dir, FILES.offsets, Float64Array),
    docs: readShared(dir, FILES.docs, Uint32Array),
    tfNorms: readShared(dir, FILES.tfNorms, Uint16Array),
    tfBigPos: readShared(dir, FILES.tfBigPos, Float64Array),
    tfBigVal: readShared(dir, FILES.tfBigVal, Uint32Array),
    lengths: readShared(dir, FILES.lengths, Uint32Array),
  };
  if (ix.terms.length !== meta.vocabulary || ix.offsets.length !== meta.vocabulary + 1 || ix.docs.length !== meta.postings ||
    ix.tfNorms.length !== meta.postings || ix.lengths.length !== meta.docCount || ix.tfBigPos.length !== ix.tfBigVal.length) {
    throw new CitebenchError(`${dir}: BM25 index files disagree with meta.json: rebuild it`);
  }
  return ix;
}

/** Remove a build's chunk directory after the index is saved. */
export function removeWorkDir(dir: string): void {
  if (existsSync(dir) && readdirSync(dir).every((f) => f.startsWith('chunk-') || f.startsWith('local-'))) rmSync(dir, { recursive: true, force: true });
}
