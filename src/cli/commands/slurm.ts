import { mkdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, num } from '../args.ts';
import { loadConfig } from '../../experiments/config.ts';
import { slurmScripts, type SlurmStage } from '../../experiments/slurm.ts';
import { CitebenchError } from '../../util/errors.ts';
import { optionSpec as runSpec, overridesOf } from './run.ts';


// The scripts run the command line as a program (a path, not an import of it).
const CLI_PATH = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'cli.ts');
export const usage = `usage: citebench slurm CONFIG.yaml [--dry-run | --submit] [--dir DIR] [--encode-tasks 8] [--cell-tasks 8]
                       [--cpus 2] [--partition P] [--gpu-partition P --gpus 1] [--account A]
                       [--mem STAGE=4G …] [--time STAGE=2:00:00 …] [--sbatch=OPT …] [run options]

Write the SLURM batch scripts of a run (docs/cluster.md): prepare (one task: corpus, BM25 index, tuning),
encode (an array job of store-chunk shards; only with dense models), cells (an array job of pool-group shards;
a lock per cell), assemble (one task: MDCR, results.json, report.md — the bytes one process writes). Each task
runs \`citebench run CONFIG --stage … --shard $SLURM_ARRAY_TASK_ID/N\` in this
checkout (the nodes need the repository and \`bash scripts/setup.sh\`, and the work/results folders shared).
Time and memory requests default to the dry-run estimate per task (\`citebench run CONFIG --dry-run\`).
  --dry-run        print the scripts, write and submit nothing
  --submit         write the scripts and submit them with sbatch, each stage after the last succeeded
                   (\`sbatch --dependency=afterok:JOB\`);
                   a failed or cancelled task I: \`sbatch --array=I DIR/<stage>.sbatch\`, then the later stages
                   again (docs/cluster.md)
  --dir DIR        where the scripts go; logs in DIR/logs/<stage>-<job>_<task>.out (default <results>/slurm)
  --encode-tasks N --cell-tasks N   array sizes (default 8 each)
  --cpus N         CPUs per task (default 2; each task runs \`citebench run … --threads $SLURM_CPUS_PER_TASK\`)
  --partition P    partition of every job;  --gpu-partition P, --gpus N: the encode stage on GPUs instead
                   (\`#SBATCH --gres=gpu:N\`, \`citebench run … --device cuda\`; docs/cluster.md says what the nodes need)
  --mem S=M, --time S=T   per stage (prepare, encode, cells, assemble); repeatable
  --sbatch=OPT     an extra #SBATCH line for every job (e.g. \`--sbatch=--qos=long\`); repeatable
run options (passed to every task): --scale --seed --repeats --articles --store --work --results --exclude-queries`;

const spec = {
  'dry-run': { type: 'boolean' }, submit: { type: 'boolean' }, dir: { type: 'string' },
  'encode-tasks': { type: 'string' }, 'cell-tasks': { type: 'string' }, cpus: { type: 'string' },
  partition: { type: 'string' }, 'gpu-partition': { type: 'string' }, gpus: { type: 'string' }, account: { type: 'string' },
  mem: { type: 'string', multiple: true }, time: { type: 'string', multiple: true }, sbatch: { type: 'string', multiple: true },
  scale: runSpec.scale, seed: runSpec.seed, repeats: runSpec.repeats, articles: runSpec.articles, store: runSpec.store,
  work: runSpec.work, results: runSpec.results, 'exclude-queries': runSpec['exclude-queries'],
} as const;

const STAGES: SlurmStage[] = ['prepare', 'encode', 'cells', 'assemble'];

function perStage(opt: string, vals: string[] | undefined): Partial<Record<SlurmStage, string>> {
  const out: Partial<Record<SlurmStage, string>> = {};
  for (const v of vals ?? []) {
    const m = /^(\w+)=(\S+)$/.exec(v);
    if (!m || !STAGES.includes(m[1] as SlurmStage)) throw new CitebenchError(`--${opt} must be STAGE=VALUE with STAGE one of ${STAGES.join(', ')}, got '${v}'`);
    out[m[1] as SlurmStage] = m[2];
  }
  return out;
}

function count(name: string, v: string | undefined, dflt: number): number {
  const n = num(name, v, dflt);
  if (!Number.isInteger(n) || n < 1) throw new CitebenchError(`--${name} must be a positive integer, got ${v}`);
  return n;
}

const q = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, spec, usage);
  if (positionals.length !== 1) throw new CitebenchError(`give one config file\n\n${usage}`);
  if (values['dry-run'] && values.submit) throw new CitebenchError('--dry-run and --submit exclude each other');
  const cfg = loadConfig(positionals[0], overridesOf(values));
  const cwd = process.cwd();
  const dir = resolve(values.dir ?? join(cfg.results, 'slurm'));
  // Paths the tasks get are absolute, so a task's working directory cannot change their meaning.
  const runArgs = [q(resolve(positionals[0]))];
  const pass = (k: 'scale' | 'seed' | 'repeats' | 'articles') => values[k] !== undefined && runArgs.push(`--${k}`, q(values[k]!));
  (['scale', 'seed', 'repeats', 'articles'] as const).forEach(pass);
  runArgs.push('--work', q(resolve(cfg.work)), '--results', q(resolve(cfg.results)));
  if (values.store !== undefined) runArgs.push('--store', q(resolve(values.store)));
  for (const f of values['exclude-queries'] ?? []) runArgs.push('--exclude-queries', q(resolve(f)));
  const gpus = values.gpus === undefined ? 0 : count('gpus', values.gpus, 1);
  if (values['gpu-partition'] && !gpus) throw new CitebenchError('--gpu-partition needs --gpus N');
  const scripts = slurmScripts(cfg, {
    cwd, node: process.execPath, cli: CLI_PATH, runArgs, dir,
    encodeTasks: count('encode-tasks', values['encode-tasks'], 8), cellTasks: count('cell-tasks', values['cell-tasks'], 8), cpus: count('cpus', values.cpus, 2),
    partition: values.partition, gpuPartition: values['gpu-partition'], gpus, account: values.account,
    mem: perStage('mem', values.mem), time: perStage('time', values.time), extra: values.sbatch,
  });
  if (values['dry-run']) {
    for (const s of scripts) console.log(`# ---- ${s.file} (${s.tasks > 1 ? `array of ${s.tasks}` : 'one task'})\n${s.text}`);
    console.log(`# submit: ${submitLine(scripts)}`);
    return 0;
  }
  mkdirSync(join(dir, 'logs'), { recursive: true });
  for (const s of scripts) writeFileSync(s.file, s.text, { mode: 0o755 });
  writeFileSync(join(dir, 'submit.sh'), `#!/bin/bash\n# Submit the stages of ${cfg.name}, each after the last succeeded.\nset -euo pipefail\n${submitLine(scripts, true)}\n`, { mode: 0o755 });
  if (!values.submit) {
    console.log(`wrote ${scripts.map((s) => s.file).join(', ')} and ${join(dir, 'submit.sh')}\nsubmit with: bash ${join(dir, 'submit.sh')}   (or citebench slurm … --submit)`);
    return 0;
  }
  let prev: string | undefined;
  for (const s of scripts) {
    const a = ['--parsable', ...(prev ? [`--dependency=afterok:${prev}`] : []), s.file];
    const r = spawnSync('sbatch', a, { encoding: 'utf8' });
    if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') throw new CitebenchError(`sbatch not found: submit from a SLURM login node, or use --dry-run / the written scripts (${dir})`);
    if (r.status !== 0) throw new CitebenchError(`sbatch ${a.join(' ')} failed (exit ${r.status}): ${r.stderr.trim()}${prev ? ` — earlier stages stay queued; scancel them or resubmit this one` : ''}`);
    prev = r.stdout.trim().split(';')[0];
    console.log(`${s.stage}: job ${prev}${s.tasks > 1 ? ` (array 0-${s.tasks - 1})` : ''}`);
  }
  console.error(`citebench: logs in ${join(dir, 'logs')}; watch with squeue --me`);
  return 0;
}

function submitLine(scripts: { stage: string; file: string }[], lines = false): string {
  const parts = scripts.map((s, i) => `${s.stage}=$(sbatch --parsable ${i ? `--dependency=afterok:\${${scripts[i - 1].stage}%%;*} ` : ''}${s.file})`);
  return lines ? parts.join('\n') + `\necho ${scripts.map((s) => `${s.stage}=\$${s.stage}`).join(' ')}` : parts.join('; ');
}
