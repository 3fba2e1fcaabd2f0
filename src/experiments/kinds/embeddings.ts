/**
 * Vectors computed elsewhere (`{ embeddings: FILE, distance: l2|ip }`; docs/dense.md, "Embeddings from Python"):
 * the file — SciRepEval JSONL, .npy or .safetensors — is imported into an embedding store under the work folder
 * keyed by its SHA-256 (with its ids file's; retrieval/dense/import/), and a DenseRetriever without an encoder searches it, so its
 * cells, report rows and MDCR scores are made exactly as an encoder's. Whether the vectors are a finding is not
 * citebench's to know: their weights class is `imported` (the report says so above the tables) unless the config
 * vouches for them with `weights: trained` (or marks them `random`). A file not on this machine is a recorded skip.
 * A model whose queries are encoded otherwise than its documents (an instruction on queries only: Qwen3-Embedding,
 * e5-mistral) gives its query articles' vectors in a second file (`queries:`), imported into a store of its own:
 * queries are searched with those, pools and candidates with `embeddings:`.
 */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { vectorStoreDir } from '../../retrieval/dense/role-stores.ts';
import { DenseRetriever } from '../../retrieval/dense/retriever.ts';
import { importEmbeddings, importFingerprint, importReport } from '../../retrieval/dense/import/import.ts';
import { CitebenchError } from '../../util/errors.ts';
import type { Reader } from '../config-reader.ts';
import type { PlanArticles, ReadyModel } from '../models.ts';
import type { EmbeddingStore } from '../../retrieval/dense/store.ts';
import type { KindEntry } from './types.ts';
import { UNIT, denseSeconds } from './cost.ts';

export interface EmbeddingsModelConfig {
  kind: 'embeddings';
  name: string;
  /** SciRepEval JSONL, .npy or .safetensors. */
  embeddings: string;
  /** Paper ids of a .npy / .safetensors file (default X.ids.txt beside it). */
  ids?: string;
  /** The query articles' vectors when queries are encoded otherwise (encode_query), and their ids file. */
  queries?: string;
  queryIds?: string;
  distance: 'l2' | 'ip';
  /** A pool article without a vector is an error instead of a counted skip. */
  strict: boolean;
  /** What the user says the vectors are (absent: imported, of unknown provenance). */
  weights?: 'trained' | 'random';
}

export const embeddings: KindEntry<EmbeddingsModelConfig> = {
  kind: 'embeddings',
  about: 'vectors computed elsewhere (SciRepEval JSONL, .npy, safetensors), imported into an embedding store and searched exactly',
  impliedBy: 'embeddings',
  // Its vectors are keyed by the corpus's paper ids; a task's documents and queries have ids of their own.
  offTask: (c, on) => (on.corpusIds ? undefined : `ranks by vectors imported for the corpus's articles (${basename(c.embeddings)}), and ${on.what}'s documents and queries have none there`),
  parse(r: Reader, p: string[], name: string): EmbeddingsModelConfig {
    r.checkKeys(p, ['kind', 'embeddings', 'ids', 'queries', 'queryIds', 'distance', 'strict', 'weights']);
    const file = r.str([...p, 'embeddings']) ?? r.fail([...p, 'embeddings'], 'is required: the vectors file (.jsonl, .npy or .safetensors)');
    if (!/\.(jsonl?|npy|safetensors)$/i.test(file)) r.fail([...p, 'embeddings'], `'${file}' is not a .jsonl (SciRepEval), .npy or .safetensors file`);
    const ids = r.str([...p, 'ids']);
    if (ids !== undefined && /\.jsonl?$/i.test(file)) r.fail([...p, 'ids'], 'a JSONL file names its papers itself (doc_id); ids is for .npy and .safetensors');
    const queries = r.str([...p, 'queries']);
    if (queries !== undefined && !/\.(jsonl?|npy|safetensors)$/i.test(queries)) r.fail([...p, 'queries'], `'${queries}' is not a .jsonl (SciRepEval), .npy or .safetensors file`);
    const queryIds = r.str([...p, 'queryIds']);
    if (queryIds !== undefined && (queries === undefined || /\.jsonl?$/i.test(queries))) r.fail([...p, 'queryIds'], 'is the ids file of a .npy or .safetensors queries: file');
    const distance = r.str([...p, 'distance']) ?? r.fail([...p, 'distance'], 'is required: l2 or ip, the distance the vectors were made for (SPECTER, SciNCL: l2)');
    if (distance !== 'l2' && distance !== 'ip') r.fail([...p, 'distance'], `must be l2 or ip, got '${distance}'`);
    const weights = r.str([...p, 'weights'], 'imported');
    if (weights !== 'imported' && weights !== 'trained' && weights !== 'random') r.fail([...p, 'weights'], `must be imported (default: provenance unknown), trained or random, got '${weights}'`);
    return {
      kind: 'embeddings', name, embeddings: file, ...(ids !== undefined ? { ids } : {}), ...(queries !== undefined ? { queries } : {}), ...(queryIds !== undefined ? { queryIds } : {}),
      distance, strict: r.bool([...p, 'strict'], false),
      ...(weights !== 'imported' ? { weights } : {}),
    };
  },
  describe: (c) => `, ${c.embeddings}`,
  async build(c, ctx) {
    if (!existsSync(c.embeddings)) return { name: c.name, reason: `${c.embeddings}: no such embeddings file on this machine` };
    const sha256 = importFingerprint(c.embeddings, c.ids);
    const r = await ctx.timed(`import ${c.name}`, () => importEmbeddings(c.embeddings, ctx.store, {
      ids: c.ids, dir: vectorStoreDir(join(ctx.cfg.work, 'embeddings'), c.name, sha256), corpusKey: ctx.corpusKey, distance: c.distance,
    }));
    for (const line of importReport(r, ctx.store.size)) ctx.log(`[models] ${c.name}: ${line}`);
    if (r.imported === 0) throw new CitebenchError(`models.${c.name}: none of the ${r.rows} paper ids of ${c.embeddings} is in the corpus (first: ${r.notInCorpus.first.join(', ')}); are they the corpus's paper ids?`);
    let q: typeof r | undefined;
    let qSha: string | undefined;
    if (c.queries !== undefined) {
      if (!existsSync(c.queries)) return { name: c.name, reason: `${c.queries}: no such query embeddings file on this machine` };
      qSha = importFingerprint(c.queries, c.queryIds);
      q = await ctx.timed(`import ${c.name} queries`, () => importEmbeddings(c.queries!, ctx.store, {
        ids: c.queryIds, dir: vectorStoreDir(join(ctx.cfg.work, 'embeddings'), `${c.name}-queries`, qSha!), corpusKey: ctx.corpusKey, distance: c.distance,
      }));
      for (const line of importReport(q, ctx.store.size)) ctx.log(`[models] ${c.name} (queries): ${line}`);
      if (q.dim !== r.dim) throw new CitebenchError(`models.${c.name}: ${c.queries} has ${q.dim}-dimensional vectors, ${c.embeddings} ${r.dim}-dimensional: queries and documents must be comparable`);
    }
    const retriever = new DenseRetriever({
      name: c.name, store: r.store, ...(q ? { queryStore: q.store } : {}), distance: c.distance, threads: ctx.threads, tieKey: ctx.store.idOrder,
      imported: { file: c.embeddings, strict: c.strict, paperId: (i) => ctx.store.id(i) },
    });
    const ready: ReadyModel = {
      name: c.name, kind: 'embeddings', weights: c.weights ?? 'imported',
      settings: {
        embeddings: c.embeddings, ...(c.ids ? { ids: c.ids } : {}), format: r.format, sha256, rows: r.rows, dim: r.dim, distance: c.distance, strict: c.strict,
        vectors: r.imported, notInCorpus: r.notInCorpus.count, fingerprint: qSha ? `${sha256}+${qSha}` : sha256,
        ...(q ? { queries: c.queries, queriesSha256: qSha, queryVectors: q.imported } : {}),
      },
      summary: `vectors from ${basename(c.embeddings)} (${r.format}, dim ${r.dim}, sha256 ${sha256.slice(0, 12)}…)${q ? `, queries from ${basename(c.queries!)} (sha256 ${qSha!.slice(0, 12)}…)` : ''}, ${c.distance}`,
      // It ranks a pool by itself: MDCR draws model-based negatives from its lists, as from an encoder's.
      retriever, firstStage: true, release: async () => {},
      // Nothing to encode: the plan's queries must have vectors; pool articles without one are counted.
      prepare: async (plan, opts) => (checkCoverage(ready, r.store, c.embeddings, c.strict, plan, opts.log, q ? { store: q.store, file: c.queries! } : undefined), 0),
      // MDCR candidates without a vector rank last (the retriever's candidate mode).
      unscorable: (articles) => {
        const present = r.store.presentMask();
        return articles.filter((x) => !present[x]);
      },
    };
    return ready;
  },
  cost: {
    perQuery: (_c, _env, pool) => denseSeconds(pool),
    // The pool's vectors in memory while a cell searches them.
    perGroup: (_c, _env, pool) => ({ seconds: 0, bytes: pool * UNIT.dim * 4 }),
    rescore: () => denseSeconds(1),
    assumption: () => 'Imported vectors: searched like a BERT-base encoder\'s (768 dimensions); importing reads the file once (not costed).',
  },
};

/**
 * Imported vectors, before any cell: every query the plan searches must have a vector (an error naming the
 * first); pool articles without one are counted, the first few named, and said in the model's summary (strict:
 * an error).
 */
function checkCoverage(m: Pick<ReadyModel, 'name' | 'settings' | 'summary'>, vectors: EmbeddingStore, file: string, strict: boolean, plan: PlanArticles, log: (line: string) => void, queries?: { store: EmbeddingStore; file: string }): void {
  const present = vectors.presentMask();
  const lacking = (xs: Uint32Array, mask = present) => xs.filter((x) => !mask[x]);
  const first = (xs: Uint32Array) => Array.from(xs.subarray(0, 5), plan.paperId).join(', ') + (xs.length > 5 ? ', …' : '');
  const q = lacking(plan.queries, queries ? queries.store.presentMask() : present);
  const qFile = queries?.file ?? file;
  if (q.length) throw new CitebenchError(`${qFile}: no vector for ${q.length} quer${q.length > 1 ? 'ies' : 'y'} of this run (${first(q)}); every query needs one (models.${m.name}): add them to the file`);
  const p = lacking(plan.pool);
  if (p.length && strict) throw new CitebenchError(`${file}: no vector for ${p.length} pool article(s) of this run (${first(p)}); models.${m.name} has strict: true`);
  m.settings.poolWithoutVector = p.length;
  if (p.length) {
    m.summary = `${m.summary}; ${p.length} pool article(s) without a vector left out`;
    log(`[models] ${m.name}: ${p.length} pool article(s) of this run have no vector and are left out of the pools (${first(p)}); strict: true makes this an error`);
  }
}
