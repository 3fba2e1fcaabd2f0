/** Worker thread of buildIndex: analyses the chunks it is sent with its own ChunkBuilder. */
import { parentPort, workerData } from 'node:worker_threads';
import { InMemoryTexts, type TextSource } from '../../corpus/article.ts';
import { StoreTexts } from '../../corpus/store-texts.ts';
import { ChunkBuilder, type WorkerSource } from './chunk-builder.ts';

const src = workerData as WorkerSource;
const source: TextSource = src.kind === 'store' ? new StoreTexts(src.dir) : new InMemoryTexts(src.items);
const builder = new ChunkBuilder();
parentPort!.on('message', ([index, from, to]: [number, number, number]) => {
  const c = builder.build(source, index, from, to);
  parentPort!.postMessage(c, [c.groupTerms.buffer, c.groupCounts.buffer, c.docs.buffer, c.tfs.buffer, c.lengths.buffer] as ArrayBuffer[]);
});
