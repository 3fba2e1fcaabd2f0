/**
 * `npm run bench:eval`: citebench eval with map, ndcg and recall.30 on a TREC run of 3,800 queries × 500 docs
 * (1.9 M lines, 29 relevant per query), end to end as a user runs it — the package's binary, bin/citebench.js,
 * which starts `eval` from dist/ (the sources compiled at install; rebuilt here first when stale) — with process
 * start, parsing, evaluation and printing (wall time and peak RSS from /usr/bin/time -v when present), then the
 * in-memory API alone on the same data. Each run is also timed with CITEBENCH_TREC_READER=off (qrels and run read
 * by the TypeScript readers rather than native/trec-reader.cc), which must print the same numbers.
 * Peer: with TREC_EVAL=path/to/trec_eval (9.0.8, built from its source: `make` in a checkout of the v9.0.8 tag
 * of github.com/usnistgov/trec_eval), the C trec_eval runs the same measures on the same files, alternating with
 * citebench run by run (paired ratios on a busy machine), and its numbers must equal citebench's.
 * Writes bench/out/eval/results.json.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from '../../src/util/atomic.ts';
import { evaluate } from '../../src/eval/evaluate.ts';
import { selectMeasures } from '../../src/eval/registry.ts';
import { formatFixed4 } from '../../src/eval/trec-format.ts';
import { newTrecTables, readQrels, readRun } from '../../src/eval/trec-io.ts';
import { qrelsToCsr, runToCsr } from '../../src/eval/trec-csr.ts';
import { generateBenchFiles } from './generate.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT = join(ROOT, 'bench/out/eval');
const REPS = Number(process.env.BENCH_REPS ?? 5);
const MEASURES = ['-m', 'map', '-m', 'ndcg', '-m', 'recall.30'];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

// The binary runs eval from dist/ only while dist is newer than every source (bin/citebench.js): build it now
// so a source edited since the install does not silently time the tsx start-up instead.
const built = spawnSync(process.execPath, ['scripts/build-cli.mjs'], { cwd: ROOT, encoding: 'utf8' });
if (built.status !== 0 || !existsSync(join(ROOT, 'dist/cli.js'))) throw new Error(`could not build dist/: ${built.stderr}`);

const t0 = performance.now();
const files = generateBenchFiles(OUT);
console.log(`data: ${files.run} (${((performance.now() - t0) / 1000).toFixed(1)} s to generate or find)`);

// 1. End to end, as a user runs it; with TREC_EVAL set, trec_eval right after each citebench run.
const haveTime = existsSync('/usr/bin/time');
const TREC_EVAL = process.env.TREC_EVAL;
interface Timing { wallS: number; cpuS: number; maxRssMB: number }
function timedRun(what: string, cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): { t: Timing; stdout: string } {
  const start = performance.now();
  const opts = { cwd: ROOT, encoding: 'utf8' as const, maxBuffer: 1 << 26, env };
  const r = haveTime ? spawnSync('/usr/bin/time', ['-v', cmd, ...args], opts) : spawnSync(cmd, args, opts);
  const wall = (performance.now() - start) / 1000;
  if (r.status !== 0) throw new Error(`${what} failed: ${r.stderr}`);
  if (!haveTime) return { t: { wallS: wall, cpuS: NaN, maxRssMB: NaN }, stdout: r.stdout };
  const get = (label: string) => Number(new RegExp(`${label}: ([\\d.:]+)`).exec(r.stderr)?.[1] ?? NaN);
  const elapsed = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)/.exec(r.stderr)![1].split(':').map(Number);
  const wallS = elapsed.reduce((s, x) => s * 60 + x, 0);
  return { t: { wallS, cpuS: get('User time \\(seconds\\)') + get('System time \\(seconds\\)'), maxRssMB: get('Maximum resident set size \\(kbytes\\)') / 1024 }, stdout: r.stdout };
}
const show = (t: Timing) => `${t.wallS.toFixed(2)} s wall, ${t.cpuS.toFixed(2)} s CPU, ${t.maxRssMB.toFixed(0)} MB peak RSS`;
const cli: Timing[] = [];
const cliTs: Timing[] = [];
const peer: Timing[] = [];
let cliOutput = '';
let peerOutput = '';
for (let i = 0; i < REPS; i++) {
  const ours = timedRun('citebench eval', process.execPath, ['bin/citebench.js', 'eval', ...MEASURES, files.qrels, files.run]);
  cli.push(ours.t);
  cliOutput = ours.stdout;
  console.log(`citebench eval run ${i + 1}: ${show(ours.t)}`);
  // The same command with the files read by the TypeScript readers instead of the compiled one: what that reader
  // (native/trec-reader.cc) gains, measured in the same conditions. Same output, byte for byte.
  const ts = timedRun('citebench eval (TypeScript readers)', process.execPath, ['bin/citebench.js', 'eval', ...MEASURES, files.qrels, files.run], { ...process.env, CITEBENCH_TREC_READER: 'off' });
  if (ts.stdout !== ours.stdout) throw new Error('the TypeScript readers printed other numbers than the compiled one');
  cliTs.push(ts.t);
  console.log(`citebench eval run ${i + 1}, TypeScript readers: ${show(ts.t)}`);
  if (TREC_EVAL) {
    const theirs = timedRun('trec_eval', TREC_EVAL, [...MEASURES, files.qrels, files.run]);
    peer.push(theirs.t);
    peerOutput = theirs.stdout;
    console.log(`trec_eval run ${i + 1}: ${show(theirs.t)} (ratio citebench/trec_eval ${(ours.t.wallS / theirs.t.wallS).toFixed(2)})`);
  }
}
process.stdout.write(cliOutput);

// 2. The in-memory API alone: CSR built once (not timed), evaluate() timed.
const tables = newTrecTables();
const qe = readQrels(files.qrels, tables);
const re = readRun(files.run, tables);
const qrels = qrelsToCsr(qe, tables.queries.size, tables);
const run = runToCsr(re, tables.queries.size, tables);
const { measures } = selectMeasures(['map', 'ndcg', 'recall.30']);
const mem: number[] = [];
let summary = new Float64Array(0);
for (let i = 0; i < REPS; i++) {
  const s = performance.now();
  const r = evaluate({ qrels, run, measures, docOrder: (a, b) => re.docnos!.compare(a, b), queryOrder: tables.queries.sortedIds() });
  mem.push((performance.now() - s) / 1000);
  summary = r.summary;
}
console.log(`in-memory evaluate(): median ${(median(mem) * 1000).toFixed(0)} ms over ${REPS} runs (${run.docs.length} ranked docs)`);

// The CLI printed the same numbers as the in-memory API.
for (const [i, m] of measures.entries()) {
  const line = cliOutput.split('\n').find((l) => l.startsWith(m.name + ' '));
  if (!line?.endsWith(`\t${formatFixed4(summary[i])}`)) throw new Error(`CLI and in-memory disagree on ${m.name}: ${line}`);
}

// 3. Cross-check on this file with a naive, string-based implementation written from the definitions (beside
// trec_eval, which may be absent): Map of docno strings, comparator sort, float32 scores, ties by docno desc.
const naive = naiveEvaluate(files.qrels, files.run);
for (const [name, value] of Object.entries(naive)) {
  const line = cliOutput.split('\n').find((l) => l.startsWith(name + ' '));
  if (!line?.endsWith(`\t${formatFixed4(value)}`)) throw new Error(`naive cross-check disagrees on ${name}: ${line} vs ${value}`);
}
console.log(`naive string-based cross-check agrees: ${Object.entries(naive).map(([k, v]) => `${k} ${formatFixed4(v)}`).join(', ')}`);

// trec_eval's own numbers (its `measure all value` lines) equal citebench's.
if (TREC_EVAL) {
  for (const m of measures) {
    const ours = cliOutput.split('\n').find((l) => l.startsWith(m.name + ' '))?.trim().split(/\s+/);
    const theirs = peerOutput.split('\n').find((l) => l.startsWith(m.name + ' '))?.trim().split(/\s+/);
    if (!ours || !theirs || ours[2] !== theirs[2]) throw new Error(`trec_eval disagrees on ${m.name}: ${theirs?.join(' ')} vs ${ours?.join(' ')}`);
  }
  console.log('trec_eval 9.0.8 prints the same numbers');
}
const ratios = peer.map((p, i) => cli[i].wallS / p.wallS);
const ratiosTs = peer.map((p, i) => cliTs[i].wallS / p.wallS);

const results = {
  date: new Date().toISOString(),
  node: process.version,
  lines: run.docs.length,
  queries: tables.queries.size,
  cli: { runs: cli, medianWallS: median(cli.map((c) => c.wallS)), medianCpuS: median(cli.map((c) => c.cpuS)), medianMaxRssMB: median(cli.map((c) => c.maxRssMB)) },
  cliTypeScriptReader: { runs: cliTs, medianWallS: median(cliTs.map((c) => c.wallS)), medianCpuS: median(cliTs.map((c) => c.cpuS)), medianMaxRssMB: median(cliTs.map((c) => c.maxRssMB)) },
  inMemory: { runsS: mem, medianS: median(mem) },
  trecEval: TREC_EVAL
    ? { runs: peer, medianWallS: median(peer.map((p) => p.wallS)), medianCpuS: median(peer.map((p) => p.cpuS)), medianMaxRssMB: median(peer.map((p) => p.maxRssMB)), pairedWallRatios: ratios, medianWallRatio: median(ratios), pairedWallRatiosTypeScriptReaders: ratiosTs, medianWallRatioTypeScriptReaders: median(ratiosTs), output: peerOutput }
    : null,
  output: cliOutput,
  naiveCrossCheck: naive,
};
writeFileAtomic(join(OUT, 'results.json'), JSON.stringify(results, null, 2) + '\n');
console.log(
  `\nsummary: citebench eval median ${results.cli.medianWallS.toFixed(2)} s wall / ${results.cli.medianCpuS.toFixed(2)} s CPU / ` +
    `${results.cli.medianMaxRssMB.toFixed(0)} MB (TypeScript readers ${results.cliTypeScriptReader.medianWallS.toFixed(2)} s, ` +
    `${results.cliTypeScriptReader.medianMaxRssMB.toFixed(0)} MB); in-memory ${(results.inMemory.medianS * 1000).toFixed(0)} ms; ` +
    (TREC_EVAL ? `trec_eval median ${results.trecEval!.medianWallS.toFixed(2)} s / ${results.trecEval!.medianMaxRssMB.toFixed(0)} MB; paired ratio citebench/trec_eval median ${results.trecEval!.medianWallRatio.toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(', ')}; TypeScript readers ${results.trecEval!.medianWallRatioTypeScriptReaders.toFixed(2)})` : 'no trec_eval (set TREC_EVAL)'),
);

function naiveEvaluate(qrelsPath: string, runPath: string): Record<string, number> {
  const judged = new Map<string, Map<string, number>>();
  for (const line of readFileSync(qrelsPath, 'latin1').split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 4) continue;
    if (!judged.has(f[0])) judged.set(f[0], new Map());
    judged.get(f[0])!.set(f[2], Number(f[3]));
  }
  const ranked = new Map<string, { doc: string; score: number }[]>();
  for (const line of readFileSync(runPath, 'latin1').split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 6) continue;
    if (!ranked.has(f[0])) ranked.set(f[0], []);
    ranked.get(f[0])!.push({ doc: f[2], score: Math.fround(Number(f[4])) });
  }
  let map = 0;
  let ndcg = 0;
  let recall = 0;
  let n = 0;
  for (const [qid, list] of ranked) {
    const rels = judged.get(qid);
    if (!rels) continue;
    n++;
    list.sort((a, b) => b.score - a.score || (a.doc < b.doc ? 1 : a.doc > b.doc ? -1 : 0));
    const R = [...rels.values()].filter((l) => l >= 1).length;
    let hits = 0;
    let ap = 0;
    let dcg = 0;
    list.forEach((d, i) => {
      const l = rels.get(d.doc) ?? 0;
      if (l >= 1) {
        hits++;
        ap += hits / (i + 1);
        if (i < 30) recall += 1 / R;
      }
      if (l > 0) dcg += l / Math.log2(i + 2);
    });
    const gains = [...rels.values()].filter((l) => l > 0).sort((a, b) => b - a);
    const idcg = gains.reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
    map += R ? ap / R : 0;
    ndcg += idcg > 0 ? dcg / idcg : 0;
  }
  return { map: map / n, recall_30: recall / n, ndcg: ndcg / n };
}
