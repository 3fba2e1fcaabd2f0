/** Worker thread of exactSearch: one single-threaded onnxruntime session over the shared pool, one query slice. */
import { parentPort } from 'node:worker_threads';
import { searchBlocks, type ExactWorkerInit, type ExactWorkerTask } from './exact-blocks.ts';

parentPort!.once('message', async ({ init, task }: { init: ExactWorkerInit; task: ExactWorkerTask }) => {
  const pool = new Float32Array(init.pool.buffer, init.pool.byteOffset, init.pool.length);
  const hits = await searchBlocks(task.queries, pool, init.d, {
    ...init.opts,
    exclude: task.exclude,
    onProgress: (done) => parentPort!.postMessage({ progress: done }),
  }, 1, init.pN);
  parentPort!.postMessage({ hits }, [hits.offsets.buffer, hits.positions.buffer, hits.scores.buffer] as ArrayBuffer[]);
});
