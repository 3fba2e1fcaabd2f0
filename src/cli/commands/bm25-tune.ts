import { readFileSync } from 'node:fs';
import { parse, num, required } from '../args.ts';
import { CorpusStore } from '../../corpus/store.ts';
import { loadIndex, readIndexMeta } from '../../retrieval/bm25/index.ts';
import { tuneBm25, evalObjective } from '../../retrieval/bm25/tune.ts';
import type { QrelsCsr } from '../../eval/types.ts';
import { CitebenchError, InputError } from '../../util/errors.ts';
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


function readQrelsForQueries(path: string, qids: string[], store: CorpusStore) {
  const qpos = new Map(qids.map((q, i) => [q, i]));
  const perQuery: [number, number][][] = qids.map(() => []);
  const outside = new Map<string, number>();
  let skipped = 0;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new InputError(path, undefined, undefined, `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  text.split(/\r?\n/).forEach((raw, i) => {
    const f = raw.trim().split(/\s+/);
    if (f[0] === '' || f[0].startsWith('#')) return;
    const names = ['qid', 'iter', 'docno', 'relevance'];
    if (f.length < 4) throw new InputError(path, i + 1, names[f.length], `missing field (a qrels line is 'qid iter docno relevance')`);
    const rel = Number(f[3]);
    if (!Number.isInteger(rel)) throw new InputError(path, i + 1, 'relevance', `not an integer: '${f[3]}'`);
    const q = qpos.get(f[0]);
    if (q === undefined) return void skipped++;
    let d = store.indexOf(f[2]);
    if (d < 0) {
      d = outside.get(f[2]) ?? store.size + outside.size;
      outside.set(f[2], d);
    }
    perQuery[q].push([d, rel]);
  });
  const offsets = new Uint32Array(qids.length + 1);
  perQuery.forEach((l, q) => (offsets[q + 1] = offsets[q] + l.length));
  const flat = perQuery.flat();
  const qrels: QrelsCsr = { offsets, docs: Uint32Array.from(flat, (x) => x[0]), labels: Int32Array.from(flat, (x) => x[1]) };
  return { qrels, skipped, outside: outside.size };
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
