/** Worker thread of the store build's read step (build-read.ts): reads the units the main thread hands it. */
import { parentPort, workerData } from 'node:worker_threads';
import { serveUnits, type WorkerJob } from './build-read-unit.ts';
import { openSource } from './build-source.ts';

const waiting: ((u: number) => void)[] = [];
const queued: number[] = [];
parentPort!.on('message', (m: { unit: number }) => {
  const w = waiting.shift();
  if (w) w(m.unit);
  else queued.push(m.unit);
});
const nextUnit = () => (queued.length ? Promise.resolve(queued.shift()!) : new Promise<number>((r) => waiting.push(r)));
await serveUnits(workerData as WorkerJob, (s) => openSource(s.input, s.format, s.openalex), (m) => parentPort!.postMessage(m), nextUnit);
parentPort!.close();
