/**
 * The BM25 index's on-disk format and its in-memory form: a directory of little-endian binary columns that
 * loads straight into (shared) typed arrays.
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
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic, commitDirectory, tmpDirFor } from '../../util/atomic.ts';
import { readFileShared } from '../../util/mapped-file.ts';
import { CitebenchError } from '../../util/errors.ts';

const INDEX_FORMAT = 'citebench-bm25-index';
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

/** Term id lookup for a vocabulary. */
export function termIdMap(terms: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < terms.length; i++) m.set(terms[i], i);
  return m;
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
  throw new CitebenchError(`bm25 index: posting ${p} has the ≥255 marker but no stored frequency (damaged index files): rebuild the index`);
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
  const tmp = tmpDirFor(dir);
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

/**
 * A binary column in shared memory (worker threads then use it without copying): mapped from the file where the
 * addon is built (util/mapped-file.ts), else read.
 */
function readShared<T extends Uint8Array | Uint16Array | Uint32Array | Float64Array>(
  dir: string,
  name: string,
  ctor: { new (b: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number },
): T {
  const path = join(dir, name);
  if (!existsSync(path)) throw new CitebenchError(`${dir}: BM25 index is missing ${name}: rebuild it`);
  const size = statSync(path).size;
  if (size % ctor.BYTES_PER_ELEMENT) throw new CitebenchError(`${path}: size ${size} is not a multiple of ${ctor.BYTES_PER_ELEMENT}`);
  return new ctor(readFileShared(path));
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
