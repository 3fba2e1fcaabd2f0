/**
 * The main job: the paper's pipeline on the built-in default corpus, stage by stage, each stage skipped when
 * its output already exists for the same configuration (so a killed run resumes where it stopped).
 * Today: synthesize an S2ORC-shaped corpus → build the prefiltered corpus store → summarise it.
 * Later stages (pools, BM25 and dense runs, evaluation, report) plug in here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { synthesize, SYNTH_DEFAULTS } from '../corpus/synth.ts';
import { buildCorpusStore } from '../corpus/store-build.ts';
import { CorpusStore } from '../corpus/store.ts';
import { PAPER_PREFILTER } from '../corpus/prefilter.ts';
import { writeFileAtomic } from '../util/atomic.ts';

export interface ReproduceConfig {
  articles: number;
  seed: number;
  workDir: string;
}

export const REPRODUCE_DEFAULTS: ReproduceConfig = { articles: 200_000, seed: 1, workDir: 'data/default' };

export interface StageLog {
  (line: string): void;
}

export async function reproduce(cfg: ReproduceConfig, log: StageLog = console.error): Promise<{ store: CorpusStore }> {
  const shards = join(cfg.workDir, 'shards');
  const storeDir = join(cfg.workDir, 'store');
  const stamp = join(cfg.workDir, 'store.config.json');
  const want = JSON.stringify({ articles: cfg.articles, seed: cfg.seed, prefilter: PAPER_PREFILTER });

  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want && existsSync(join(storeDir, 'meta.json'))) {
    log(`[1/2] synthetic corpus + store: up to date in ${cfg.workDir}`);
  } else {
    log(`[1/2] synthesizing ${cfg.articles} S2ORC-shaped articles (seed ${cfg.seed}) into ${shards}`);
    await synthesize({ ...SYNTH_DEFAULTS, articles: cfg.articles, seed: cfg.seed }, shards, { progress: true });
    log(`[2/2] building the prefiltered corpus store ${storeDir}`);
    const s = await buildCorpusStore({ input: shards, out: storeDir, prefilter: PAPER_PREFILTER, progress: true, log });
    log(`      ${s.articles} articles, ${s.citations} citations`);
    writeFileAtomic(stamp, want);
  }
  return { store: CorpusStore.open(storeDir) };
}
