/**
 * Child process of buildIndex for corpus stores: opens the store's texts itself, analyses the chunks it is sent
 * with its own ChunkBuilder and hands each one back: its postings as files in the build's scratch directory (tens
 * of MB per chunk; raw arrays, the chunk files' own format, so the parent renames them into place instead of
 * reading and writing them again), its terms over the IPC pipe. Processes rather than worker threads because two
 * threads of one process slowed each other down here (see search-process.ts).
 */
import { join } from 'node:path';
import type { TextSource } from '../../corpus/article.ts';
import { writeFileAtomic } from '../../util/atomic.ts';
import { ChunkBuilder, LOCAL_POSTINGS, openWorkerSource, type LocalChunkHead, type WorkerSource } from './chunk-builder.ts';

export interface BuildProcessInit {
  source: WorkerSource & { kind: 'store' };
  scratchDir: string;
}

let source: TextSource | undefined;
let scratch = '';
const builder = new ChunkBuilder();
process.on('message', (msg: { init?: BuildProcessInit; range?: [number, number, number] }) => {
  if (msg.init) {
    source = openWorkerSource(msg.init.source);
    scratch = msg.init.scratchDir;
    return;
  }
  const [index, from, to] = msg.range!;
  const c = builder.build(source!, index, from, to);
  const base = join(scratch, `local-${process.pid}-${index}`);
  for (const [field, ext] of Object.entries(LOCAL_POSTINGS)) writeFileAtomic(`${base}.${ext}`, c[field as keyof typeof LOCAL_POSTINGS]);
  const head: LocalChunkHead = { index, from, to, newTerms: c.newTerms, groupTerms: c.groupTerms, base };
  process.send!(head);
});
