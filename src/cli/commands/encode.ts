import { parse, num, required } from '../args.ts';
import { CorpusStore } from '../../corpus/store.ts';
import { Encoder } from '../../retrieval/dense/encoder.ts';
import { EmbeddingStore, DEFAULT_CHUNK_SIZE } from '../../retrieval/dense/store.ts';
import { CitebenchError } from '../../util/errors.ts';
import { readPool } from './id-lists.ts';
import { defaultEmbDir, modelOptionSpec, modelOptionsUsage, resolveFromValues } from './dense-common.ts';
import { corpusKey } from '../../corpus/store-key.ts';

export const usage = `usage: citebench encode --model NAME|DIR --corpus STORE [--ids FILE] [--out EMB_DIR] [--batch 16] [--fp16]
                        [--chunk ${DEFAULT_CHUNK_SIZE}] [--threads N] [model options]

Encode articles (title [SEP] abstract) of a corpus store with a transformer article encoder into an embedding
store: chunked, written atomically, resumable (a killed run continues from the first missing chunk), and
reused by every later search (each article is encoded once per model; --ids runs add only what is missing).
  --corpus STORE   corpus store folder (citebench corpus build)
  --ids FILE       paper ids to encode, one per line (default: the whole corpus)
  --out EMB_DIR    embedding store folder (default: data/embeddings/<corpus folder>/<model>)
  --batch N        articles per forward pass (default 16; texts are length-sorted within a chunk)
  --fp16           store float16 (half the disk; searches widen to float32)
  --chunk N        articles per chunk file (default ${DEFAULT_CHUNK_SIZE}); fixed when the store is created
  --threads N      onnxruntime threads (default: all cores)

${modelOptionsUsage}`;

export async function run(args: string[]) {
  const { values } = parse(
    args,
    {
      ...modelOptionSpec,
      corpus: { type: 'string' }, ids: { type: 'string' }, out: { type: 'string' }, batch: { type: 'string' },
      fp16: { type: 'boolean' }, chunk: { type: 'string' }, threads: { type: 'string' },
    },
    usage,
  );
  const corpusDir = required('corpus', values.corpus);
  const modelName = required('model', values.model);
  const batch = num('batch', values.batch, 16);
  const chunk = num('chunk', values.chunk, DEFAULT_CHUNK_SIZE);
  const threads = values.threads === undefined ? undefined : num('threads', values.threads);
  if (!Number.isInteger(batch) || batch < 1) throw new CitebenchError(`--batch must be a positive integer, got ${values.batch}`);
  if (!Number.isInteger(chunk) || chunk < 1) throw new CitebenchError(`--chunk must be a positive integer, got ${values.chunk}`);
  if (threads !== undefined && (!Number.isInteger(threads) || threads < 1)) throw new CitebenchError(`--threads must be a positive integer`);
  const corpus = CorpusStore.open(corpusDir);
  const model = await resolveFromValues(values);
  const ids = values.ids ? readPool(values.ids, corpus) : undefined;
  const out = values.out ?? defaultEmbDir(corpusDir, modelName);
  const encoder = await Encoder.load(model, { batchSize: batch, threads });
  const store = EmbeddingStore.openOrCreate(out, {
    model: model.name,
    fingerprint: model.fingerprint,
    dim: encoder.dim,
    dtype: values.fp16 ? 'float16' : 'float32',
    kind: model.pooling === 'aspire' ? 'multi' : 'single',
    chunkSize: chunk,
    corpusSize: corpus.size,
    corpusKey: corpusKey(corpusDir),
    distance: model.distance,
  });
  const t0 = performance.now();
  const n = await store.encodeMissing(encoder, corpus, ids);
  const secs = (performance.now() - t0) / 1000;
  const asked = ids ? ids.length : corpus.size;
  console.log(
    `${out}: ${model.name} (${model.pooling}${model.layers ? `/${model.layers}` : ''}, dim ${encoder.dim}), ` +
      `${n} of ${asked} requested articles encoded now, ${asked - n} already stored` +
      (n > 0 ? ` (${secs.toFixed(1)} s, ${(n / secs).toFixed(1)} articles/s)` : ''),
  );
  await encoder.release();
}
