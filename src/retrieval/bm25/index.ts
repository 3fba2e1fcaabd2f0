/**
 * The BM25 inverted index: term dictionary + postings in typed arrays, built streaming from any TextSource
 * (title + abstract, analysed like Anserini), persisted as one directory of little-endian binary files.
 *
 * Build: documents are analysed chunk by chunk; each chunk's postings are grouped by term (counting sort) and,
 * when a work directory is given, written to disk so a killed build resumes at the next unfinished chunk.
 * The merge then places every chunk's per-term segments into one postings array (docs ascending per term),
 * so peak memory is the final index plus one chunk, not the corpus text.
 *
 * Parts: chunk-builder.ts (analysis), index-parallel.ts (builders on processes / threads), index-format.ts
 * (the index directory: layout, save, load).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import type { TextSource } from '../../corpus/article.ts';
import { writeFileAtomic } from '../../util/atomic.ts';
import { CitebenchError } from '../../util/errors.ts';
import { requireFreeSpace, type FreeBytes } from '../../util/disk.ts';
import { FILES as STORE_FILES } from '../../corpus/store-format.ts';
import { Progress } from '../../util/progress.ts';
import { intToByte4 } from './norms.ts';
import { ChunkBuilder, LOCAL_POSTINGS, type LocalChunk, type LocalChunkHead, type WorkerSource } from './chunk-builder.ts';
import { readFileBuffer } from '../../util/buffered-file.ts';
import { TF_BIG, type Bm25Index } from './index-format.ts';
import { buildInParallel } from './index-parallel.ts';

interface BuildOptions {
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
  /** Free-space probe (tests replace it). */
  freeBytes?: FreeBytes;
}

/**
 * Postings per byte of a store's text.bin (title + abstract), measured: 1/14.9 (1 M synthetic abstracts, 107.8 M
 * postings in 1,529 MiB). The chunk files hold 8 bytes per posting (document, frequency), the saved index 6
 * (document, frequency + norm); the chunks are deleted once merged in memory, before the index is saved, so the
 * two never coexist (16 GB instead of 28 GB at S2ORC's 16 M articles).
 */
const POSTINGS_PER_TEXT_BYTE = 1 / 14.9;

/** Disk the build of a store's index needs next to the work directory, with `doneShare` of its chunks already on disk. */
export function indexDiskNeed(textBytes: number, doneShare = 0): number {
  // The chunks still to write; the saved index (6 B) then reuses the space the merged chunks (8 B) freed.
  return 1.1 * textBytes * POSTINGS_PER_TEXT_BYTE * 8 * (1 - doneShare);
}

/** A chunk in global term ids, as merged (and as saved for resuming); newTerms are the terms it added. */
interface Chunk extends Omit<LocalChunk, 'index'> {
  /** Global vocabulary size after this chunk. */
  vocabAfter: number;
}

function chunkName(i: number) {
  return `chunk-${String(i).padStart(5, '0')}`;
}

/** A chunk without its postings arrays. */
type ChunkHead = Omit<Chunk, keyof typeof LOCAL_POSTINGS>;

/** A chunk's postings arrays (LOCAL_POSTINGS), in memory or in a child process's files at `base`. */
type ChunkPostings = Pick<LocalChunk, keyof typeof LOCAL_POSTINGS> | { base: string };

/**
 * Save chunk i: its postings — written, or a child process's files renamed into place — then its terms and
 * groups, and last the marker that makes it count as done.
 */
function saveChunk(dir: string, i: number, c: ChunkHead, postings: ChunkPostings): void {
  const base = join(dir, chunkName(i));
  for (const [field, ext] of Object.entries(LOCAL_POSTINGS)) {
    if ('base' in postings) renameSync(`${postings.base}.${ext}`, `${base}.${ext}`);
    else writeFileAtomic(`${base}.${ext}`, postings[field as keyof typeof LOCAL_POSTINGS]);
  }
  writeFileAtomic(`${base}.terms`, c.newTerms.join('\n'));
  writeFileAtomic(`${base}.gterms`, c.groupTerms);
  // Written last: its presence marks the chunk complete.
  const postingCount = 'base' in postings ? statSync(`${base}.docs`).size / 4 : postings.docs.length;
  writeFileAtomic(`${base}.json`, JSON.stringify({ from: c.from, to: c.to, vocabAfter: c.vocabAfter, postings: postingCount }));
}

/** A chunk's postings in memory (a child process's files read and removed). */
function postingsInMemory(p: ChunkPostings): Pick<LocalChunk, keyof typeof LOCAL_POSTINGS> {
  if (!('base' in p)) return { groupCounts: p.groupCounts, docs: p.docs, tfs: p.tfs, lengths: p.lengths }; // not its local ids
  const read = (ext: string) => {
    const a = readU32(`${p.base}.${ext}`);
    rmSync(`${p.base}.${ext}`, { force: true });
    return a;
  };
  return { groupCounts: read(LOCAL_POSTINGS.groupCounts), docs: read(LOCAL_POSTINGS.docs), tfs: read(LOCAL_POSTINGS.tfs), lengths: read(LOCAL_POSTINGS.lengths) };
}

function readU32(path: string): Uint32Array {
  return new Uint32Array(readFileBuffer(path));
}

/** Chunk i from its files: the head only, with its groups (term, count), or with all its postings too. */
function loadChunk(dir: string, i: number, parts: 'head' | 'groups' | 'all'): Chunk {
  const base = join(dir, chunkName(i));
  const meta = JSON.parse(readFileSync(`${base}.json`, 'utf8'));
  const termsText = readFileSync(`${base}.terms`, 'utf8');
  const u32 = (ext: string, from: 'groups' | 'all') => (parts === 'all' || parts === from ? readU32(`${base}.${ext}`) : new Uint32Array(0));
  return {
    from: meta.from,
    to: meta.to,
    vocabAfter: meta.vocabAfter,
    newTerms: termsText === '' ? [] : termsText.split('\n'),
    groupTerms: u32('gterms', 'groups'),
    groupCounts: u32(LOCAL_POSTINGS.groupCounts, 'groups'),
    docs: u32(LOCAL_POSTINGS.docs, 'all'),
    tfs: u32(LOCAL_POSTINGS.tfs, 'all'),
    lengths: u32(LOCAL_POSTINGS.lengths, 'all'),
  };
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
    const c = loadChunk(dir, resumed, 'head');
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
  if (dir && opts.workerSource?.kind === 'store') {
    const textBytes = statSync(join(opts.workerSource.dir, STORE_FILES.text)).size;
    requireFreeSpace(dirname(resolve(dir)), indexDiskNeed(textBytes, resumed / nChunks), `bm25 index: chunks and index of ${n.toLocaleString('en-US')} articles`, opts.freeBytes);
  }
  // Later chunks: built (in this thread or on workers), then mapped to global ids strictly in chunk order.
  const ranges: [number, number, number][] = [];
  for (let i = resumed; i < nChunks; i++) ranges.push([i, i * chunkDocs, Math.min(n, (i + 1) * chunkDocs)]);
  const localToGlobal: number[][] = [];
  const waiting = new Map<number, { c: LocalChunk | LocalChunkHead; builder: number }>();
  let nextChunk = resumed;
  const accept = (c: LocalChunk | LocalChunkHead, builder: number) => {
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
      const head: ChunkHead = { from: lc.from, to: lc.to, vocabAfter: terms.length, newTerms: added, groupTerms: lc.groupTerms.map((l) => map[l]) };
      const postings: ChunkPostings = 'base' in lc ? { base: lc.base } : lc;
      if (dir) saveChunk(dir, nextChunk, head, postings);
      else inMemory[nextChunk] = { ...head, ...postingsInMemory(postings) };
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
  const getChunk = (i: number, parts: 'groups' | 'all') => (dir ? loadChunk(dir, i, parts) : inMemory[i]!);
  for (let i = 0; i < nChunks; i++) {
    const c = getChunk(i, 'groups');
    for (let g = 0; g < c.groupTerms.length; g++) totals[c.groupTerms[g]] += c.groupCounts[g];
  }
  const offsets = new Float64Array(V + 1);
  for (let t = 0; t < V; t++) offsets[t + 1] = offsets[t] + totals[t];
  const P = offsets[V];
  // In shared memory, as loadIndex gives them: a caller searching right after the build (worker threads share
  // these buffers) holds this one copy instead of loading a second one from disk.
  const docs = new Uint32Array(new SharedArrayBuffer(4 * P));
  const tfNorms = new Uint16Array(new SharedArrayBuffer(2 * P));
  const big: [number, number][] = [];
  const lengths = new Uint32Array(new SharedArrayBuffer(4 * n));
  const cursor = offsets.slice(0, V);
  for (let i = 0; i < nChunks; i++) {
    const c = getChunk(i, 'all');
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
  // Every posting is in memory now: the chunk files make room for the saved index. A build killed from here on
  // starts again from the texts (minutes) instead of holding both on disk (hours of a full disk's worth).
  if (dir) removeWorkDir(dir);
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

/**
 * Delete a build's chunk files, then its directory when nothing else is in it. The chunks' .json markers go
 * first: a build killed midway must not find a marker whose postings are gone and take that chunk as finished.
 */
export function removeWorkDir(dir: string): void {
  if (!existsSync(dir)) return;
  const files = readdirSync(dir).filter((f) => f.startsWith('chunk-') || f.startsWith('local-'));
  for (const f of files) if (f.endsWith('.json')) rmSync(join(dir, f), { force: true });
  for (const f of files) if (!f.endsWith('.json')) rmSync(join(dir, f), { recursive: true, force: true });
  if (readdirSync(dir).length === 0) rmSync(dir, { recursive: true, force: true });
}
