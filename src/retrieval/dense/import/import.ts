/**
 * `citebench embeddings import` and the `embeddings` model kind: vectors computed elsewhere go into an ordinary
 * EmbeddingStore (store.ts), so every search, cell, report and MDCR score uses them as it uses an encoder's. The
 * store's fingerprint is the file's SHA-256 (with its ids file's, for .npy and .safetensors: the ids say which
 * article each row is): another file can never resume into it or reuse its cells. Rows map
 * to corpus articles by paper id; a paper id twice is an error (which vector would be meant?), ids outside the
 * corpus are counted and the first few named. Chunks are written atomically through the encode path
 * (EmbeddingStore.fillMissing), so a killed import resumes at its first missing chunk; a finished one leaves
 * `import.json` (what was imported, from which file) and the next import of the same file reads only that.
 * The manifest names the format, not the file: a renamed or moved file is the same import.
 */
import { sha256 } from '../../../util/identity.ts';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { writeFileAtomic } from '../../../util/atomic.ts';
import { CitebenchError } from '../../../util/errors.ts';
import { fileContentHash } from '../file-hash.ts';
import type { Distance } from '../models.ts';
import { DEFAULT_CHUNK_SIZE, EmbeddingStore } from '../store.ts';
import { openJsonl } from './jsonl.ts';
import { openNpy } from './npy.ts';
import { openSafetensorsVectors } from './safetensors.ts';
import { defaultIdsPath, formatOf, type VectorFile, type VectorFormat } from './vector-file.ts';

/** What an import needs of a corpus: its size and paper-id lookup (CorpusStore fits). */
export interface ImportCorpus {
  readonly size: number;
  indexOf(id: string): number;
}

export interface ImportOptions {
  /** Paper ids of a .npy or .safetensors file (default: X.ids.txt beside X.npy). */
  ids?: string;
  /** The embedding store folder (created when absent). */
  dir: string;
  corpusKey?: string;
  /** Recorded in the store's manifest (the distance the vectors are meant for). */
  distance: Distance;
  chunkSize?: number;
  progress?: boolean;
}

export interface ImportSummary {
  /** The file's name (not its path: the same file elsewhere is the same import). */
  file: string;
  format: VectorFormat;
  sha256: string;
  rows: number;
  dim: number;
  /** Corpus articles that have a vector. */
  imported: number;
  /** Rows whose paper id is not in the corpus: how many, and the first few. */
  notInCorpus: { count: number; first: string[] };
}

export interface ImportOutcome extends ImportSummary {
  /** Articles written now (0 when the store already held them all). */
  written: number;
  store: EmbeddingStore;
}

const MARKER = 'import.json';
const NAMED = 5;

/** The identity of an import: the vectors file's SHA-256, or for .npy/.safetensors that of (its SHA-256, its ids file's). */
export function importFingerprint(path: string, ids?: string): string {
  if (!existsSync(path)) throw new CitebenchError(`${path}: no such embeddings file`);
  if (formatOf(path) === 'jsonl') return fileContentHash(path);
  const idsPath = ids ?? defaultIdsPath(path);
  if (!existsSync(idsPath)) throw new CitebenchError(`${idsPath}: no such ids file; ${path} needs its paper ids, one per line in row order (--ids FILE)`);
  return sha256().update(`${fileContentHash(path)}\n${fileContentHash(idsPath)}\n`).hex();
}

function openVectorFile(path: string, ids?: string): VectorFile {
  if (!existsSync(path)) throw new CitebenchError(`${path}: no such embeddings file`);
  const format = formatOf(path);
  if (format === 'jsonl') {
    if (ids) throw new CitebenchError(`${path}: a JSONL file names its papers itself (doc_id); --ids is for .npy and .safetensors`);
    return openJsonl(path);
  }
  const idsPath = ids ?? defaultIdsPath(path);
  return format === 'npy' ? openNpy(path, idsPath) : openSafetensorsVectors(path, idsPath);
}

export async function importEmbeddings(path: string, corpus: ImportCorpus, opts: ImportOptions): Promise<ImportOutcome> {
  const sha256 = importFingerprint(path, opts.ids);
  const marker = join(opts.dir, MARKER);
  if (existsSync(marker)) {
    const done = JSON.parse(readFileSync(marker, 'utf8')) as ImportSummary;
    if (done.sha256 === sha256) {
      const store = EmbeddingStore.openOrCreate(opts.dir, manifestFor(path, sha256, done.dim, corpus, opts));
      return { ...done, written: 0, store };
    }
  }
  const file = openVectorFile(path, opts.ids);
  try {
    const rowOf = new Int32Array(corpus.size).fill(-1);
    const notInCorpus = { count: 0, first: [] as string[] };
    for (let r = 0; r < file.rows; r++) {
      const id = file.id(r);
      const i = corpus.indexOf(id);
      if (i < 0) {
        if (notInCorpus.count++ < NAMED) notInCorpus.first.push(id);
        continue;
      }
      if (rowOf[i] >= 0) throw new CitebenchError(`${file.where(r)}: paper ${id} occurs twice (first at ${file.where(rowOf[i])}); each paper id may have one vector`);
      rowOf[i] = r;
    }
    let n = 0;
    for (let i = 0; i < rowOf.length; i++) if (rowOf[i] >= 0) n++;
    const indices = new Uint32Array(n);
    for (let i = 0, k = 0; i < rowOf.length; i++) if (rowOf[i] >= 0) indices[k++] = i;
    const store = EmbeddingStore.openOrCreate(opts.dir, manifestFor(path, sha256, file.dim, corpus, opts));
    const dim = file.dim;
    const written = await store.fillMissing({
      fingerprint: sha256,
      label: `import ${basename(path)}`,
      vectors: async (idx, _c, onBatch) => {
        const vectors = new Float32Array(idx.length * dim);
        idx.forEach((i, k) => file.read(rowOf[i], vectors, k * dim));
        onBatch(idx.length);
        return { dim, offsets: Uint32Array.from({ length: idx.length + 1 }, (_, k) => k), vectors };
      },
    }, indices, { progress: opts.progress });
    const summary: ImportSummary = { file: basename(path), format: file.format, sha256, rows: file.rows, dim, imported: n, notInCorpus };
    writeFileAtomic(marker, JSON.stringify(summary, null, 1) + '\n');
    return { ...summary, written, store };
  } finally {
    file.close();
  }
}

function manifestFor(path: string, sha256: string, dim: number, corpus: ImportCorpus, opts: ImportOptions) {
  return {
    model: `imported ${formatOf(path)}`, fingerprint: sha256, dim, dtype: 'float32' as const, kind: 'single' as const,
    chunkSize: opts.chunkSize ?? DEFAULT_CHUNK_SIZE, corpusSize: corpus.size, corpusKey: opts.corpusKey, distance: opts.distance,
  };
}

/** The one-paragraph account of an import (CLI and run log). */
export function importReport(s: ImportOutcome, corpusSize: number): string[] {
  const lines = [`${s.file} (${s.format}, ${s.rows} vectors of dim ${s.dim}, sha256 ${s.sha256.slice(0, 12)}…): ${s.imported} corpus articles have a vector (${s.written} written now), ${corpusSize - s.imported} of the corpus's ${corpusSize} have none`];
  if (s.notInCorpus.count) lines.push(`${s.notInCorpus.count} paper id(s) of the file are not in the corpus and were left out: ${s.notInCorpus.first.join(', ')}${s.notInCorpus.count > s.notInCorpus.first.length ? ', …' : ''}`);
  return lines;
}
