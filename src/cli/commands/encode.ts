import { parse, num, required } from '../args.ts';
import { CorpusStore } from '../../corpus/store.ts';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Encoder, parseDevice } from '../../retrieval/dense/encoder.ts';
import { EmbeddingStore, DEFAULT_CHUNK_SIZE, type StoreStatus } from '../../retrieval/dense/store.ts';
import { openModelStores } from '../../retrieval/dense/role-stores.ts';
import { parseShard, shardLabel } from '../../util/shard.ts';
import { CitebenchError } from '../../util/errors.ts';
import { readPool } from './id-lists.ts';
import { defaultEmbDir, modelOptionSpec, modelOptionsUsage, resolveFromValues } from './dense-common.ts';
import { corpusKey } from '../../corpus/store-key.ts';

export const usage = `usage: citebench encode --model NAME|DIR --corpus STORE [--ids FILE] [--out EMB_DIR] [--batch 16] [--fp16]
                        [--chunk ${DEFAULT_CHUNK_SIZE}] [--role document|query] [--threads N] [--device cpu|cuda|auto]
                        [--shard I/N] [model options]
       citebench encode --status --corpus STORE [--ids FILE] [--role document|query] (--out EMB_DIR | --model NAME)

Encode articles (title + the tokenizer's sep token + abstract, after the role's prompt) of a corpus store with a
transformer article encoder into an embedding store: chunked, written atomically, resumable (a killed run
continues from the first missing chunk), and reused by every later search (each article is encoded once per
model and role; --ids runs add only what is missing).
  --corpus STORE   corpus store folder (citebench corpus build)
  --ids FILE       paper ids to encode, one per line (default: the whole corpus)
  --out EMB_DIR    embedding store folder (default: data/embeddings/<corpus folder>/<model>-<12 hex of its fingerprint>)
  --batch N        articles per forward pass (default 16; texts are length-sorted within a chunk; an int8
                   model that quantises activations at run time encodes each article alone)
  --fp16           store float16 (half the disk; searches widen to float32)
  --chunk N        articles per chunk file (default ${DEFAULT_CHUNK_SIZE}); fixed when the store is created
  --role R         document (default: pool and candidate articles) | query: which prompt the articles get. A model
                   whose query and document prompts differ keeps EMB_DIR/document/ and EMB_DIR/query/; one
                   whose prompts are the same keeps one store in EMB_DIR for both roles
  --threads N      onnxruntime threads (default: all cores)
  --device D       cpu (default) | cuda: onnxruntime's CUDA execution provider (an error when this installation
                   has none; docs/cluster.md) | auto: cuda when available, else cpu
  --shard I/N      encode only chunks c with c mod N = I (0 ≤ I < N, e.g. $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT):
                   N shards may run at once on one store folder (also from several machines over a shared file
                   system); each writes only its own chunk files, and together they give the same bytes as one
                   process. A killed shard, run again, continues with its first missing chunk
  --status         say which chunks of the request are missing (reads chunk headers only; loads no model);
                   exit status 0 when complete, 1 when chunks are missing

${modelOptionsUsage}`;

export async function run(args: string[]) {
  const { values } = parse(
    args,
    {
      ...modelOptionSpec,
      corpus: { type: 'string' }, ids: { type: 'string' }, out: { type: 'string' }, batch: { type: 'string' },
      fp16: { type: 'boolean' }, chunk: { type: 'string' }, threads: { type: 'string' },
      device: { type: 'string' }, shard: { type: 'string' }, status: { type: 'boolean' }, role: { type: 'string' },
    },
    usage,
  );
  const corpusDir = required('corpus', values.corpus);
  const role = values.role ?? 'document';
  if (role !== 'document' && role !== 'query') throw new CitebenchError(`--role must be document or query, got '${values.role}'`);
  if (values.status) return status(corpusDir, values.out ?? defaultEmbDir(corpusDir, required('model', values.model)), values.ids, role);
  const modelName = required('model', values.model);
  const shard = parseShard(values.shard);
  const device = parseDevice(values.device);
  const batch = num('batch', values.batch, 16);
  const chunk = num('chunk', values.chunk, DEFAULT_CHUNK_SIZE);
  const threads = values.threads === undefined ? undefined : num('threads', values.threads);
  if (!Number.isInteger(batch) || batch < 1) throw new CitebenchError(`--batch must be a positive integer, got ${values.batch}`);
  if (!Number.isInteger(chunk) || chunk < 1) throw new CitebenchError(`--chunk must be a positive integer, got ${values.chunk}`);
  if (threads !== undefined && (!Number.isInteger(threads) || threads < 1)) throw new CitebenchError(`--threads must be a positive integer`);
  const corpus = CorpusStore.open(corpusDir);
  const model = await resolveFromValues(values);
  const ids = values.ids ? readPool(values.ids, corpus) : undefined;
  const out = values.out ?? defaultEmbDir(corpusDir, modelName, model);
  const encoder = await Encoder.load(model, { batchSize: batch, threads, device, log: (l) => console.error(`citebench: ${l}`) });
  const stores = openModelStores(out, model, { corpusSize: corpus.size, corpusKey: corpusKey(corpusDir), dtype: values.fp16 ? 'float16' : 'float32', chunkSize: chunk });
  const store = stores[role];
  const t0 = performance.now();
  const n = await store.encodeMissing(encoder.forRole(role), corpus, ids, { shard });
  const secs = (performance.now() - t0) / 1000;
  const asked = ids ? ids.length : corpus.size;
  const prompt = model.prompts[role] ? `, ${role} prompt ${JSON.stringify(model.prompts[role])}` : '';
  console.log(
    `${store.dir}: ${model.name} (${model.pooling}${model.layers ? `/${model.layers}` : ''}${model.normalize ? ', normalised' : ''}, dim ${encoder.dim}, ${basename(model.onnxFile)}${prompt}), ` +
      (shard ? `${shardLabel(shard)}: ${n} articles encoded now` : `${n} of ${asked} requested articles encoded now, ${asked - n} already stored`) +
      (n > 0 ? ` (${secs.toFixed(1)} s, ${(n / secs).toFixed(1)} articles/s)` : ''),
  );
  await encoder.release();
}

function status(corpusDir: string, emb: string, idsFile: string | undefined, role: 'document' | 'query'): number {
  const corpus = CorpusStore.open(corpusDir);
  const ids = idsFile ? readPool(idsFile, corpus) : undefined;
  const asked = ids ? ids.length : corpus.size;
  // A model with two prompts keeps a store per role under the folder.
  const out = !existsSync(join(emb, 'manifest.json')) && existsSync(join(emb, role, 'manifest.json')) ? join(emb, role) : emb;
  if (!existsSync(join(out, 'manifest.json'))) {
    console.log(`${out}: no embedding store yet; all ${asked} requested articles are missing`);
    return 1;
  }
  const store = EmbeddingStore.open(out);
  const st = store.status(ids);
  console.log(formatStatus(out, st, store.manifest.chunkSize));
  return st.missing.length ? 1 : 0;
}

function formatStatus(out: string, st: StoreStatus, chunkSize: number): string {
  const head = `${out}: ${st.present} of ${st.requested} requested articles stored; ${st.chunks.length - st.missing.length} of ${st.chunks.length} chunks complete (chunk size ${chunkSize})`;
  if (!st.missing.length) return head;
  const lines = [head, `missing chunks (${st.missing.length}): ${ranges(st.missing.map((m) => m.chunk))}`];
  for (const m of st.missing.slice(0, 20)) lines.push(`  chunk ${m.chunk}: ${m.articles} articles missing`);
  if (st.missing.length > 20) lines.push(`  … ${st.missing.length - 20} more`);
  return lines.join('\n');
}

/** 3, 5-9, 12: compact list of ascending integers. */
function ranges(xs: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < xs.length; ) {
    let j = i;
    while (j + 1 < xs.length && xs[j + 1] === xs[j] + 1) j++;
    out.push(j > i ? `${xs[i]}-${xs[j]}` : `${xs[i]}`);
    i = j + 1;
  }
  return out.join(', ');
}
