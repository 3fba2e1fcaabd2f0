import { join, resolve } from 'node:path';
import { parse, num, required } from '../args.ts';
import { StoreTexts } from '../../corpus/store-texts.ts';
import { buildIndex, removeWorkDir } from '../../retrieval/bm25/index.ts';
import { saveIndex } from '../../retrieval/bm25/index-format.ts';
import { fmtDuration } from '../../util/progress.ts';
import { CitebenchError } from '../../util/errors.ts';
import { availableParallelism } from 'node:os';

export const usage = `usage: citebench bm25 index --corpus STORE --out INDEX [--chunk-docs 50000] [--threads N]

Build the BM25 index of a corpus store: title + abstract of every article, analysed like Anserini/Lucene 8.7
(EnglishAnalyzer). Chunks are kept in INDEX.work/ so a killed build resumes where it stopped; the index
directory is written atomically at the end. --threads N analyses chunks in N child processes (default: number
of CPUs); the index is identical for any N.`;

export async function run(args: string[]) {
  const { values } = parse(args, { corpus: { type: 'string' }, out: { type: 'string' }, 'chunk-docs': { type: 'string' }, threads: { type: 'string' } }, usage);
  const storeDir = required('corpus', values.corpus);
  const out = required('out', values.out);
  const chunkDocs = num('chunk-docs', values['chunk-docs'], 50_000);
  const threads = num('threads', values.threads, availableParallelism());
  if (!Number.isInteger(chunkDocs) || chunkDocs < 1) throw new CitebenchError(`--chunk-docs must be a positive integer, got ${values['chunk-docs']}`);
  if (!Number.isInteger(threads) || threads < 1) throw new CitebenchError(`--threads must be a positive integer, got ${values.threads}`);
  const store = new StoreTexts(storeDir); // texts only: the index needs neither ids nor citations
  const t0 = performance.now();
  const workDir = `${out}.work`;
  const ix = await buildIndex(store, { chunkDocs, workDir, threads, workerSource: { kind: 'store', dir: resolve(storeDir) } });
  saveIndex(ix, out, { corpus: { dir: resolve(storeDir), articles: store.size } });
  removeWorkDir(workDir);
  const secs = (performance.now() - t0) / 1000;
  console.log(`${out}: ${ix.docCount} documents, ${ix.terms.length} terms, ${ix.docs.length} postings (${fmtDuration(secs)})`);
  console.log(`files: ${join(out, 'meta.json')} and postings`);
}
