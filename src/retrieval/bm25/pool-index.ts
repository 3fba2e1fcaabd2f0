/**
 * BM25 over a corpus too large for its index to be held in memory: each pool searched gets an index of its own,
 * built from the pool's texts (`bm25Index: pools` in a config). BM25 scores a pool with the pool's statistics
 * as if it had been indexed alone (pool-stats.ts), so the pool's own index gives the lists the corpus index
 * gives — its postings are the corpus index's postings of the pool's documents, in the same order, renumbered
 * as pool-slice.ts renumbers them — while memory follows the largest pool (2 M articles in the paper) instead of
 * the store (49 M articles from OpenAlex's works). One index is kept: a run's models, tuning points and
 * re-ranking phases search one pool after another, each pool many times.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { sha256 } from '../../util/identity.ts';
import { storeTextsKey } from '../../corpus/store-key.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SubsetTexts, type TextSource } from '../../corpus/article.ts';
import { FILES as STORE_FILES } from '../../corpus/store-format.ts';
import { buildIndex } from './index.ts';
import { termIdMap, type Bm25Index } from './index-format.ts';
import { slicePosition } from './pool-slice.ts';
import type { PoolStats } from './pool-stats.ts';

export interface PoolIndex {
  /** Corpus indices of the indexed documents, ascending: local document i is corpus document docs[i]. */
  docs: Uint32Array;
  index: Bm25Index;
  /** Term → id of the index's vocabulary (queries are analysed against it). */
  vocab: Map<string, number>;
  /**
   * What searchers derive from the index — pool statistics per parameters and pool, the tie key in the pool's
   * numbering per corpus tie key — kept with it rather than by the searchers, so that the index and all of it are
   * released together when the next pool's index is built.
   */
  stats: Map<string, PoolStats>;
  tieKeys: WeakMap<Uint32Array, Uint32Array>;
}

export interface PoolIndexOptions {
  /** Builders (child processes over the store's texts when `storeDir` is given). */
  threads?: number;
  /** The store the texts come from, so builders on other processes can open it. */
  storeDir?: string;
  /** Scratch folder for the builders' document lists (default: the system's temporary folder). */
  scratchDir?: string;
  /** Called after each build: the documents indexed and the seconds it took. */
  onBuild?: (docs: number, seconds: number) => void;
}

export class PoolIndexes {
  private last: PoolIndex | undefined;
  private building: { docs: Uint32Array; done: Promise<PoolIndex> } | undefined;
  /** Indexes built so far (a test and the run's log read it). */
  builds = 0;
  private identity_: string | undefined;

  constructor(
    readonly texts: TextSource,
    private readonly opts: PoolIndexOptions = {},
  ) {}

  /**
   * Identity of the texts every pool index is built from, for the retriever's fingerprint (a cell is reused only
   * for the same texts): the store's (corpus/store-key.ts storeTextsKey, once per run), or SHA-256 of the texts
   * themselves for a source that is not a store.
   */
  identity(): string {
    if (this.identity_) return this.identity_;
    const storeDir = this.opts.storeDir ?? storeDirOf(this.texts);
    const key = storeDir ? storeTextsKey(storeDir) : undefined;
    if (key) return (this.identity_ = key);
    const h = sha256().update(String(this.texts.size));
    for (const t of this.texts.texts()) h.update(`\u0000${t.title}\u0001${t.abstract}`);
    return (this.identity_ = h.hex(32));
  }

  /** The index of `docs` (sorted, distinct corpus indices): the one kept when it holds the same documents. */
  async of(docs: Uint32Array): Promise<PoolIndex> {
    if (this.last && sameDocs(this.last.docs, docs)) return this.last;
    if (this.building && sameDocs(this.building.docs, docs)) return this.building.done;
    this.last = undefined; // the previous pool's index is released before the next one is built
    const done = this.build(docs);
    this.building = { docs, done };
    try {
      this.last = await done;
      return this.last;
    } finally {
      if (this.building?.done === done) this.building = undefined;
    }
  }

  private async build(docs: Uint32Array): Promise<PoolIndex> {
    const start = performance.now();
    const own = Uint32Array.from(docs);
    const threads = Math.max(1, this.opts.threads ?? 1);
    let scratch: string | undefined;
    let index: Bm25Index;
    try {
      let workerSource;
      if (threads > 1 && this.opts.storeDir) {
        scratch = mkdtempSync(join(this.opts.scratchDir ?? tmpdir(), 'citebench-pool-'));
        const docsFile = join(scratch, 'docs.u32');
        writeFileSync(docsFile, own);
        workerSource = { kind: 'store' as const, dir: this.opts.storeDir, docsFile };
      }
      index = await buildIndex(new SubsetTexts(this.texts, own), { threads, workerSource });
    } finally {
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    }
    this.builds++;
    this.opts.onBuild?.(own.length, (performance.now() - start) / 1000);
    return { docs: own, index, vocab: termIdMap(index.terms), stats: new Map(), tieKeys: new WeakMap() };
  }
}

function sameDocs(a: Uint32Array, b: Uint32Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/** Sorted, distinct union of a pool and the fixed candidates a request names (usually all in the pool already). */
export function poolWithCandidates(pool: Uint32Array, candidates: readonly Uint32Array[] | undefined): Uint32Array {
  if (!candidates) return pool;
  const seen = new Set<number>();
  const outside: number[] = [];
  for (const list of candidates) for (const d of list) if (!seen.has(d) && slicePosition(pool, d) < 0) (seen.add(d), outside.push(d));
  if (!outside.length) return pool;
  const out = new Uint32Array(pool.length + outside.length);
  out.set(pool);
  out.set(outside, pool.length);
  return out.sort();
}

/** The folder of a corpus store's texts (CorpusStore, StoreTexts), else undefined. */
function storeDirOf(texts: TextSource): string | undefined {
  const dir = (texts as { dir?: unknown }).dir;
  return typeof dir === 'string' && existsSync(join(dir, STORE_FILES.text)) ? dir : undefined;
}
