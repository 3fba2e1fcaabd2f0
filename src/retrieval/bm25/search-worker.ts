/** Worker thread of parallel.ts: scores batches of prepared queries over shared index arrays. */
import { parentPort, workerData } from 'node:worker_threads';
import { QueryScorer } from './query-scorer.ts';
import type { ScoringArrays, PreparedQuery } from './scoring-arrays.ts';

export interface WorkerBatch {
  id: number;
  k: number;
  queries: { q: PreparedQuery; exclude: number; candidates?: Uint32Array }[];
}

const scorer = new QueryScorer(workerData as ScoringArrays);
parentPort!.on('message', (batch: WorkerBatch) => {
  const results = scorer.searchMany(batch.queries, batch.k);
  const transfer = results.flatMap((r) => [r.docs.buffer, r.scores.buffer]) as ArrayBuffer[];
  parentPort!.postMessage({ id: batch.id, results }, transfer);
});
