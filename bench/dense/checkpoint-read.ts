// Read time and peak memory of a checkpoint folder: every tensor widened to float32 one at a time (as the graph
// builder does), each checked against the folder's manifest.json when there is one (scripts/dev/
// make-checkpoint-fixtures.py --base DIR writes BERT-base-shape folders with manifests).
// usage: node --import tsx bench/dense/checkpoint-read.ts FOLDER...   (one process per folder gives clean peaks)
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { readCheckpoint } from '../../src/retrieval/dense/checkpoint/index.ts';

for (const dir of process.argv.slice(2)) {
  const manifest = existsSync(join(dir, 'manifest.json'))
    ? (JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { tensors: Record<string, { sha256: string }> }).tensors
    : undefined;
  let t = performance.now();
  const ck = readCheckpoint(dir);
  const openMs = performance.now() - t;
  t = performance.now();
  let values = 0;
  let bad = 0;
  for (const [name, tensor] of ck.tensors) {
    const v = tensor.float32();
    values += v.length;
    const want = manifest?.[name]?.sha256;
    if (want && createHash('sha256').update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength)).digest('hex') !== want) bad++;
  }
  const readS = (performance.now() - t) / 1000;
  const checked = manifest ? `${Object.keys(manifest).length - bad}/${Object.keys(manifest).length} tensors equal torch's` : 'no manifest';
  console.log(
    `${dir}: ${ck.format}, ${ck.tensors.size} tensors, ${(values / 1e6).toFixed(1)} M values; open ${openMs.toFixed(0)} ms, ` +
      `all float32 ${readS.toFixed(2)} s (with sha256); peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB; ${checked}`,
  );
}
