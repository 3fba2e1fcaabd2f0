/**
 * One checkpoint conversion in a child process under /usr/bin/time -v, so its wall time and peak RSS are the
 * conversion's own (bench/dense/convert.ts, bench/dense/modern.ts).
 *   node --import tsx bench/dense/convert-child.ts CASE_DIR [int8]   (the child: converts, prints its seconds)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { convertCheckpoint } from '../../src/retrieval/dense/convert.ts';

const self = new URL(import.meta.url).pathname;

if (process.argv[1] === self) {
  const t0 = performance.now();
  const out = convertCheckpoint(process.argv[2]!, { quantize: process.argv[3] === 'int8' });
  console.log(JSON.stringify({ seconds: (performance.now() - t0) / 1000, out }));
}

/** Convert in a child process under /usr/bin/time -v: its own seconds, the process's wall time and peak RSS. */
export function convertChild(caseDir: string, int8: boolean) {
  const args = ['-v', process.execPath, '--import', 'tsx', self, caseDir, ...(int8 ? ['int8'] : [])];
  const child = spawnSync('/usr/bin/time', args, { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`conversion of ${caseDir} failed: ${child.stderr}`);
  const { seconds, out } = JSON.parse(child.stdout.trim().split('\n').pop()!) as { seconds: number; out: string };
  const rssKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(child.stderr)![1]);
  const wall = /Elapsed \(wall clock\) time.*: (\S+)/.exec(child.stderr)![1];
  return { out, row: { convertSeconds: +seconds.toFixed(2), processWall: wall, peakRssMiB: Math.round(rssKb / 1024), onnxMiB: Math.round((statSync(out).size + (existsSync(`${out}.data`) ? statSync(`${out}.data`).size : 0)) / 2 ** 20), externalData: existsSync(`${out}.data`) } };
}
