/**
 * Child process of buildIndex for corpus stores: opens the store's texts itself, analyses the chunks it is sent
 * with its own ChunkBuilder and hands each one back as a v8-serialised file in the build's scratch directory
 * (a file, not the IPC pipe: tens of MB per chunk). Processes rather than worker threads because two threads of
 * one process slowed each other down here (see search-process.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import type { TextSource } from '../../corpus/article.ts';
import { ChunkBuilder, openWorkerSource, type WorkerSource } from './chunk-builder.ts';

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
  const path = join(scratch, `local-${process.pid}-${index}.v8`);
  writeFileSync(path, serialize(c));
  process.send!({ index, path });
});
