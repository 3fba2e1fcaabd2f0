/**
 * The main job: the paper's pipeline on the built-in default corpus, stage by stage; every stage is skipped
 * when its output already exists for the same configuration, so a killed run resumes where it stopped.
 *   1. synthesize an S2ORC-shaped corpus and build the prefiltered corpus store (§3 prefilter);
 *   2. index every article with Lucene-exact BM25;
 *   3. the dataset-level protocol (§3.1) at the configured scale: queries, pools × repeats, top-500, MAP / nDCG /
 *      R@30 exactly as trec_eval computes them;
 *   4. a Markdown report with the paper's Table 1 beside ours.
 * Scale s shrinks everything the paper sizes by the same factor, so every ratio stays the paper's: 3,800·s
 * queries, pools of 200 k·s … 2 M·s, and a corpus of ~16 M·s prefiltered articles (21 M·s synthetic ones; the
 * synthetic prefilter keeps ~77 %). The default s = 0.02 (76 queries, pools of 4 k–40 k, 420 k synthetic
 * articles) runs in a few minutes on two cores; s = 1 is the paper's full setting.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { synthesize, SYNTH_DEFAULTS } from '../corpus/synth.ts';
import { buildCorpusStore } from '../corpus/store-build.ts';
import { CorpusStore } from '../corpus/store.ts';
import { PAPER_PREFILTER } from '../corpus/prefilter.ts';
import { buildIndex, removeWorkDir } from '../retrieval/bm25/index.ts';
import { INDEX_VERSION, loadIndex, readIndexMeta, saveIndex } from '../retrieval/bm25/index-format.ts';
import { Bm25Retriever } from '../retrieval/bm25/retriever.ts';
import { runLargeScale, meanOverRepeats, PAPER_DATASET_LEVEL, type LargeScaleConfig } from './large-scale.ts';
import { datasetLevelTable, loadPaperNumbers, paperTable1, poolLabel } from '../report/tables.ts';
import { writeFileAtomic } from '../util/atomic.ts';
import { availableParallelism } from 'node:os';

export interface ReproduceConfig {
  articles: number;
  seed: number;
  workDir: string;
  /** Fraction of the paper's query count and pool sizes (1 = 3,800 queries, 200 k–2 M pools). */
  scale: number;
  repeats: number;
  /** An existing corpus store (e.g. real S2ORC) instead of the synthetic corpus. */
  store?: string;
  /** Paper numbers for side-by-side tables (read from ../shared when present). */
  paperNumbers?: string;
}

/** Synthetic articles per unit of scale: 16 M prefiltered (the paper's S2ORC) / 0.77 kept by the prefilter. */
export const ARTICLES_PER_SCALE = 21_000_000;

export const REPRODUCE_DEFAULTS: ReproduceConfig = {
  articles: 0.02 * ARTICLES_PER_SCALE,
  seed: 1,
  workDir: 'data/default',
  scale: 0.02,
  repeats: 3,
  // ../shared beside the repository (development machines and CI); absent elsewhere, then no paper column.
  paperNumbers: fileURLToPath(new URL('../../../shared/reference/paper-numbers.json', import.meta.url)),
};

export type StageLog = (line: string) => void;

export interface ReproduceResult {
  store: CorpusStore;
  report: string;
  reportPath: string;
}

export async function reproduce(cfg: ReproduceConfig, log: StageLog = console.error): Promise<ReproduceResult> {
  const shards = join(cfg.workDir, 'shards');
  const storeDir = cfg.store ?? join(cfg.workDir, 'store');
  const stamp = join(cfg.workDir, 'store.config.json');
  const want = cfg.store
    ? JSON.stringify({ store: resolve(cfg.store), meta: readFileSync(join(cfg.store, 'meta.json'), 'utf8') })
    : JSON.stringify({ articles: cfg.articles, seed: cfg.seed, prefilter: PAPER_PREFILTER });

  // 1. corpus
  if (cfg.store) {
    log(`[1/4] corpus store: ${cfg.store} (given)`);
    writeFileAtomic(stamp, want);
  } else if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want && existsSync(join(storeDir, 'meta.json'))) {
    log(`[1/4] corpus store: up to date (${storeDir})`);
  } else {
    log(`[1/4] synthesizing ${cfg.articles} S2ORC-shaped articles (seed ${cfg.seed}), prefilter, corpus store`);
    await synthesize({ ...SYNTH_DEFAULTS, articles: cfg.articles, seed: cfg.seed }, shards);
    const s = await buildCorpusStore({ input: shards, out: storeDir, prefilter: PAPER_PREFILTER, log: () => {} });
    log(`      ${s.articles} articles, ${s.citations} citations`);
    writeFileAtomic(stamp, want);
  }
  const store = CorpusStore.open(storeDir);

  // 2. BM25 index (the index directory appears atomically; a killed build resumes from its chunks)
  const indexDir = join(cfg.workDir, 'bm25-index');
  const indexStamp = join(cfg.workDir, 'bm25-index.config.json');
  // An index this citebench cannot read (older format version, damaged meta) is rebuilt, not reused.
  const indexCurrent = existsSync(join(indexDir, 'meta.json')) && (() => {
    try {
      return readIndexMeta(indexDir).version === INDEX_VERSION;
    } catch {
      return false;
    }
  })();
  if (indexCurrent && existsSync(indexStamp) && readFileSync(indexStamp, 'utf8') === want) {
    log(`[2/4] BM25 index: up to date (${indexDir})`);
  } else {
    log(`[2/4] BM25 index of ${store.size} articles`);
    const ix = await buildIndex(store, { workDir: `${indexDir}.work`, threads: availableParallelism(), workerSource: { kind: 'store', dir: resolve(storeDir) } });
    saveIndex(ix, indexDir, { corpus: { dir: resolve(storeDir), articles: store.size } });
    removeWorkDir(`${indexDir}.work`);
    writeFileAtomic(indexStamp, want);
  }
  const bm25 = new Bm25Retriever(loadIndex(indexDir), store, { tieKey: store.idOrder, threads: availableParallelism(), indexDir });

  // 3. dataset-level protocol
  const exp: LargeScaleConfig = {
    ...PAPER_DATASET_LEVEL,
    queries: Math.round(PAPER_DATASET_LEVEL.queries * cfg.scale),
    poolSizes: PAPER_DATASET_LEVEL.poolSizes.map((s) => Math.round(s * cfg.scale)),
    repeats: cfg.repeats,
    seed: cfg.seed,
  };
  log(`[3/4] dataset level: ${exp.queries} queries of 2019, pools ${exp.poolSizes.map(poolLabel).join('/')} × ${exp.repeats} repeats, top ${exp.k}`);
  const cells = await runLargeScale(store, bm25, exp, join(cfg.workDir, 'results'), (l) => log(`      ${l}`));

  // 4. report
  const rows = meanOverRepeats(cells);
  const ours = datasetLevelTable(rows, exp.measures);
  const paper = cfg.paperNumbers ? loadPaperNumbers(cfg.paperNumbers) : undefined;
  const sizes = PAPER_DATASET_LEVEL.poolSizes.map(poolLabel);
  const report = [
    `# citebench reproduction — dataset level (Table 1 layout)`,
    '',
    `Corpus: ${store.size} prefiltered articles (${cfg.store ? `store ${cfg.store}` : `${cfg.articles} synthetic S2ORC-shaped, seed ${cfg.seed}`}), ` +
      `${exp.queries} queries from 2019, pools of ${exp.poolSizes.map(poolLabel).join(', ')} (scale ${cfg.scale} of the paper's), ` +
      `${exp.repeats} pool samples each, top ${exp.k}; values ×100, mean over pool samples.`,
    '',
    ours,
    '',
    ...(paper
      ? [`The paper's Table 1 (S2ORC, pools ${sizes.join('/')}), for orientation only: a synthetic corpus at another scale does not reproduce its values.`, '', paperTable1(paper, ['bm25', 'scibert', 'specter', 'scincl', 'aspire'], sizes, exp.measures), '']
      : []),
  ].join('\n');
  const reportPath = join(cfg.workDir, 'report.md');
  writeFileAtomic(reportPath, report);
  log(`[4/4] report: ${reportPath}`);
  return { store, report, reportPath };
}
