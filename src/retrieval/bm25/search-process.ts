/**
 * Child process of parallel.ts (process mode): loads the index itself, then scores batches of prepared queries.
 * Worker threads of one process slowed each other down ~2× on this machine (two threads: 1.4× the throughput
 * of one; two processes: 1.95×), so large searches spread over processes instead; each maps the index
 * files (6 bytes per posting: pages shared between the processes, util/mapped-file.ts) or, without the mapping
 * addon, reads its own copy.
 *
 * A process may serve many searches (SearchProcesses, parallel.ts): each `init` names the pool's statistics and
 * membership; the index is loaded on the first and kept while `keep` is set, so a run's pool groups do not each
 * start processes and load the index again. Without `keep` the whole index is garbage once a small pool is
 * sliced out of it, so a one-off searcher holds only its pool's postings. A `preload` (startSearchProcesses)
 * loads the index before the first init, while the parent is still preparing the search.
 */
import { loadIndex, type Bm25Index } from './index-format.ts';
import { QueryScorer } from './query-scorer.ts';
import { slicePool } from './pool-slice.ts';
import type { ScoringArrays } from './scoring-arrays.ts';
import type { WorkerBatch } from './search-worker.ts';

export interface ProcessInit {
  indexDir: string;
  normCache: Float32Array | null;
  normInv: Float32Array;
  member: Uint8Array | null;
  /** The tie-break key; undefined = the one the previous init of this process sent (it is large). */
  tieKey?: Uint32Array | null;
  /** ScoringArrays.poolTokens. */
  poolTokens?: number;
  /** Search a small pool over its own postings (slicePool); false for fixed candidates. */
  slice: boolean;
  /** Keep the loaded index for later inits (a persistent searcher). */
  keep: boolean;
}

let kept: { dir: string; ix: Bm25Index } | undefined;
let tieKey: Uint32Array | null = null;
let scorer: QueryScorer | undefined;
process.on('message', (msg: { preload?: string; init?: ProcessInit; batch?: WorkerBatch }) => {
  if (msg.preload !== undefined) {
    // Started ahead of its first search (SearchProcesses.warm): the index is loaded while the parent prepares.
    try {
      if (kept?.dir !== msg.preload) kept = { dir: msg.preload, ix: loadIndex(msg.preload) };
    } catch {
      // Not loadable now: the first search's init loads it again and reports why (the parent has checked it).
    }
    return;
  }
  if (msg.init) {
    const init = msg.init;
    // The previous pool's slice (shared memory, freed only by a collection) is gone before the next one is cut:
    // a persistent process then holds its index and one slice, not the slices of every pool it searched.
    if (scorer) {
      scorer = undefined;
      (globalThis as { gc?: () => void }).gc?.();
    }
    const ix = kept?.dir === init.indexDir ? kept.ix : loadIndex(init.indexDir);
    kept = init.keep ? { dir: init.indexDir, ix } : undefined;
    if (init.tieKey !== undefined) tieKey = init.tieKey;
    const all: ScoringArrays = {
      docCount: ix.docCount, offsets: ix.offsets, docs: ix.docs, tfNorms: ix.tfNorms, tfBigPos: ix.tfBigPos, tfBigVal: ix.tfBigVal,
      normCache: init.normCache, normInv: init.normInv, member: init.member, tieKey, poolTokens: init.poolTokens,
    };
    scorer = new QueryScorer(init.slice ? slicePool(all) : all);
    process.send!({ ready: true });
    return;
  }
  const batch = msg.batch!;
  const results = scorer!.searchMany(batch.queries, batch.k);
  process.send!({ id: batch.id, results });
});
// A persistent searcher outlives no parent: it ends when the IPC channel closes.
process.on('disconnect', () => process.exit(0));
