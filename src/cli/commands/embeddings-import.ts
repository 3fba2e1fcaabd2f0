import { basename, join, resolve } from 'node:path';
import { vectorStoreDir } from '../../retrieval/dense/role-stores.ts';
import { parse, num, required } from '../args.ts';
import { CorpusStore } from '../../corpus/store.ts';
import { corpusKey } from '../../corpus/store-key.ts';
import { CitebenchError } from '../../util/errors.ts';
import { DEFAULT_CHUNK_SIZE } from '../../retrieval/dense/store.ts';
import { importEmbeddings, importFingerprint, importReport } from '../../retrieval/dense/import/import.ts';

export const usage = `usage: citebench embeddings import FILE --corpus STORE [--ids IDS] [--out EMB_DIR] [--distance l2|ip]
                                   [--strict] [--chunk ${DEFAULT_CHUNK_SIZE}]

Put vectors computed elsewhere (e.g. a Python encoder on a GPU) into an embedding store of a corpus, so that
'dense search', MDCR scoring and 'citebench run' (model kind embeddings) use them like an encoder's. FILE is
  X.jsonl          SciRepEval's embeddings file: {"doc_id": …, "embedding": [floats]} on each line
  X.npy            a float32 or float16 (n, d) array, with its paper ids (--ids, default X.ids.txt)
  X.safetensors    a tensor 'embeddings' (or the only tensor) of shape [n, d], F32/F16/BF16, with --ids as for .npy
An ids file holds one paper id per line, in row order. Rows whose paper id is not in the corpus are counted and
the first few named; a paper id twice, a vector of another dimension, a NaN or an infinity is an error naming
the line (JSONL) or row (0-based). The store's fingerprint is FILE's SHA-256 (with the ids file's); a killed
import resumes.
  --corpus STORE   corpus store folder (citebench corpus build)
  --out EMB_DIR    embedding store folder (default: data/embeddings/<corpus folder>/imported-<sha256 prefix>)
  --distance D     l2 (default) | ip: the distance the vectors are meant for (recorded for 'dense search')
  --strict         an error unless every corpus article has a vector and every paper id is in the corpus
  --chunk N        articles per chunk file (default ${DEFAULT_CHUNK_SIZE})`;

export async function run(args: string[]) {
  const { values, positionals } = parse(
    args,
    { corpus: { type: 'string' }, ids: { type: 'string' }, out: { type: 'string' }, distance: { type: 'string' }, strict: { type: 'boolean' }, chunk: { type: 'string' } },
    usage,
  );
  if (positionals.length !== 1) throw new CitebenchError(`expected one embeddings FILE\n\n${usage}`);
  const file = positionals[0];
  const corpusDir = required('corpus', values.corpus);
  const distance = values.distance ?? 'l2';
  if (distance !== 'l2' && distance !== 'ip') throw new CitebenchError(`--distance must be l2 or ip, got '${distance}'`);
  const chunk = num('chunk', values.chunk, DEFAULT_CHUNK_SIZE);
  if (!Number.isInteger(chunk) || chunk < 1) throw new CitebenchError(`--chunk must be a positive integer, got ${values.chunk}`);
  const corpus = CorpusStore.open(corpusDir);
  try {
    const out = values.out ?? vectorStoreDir(join('data', 'embeddings', basename(resolve(corpusDir))), 'imported', importFingerprint(file, values.ids));
    const r = await importEmbeddings(file, corpus, { ids: values.ids, dir: out, corpusKey: corpusKey(corpusDir), distance, chunkSize: chunk });
    console.log(`${out}: ${importReport(r, corpus.size).join('\n')}`);
    if (values.strict && (r.imported < corpus.size || r.notInCorpus.count > 0)) {
      const lacking = corpus.size - r.imported;
      throw new CitebenchError(`${file}: --strict: ${lacking ? `${lacking} corpus article(s) have no vector` : ''}${lacking && r.notInCorpus.count ? '; ' : ''}${r.notInCorpus.count ? `${r.notInCorpus.count} paper id(s) are not in the corpus` : ''}`);
    }
  } finally {
    corpus.close();
  }
}
