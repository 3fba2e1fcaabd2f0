/**
 * The scale-out check, looped: a single-process `citebench run` against the same config split up as a cluster
 * splits it, every file compared (timings.json aside). Parts per round:
 *   cells    `--stage prepare`; `--stage encode --shard 0/2` and `1/2` at once; `--stage cells --shard 0/2` and
 *            `1/2` at once, shard 1 SIGKILLed mid-cell (a half-written run file left,
 *            test/cluster/fixtures/kill-mid-cell.mjs); two `--worker`s at once; a plain run: the results folder
 *   store    that run's embedding store (the encode shards' chunks, to which the assembly's MDCR stage adds)
 *   worker   a fresh folder: `--stage prepare`, two `--worker`s at once straight away (each encodes what the
 *            plan searches, the same chunks at once), a plain run: the results folder and the store
 * The config is configs/ci.yaml without its tuned BM25 (fixed BM25, dataset, field and MDCR protocols) plus a random-weight
 * encoder: ../shared/models/tiny-scibert-random, its int8 export unless --fp32 (an int8 export quantises its
 * activations per batch, so an article's vector depends on which articles share its batch unless encoded alone).
 *
 *   node --import tsx scripts/dev/check-scale-out.ts [ROUNDS=5] [--fp32] [--model DIR] [--keep]
 *
 * Prints one line per round ("round 3: cells identical, store identical, worker identical") and a total; exits
 * 1 when any part differed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tree } from '../../test/helpers/files.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
// The installed binary, as a user runs it: dist/ (compiled now, so it is current), worker processes included.
const CLI = join(REPO, 'bin/citebench.js');
spawnSync(process.execPath, [join(REPO, 'scripts/build-cli.mjs')], { stdio: 'inherit' });
const KILL = join(REPO, 'test/cluster/fixtures/kill-mid-cell.mjs');
const args = process.argv.slice(2);
const rounds = Number(args.find((a) => /^\d+$/.test(a)) ?? 5);
const fp32 = args.includes('--fp32');
const model = args.includes('--model') ? args[args.indexOf('--model') + 1] : join(REPO, '../shared/models/tiny-scibert-random');
if (!existsSync(model)) {
  console.error(`no model folder ${model} (../shared/models/tiny-scibert-random, or pass --model DIR)`);
  process.exit(2);
}

function run(argv: string[], env: Record<string, string> = {}, preload?: string): Promise<{ code: number | null; signal: string | null; err: string }> {
  return new Promise((done) => {
    const p = spawn(process.execPath, [...(preload ? ['--import', preload] : []), CLI, ...argv], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code, signal) => done({ code, signal, err }));
  });
}

async function ok(what: string, p: Promise<{ code: number | null; err: string }>): Promise<void> {
  const r = await p;
  if (r.code !== 0) throw new Error(`${what} failed (${r.code}):\n${r.err.slice(-3000)}`);
}


/** undefined when identical, else what differs (files only on one side, files with other bytes). */
function diff(a: string, b: string): string | undefined {
  const x = tree(a);
  const y = tree(b);
  const out: string[] = [];
  for (const f of x.keys()) if (!y.has(f)) out.push(`only in ${relative(root, a)}: ${f}`);
  for (const f of y.keys()) if (!x.has(f)) out.push(`only in ${relative(root, b)}: ${f}`);
  for (const [f, bytes] of x) if (y.has(f) && !bytes.equals(y.get(f)!)) out.push(`differs: ${f}`);
  return out.length ? out.slice(0, 8).join('; ') + (out.length > 8 ? ` (+${out.length - 8})` : '') : undefined;
}

const embeddings = (work: string) => join(work, 'embeddings');

const root = mkdtempSync(join(tmpdir(), 'cb-scale-out-'));
const cfg = join(root, 'ci-dense.yaml');
writeFileSync(cfg, readFileSync(join(REPO, 'configs/ci.yaml'), 'utf8').replace(/^  bm25-tuned:.*\n/m, '').replace(/^models:\n/m, `models:\n  tiny: { model: ${model}${fp32 ? '' : ', quantized: true'} }\n`));
const at = (name: string) => ['--work', join(root, name, 'w'), '--results', join(root, name, 'r')];

let failures = 0;
const counts = { cells: 0, store: 0, worker: 0 };
try {
  for (let i = 1; i <= rounds; i++) {
    for (const d of ['single', 'staged', 'workers']) rmSync(join(root, d), { recursive: true, force: true });
    await ok('single run', run(['run', cfg, ...at('single')]));

    // Staged: prepare; two encode shards at once; two cells shards at once, one killed mid-cell; workers; assemble.
    const s = at('staged');
    await ok('prepare', run(['run', cfg, ...s, '--stage', 'prepare']));
    await Promise.all([0, 1].map((k) => ok(`encode ${k}/2`, run(['run', cfg, ...s, '--stage', 'encode', '--shard', `${k}/2`]))));
    const [, killed] = await Promise.all([
      ok('cells 0/2', run(['run', cfg, ...s, '--stage', 'cells', '--shard', '0/2', '--threads', '1'])),
      run(['run', cfg, ...s, '--stage', 'cells', '--shard', '1/2', '--threads', '1'], { KILL_AT_RUN_FILE: '2' }, KILL),
    ]);
    if (killed.signal !== 'SIGKILL') throw new Error(`cells 1/2 was to be killed mid-cell: ${killed.code} ${killed.signal}\n${killed.err.slice(-2000)}`);
    await Promise.all([1, 2].map((k) => ok(`worker ${k}`, run(['run', cfg, ...s, '--worker', '--threads', '1']))));
    await ok('staged assemble', run(['run', cfg, ...s]));
    const cells = diff(join(root, 'single', 'r'), join(root, 'staged', 'r'));
    // After the assembly: MDCR adds its candidates to the chunks the encode shards wrote, in both runs.
    const store = diff(embeddings(join(root, 'single', 'w')), embeddings(join(root, 'staged', 'w')));

    // Workers straight after prepare: both encode the plan's chunks at once, then search.
    const w = at('workers');
    await ok('prepare (workers)', run(['run', cfg, ...w, '--stage', 'prepare']));
    await Promise.all([1, 2].map((k) => ok(`worker ${k}`, run(['run', cfg, ...w, '--worker', '--threads', '1']))));
    await ok('workers assemble', run(['run', cfg, ...w]));
    const worker = diff(join(root, 'single', 'r'), join(root, 'workers', 'r')) ?? diff(embeddings(join(root, 'single', 'w')), embeddings(join(root, 'workers', 'w')));

    const parts = { cells, store, worker };
    for (const [k, v] of Object.entries(parts)) if (!v) counts[k as keyof typeof counts]++;
    if (Object.values(parts).some((v) => v)) failures++;
    console.log(`round ${i}: ${Object.entries(parts).map(([k, v]) => `${k} ${v ? `DIFFERS (${v})` : 'identical'}`).join(', ')}`);
  }
  console.log(`${rounds - failures}/${rounds} rounds identical in every part (cells ${counts.cells}/${rounds}, store ${counts.store}/${rounds}, worker ${counts.worker}/${rounds}); model ${model}${fp32 ? '' : ' (int8)'}`);
} finally {
  if (args.includes('--keep')) console.log(`kept ${root}`);
  else rmSync(root, { recursive: true, force: true });
  spawnSync('true');
}
process.exit(failures ? 1 : 0);
