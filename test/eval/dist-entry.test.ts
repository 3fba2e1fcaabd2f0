/**
 * The compiled command line (scripts/build-cli.mjs → dist/) that bin/citebench.js runs: it prints and writes what
 * the TypeScript sources do, byte for byte, errors included; every worker module is compiled beside the commands
 * and a command run from dist starts its worker threads and child processes from there, without tsx; and the
 * binary falls back to the sources when one is newer than the build.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CorpusStore } from '../../src/corpus/store.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DATA = join(ROOT, '../shared/data/trec_eval/');
const FIXTURES = existsSync(DATA) ? DATA : null;
interface Metafile { outputs: Record<string, { entryPoint?: string; imports: { path: string; kind: string }[]; inputs: Record<string, unknown> }> }
const { buildCli, workerModules } = (await import(join(ROOT, 'scripts/build-cli.mjs'))) as {
  buildCli(outdir: string): Promise<{ inputs: string[]; metafile: Metafile }>;
  workerModules(): string[];
};

/** bin/citebench.js's check: the package's dist/ is as new as every source it was built from. */
function distIsFresh(): boolean {
  try {
    const built = statSync(join(ROOT, 'dist/inputs.json')).mtimeMs;
    return (JSON.parse(readFileSync(join(ROOT, 'dist/inputs.json'), 'utf8')) as { inputs: string[] }).inputs.every((p) => statSync(join(ROOT, p)).mtimeMs <= built);
  } catch {
    return false;
  }
}

const run = (args: string[]) => spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });

test('dist runs eval, mdcr-eval and merge-runs exactly as the sources do (output, files, one-line errors, exit codes)', { skip: FIXTURES ? false : 'trec_eval fixtures (../shared) absent' }, async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'cb-dist-'));
  try {
    const out = join(tmp, 'dist');
    const { inputs, metafile } = await buildCli(out);
    assert.ok(inputs.includes('src/eval/trec-io.ts') && inputs.includes('src/cli.ts'));
    // Every module started as a worker thread or child process is an entry point in dist's top folder.
    const workers = workerModules();
    assert.ok(workers.includes('src/retrieval/bm25/search-process.ts') && workers.includes('src/corpus/synth-worker.ts'), workers.join(' '));
    for (const w of workers) {
      const entry = Object.keys(metafile.outputs).find((o) => metafile.outputs[o].entryPoint === w);
      assert.ok(entry, `an entry for ${w}`);
      assert.equal(basename(entry), `worker-${w.slice(4, -3).replaceAll('/', '.')}.js`);
    }
    const bad = join(tmp, 'bad.run');
    writeFileSync(bad, '301 Q0 doc1 1 0.5 tag\n301 Q0 doc2 2 high tag\n');
    // Two shards of results.test (queries split by parity of their position) for merge-runs.
    const lines = readFileSync(FIXTURES + 'results.test', 'latin1').split('\n').filter(Boolean);
    const qids = [...new Set(lines.map((l) => l.split(/\s+/)[0]))];
    const shard = (i: number) => lines.filter((l) => qids.indexOf(l.split(/\s+/)[0]) % 2 === i).join('\n') + '\n';
    writeFileSync(join(tmp, 's0.trec'), shard(0));
    writeFileSync(join(tmp, 's1.trec'), shard(1));
    for (const args of [
      ['eval', '-m', 'all_trec', '-q', FIXTURES + 'qrels.test', FIXTURES + 'results.test'],
      ['eval', '-c', '-M', '100', FIXTURES + 'qrels.test', FIXTURES + 'results.trunc'],
      ['eval', FIXTURES + 'qrels.test', bad],
      ['eval', FIXTURES + 'qrels.test'],
      ['merge-runs', '--help'],
      ['mdcr-eval', '--help'],
      ['mdcr-eval', '--benchmark', join(tmp, 'missing.json'), '--scores', join(tmp, 'missing-scores.json')],
    ]) {
      const fromDist = run([join(out, 'cli.js'), ...args]);
      const fromSources = run(['--import', 'tsx', join(ROOT, 'src/cli.ts'), ...args]);
      assert.equal(fromDist.stdout, fromSources.stdout, args.join(' '));
      assert.equal(fromDist.stderr, fromSources.stderr, args.join(' '));
      assert.equal(fromDist.status, fromSources.status, args.join(' '));
    }
    assert.match(run([join(out, 'cli.js'), 'eval', FIXTURES + 'qrels.test', bad]).stderr, /^citebench: .*bad\.run:2 \[score\]: 'high' is not a number\n$/);
    // merge-runs writes the same file from dist as from the sources.
    for (const [entry, name] of [[[join(out, 'cli.js')], 'dist.trec'], [['--import', 'tsx', join(ROOT, 'src/cli.ts')], 'sources.trec']] as const) {
      const r = run([...entry, 'merge-runs', join(tmp, name), join(tmp, 's0.trec'), join(tmp, 's1.trec')]);
      assert.equal(r.status, 0, r.stderr);
    }
    assert.ok(readFileSync(join(tmp, 'dist.trec')).equals(readFileSync(join(tmp, 'sources.trec'))));
    assert.ok(readFileSync(join(tmp, 'dist.trec'), 'latin1').split('\n').length > 100);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('dist runs commands with worker threads and child processes as the sources do, those compiled too (synth, corpus build, bm25 index and search on 2 threads)', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'cb-dist-workers-'));
  try {
    // The package's own dist/ (rebuilt only when stale: npm test has done so before any test file started): a
    // dist/ outside the package would not find the npm packages it imports, tsx among them.
    const out = join(ROOT, 'dist');
    if (!distIsFresh()) await buildCli(out);
    const q = join(tmp, 'q.txt');
    for (const [name, entry] of [['dist', [join(out, 'cli.js')]], ['src', ['--import', 'tsx', join(ROOT, 'src/cli.ts')]]] as const) {
      const d = join(tmp, name);
      // Every process of these commands (NODE_OPTIONS reaches child processes) notes its script and loader flags.
      const probe = join(tmp, `probe-${name}.cjs`);
      const seen = join(tmp, `processes-${name}.jsonl`);
      writeFileSync(probe, `require('fs').appendFileSync(${JSON.stringify(seen)}, JSON.stringify([process.argv[1], process.execArgv]) + '\\n');\n`);
      const cli = (args: string[]) => {
        const r = spawnSync(process.execPath, [...entry, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: `--require ${probe}` } });
        assert.equal(r.status, 0, `${name}: ${args.join(' ')}\n${r.stderr}`);
      };
      cli(['synth', '--articles', '1200', '--seed', '3', '--shard-size', '400', '--threads', '2', '--out', join(d, 'shards')]);
      cli(['corpus', 'build', '--input', join(d, 'shards'), '--out', join(d, 'store'), '--threads', '2']);
      cli(['bm25', 'index', '--corpus', join(d, 'store'), '--out', join(d, 'index'), '--threads', '2', '--chunk-docs', '400']);
      if (!existsSync(q)) {
        const store = CorpusStore.open(join(d, 'store'));
        writeFileSync(q, Array.from({ length: 40 }, (_, i) => store.id(i * 7)).join('\n') + '\n');
        store.close();
      }
      cli(['bm25', 'search', '--index', join(d, 'index'), '--corpus', join(d, 'store'), '--queries', q, '--k', '20', '--threads', '2', '--out', join(d, 'run.trec')]);
      const procs = readFileSync(seen, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as [string, string[]]);
      const child = procs.find(([script]) => /index-process\.(ts|js)$/.test(script));
      assert.ok(child, `${name}: the index's child process ran (${procs.map((p) => p[0]).join(', ')})`);
      if (name === 'dist') {
        assert.match(child[0], /dist\/worker-retrieval\.bm25\.index-process\.js$/);
        for (const [script, flags] of procs) assert.ok(!flags.join(' ').includes('tsx'), `${script} started with tsx: ${flags.join(' ')}`);
      } else {
        assert.ok(child[1].join(' ').includes('tsx'), 'the sources\' child runs through tsx');
      }
    }
    for (const f of ['store/meta.json', 'index/terms.txt', 'index/docs.u32', 'run.trec']) {
      const a = readFileSync(join(tmp, 'dist', f), 'latin1').replaceAll(join(tmp, 'dist'), 'X');
      const b = readFileSync(join(tmp, 'src', f), 'latin1').replaceAll(join(tmp, 'src'), 'X');
      assert.ok(a === b, `${f}: dist and sources differ`);
    }
    assert.ok(readFileSync(join(tmp, 'dist', 'run.trec'), 'latin1').split('\n').length > 100);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('bin/citebench.js uses dist only while it is newer than every source it lists', () => {
  // A stand-in package: its dist and its sources print where they ran from.
  const tmp = mkdtempSync(join(tmpdir(), 'cb-bin-'));
  try {
    mkdirSync(join(tmp, 'bin'));
    mkdirSync(join(tmp, 'src'));
    mkdirSync(join(tmp, 'dist'));
    cpSync(join(ROOT, 'bin/citebench.js'), join(tmp, 'bin/citebench.js'));
    writeFileSync(join(tmp, 'package.json'), '{ "type": "module" }\n');
    symlinkSync(join(ROOT, 'node_modules'), join(tmp, 'node_modules'));
    writeFileSync(join(tmp, 'src/cli.ts'), "const from: string = 'sources'; console.log(from);\n");
    writeFileSync(join(tmp, 'dist/cli.js'), "console.log('dist');\n");
    writeFileSync(join(tmp, 'dist/inputs.json'), JSON.stringify({ inputs: ['src/cli.ts'] }));
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(tmp, 'src/cli.ts'), old, old);
    const bin = (...args: string[]) => spawnSync(process.execPath, [join(tmp, 'bin/citebench.js'), ...args], { encoding: 'utf8' }).stdout.trim();
    assert.equal(bin('eval'), 'dist');
    assert.equal(bin('bm25', 'search'), 'dist', 'commands with workers too');
    assert.equal(spawnSync(process.execPath, [join(tmp, 'bin/citebench.js'), 'eval'], { encoding: 'utf8', env: { ...process.env, CITEBENCH_DIST: 'off' } }).stdout.trim(), 'sources', 'CITEBENCH_DIST=off');
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(tmp, 'src/cli.ts'), later, later);
    assert.equal(bin('eval'), 'sources', 'a source edited after the build');
    rmSync(join(tmp, 'dist/inputs.json'));
    utimesSync(join(tmp, 'src/cli.ts'), old, old);
    assert.equal(bin('eval'), 'sources', 'no build record');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
