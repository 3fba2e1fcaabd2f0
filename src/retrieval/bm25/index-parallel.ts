/**
 * buildIndex's parallel orchestration: chunks analysed on child processes (store sources, index-process.ts) or
 * worker threads (in-memory texts, index-worker.ts), handed back in any order of arrival.
 */
import { tsFork, tsWorker } from '../../util/ts-worker.ts';
import type { LocalChunk, LocalChunkHead, WorkerSource } from './chunk-builder.ts';
import type { BuildProcessInit } from './index-process.ts';

/**
 * Build chunks on child processes (store sources: each chunk's postings arrive as files, LocalChunkHead) or
 * worker threads (in-memory texts); any order of arrival.
 */
export function buildInParallel(
  src: WorkerSource,
  ranges: [number, number, number][],
  threads: number,
  scratchDir: string,
  onChunk: (c: LocalChunk | LocalChunkHead, builder: number) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let next = 0;
    let done = 0;
    let finished = false;
    const stops: (() => unknown)[] = [];
    const finish = (e?: unknown) => {
      if (finished) return;
      finished = true;
      for (const stop of stops) stop();
      if (e) reject(e);
      else resolve();
    };
    const take = (c: LocalChunk | LocalChunkHead, t: number, feed: () => void) => {
      try {
        onChunk(c, t);
      } catch (e) {
        return finish(e);
      }
      if (++done === ranges.length) finish();
      else feed();
    };
    for (let t = 0; t < Math.min(threads, ranges.length); t++) {
      if (src.kind === 'store') {
        const c = tsFork(new URL('./index-process.ts', import.meta.url));
        const feed = () => {
          if (next < ranges.length) c.send({ range: ranges[next++] });
        };
        stops.push(() => c.kill());
        c.on('message', (head: LocalChunkHead) => take(head, t, feed));
        c.on('error', finish);
        c.on('exit', (code) => finish(new Error(`bm25 index process exited with code ${code} before finishing`)));
        const init: BuildProcessInit = { source: src, scratchDir };
        c.send({ init });
        feed();
      } else {
        const w = tsWorker(new URL('./index-worker.ts', import.meta.url), { workerData: src });
        const feed = () => {
          if (next < ranges.length) w.postMessage(ranges[next++]);
        };
        stops.push(() => void w.terminate());
        w.on('message', (c: LocalChunk) => take(c, t, feed));
        w.on('error', finish);
        feed();
      }
    }
  });
}
