/**
 * The compiled command line (scripts/build-cli.mjs → dist/) that bin/citebench.js runs for `eval`, `mdcr-eval` and
 * `merge-runs`: it prints and writes what the TypeScript sources do, byte for byte, errors included; these light
 * commands reach no worker or child-process code; and the binary falls back to the sources when one is newer than
 * the build.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DATA = join(ROOT, '../shared/data/trec_eval/');
const FIXTURES = existsSync(DATA) ? DATA : null;
interface Metafile { outputs: Record<string, { entryPoint?: string; imports: { path: string; kind: string }[]; inputs: Record<string, unknown> }> }
const { buildCli } = (await import(join(ROOT, 'scripts/build-cli.mjs'))) as { buildCli(outdir: string): Promise<{ inputs: string[]; metafile: Metafile }> };

const run = (args: string[]) => spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });

test('dist runs eval, mdcr-eval and merge-runs exactly as the sources do (output, files, one-line errors, exit codes)', { skip: FIXTURES ? false : 'trec_eval fixtures (../shared) absent' }, async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'cb-dist-'));
  try {
    const out = join(tmp, 'dist');
    const { inputs, metafile } = await buildCli(out);
    assert.ok(inputs.includes('src/eval/trec-io.ts') && inputs.includes('src/cli.ts'));
    // Each light command's chunk, with everything it imports statically, holds no worker or child-process code
    // (those load .ts files and need tsx).
    const light = JSON.parse(/LIGHT_COMMANDS = (\[[^\]]*\])/.exec(readFileSync(join(ROOT, 'bin/citebench.js'), 'utf8'))![1].replaceAll("'", '"')) as string[];
    assert.ok(light.includes('eval'));
    for (const name of light) {
      const entry = Object.keys(metafile.outputs).find((o) => metafile.outputs[o].entryPoint === `src/cli/commands/${name}.ts`);
      assert.ok(entry, `a chunk for ${name}`);
      const seen = new Set<string>();
      const stack = [entry];
      while (stack.length) {
        const o = stack.pop()!;
        if (seen.has(o)) continue;
        seen.add(o);
        for (const src of Object.keys(metafile.outputs[o].inputs)) assert.doesNotMatch(src, /ts-worker\.ts$/, `${name} reaches ${src}`);
        for (const i of metafile.outputs[o].imports) if (i.kind === 'import-statement' && i.path in metafile.outputs) stack.push(i.path);
      }
      assert.ok(seen.size > 1, `${name}'s shared chunks were followed`);
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
    assert.equal(bin('bm25', 'search'), 'sources', 'a command with workers always runs the sources');
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
