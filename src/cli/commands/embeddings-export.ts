import { parse, required } from '../args.ts';
import { CorpusStore } from '../../corpus/store.ts';
import { corpusKey } from '../../corpus/store-key.ts';
import { CitebenchError } from '../../util/errors.ts';
import { EmbeddingStore } from '../../retrieval/dense/store.ts';
import { exportEmbeddings } from '../../retrieval/dense/import/export.ts';
import { defaultEmbDir } from './dense-common.ts';

export const usage = `usage: citebench embeddings export (EMB_DIR | --model NAME) --corpus STORE --out X.npy

Write an embedding store's vectors as NumPy files: X.npy (float32, shape (n, d), C order) and X.ids.txt (the
paper id of each row, one per line), rows in corpus order. numpy.load('X.npy') reads it; 'citebench embeddings
import X.npy' reads the pair back. Single-vector stores only.
  EMB_DIR          embedding store folder (citebench encode --out, embeddings import --out, or a run's
                   <work>/embeddings/<model>-<fingerprint>)
  --model NAME     instead of EMB_DIR: the default store of 'citebench encode --model NAME' for this corpus
  --corpus STORE   the corpus store the embeddings were made for (gives the paper ids)
  --out X.npy      the .npy file to write; the ids go to X.ids.txt beside it`;

export async function run(args: string[]) {
  const { values, positionals } = parse(args, { model: { type: 'string' }, corpus: { type: 'string' }, out: { type: 'string' } }, usage);
  const corpusDir = required('corpus', values.corpus);
  const out = required('out', values.out);
  if (positionals.length + (values.model ? 1 : 0) !== 1) throw new CitebenchError(`name the embedding store: EMB_DIR or --model NAME (one of them)\n\n${usage}`);
  const dir = positionals[0] ?? defaultEmbDir(corpusDir, values.model!);
  const corpus = CorpusStore.open(corpusDir);
  try {
    const store = EmbeddingStore.open(dir);
    const m = store.manifest;
    const key = corpusKey(corpusDir);
    if (m.corpusSize !== corpus.size || (m.corpusKey && key && m.corpusKey !== key))
      throw new CitebenchError(`${dir}: this embedding store was made for another corpus (${m.corpusSize} articles${m.corpusKey ? `, key ${m.corpusKey}` : ''}) than ${corpusDir} (${corpus.size} articles${key ? `, key ${key}` : ''})`);
    const r = exportEmbeddings(store, (i) => corpus.id(i), out);
    console.log(`${r.npy}: ${r.rows} vectors of dim ${r.dim} (float32); paper ids in ${r.ids}`);
  } finally {
    corpus.close();
  }
}
