/** Worker thread of synthesize(): writes the shards it is given, reading the shared world and graph in place. */
import { parentPort, workerData } from 'node:worker_threads';
import { jobWorld, writeShard, type ShardJob } from './synth-text.ts';

const { job, shards } = workerData as { job: ShardJob; shards: number[] };
void (async () => {
  try {
    const world = jobWorld(job);
    for (const s of shards) await writeShard(job, world, s, (k) => parentPort!.postMessage({ tick: k }));
  } catch (e) {
    parentPort!.postMessage({ error: (e as Error).message });
  }
})();
