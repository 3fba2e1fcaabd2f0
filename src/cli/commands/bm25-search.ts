import { parse, num, required } from '../args.ts';
import { CorpusStore } from '../../corpus/store.ts';
import { loadIndex, readIndexMeta } from '../../retrieval/bm25/index-format.ts';
import { Bm25Retriever } from '../../retrieval/bm25/retriever.ts';
import { startSearchProcesses } from '../../retrieval/bm25/parallel.ts';
import { writeRun } from '../../eval/trec-write.ts';
import { Progress } from '../../util/progress.ts';
import { CitebenchError } from '../../util/errors.ts';
import { checkIndexMatchesStore } from './bm25-common.ts';
import { readIdList, readPool } from './id-lists.ts';
import { availableParallelism } from 'node:os';
import { identity } from '../../util/identity.ts';
import { corpusKey } from '../../corpus/store-key.ts';
import { removeJournal, searchResumable } from '../../retrieval/resumable.ts';
import { parseShard, shardRange } from '../../util/shard.ts';


export const usage = `usage: citebench bm25 search --index INDEX --corpus STORE --queries FILE --out RUN.trec
                             [--pool FILE] [--k 500] [--k1 0.9] [--b 0.4] [--accurate] [--threads N]
                             [--tag bm25] [--keep-self] [--shared-memory] [--shard I/N]

Rank documents for each query article (title + abstract) with Lucene-exact BM25 and write a TREC run
(qid Q0 docno rank score tag; qid and docno are paper ids; ties ranked like trec_eval: docno descending).
  --queries FILE   paper ids, one per line
  --pool FILE      paper ids of the candidate pool: searched as if indexed alone (N, df, avgdl of the pool)
  --accurate       exact document lengths instead of Lucene's lossy one-byte norms (the default, = pyserini)
  --keep-self      keep the query article in its own list (default: excluded)
  --threads N      parallel searchers (default: number of CPUs): this process and N − 1 child processes,
                   started first, that each map the index files (6 bytes per posting; the processes share
                   the mapped pages, or each reads its own copy where the mapping addon was not built): on
                   the development machine two worker threads of one process slowed each other down ~40 %
                   (docs/benchmarks.md)
  --shared-memory  use worker threads on one copy of the index instead (slower here)
  --shard I/N      search only the I-th of N contiguous blocks of the query list (0 ≤ I < N, e.g.
                   $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT); \`citebench merge-runs OUT SHARD-RUNS…\` joins
                   the shards' runs into the unsharded run, byte for byte
Finished queries are journalled in RUN.trec.partial: a killed search, run again with the same arguments,
searches only the queries it had not finished (a journal of other arguments is discarded).`;

export async function run(args: string[]) {
  const { values } = parse(args, {
    index: { type: 'string' }, corpus: { type: 'string' }, queries: { type: 'string' }, out: { type: 'string' },
    pool: { type: 'string' }, k: { type: 'string' }, k1: { type: 'string' }, b: { type: 'string' },
    accurate: { type: 'boolean' }, threads: { type: 'string' }, tag: { type: 'string' }, 'keep-self': { type: 'boolean' },
    'shared-memory': { type: 'boolean' }, shard: { type: 'string' },
  }, usage);
  const shard = parseShard(values.shard);
  const indexDir = required('index', values.index);
  const corpusDir = required('corpus', values.corpus);
  const queriesFile = required('queries', values.queries);
  const out = required('out', values.out);
  const k = num('k', values.k, 500);
  const k1 = num('k1', values.k1, 0.9);
  const b = num('b', values.b, 0.4);
  const threads = num('threads', values.threads, availableParallelism());
  if (!Number.isInteger(k) || k < 1) throw new CitebenchError(`--k must be a positive integer, got ${values.k}`);
  if (k1 < 0) throw new CitebenchError(`--k1 must be ≥ 0, got ${k1}`);
  if (b < 0 || b > 1) throw new CitebenchError(`--b must be in [0, 1], got ${b}`);
  if (!Number.isInteger(threads) || threads < 1) throw new CitebenchError(`--threads must be a positive integer, got ${values.threads}`);
  // The search's child processes start now and load the index while this process reads its inputs.
  if (threads > 1 && !values['shared-memory']) startSearchProcesses(indexDir, threads - 1);
  const store = CorpusStore.open(corpusDir);
  const allQueries = readIdList(queriesFile, store);
  const { from, to } = shardRange(allQueries.indices.length, shard);
  const queries = { ids: allQueries.ids.slice(from, to), indices: allQueries.indices.slice(from, to) };
  const pool = values.pool ? readPool(values.pool, store) : undefined;
  const meta = readIndexMeta(indexDir);
  const ix = loadIndex(indexDir);
  checkIndexMatchesStore(meta, ix, store, indexDir);
  const journal = `${out}.partial`;
  let resumed = 0;
  const progress = new Progress({ label: 'bm25 search', total: queries.indices.length, unit: 'queries' });
  const retriever = new Bm25Retriever(ix, store, {
    params: { k1, b, accurate: values.accurate ?? false },
    tieKey: store.idOrder,
    threads,
    indexDir: values['shared-memory'] ? undefined : indexDir,
    onProgress: (done) => progress.set(resumed + done),
  });
  // The journal's key, from content: the retriever's (index content and version, k1, b, lengths, tie key), the
  // corpus's id column, the queries, the pool and the settings; a journal of anything else is started afresh.
  const fingerprint = identity({
    search: 'bm25', retriever: retriever.fingerprint, corpus: corpusKey(store.dir) ?? null, corpusSize: store.size,
    queries: queries.indices, pool: pool ?? null, k, keepSelf: values['keep-self'] ?? false,
  }, 32);
  const t0 = performance.now();
  const run = await searchResumable(retriever, { queries: queries.indices, pool, k, excludeSelf: !values['keep-self'] }, journal, {
    fingerprint,
    onResume: (done) => {
      resumed = done;
      console.error(`resuming: ${done} of ${queries.indices.length} queries already in ${journal}`);
    },
  });
  progress.finish();
  const secs = (performance.now() - t0) / 1000;
  writeRun(out, { qids: queries.ids, docnos: (d) => store.id(d), run, tag: values.tag ?? 'bm25' });
  removeJournal(journal);
  console.log(`${out}: ${queries.indices.length} queries, ${run.docs.length} results, ${pool ? `pool of ${pool.length}` : `all ${store.size} articles`} (${secs.toFixed(1)} s, ${(queries.indices.length / secs).toFixed(1)} queries/s)`);
}
