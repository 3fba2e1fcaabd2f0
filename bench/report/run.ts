/**
 * Time and peak memory of `citebench report` (HTML + PDF) on a paper-sized results folder fabricated with FAKE
 * values (fabricate.ts). Usage: npm run bench:report [-- OUT_DIR]   (default bench/out/report)
 * Runs the CLI under /usr/bin/time -v (when present) so the peak RSS is the whole process's.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fabricateResults, PAPER_SIZE } from './fabricate.ts';

const out = process.argv[2] ?? 'bench/out/report';
const results = join(out, 'results');
rmSync(out, { recursive: true, force: true });
let t = performance.now();
const r = fabricateResults(results, PAPER_SIZE);
console.log(`fabricated ${r.cells.length} cells (+ MDCR, tuning, ${PAPER_SIZE.fields.length * PAPER_SIZE.models.length} field-level runs) in ${((performance.now() - t) / 1000).toFixed(1)} s: ${results}`);

for (const pdf of [false, true]) {
  const args = ['--import', 'tsx', 'src/cli.ts', 'report', results, '--out', join(out, pdf ? 'html+pdf' : 'html'), ...(pdf ? [] : ['--no-pdf'])];
  const timed = existsSync('/usr/bin/time');
  t = performance.now();
  const p = spawnSync(timed ? '/usr/bin/time' : process.execPath, timed ? ['-v', process.execPath, ...args] : args, { encoding: 'utf8' });
  const wall = (performance.now() - t) / 1000;
  if (p.status !== 0) throw new Error(`citebench report failed:\n${p.stderr}`);
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(p.stderr)?.[1];
  console.log(`${pdf ? 'HTML + PDF' : 'HTML only '}: ${wall.toFixed(1)} s wall${rss ? `, peak RSS ${(Number(rss) / 1024).toFixed(0)} MiB` : ''}`);
  console.log(p.stderr.split('\n').filter((l) => l.startsWith('report:')).join('\n'));
}
