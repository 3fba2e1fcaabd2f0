/**
 * SLURM batch scripts for a run (`citebench slurm CONFIG`): one sbatch job per stage — prepare (one task),
 * encode (an array of store-chunk shards, only with dense models), cells (an array of pool-group shards), and
 * assemble (one task: MDCR, results.json, the report) — chained with --dependency=afterok at submission. Each
 * task runs `citebench run CONFIG --stage … --shard $SLURM_ARRAY_TASK_ID/N` in the
 * submitting checkout: nothing but the repository and `bash scripts/setup.sh` is needed on the nodes.
 * Default time and memory requests come from the dry-run estimate (plan.ts), which is for one 2-core machine.
 */
import { anyNeeds } from './kinds/index.ts';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentConfig } from './config.ts';
import { estimate, formatBytes, formatDuration, planGroups } from './plan.ts';

export type SlurmStage = 'prepare' | 'encode' | 'cells' | 'assemble';

export interface SlurmOptions {
  /** Working directory of every task (paths in the config and arguments are relative to it). */
  cwd: string;
  /** The citebench entry point and the node to run it with. */
  cli: string;
  node: string;
  /** CONFIG and the run options to pass through (--work, --results, --scale …), already quoted for bash. */
  runArgs: string[];
  /** Folder of the scripts; logs go to its logs/ (one file per task: <stage>-<job>_<task>.out). */
  dir: string;
  encodeTasks: number;
  cellTasks: number;
  cpus: number;
  partition?: string;
  /** Partition and GPUs per task for the encode stage (then encoders run with --device cuda). */
  gpuPartition?: string;
  gpus?: number;
  account?: string;
  /** Overrides per stage ('4G', '2:00:00'). */
  mem?: Partial<Record<SlurmStage, string>>;
  time?: Partial<Record<SlurmStage, string>>;
  /** Extra #SBATCH lines for every job (e.g. '--qos=long'). */
  extra?: string[];
}

export interface SlurmScript {
  stage: SlurmStage;
  file: string;
  /** Array size (1 = a plain job). */
  tasks: number;
  text: string;
}

const GiB = 1 << 30;

function slurmTime(seconds: number): string {
  const s = Math.max(600, Math.ceil(seconds / 60) * 60); // at least 10 minutes: node startup, corpus loading
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const hms = `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:00`;
  return d ? `${d}-${hms}` : hms;
}

function slurmMem(bytes: number): string {
  return `${Math.max(2, Math.ceil(bytes / GiB))}G`;
}

/** Per-stage time and memory of the dry-run estimate, per task (with a 2× margin on time). */
/** Articles of the config's corpus store when it is built already (the estimate needs it for index sizes). */
export function storeArticles(cfg: ExperimentConfig): number | undefined {
  const meta = cfg.corpus.store ? join(cfg.corpus.store, 'meta.json') : undefined;
  if (!meta || !existsSync(meta)) return undefined;
  try {
    const n = (JSON.parse(readFileSync(meta, 'utf8')) as { articles?: number }).articles;
    return typeof n === 'number' ? n : undefined;
  } catch {
    return undefined;
  }
}

function stageNeeds(cfg: ExperimentConfig, encodeTasks: number, cellTasks: number): Record<SlurmStage, { seconds: number; bytes: number; note: string }> {
  const est = estimate(cfg, planGroups(cfg), storeArticles(cfg));
  const sum = (f: (s: string) => boolean) => est.filter((e) => f(e.stage)).reduce((a, e) => a + e.seconds, 0);
  const peak = (f: (s: string) => boolean) => est.filter((e) => f(e.stage)).reduce((a, e) => Math.max(a, e.bytes), 0);
  const isPrep = (s: string) => s.startsWith('corpus') || s.startsWith('BM25 index');
  // A task after prepare holds the built store's columns and the BM25 index, not the corpus stage's synthesis or
  // build peak (which the prepare task alone reaches): the index build's peak stands for both.
  const held = peak((s) => s.startsWith('BM25 index'));
  const tune = est.filter((e) => e.stage.includes('tuning')).reduce((a, e) => a + e.seconds, 0) * 0.5; // rough share
  return {
    prepare: { seconds: 2 * (sum(isPrep) + tune), bytes: peak(isPrep) + GiB, note: 'corpus, BM25 index, BM25 tuning, store manifests' },
    // An encode task holds one model (≤ 1 GiB for BERT-base) and one chunk of texts and vectors.
    encode: { seconds: (2 * sum((s) => s.startsWith('encode'))) / encodeTasks, bytes: held + 2 * GiB, note: 'dense encoders, store chunks c mod N = I' },
    cells: { seconds: (2 * sum((s) => s.startsWith('cells'))) / cellTasks, bytes: held + peak((s) => s.startsWith('cells')) + GiB, note: 'pool groups g mod N = I, every model' },
    assemble: { seconds: 600 + 0.2 * sum((s) => s.startsWith('cells')), bytes: held + peak((s) => s.startsWith('cells')) + GiB, note: 'reads every cell back, MDCR, results.json, report.md' },
  };
}

export function slurmScripts(cfg: ExperimentConfig, o: SlurmOptions): SlurmScript[] {
  const dense = anyNeeds(cfg.models, 'encode');
  const needs = stageNeeds(cfg, o.encodeTasks, o.cellTasks);
  const stages: SlurmStage[] = dense ? ['prepare', 'encode', 'cells', 'assemble'] : ['prepare', 'cells', 'assemble'];
  const q = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);
  return stages.map((stage) => {
    const tasks = stage === 'encode' ? o.encodeTasks : stage === 'cells' ? o.cellTasks : 1;
    const gpu = stage === 'encode' && (o.gpus ?? 0) > 0;
    const n = needs[stage];
    const head = [
      '#!/bin/bash',
      `# citebench ${cfg.name}: stage ${stage} — ${n.note}.`,
      `# Dry-run estimate per task (2-core CPU rates): ${formatDuration(n.seconds / 2)} (requested with a 2× margin), memory ≈ ${formatBytes(n.bytes)}.`,
      ...(gpu ? ['# On a GPU encoding is far faster than the CPU rate above: set the time with --time encode=… (docs/cluster.md).'] : []),
      `#SBATCH --job-name=cb-${cfg.name}-${stage}`,
      ...(tasks > 1 ? [`#SBATCH --array=0-${tasks - 1}`] : []),
      `#SBATCH --cpus-per-task=${o.cpus}`,
      `#SBATCH --mem=${o.mem?.[stage] ?? slurmMem(n.bytes)}`,
      `#SBATCH --time=${o.time?.[stage] ?? slurmTime(n.seconds)}`,
      `#SBATCH --output=${o.dir}/logs/${stage}-${tasks > 1 ? '%A_%a' : '%A'}.out`,
      ...(gpu && o.gpuPartition ? [`#SBATCH --partition=${o.gpuPartition}`] : o.partition ? [`#SBATCH --partition=${o.partition}`] : []),
      ...(gpu ? [`#SBATCH --gres=gpu:${o.gpus}`] : []),
      ...(o.account ? [`#SBATCH --account=${o.account}`] : []),
      ...(o.extra ?? []).map((e) => `#SBATCH ${e}`),
      'set -euo pipefail',
      `cd ${q(o.cwd)}`,
    ];
    const run = [q(o.node), '--import', 'tsx', q(o.cli), 'run', ...o.runArgs, '--threads', '"${SLURM_CPUS_PER_TASK:-1}"'];
    if (stage === 'prepare') run.push('--stage', 'prepare');
    // N is fixed here, not $SLURM_ARRAY_TASK_COUNT: a failed task resubmitted alone (sbatch --array=I) is still I/N.
    if (stage === 'encode') run.push('--stage', 'encode', '--shard', `"\${SLURM_ARRAY_TASK_ID:-0}/${tasks}"`, ...(gpu ? ['--device', 'cuda'] : []));
    if (stage === 'cells') run.push('--stage', 'cells', '--shard', `"\${SLURM_ARRAY_TASK_ID:-0}/${tasks}"`);
    const body = [
      'echo "citebench: start $(date +%s.%N) on $(hostname) (job ${SLURM_JOB_ID:-none} task ${SLURM_ARRAY_TASK_ID:-0})"',
      `${run.join(' ')}${stage === 'assemble' ? ' > /dev/null' : ''}`,
      'echo "citebench: done $(date +%s.%N)"',
    ];
    return { stage, file: `${o.dir}/${stage}.sbatch`, tasks, text: [...head, ...body].join('\n') + '\n' };
  });
}
