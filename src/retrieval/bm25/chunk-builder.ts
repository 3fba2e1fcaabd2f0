/**
 * The analysing half of the BM25 index build: a ChunkBuilder turns a range of documents into postings grouped
 * by term, in its own term ids. buildIndex runs one in its thread, or one per child process / worker thread
 * (index-process.ts, index-worker.ts), and merges their chunks; a module of its own so those entry points do
 * not import the orchestration that starts them.
 */
import { readFileSync } from 'node:fs';
import { InMemoryTexts, SubsetTexts, type TextSource } from '../../corpus/article.ts';
import { StoreTexts } from '../../corpus/store-texts.ts';
import { Growable } from '../../util/growable.ts';
import { EnglishAnalyzer, articleText } from './analyzer.ts';
import { tokenize } from './tokenizer.ts';
import { TokenTable, hashRange, ABSENT } from './token-table.ts';

/**
 * One chunk's postings as its builder produced them, in the builder's own (local) term ids: `newTerms` are
 * the terms the builder met for the first time in this chunk (local ids continue from its earlier chunks).
 */
export interface LocalChunk {
  index: number;
  from: number;
  to: number;
  newTerms: string[];
  /** Postings grouped by local term id ascending: group g = term groupTerms[g], groupCounts[g] postings. */
  groupTerms: Uint32Array;
  groupCounts: Uint32Array;
  docs: Uint32Array;
  tfs: Uint32Array;
  lengths: Uint32Array;
}

/**
 * The arrays of a chunk a child process leaves in files, `<base>.<extension>` (raw uint32, as index.ts's chunk
 * files hold them under the same extensions).
 */
export const LOCAL_POSTINGS = { groupCounts: 'gcounts', docs: 'docs', tfs: 'tfs', lengths: 'lengths' } as const;

/** The rest of a chunk, sent over the IPC pipe by a child process; `base` names its LOCAL_POSTINGS files. */
export type LocalChunkHead = Omit<LocalChunk, keyof typeof LOCAL_POSTINGS> & { base: string };

/** Where worker threads read the texts from (they cannot share the caller's TextSource object). */
export type WorkerSource =
  /** A corpus store's texts; with `docsFile` (little-endian uint32 store indices) only those, numbered 0…n−1 in its order. */
  | { kind: 'store'; dir: string; docsFile?: string }
  | { kind: 'texts'; items: { title: string; abstract: string }[] };

/** The texts a worker reads (in its own process or thread). */
export function openWorkerSource(src: WorkerSource): TextSource {
  if (src.kind === 'texts') return new InMemoryTexts(src.items);
  const texts = new StoreTexts(src.dir);
  if (!src.docsFile) return texts;
  const b = readFileSync(src.docsFile);
  const docs = new Uint32Array(b.byteLength >>> 2);
  new Uint8Array(docs.buffer).set(b.subarray(0, docs.byteLength));
  return new SubsetTexts(texts, docs);
}

/** Each document's BM25 text (articleText); a store's decoded in one piece (StoreTexts.articleTexts). */
function* bm25Texts(source: TextSource, from: number, to: number): Generator<{ index: number; text: string }> {
  if (source instanceof StoreTexts) return yield* source.articleTexts(from, to);
  for (const a of source.texts(from, to)) yield { index: a.index, text: articleText(a) };
}

/**
 * Analyses chunks of documents into postings with its own vocabulary. One per thread: the merger maps each
 * builder's local ids to global ids in chunk order, so the index does not depend on the number of threads.
 */
export class ChunkBuilder {
  private readonly analyzer = new EnglishAnalyzer(0);
  private readonly rawIds = new TokenTable();
  private readonly vocab = new Map<string, number>();
  private termCount = 0;
  private seenDoc = new Int32Array(1 << 16).fill(-1);
  private seenSlot = new Uint32Array(1 << 16);

  build(source: TextSource, index: number, from: number, to: number, onDoc?: () => void): LocalChunk {
    const analyzer = this.analyzer;
    const rawIds = this.rawIds;
    const vocab = this.vocab;
    const newTerms: string[] = [];
    const pTerm = new Growable(Uint32Array, 1 << 16);
    const pDoc = new Growable(Uint32Array, 1 << 16);
    const pTf = new Growable(Uint32Array, 1 << 16);
    const lengths = new Uint32Array(to - from);
    // Per-document term counting: slot of each term in the current document's list, tagged by document.
    let seenDoc = this.seenDoc;
    let seenSlot = this.seenSlot;
    for (const { index: d, text } of bm25Texts(source, from, to)) {
      let len = 0;
      tokenize(text, (s, e) => {
        const h = hashRange(text, s, e);
        let id = rawIds.get(text, s, e, h);
        if (id === ABSENT) {
          const raw = text.slice(s, e);
          const t = analyzer.term(raw);
          if (t === null) id = -1;
          else {
            const known = vocab.get(t);
            if (known !== undefined) id = known;
            else {
              id = this.termCount++;
              newTerms.push(t);
              vocab.set(t, id);
              if (id >= seenDoc.length) {
                const sd = new Int32Array(seenDoc.length * 2).fill(-1);
                sd.set(seenDoc);
                seenDoc = this.seenDoc = sd;
                const ss = new Uint32Array(seenSlot.length * 2);
                ss.set(seenSlot);
                seenSlot = this.seenSlot = ss;
              }
            }
          }
          rawIds.add(raw, h, id);
        }
        if (id < 0) return; // stop word
        len++;
        if (seenDoc[id] === d) {
          pTf.add(seenSlot[id], 1);
        } else {
          seenDoc[id] = d;
          seenSlot[id] = pTerm.length;
          pTerm.push(id);
          pDoc.push(d);
          pTf.push(1);
        }
      });
      lengths[d - from] = len;
      onDoc?.();
    }
    // Group by local term id (stable counting sort keeps documents ascending within a term).
    const V = this.termCount;
    const termOf = pTerm.view();
    const docOf = pDoc.view();
    const tfOf = pTf.view();
    const P = termOf.length;
    const counts = new Uint32Array(V);
    for (let i = 0; i < P; i++) counts[termOf[i]]++;
    let groups = 0;
    for (let t = 0; t < V; t++) if (counts[t] > 0) groups++;
    const groupTerms = new Uint32Array(groups);
    const groupCounts = new Uint32Array(groups);
    const start = new Float64Array(V);
    let g = 0;
    let at = 0;
    for (let t = 0; t < V; t++) {
      if (counts[t] === 0) continue;
      groupTerms[g] = t;
      groupCounts[g++] = counts[t];
      start[t] = at;
      at += counts[t];
    }
    const docs = new Uint32Array(P);
    const tfs = new Uint32Array(P);
    for (let i = 0; i < P; i++) {
      const t = termOf[i];
      const k = start[t]++;
      docs[k] = docOf[i];
      tfs[k] = tfOf[i];
    }
    return { index, from, to, newTerms, groupTerms, groupCounts, docs, tfs, lengths };
  }
}
