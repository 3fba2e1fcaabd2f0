/**
 * Child process of parallel.ts (process mode): loads the index itself, then scores batches of prepared queries.
 * Worker threads of one process slowed each other down ~2× on this machine (two threads: 1.4× the throughput
 * of one; two processes: 1.95×), so large searches spread over processes instead; each holds its own copy of
 * the postings (6 bytes per posting).
 */
import { loadIndex } from './index-format.ts';
import { QueryScorer, slicePool, type ScoringArrays } from './search.ts';
import type { WorkerBatch } from './search-worker.ts';

export interface ProcessInit {
  indexDir: string;
  normCache: Float32Array | null;
  normInv: Float32Array;
  member: Uint8Array | null;
  tieKey: Uint32Array | null;
  /** Search a small pool over its own postings (slicePool); false for fixed candidates. */
  slice: boolean;
}

let scorer: QueryScorer | undefined;
process.on('message', (msg: { init?: ProcessInit; batch?: WorkerBatch }) => {
  if (msg.init) {
    const ix = loadIndex(msg.init.indexDir);
    const all: ScoringArrays = {
      docCount: ix.docCount, offsets: ix.offsets, docs: ix.docs, tfNorms: ix.tfNorms, tfBigPos: ix.tfBigPos, tfBigVal: ix.tfBigVal,
      normCache: msg.init.normCache, normInv: msg.init.normInv, member: msg.init.member, tieKey: msg.init.tieKey,
    };
    // The whole index is garbage once sliced: a small pool's searcher then holds only its pool's postings.
    scorer = new QueryScorer(msg.init.slice ? slicePool(all) : all);
    process.send!({ ready: true });
    return;
  }
  const batch = msg.batch!;
  const results = batch.queries.map((x) => scorer!.search(x.q, batch.k, x.exclude, x.candidates));
  process.send!({ id: batch.id, results });
});
