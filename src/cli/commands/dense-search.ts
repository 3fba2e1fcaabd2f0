import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parse, num, required } from '../args.ts';
import { CorpusStore } from '../../corpus/store.ts';
import { writeRun } from '../../eval/trec-write.ts';
import { Encoder, parseDevice } from '../../retrieval/dense/encoder.ts';
import type { Distance } from '../../retrieval/dense/similarity.ts';
import { knownModel } from '../../retrieval/dense/registry.ts';
import { DenseRetriever } from '../../retrieval/dense/retriever.ts';
import { encodeRoles, openExistingStores, openModelStores, type RoleStores } from '../../retrieval/dense/role-stores.ts';
import { DISTANCE_HELP, parseDistance } from '../../retrieval/dense/similarity.ts';
import { sortedUnique } from '../../util/sorted.ts';
import { parseShard, shardRange } from '../../util/shard.ts';
import { CitebenchError } from '../../util/errors.ts';
import { Progress } from '../../util/progress.ts';
import { readIdList, readPool } from './id-lists.ts';
import { defaultEmbDir, modelLabel, modelOptionSpec, modelOptionsUsage, resolveFromValues } from './dense-common.ts';
import { corpusKey } from '../../corpus/store-key.ts';

export const usage = `usage: citebench dense search --model NAME|DIR --corpus STORE --queries FILE --out RUN.trec
                            [--pool FILE] [--k 500] [--emb EMB_DIR] [--hnsw [--M 16] [--ef-construction 128]
                            [--ef-search N] [--hnsw-cache FILE]] [--keep-self] [--tag NAME] [--threads N]
                            [--scores exact|float32] [--no-encode] [--device cpu|cuda|auto] [--shard I/N]
                            [model options]

Rank pool articles for each query article by embedding similarity and write a TREC run (qid Q0 docno rank
score tag; paper ids; ties by docno descending as trec_eval ranks them). Scores are the model's distance:
${DISTANCE_HELP}
(as sentence-transformers' similarity computes them). Queries are encoded as queries (the model's query prompt)
and the pool as documents (its document prompt); a model whose two prompts differ keeps query/ and document/
stores under EMB_DIR. Exact search by default; ASPIRE models score a pair by its best sentence pair. Articles
missing from the embedding store are encoded first when the model folder is available.

  --queries FILE   paper ids, one per line
  --pool FILE      paper ids of the candidate pool (default: the whole corpus)
  --emb EMB_DIR    embedding store (default: data/embeddings/<corpus folder>/<model>-<fingerprint>, as citebench encode writes)
  --hnsw           approximate search with an HNSW graph (usearch) instead of exact search
  --M, --ef-construction, --ef-search   HNSW connectivity and beam widths (defaults 16, 128, max(2k, 512))
  --hnsw-cache FILE  save the built graph there (its key in FILE.key) and reuse it when the key says it indexes
                   the same vectors (their bytes), pool, corpus and settings; else it is built again, with one
                   line saying why
  --hnsw-quantization Q  f32 (default) | bf16 | f16 | i8: how the graph stores its vectors (bf16: half the
                   memory, ~3× faster to build; i8 only for vectors within [−1, 1]); scores stay exact
  --scores S       exact (default): candidates re-scored in float64, results equal a brute force;
                   float32: ranked by float32 Gemm scores as faiss IndexFlat ranks them (faster, no re-scoring;
                   near-ties may order differently)
  --keep-self      keep the query article in its own list (default: excluded)
  --no-encode      never encode: a missing article is an error. With --emb, --model may be left out; a store
                   of imported vectors (citebench embeddings import) is searched this way: a query without a
                   vector is an error, pool articles without one are left out and counted (--strict: an error)
  --strict         imported vectors: a pool article without a vector is an error
  --threads N      threads (default: all cores)
  --device D       encoder device: cpu (default) | cuda (onnxruntime's CUDA provider; an error when absent) | auto
  --shard I/N      search only the I-th of N contiguous blocks of the query list (0 ≤ I < N); \`citebench
                   merge-runs OUT SHARD-RUNS…\` joins the shards' runs into the unsharded run, byte for byte.
                   Missing articles of every query and the pool are encoded first (the same set in every shard,
                   so concurrent shards write identical chunks); better: \`citebench encode --shard\` beforehand

${modelOptionsUsage}`;

export async function run(args: string[]) {
  const { values } = parse(
    args,
    {
      ...modelOptionSpec,
      corpus: { type: 'string' }, queries: { type: 'string' }, pool: { type: 'string' }, out: { type: 'string' },
      k: { type: 'string' }, emb: { type: 'string' }, hnsw: { type: 'boolean' }, M: { type: 'string' },
      'ef-construction': { type: 'string' }, 'ef-search': { type: 'string' }, 'hnsw-cache': { type: 'string' }, 'hnsw-quantization': { type: 'string' },
      'keep-self': { type: 'boolean' }, tag: { type: 'string' }, scores: { type: 'string' }, threads: { type: 'string' }, 'no-encode': { type: 'boolean' },
      strict: { type: 'boolean' }, device: { type: 'string' }, shard: { type: 'string' },
    },
    usage,
  );
  const corpusDir = required('corpus', values.corpus);
  // An imported store has no model to name: its folder names the run.
  const modelName = values.model ?? (values['no-encode'] && values.emb ? basename(resolve(values.emb)) : undefined);
  if (!modelName) throw new CitebenchError('--model is required (or --no-encode --emb EMB_DIR to search a store alone)');
  const out = required('out', values.out);
  const k = num('k', values.k, 500);
  if (!Number.isInteger(k) || k < 1) throw new CitebenchError(`--k must be a positive integer, got ${values.k}`);
  const threads = values.threads === undefined ? undefined : num('threads', values.threads);
  if (threads !== undefined && (!Number.isInteger(threads) || threads < 1)) throw new CitebenchError(`--threads must be a positive integer`);
  const shard = parseShard(values.shard);
  const device = parseDevice(values.device);
  const corpus = CorpusStore.open(corpusDir);
  const allQueries = readIdList(required('queries', values.queries), corpus);
  const { from, to } = shardRange(allQueries.indices.length, shard);
  const queries = { ids: allQueries.ids.slice(from, to), indices: allQueries.indices.slice(from, to) };
  const pool = values.pool ? readPool(values.pool, corpus) : undefined;
  // The model is resolved first where it is loaded anyway: its store folder is named by its fingerprint.
  const resolved = values['no-encode'] ? undefined : await resolveFromValues(values);
  const embDir = values.emb ?? defaultEmbDir(corpusDir, modelName, resolved);
  if (values['no-encode'] && !existsSync(join(embDir, 'manifest.json')) && !existsSync(join(embDir, 'document', 'manifest.json')))
    throw new CitebenchError(`${embDir}: no embedding store; run 'citebench encode --model ${modelName} --corpus ${corpusDir}' first`);

  // The model is needed only to encode missing articles; the stores alone are enough to search.
  let encoder: Encoder | undefined;
  let stores: RoleStores;
  let modelDistance: string | undefined;
  if (!values['no-encode']) {
    const model = resolved!;
    encoder = await Encoder.load(model, { threads, device, log: (l) => console.error(`citebench: ${l}`) });
    stores = openModelStores(embDir, model, { corpusSize: corpus.size, corpusKey: corpusKey(corpusDir) });
    modelDistance = model.distance;
  } else {
    stores = openExistingStores(embDir);
    const key = corpusKey(corpusDir);
    for (const st of new Set([stores.query, stores.document]))
      if (st.manifest.corpusSize !== corpus.size || (st.manifest.corpusKey && key && st.manifest.corpusKey !== key))
        throw new CitebenchError(`${st.dir}: embedding store was made for another corpus than ${corpusDir}`);
  }
  const store = stores.document;
  const distance = values.distance !== undefined ? parseDistance(values.distance, '--distance') : ((modelDistance ?? store.manifest.distance ?? knownModel(modelName)?.distance ?? 'l2') as Distance);
  if (values.hnsw && store.manifest.kind === 'multi') throw new CitebenchError(`--hnsw is for single-vector models; ${modelName} stores sentence vectors`);
  const hnsw = values.hnsw
    ? {
        connectivity: num('M', values.M, 16),
        expansionAdd: num('ef-construction', values['ef-construction'], 128),
        expansionSearch: values['ef-search'] === undefined ? undefined : num('ef-search', values['ef-search']),
        cachePath: values['hnsw-cache'],
        quantization: hnswQuantization(values['hnsw-quantization']),
        log: (l: string) => console.error(`citebench: ${l}`),
      }
    : undefined;
  if (values.scores !== undefined && values.scores !== 'exact' && values.scores !== 'float32') throw new CitebenchError(`--scores must be exact or float32, got '${values.scores}'`);
  const progress = new Progress({ label: 'dense search', total: queries.indices.length, unit: 'queries' });
  const imported = store.manifest.model.startsWith('imported ') ? { file: embDir, strict: values.strict ?? false, paperId: (i: number) => corpus.id(i) } : undefined;
  const retriever = new DenseRetriever({
    name: modelLabel(modelName), store, queryStore: stores.query, distance, encoder, texts: encoder ? corpus : undefined, hnsw, threads, tieKey: corpus.idOrder, imported,
    scores: values.scores as 'exact' | 'float32' | undefined,
    onProgress: (done) => progress.set(done),
  });
  const t0 = performance.now();
  if (shard && encoder) {
    const all = sortedUnique(allQueries.indices);
    await encodeRoles(stores, encoder, corpus, all, pool ?? Uint32Array.from({ length: corpus.size }, (_, i) => i));
  }
  const run = await retriever.search({ queries: queries.indices, pool, k, excludeSelf: !values['keep-self'] });
  progress.finish();
  const secs = (performance.now() - t0) / 1000;
  writeRun(out, { qids: queries.ids, docnos: (d) => corpus.id(d), run, tag: values.tag ?? modelLabel(modelName) });
  console.log(
    `${out}: ${queries.indices.length} queries, ${run.docs.length} results, ${pool ? `pool of ${pool.length}` : `all ${corpus.size} articles`}, ` +
      `${hnsw ? `HNSW (M ${hnsw.connectivity}, build ${retriever.lastBuildSeconds.toFixed(1)} s)` : 'exact'} ${distance} (${secs.toFixed(1)} s incl. encoding of missing articles)` +
      (retriever.lastSkipped ? `; ${retriever.lastSkipped} pool article(s) without a vector left out` : ''),
  );
  await encoder?.release();
}

function hnswQuantization(v: string | undefined): 'f32' | 'bf16' | 'f16' | 'i8' | undefined {
  if (v === undefined) return undefined;
  if (v === 'f32' || v === 'bf16' || v === 'f16' || v === 'i8') return v;
  throw new CitebenchError(`--hnsw-quantization must be f32, bf16, f16 or i8, got '${v}'`);
}
