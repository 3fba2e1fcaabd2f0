/**
 * A model of vectors computed elsewhere (`kind: embeddings`): the file is imported into an embedding store under
 * the work folder keyed by its SHA-256 (retrieval/dense/import/), and a DenseRetriever without an encoder
 * searches it, so its cells, report rows and MDCR scores are made exactly as an encoder's. Whether the vectors are
 * a finding is not citebench's to know: their weights class is `imported` (the report says so above the
 * tables) unless the config vouches for them with `weights: trained` (or marks them `random`).
 */
import { basename } from 'node:path';
import type { CorpusStore } from '../corpus/store.ts';
import { DenseRetriever } from '../retrieval/dense/retriever.ts';
import { importEmbeddings, importReport, importedStoreDir } from '../retrieval/dense/import/import.ts';
import { fileContentHash } from '../retrieval/dense/file-hash.ts';
import { CitebenchError } from '../util/errors.ts';
import type { EmbeddingsModelConfig } from './config.ts';
import type { ReadyModel } from './models.ts';

export interface ImportedContext {
  store: CorpusStore;
  corpusKey?: string;
  work: string;
  threads: number;
  log: (line: string) => void;
}

export async function importedModel(c: EmbeddingsModelConfig, ctx: ImportedContext): Promise<ReadyModel> {
  const sha256 = fileContentHash(c.embeddings);
  const r = await importEmbeddings(c.embeddings, ctx.store, {
    ids: c.ids, dir: importedStoreDir(ctx.work, c.name, sha256), corpusKey: ctx.corpusKey, distance: c.distance, progress: true,
  });
  for (const line of importReport(r, ctx.store.size)) ctx.log(`[models] ${c.name}: ${line}`);
  if (r.imported === 0) throw new CitebenchError(`models.${c.name}: none of the ${r.rows} paper ids of ${c.embeddings} is in the corpus (first: ${r.notInCorpus.first.join(', ')}); are they the corpus's paper ids?`);
  const retriever = new DenseRetriever({
    name: c.name, store: r.store, distance: c.distance, threads: ctx.threads, tieKey: ctx.store.idOrder,
    imported: { file: c.embeddings, strict: c.strict, paperId: (i) => ctx.store.id(i) },
  });
  return {
    name: c.name, kind: 'dense', weights: c.weights ?? 'imported',
    settings: {
      embeddings: c.embeddings, ...(c.ids ? { ids: c.ids } : {}), format: r.format, sha256, rows: r.rows, dim: r.dim, distance: c.distance, strict: c.strict,
      vectors: r.imported, notInCorpus: r.notInCorpus.count, fingerprint: sha256,
      summary: `vectors from ${basename(c.embeddings)} (${r.format}, dim ${r.dim}, sha256 ${sha256.slice(0, 12)}…), ${c.distance}`,
    },
    retriever, embeddings: r.store, imported: { file: c.embeddings, strict: c.strict },
    release: async () => {},
  };
}

/**
 * Before any cell: every query the plan searches must have a vector (an error naming the first); pool articles
 * without one are counted, the first few named, and recorded in the model's settings (strict: an error).
 */
export function checkImportedCoverage(m: ReadyModel, queries: Uint32Array, pool: Uint32Array, paperId: (i: number) => string, log: (line: string) => void): void {
  if (!m.imported || !m.embeddings) return;
  const present = m.embeddings.presentMask();
  const lacking = (xs: Uint32Array) => xs.filter((x) => !present[x]);
  const q = lacking(queries);
  const { file, strict } = m.imported;
  const first = (xs: Uint32Array) => Array.from(xs.subarray(0, 5), paperId).join(', ') + (xs.length > 5 ? ', …' : '');
  if (q.length) throw new CitebenchError(`${file}: no vector for ${q.length} quer${q.length > 1 ? 'ies' : 'y'} of this run (${first(q)}); every query needs one (models.${m.name}): add them to the file`);
  const p = lacking(pool);
  if (p.length && strict) throw new CitebenchError(`${file}: no vector for ${p.length} pool article(s) of this run (${first(p)}); models.${m.name} has strict: true`);
  m.settings.poolWithoutVector = p.length;
  if (p.length) {
    m.settings.summary = `${m.settings.summary}; ${p.length} pool article(s) without a vector left out`;
    log(`[models] ${m.name}: ${p.length} pool article(s) of this run have no vector and are left out of the pools (${first(p)}); strict: true makes this an error`);
  }
}
