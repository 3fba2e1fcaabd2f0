/** Worker thread of buildIndex: analyses the chunks it is sent with its own ChunkBuilder. */
import { parentPort, workerData } from 'node:worker_threads';
import { ChunkBuilder, openWorkerSource, type WorkerSource } from './chunk-builder.ts';

const source = openWorkerSource(workerData as WorkerSource);
const builder = new ChunkBuilder();
parentPort!.on('message', ([index, from, to]: [number, number, number]) => {
  const c = builder.build(source, index, from, to);
  parentPort!.postMessage(c, [c.groupTerms.buffer, c.groupCounts.buffer, c.docs.buffer, c.tfs.buffer, c.lengths.buffer] as ArrayBuffer[]);
});
