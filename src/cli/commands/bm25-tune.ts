import { parse, num, required } from '../args.ts';
import { CorpusStore } from '../../corpus/store.ts';
import { loadIndex, readIndexMeta } from '../../retrieval/bm25/index-format.ts';
import { Bm25Retriever } from '../../retrieval/bm25/retriever.ts';
import type { QrelsCsr } from '../../eval/types.ts';
import { DEFAULT_TUNE_GRID } from '../../experiments/kinds/index.ts';
import { tune } from '../../experiments/tune.ts';
import { paramsText } from '../../report/results.ts';
import { newTrecTables, readQrels } from '../../eval/trec-io.ts';
import { qrelsToCsr } from '../../eval/trec-csr.ts';
import { CitebenchError } from '../../util/errors.ts';
import { writeFileAtomic } from '../../util/atomic.ts';
import { checkIndexMatchesStore, numList } from './bm25-common.ts';
import { readIdList, readPool } from './id-lists.ts';
import { availableParallelism } from 'node:os';
import { filesOrigin } from '../../experiments/topic-sets.ts';

export const usage = `usage: citebench bm25 tune --index INDEX --corpus STORE --queries FILE --qrels QRELS
                           [--pool FILE] [--k 500] [--k1-grid ${DEFAULT_TUNE_GRID.k1.join(',')}] [--b-grid ${DEFAULT_TUNE_GRID.b.join(',')}]
                           [--measure map] [--accurate] [--threads N] [--out TUNING.json]

Grid search of k1 and b on a validation split, by the same tuner as a config's \`tune:\` (experiment()): every grid
point searches the queries (over --pool, else the whole corpus) and is scored by the measure's mean with
trec_eval -c semantics — a query whose ranked list comes back empty counts 0, it never drops out of the mean.
The best point has the highest mean; among equal means the first in grid order wins (k1 varying slowest, each
grid in the order given). QRELS: TREC qrels 'qid iter docno relevance' with paper ids; lines of queries not in
FILE are skipped and counted; relevant papers outside the corpus still count as relevant. --out writes the
tuning record as results.json keeps it (params, every grid point's score, chosen; its topics named by where they
come from: corpus-<the store's identity>/files-<the content of FILE, QRELS and the pool file>).`;

/**
 * The qrels rows of the given queries, read with the eval module's reader (same syntax and errors as `eval`),
 * docs mapped to corpus indices; a relevant paper outside the corpus gets an id after the corpus's.
 */
function readQrelsForQueries(path: string, qids: string[], store: CorpusStore) {
  const tables = newTrecTables();
  // Interned first, the listed queries take ids 0..n-1: their rows come first in the CSR, in list order.
  // The reader keeps bytes (latin1 strings); paper ids are UTF-8, so both directions go through bytes.
  for (const q of qids) {
    const b = Buffer.from(q, 'utf8');
    tables.queries.intern(b, 0, b.length);
  }
  const all = qrelsToCsr(readQrels(path, tables), tables.queries.size, tables);
  const n = qids.length;
  const skipped = all.offsets[tables.queries.size] - all.offsets[n];
  const docOf = new Int32Array(tables.docs.size).fill(-1);
  let outside = 0;
  const docs = new Uint32Array(all.offsets[n]);
  for (let i = 0; i < docs.length; i++) {
    const d = all.docs[i];
    if (docOf[d] < 0) {
      const idx = store.indexOf(Buffer.from(tables.docs.get(d), 'latin1').toString('utf8'));
      docOf[d] = idx >= 0 ? idx : store.size + outside++;
    }
    docs[i] = docOf[d];
  }
  const qrels: QrelsCsr = { offsets: all.offsets.slice(0, n + 1), docs, labels: all.labels.slice(0, docs.length) };
  return { qrels, skipped, outside };
}

export async function run(args: string[]) {
  const { values } = parse(args, {
    index: { type: 'string' }, corpus: { type: 'string' }, queries: { type: 'string' }, qrels: { type: 'string' },
    pool: { type: 'string' }, k: { type: 'string' }, 'k1-grid': { type: 'string' }, 'b-grid': { type: 'string' },
    measure: { type: 'string' }, accurate: { type: 'boolean' }, threads: { type: 'string' }, out: { type: 'string' },
  }, usage);
  const indexDir = required('index', values.index);
  const store = CorpusStore.open(required('corpus', values.corpus));
  const queries = readIdList(required('queries', values.queries), store);
  const qrelsFile = required('qrels', values.qrels);
  const k = num('k', values.k, 500);
  if (!Number.isInteger(k) || k < 1) throw new CitebenchError(`--k must be a positive integer, got ${values.k}`);
  const measure = values.measure ?? 'map';
  const pool = values.pool ? readPool(values.pool, store) : undefined;
  const { qrels, skipped, outside } = readQrelsForQueries(qrelsFile, queries.ids, store);
  const meta = readIndexMeta(indexDir);
  const ix = loadIndex(indexDir);
  checkIndexMatchesStore(meta, ix, store, indexDir);
  // Tie order over corpus documents, extended (after every corpus id) for relevant papers outside the corpus.
  const docOrder = new Uint32Array(store.size + outside);
  docOrder.set(store.idOrder);
  for (let i = store.size; i < docOrder.length; i++) docOrder[i] = i;
  console.log(`tuning on ${queries.ids.length} queries (${skipped} qrels lines of other queries skipped, ${outside} relevant papers outside the corpus)`);
  const grid = { k1: numList('k1-grid', values['k1-grid'], DEFAULT_TUNE_GRID.k1), b: numList('b-grid', values['b-grid'], DEFAULT_TUNE_GRID.b) };
  const retriever = new Bm25Retriever(ix, store, { params: { accurate: values.accurate ?? false }, tieKey: store.idOrder, threads: num('threads', values.threads, availableParallelism()) });
  const record = await tune({
    model: 'bm25', retriever, spec: { grid, measure }, k,
    // The split's name says where it comes from: the corpus and the content of the files that give it (topic-sets.ts).
    split: { id: filesOrigin(store, [values.queries!, qrelsFile, ...(values.pool ? [values.pool] : [])]), docs: { id: (i) => store.id(i), idOrder: docOrder }, topics: queries.indices, pool, qrels, setting: 'transductive' },
    onPoint: (p, score) => console.log(`  ${paramsText(p)}  ${measure}=${score.toFixed(4)}`),
  });
  const best = record.grid.find((g) => paramsText(g.params) === paramsText(record.chosen))!;
  console.log(`best: ${paramsText(record.chosen)} ${measure}=${best.score.toFixed(4)}`);
  if (values.out) writeFileAtomic(values.out, JSON.stringify(record, null, 2) + '\n');
}
