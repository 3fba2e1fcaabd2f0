/**
 * `npm run bench:bm25` (run under the heavy lock): citebench BM25 vs Python bm25s on synthetic abstracts.
 *
 *   node --import tsx bench/bm25/run.ts [--articles 1000000] [--queries 3800] [--k 500] [--threads 2]
 *                                       [--pool-articles 2000000] [--skip-peer] [--skip-pool] [--name TAG]
 *                                       [--ts-kernel] [--repeat R]
 *
 * 1. a synthetic corpus of N articles (citebench synth + corpus build --no-prefilter, reused when present)
 * 2. citebench bm25 index, then bm25 search of Q title+abstract queries at top-k with T threads, each through the
 *    installed binary (bin/citebench.js, from a freshly compiled dist/): wall time and peak RSS of each process
 *    (/usr/bin/time)
 *    (with --ts-kernel also with the TypeScript kernel, CITEBENCH_BM25_ADDON=off: same run file byte for byte)
 * 3. bm25s (method lucene, k1 0.9, b 0.4, same texts, same queries, T threads) in the same run, with the
 *    Python named by $PYTHON (default python3); --repeat R alternates R citebench searches and R bm25s runs
 *    for paired ratios on a busy machine
 * 4. a pool of P documents sampled from a corpus of P·1.1 articles, searched as if indexed alone, Q queries
 * Everything lands in data/bench/bm25/ (ignored by git); the summary in bench/out/bm25/summary-N.json.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, readdirSync, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CorpusStore } from '../../src/corpus/store.ts';
import { writeFileAtomic } from '../../src/util/atomic.ts';
import { loadIndex, termIdMap } from '../../src/retrieval/bm25/index-format.ts';
import { DEFAULT_PARAMS, PoolStats } from '../../src/retrieval/bm25/pool-stats.ts';
import { EnglishAnalyzer, articleText, queryTermIds } from '../../src/retrieval/bm25/analyzer.ts';

const { values } = parseArgs({
  options: {
    articles: { type: 'string', default: '1000000' },
    queries: { type: 'string', default: '3800' },
    k: { type: 'string', default: '500' },
    threads: { type: 'string', default: '2' },
    'pool-articles': { type: 'string', default: '2000000' },
    'skip-peer': { type: 'boolean', default: false },
    'skip-pool': { type: 'boolean', default: false },
    name: { type: 'string', default: '' },
    'ts-kernel': { type: 'boolean', default: false },
    repeat: { type: 'string', default: '1' },
  },
});
const N = Number(values.articles);
const Q = Number(values.queries);
const K = Number(values.k);
const T = Number(values.threads);
const P = Number(values['pool-articles']);
const R = Number(values.repeat);
const PYTHON = process.env.PYTHON || 'python3';
const root = new URL('../..', import.meta.url).pathname;
const data = join(root, 'data/bench/bm25');
const outDir = join(root, 'bench/out/bm25');
mkdirSync(data, { recursive: true });
mkdirSync(outDir, { recursive: true });
// The command as a user runs it: the installed binary, from dist/ (compiled now, so that it is current).
execFileSync(process.execPath, [join(root, 'scripts/build-cli.mjs')], { stdio: 'inherit' });
const cli = [join(root, 'bin/citebench.js')];

function du(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.size;
  return readdirSync(path).reduce((s, f) => s + du(join(path, f)), 0);
}

/**
 * Summed RSS and PSS (KiB) of a process and all its descendants, from /proc. PSS charges a page shared by n
 * processes (the searchers' mapped index files) 1/n to each, so the tree's PSS is the memory it really holds.
 */
function treeMemoryKib(pid: number): { rss: number; pss: number } {
  let rss = 0;
  let pss = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      if (m) rss += Number(m[1]);
      const ps = /^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'));
      if (ps) pss += Number(ps[1]);
      for (const t of readdirSync(`/proc/${p}/task`)) {
        const kids = readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').trim();
        if (kids) stack.push(...kids.split(/\s+/).map(Number));
      }
    } catch {
      // exited meanwhile
    }
  }
  return { rss, pss };
}

/**
 * Run a command under /usr/bin/time; returns wall seconds, the peak RSS of its largest process (MiB) and the
 * peaks of the summed RSS and PSS of its whole process tree (sampled every 0.2 s: searchers and builders are
 * child processes), echoing its output.
 */
async function timed(label: string, cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ wall_s: number; peak_rss_mib: number; tree_peak_rss_mib: number; tree_peak_pss_mib: number; stdout: string }> {
  const timeFile = join(data, `time-${process.pid}.txt`);
  console.log(`\n== ${label}\n$ ${cmd} ${args.join(' ')}`);
  const child = spawn('/usr/bin/time', ['-o', timeFile, '-f', '%e %M', cmd, ...args], { stdio: ['ignore', 'pipe', 'inherit'], cwd: root, env });
  let stdout = '';
  child.stdout!.on('data', (b: Buffer) => {
    stdout += b;
    process.stdout.write(b);
  });
  let treePeak = 0;
  let treePeakPss = 0;
  const sampler = setInterval(() => {
    const m = treeMemoryKib(child.pid!);
    treePeak = Math.max(treePeak, m.rss);
    treePeakPss = Math.max(treePeakPss, m.pss);
  }, 200);
  const status = await new Promise<number | null>((res) => child.on('close', (code) => res(code)));
  clearInterval(sampler);
  if (status !== 0) throw new Error(`${label} failed with exit code ${status}`);
  const [wall, kb] = readFileSync(timeFile, 'utf8').trim().split(/\s+/).map(Number);
  rmSync(timeFile);
  console.log(`   ${label}: ${wall.toFixed(1)} s, peak RSS ${(kb / 1024).toFixed(0)} MiB (process tree ${(treePeak / 1024).toFixed(0)} MiB RSS, ${(treePeakPss / 1024).toFixed(0)} MiB PSS)`);
  return { wall_s: wall, peak_rss_mib: kb / 1024, tree_peak_rss_mib: treePeak / 1024, tree_peak_pss_mib: treePeakPss / 1024, stdout };
}

function ensureStore(n: number, seed: number): string {
  const store = join(data, `store-${n}`);
  if (existsSync(join(store, 'meta.json'))) return store;
  const shards = join(data, `synth-${n}`);
  execFileSync(process.execPath, [...cli, 'synth', '--articles', String(n), '--seed', String(seed), '--out', shards], { stdio: 'inherit' });
  execFileSync(process.execPath, [...cli, 'corpus', 'build', '--input', shards, '--out', store, '--no-prefilter'], { stdio: 'inherit' });
  rmSync(shards, { recursive: true, force: true });
  return store;
}

/** Q query articles spread evenly over the given documents. */
function pickQueries(docs: ArrayLike<number>, q: number): number[] {
  const out: number[] = [];
  for (let j = 0; j < q; j++) out.push(docs[Math.floor((j * docs.length) / q)]);
  return out;
}

const summary: Record<string, unknown> = {
  date: new Date().toISOString(),
  machine: '2 cores, 24 GiB RAM (shared dev box), Node ' + process.versions.node,
  articles: N, queries: Q, k: K, threads: T,
  git_commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim(),
};
const save = () => writeFileAtomic(join(outDir, `summary-${N}${values.name ? '-' + values.name : ''}.json`), JSON.stringify(summary, null, 2) + '\n');

// 1. corpus
const storeDir = ensureStore(N, 1);
const store = CorpusStore.open(storeDir);
const qIdx = pickQueries(Uint32Array.from({ length: store.size }, (_, i) => i), Q);
const queriesFile = join(data, `queries-${N}.txt`);
writeFileAtomic(queriesFile, qIdx.map((i) => store.id(i)).join('\n') + '\n');

// 2. citebench
const indexDir = join(data, `index-${N}`);
rmSync(indexDir, { recursive: true, force: true });
rmSync(`${indexDir}.work`, { recursive: true, force: true });
const ourIndex = await timed('citebench bm25 index', process.execPath, [...cli, 'bm25', 'index', '--corpus', storeDir, '--out', indexDir]);
summary.corpus_text_mib = du(join(storeDir, 'text.bin')) / 2 ** 20;
summary.query_postings = queryPostings(indexDir, store, qIdx);

/** Postings the queries read: the sum over queries of their distinct terms' document frequencies. */
function queryPostings(dir: string, texts: CorpusStore, queries: number[]): number {
  const ix = loadIndex(dir);
  const stats = new PoolStats(ix, DEFAULT_PARAMS);
  const an = new EnglishAnalyzer();
  const vocab = termIdMap(ix.terms);
  let sum = 0;
  for (const q of queries) for (const t of stats.prepare(queryTermIds(an, vocab, articleText(texts.text(q)))).terms) sum += ix.offsets[t + 1] - ix.offsets[t];
  return sum;
}

/** One `bm25 search` process; `search_s` is the search inside it, as the command reports it. */
async function citebenchSearch(label: string, runFile: string, env: NodeJS.ProcessEnv = process.env) {
  const t = await timed(label, process.execPath,
    [...cli, 'bm25', 'search', '--index', indexDir, '--corpus', storeDir, '--queries', queriesFile, '--k', String(K), '--threads', String(T), '--out', runFile], env);
  const inside = Number(/\(([\d.]+) s, [\d.]+ queries\/s\)/.exec(t.stdout)?.[1]);
  const postings = summary.query_postings as number;
  return {
    process_s: t.wall_s, search_s: inside, queries_per_s: Q / inside, ns_per_posting_per_thread: (inside * T * 1e9) / postings,
    peak_rss_mib: t.peak_rss_mib, tree_peak_rss_mib: t.tree_peak_rss_mib, tree_peak_pss_mib: t.tree_peak_pss_mib,
  };
}

// 3. bm25s, alternating with citebench's search R times (paired figures on a busy machine)
let peerRun: (() => Promise<Record<string, number>>) | undefined;
if (!values['skip-peer']) {
  const textsFile = join(data, `texts-${N}.jsonl`);
  if (!existsSync(textsFile)) {
    const w = createWriteStream(`${textsFile}.tmp`);
    for (const a of store.texts()) w.write(JSON.stringify(a.abstract ? `${a.title} ${a.abstract}` : a.title) + '\n');
    await new Promise<void>((res, rej) => w.end((e?: Error | null) => (e ? rej(e) : res())));
    execFileSync('mv', [`${textsFile}.tmp`, textsFile]);
  }
  const qFile = join(data, `queries-${N}.idx`);
  writeFileAtomic(qFile, qIdx.join('\n') + '\n');
  const peerOut = join(outDir, `bm25s-${N}${values.name ? '-' + values.name : ''}.json`);
  peerRun = async () => {
    const peer = await timed('bm25s', PYTHON, [join(root, 'bench/bm25/bm25s_peer.py'), textsFile, qFile, String(K), String(T), peerOut]);
    return { ...JSON.parse(readFileSync(peerOut, 'utf8')), process_wall_s: peer.wall_s, process_peak_rss_mib: peer.peak_rss_mib };
  };
}
const runFile = join(data, `run-${N}.trec`);
const pairs: { citebench: Awaited<ReturnType<typeof citebenchSearch>>; bm25s?: Record<string, number>; search_ratio?: number }[] = [];
for (let r = 0; r < R; r++) {
  const ours = await citebenchSearch(`citebench bm25 search (${r + 1}/${R})`, runFile);
  const peer = peerRun ? await peerRun() : undefined;
  pairs.push({ citebench: ours, bm25s: peer, search_ratio: peer ? peer.query_s / ours.search_s : undefined });
  summary.pairs = pairs;
  save();
}
const ourSearch = pairs[0].citebench;
summary.citebench = {
  index_s: ourIndex.wall_s, index_peak_rss_mib: ourIndex.peak_rss_mib, index_tree_peak_rss_mib: ourIndex.tree_peak_rss_mib, index_mib: du(indexDir) / 2 ** 20,
  search_s: ourSearch.process_s, search_inside_s: ourSearch.search_s, search_peak_rss_mib: ourSearch.peak_rss_mib, search_tree_peak_rss_mib: ourSearch.tree_peak_rss_mib, search_tree_peak_pss_mib: ourSearch.tree_peak_pss_mib,
  queries_per_s: Q / ourSearch.process_s, end_to_end_s: ourIndex.wall_s + ourSearch.process_s,
  note: 'wall times of whole CLI processes: start-up, loading the store/index and writing the TREC run included; search_inside_s is the search the command reports',
};
if (peerRun) {
  const p = pairs[0].bm25s as { end_to_end_s: number };
  summary.bm25s = p;
  summary.speedup_end_to_end = p.end_to_end_s / (summary.citebench as { end_to_end_s: number }).end_to_end_s;
  const ratios = pairs.map((x) => x.search_ratio!).sort((x, y) => x - y);
  summary.search_ratio_median = ratios[Math.floor(ratios.length / 2)];
  summary.search_ratio_min = ratios[0];
  // End to end per pair: the one index build + that pair's whole search process, against bm25s's index + queries.
  const e2e = pairs.map((x) => (x.bm25s as { end_to_end_s: number }).end_to_end_s / (ourIndex.wall_s + x.citebench.process_s));
  summary.end_to_end_ratios = e2e;
  summary.end_to_end_ratio_min = Math.min(...e2e);
}
save();
if (values['ts-kernel']) {
  // The TypeScript kernel on the same index and queries: the run file must be byte-identical.
  const tsRun = join(data, `run-${N}-ts.trec`);
  summary.citebench_ts_kernel = await citebenchSearch('citebench bm25 search, TypeScript kernel', tsRun, { ...process.env, CITEBENCH_BM25_ADDON: 'off' });
  summary.ts_kernel_run_identical = readFileSync(tsRun).equals(readFileSync(runFile));
  console.log(`run files of the compiled and the TypeScript kernel ${summary.ts_kernel_run_identical ? 'are byte-identical' : 'DIFFER'}`);
  save();
}
store.close();

// 4. a pool of P documents out of a corpus of 1.1·P
if (!values['skip-pool']) {
  const M = Math.round(P * 1.1);
  const bigStore = ensureStore(M, 2);
  const big = CorpusStore.open(bigStore);
  // Deterministic sample: keep document i unless hash(i) falls in the dropped 1/11.
  const pool: number[] = [];
  for (let i = 0; i < big.size && pool.length < P; i++) if ((Math.imul(i + 1, 0x9e3779b1) >>> 0) % 11 !== 0) pool.push(i);
  const poolFile = join(data, `pool-${P}.txt`);
  writeFileAtomic(poolFile, pool.map((i) => big.id(i)).join('\n') + '\n');
  const poolQueries = join(data, `pool-queries-${P}.txt`);
  writeFileAtomic(poolQueries, pickQueries(pool, Q).map((i) => big.id(i)).join('\n') + '\n');
  big.close();
  const bigIndex = join(data, `index-${M}`);
  if (!existsSync(join(bigIndex, 'meta.json'))) {
    summary.pool_corpus_index = await timed('citebench bm25 index (pool corpus)', process.execPath, [...cli, 'bm25', 'index', '--corpus', bigStore, '--out', bigIndex]);
  }
  const poolSearch = await timed(`citebench bm25 search, pool of ${P}`, process.execPath,
    [...cli, 'bm25', 'search', '--index', bigIndex, '--corpus', bigStore, '--queries', poolQueries, '--pool', poolFile, '--k', String(K), '--threads', String(T), '--out', join(data, `run-pool-${P}.trec`)]);
  summary.pool = { corpus_articles: M, pool_docs: pool.length, queries: Q, search_s: poolSearch.wall_s, peak_rss_mib: poolSearch.peak_rss_mib, tree_peak_rss_mib: poolSearch.tree_peak_rss_mib, queries_per_s: Q / poolSearch.wall_s };
  save();
}
console.log('\n' + JSON.stringify(summary, null, 2));
