import { parse, num, required } from '../args.ts';
import { CorpusStore } from '../../corpus/store.ts';
import { loadIndex, readIndexMeta } from '../../retrieval/bm25/index-format.ts';
import { tuneBm25, evalObjective } from '../../retrieval/bm25/tune.ts';
import type { QrelsCsr } from '../../eval/types.ts';
import { newTrecTables, readQrels } from '../../eval/trec-io.ts';
import { qrelsToCsr } from '../../eval/trec-csr.ts';
import { CitebenchError } from '../../util/errors.ts';
import { writeFileAtomic } from '../../util/atomic.ts';
import { checkIndexMatchesStore, numList } from './bm25-common.ts';
import { readIdList, readPool } from './id-lists.ts';
import { availableParallelism } from 'node:os';

export const usage = `usage: citebench bm25 tune --index INDEX --corpus STORE --queries FILE --qrels QRELS
                           [--pool FILE] [--k 500] [--k1-grid 0.6,0.9,1.2,1.5] [--b-grid 0.3,0.4,0.5,0.75]
                           [--measure map] [--accurate] [--threads N] [--out TUNING.json]

Grid search of k1 and b on a validation split: every grid point searches the queries and is scored with
the eval module (trec_eval semantics). QRELS: TREC qrels 'qid iter docno relevance' with paper ids; lines
of queries not in FILE are skipped and counted; relevant papers outside the corpus still count as relevant.`;


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
  const result = await tuneBm25({
    index: ix, texts: store, request: { queries: queries.indices, pool, k },
    k1: numList('k1-grid', values['k1-grid'], [0.6, 0.9, 1.2, 1.5]),
    b: numList('b-grid', values['b-grid'], [0.3, 0.4, 0.5, 0.75]),
    accurate: values.accurate ?? false, tieKey: store.idOrder,
    threads: num('threads', values.threads, availableParallelism()),
    score: evalObjective(qrels, measure, docOrder),
    onPoint: (p) => console.log(`  k1=${p.k1} b=${p.b}  ${measure}=${p.score.toFixed(4)}`),
  });
  console.log(`best: k1=${result.best.k1} b=${result.best.b} ${measure}=${result.best.score.toFixed(4)}`);
  if (values.out) writeFileAtomic(values.out, JSON.stringify({ measure, ...result }, null, 2) + '\n');
}
