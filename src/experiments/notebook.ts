/**
 * What a notebook's first cell calls to get its data, so every notebook stays one line long there:
 *   notebookResults({ protocols: ['dataset'] })  → the results of configs/default.yaml as frames
 *   notebookCorpus()                             → the corpus store those results come from
 * Interactive (the default): `npm run reproduce`'s results folder (data/default/results) is
 * reused when it exists and holds what is asked; otherwise the config runs (every stage and cell cached, so a
 * second call is quick). Small-data mode (`CITEBENCH_SMALL=1`, or `small: true`; the tests use it) runs the same
 * config shrunk to 10,000 articles and 10 queries, so a notebook runs in about a minute.
 * `CITEBENCH_WORK=DIR` moves the cache and results folders (the tests point it at a temporary folder).
 */
import { anyTuned, entryOf, tunedVariants } from './kinds/index.ts';
import { existsSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FieldName } from '../corpus/fields.ts';
import { CorpusStore } from '../corpus/store.ts';
import { loadResults, type ResultsFrames } from '../report/frames.ts';
import { readResults, type ResultsIndex } from '../report/results.ts';
import { CitebenchError } from '../util/errors.ts';
import { loadConfig, type ExperimentConfig } from './config.ts';
import { prepareCorpus } from './corpus-stage.ts';
import { runExperiment } from './run.ts';
import { NotebookLog } from './notebook-log.ts';

/** The repository root: configs and data folders are named relative to it, whatever the notebook's directory. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A log line as a notebook prints it: paths inside the repository relative to its root, no machine's paths. */
const repoRelative = (line: string) => line.replaceAll(REPO_ROOT, '');

export type Protocol = 'dataset' | 'field' | 'mdcr';

export interface NotebookOptions {
  /** Config file, relative to the repository root (default configs/default.yaml). */
  config?: string;
  /**
   * Protocols needed (default: every protocol of the config). mdcr brings the field level (MDCR is built from its
   * queries); a tuned model brings the dataset level (tuning uses its validation split).
   */
  protocols?: Protocol[];
  /**
   * Add NAME-tuned beside every configured model whose kind can tune on its default grid and does not tune already
   * (KindEntry.tunedVariant): `bm25-tuned`, BM25 with k1 and b grid-searched on the validation split (paper §3.1).
   */
  tune?: boolean;
  /** Small-data mode (default: environment CITEBENCH_SMALL=1). */
  small?: boolean;
  /**
   * Print every log line of the run, as `citebench run` does. Default: one progress line per stage, updated in
   * place, and the full log in the results folder's run.log.
   */
  verbose?: boolean;
  log?: (line: string) => void;
}

/** Sizes of small-data mode: seconds per protocol on two cores (configs/ci.yaml's sizes). */
export const SMALL = {
  articles: 10_000, queries: 10, maxPool: 4000, repeats: 2, fieldQueries: 4, fieldPool: 1100, validation: 10,
  // The largest fields of the small corpus: the others have too few 2019 articles citing ≥ 5 store articles
  // for MDCR's queries. Sociology's field-cited set is below the pool size: one repeat, like Art/His/Phi in the paper.
  fields: ['Medicine', 'Physics', 'Biology', 'Chemistry', 'Mathematics', 'Computer Science', 'Psychology', 'Sociology'] as FieldName[],
};

export const isSmallMode = () => process.env.CITEBENCH_SMALL === '1' || process.env.CITEBENCH_SMALL === 'true';

/**
 * A config shrunk for small-data mode: a 10,000-article synthetic corpus (a given store stays), 10 queries, pools
 * with the config's ratios up to 4,000 articles, at most 2 repeats, 4 queries per field over 1,100-article pools
 * in the config's fields among the 8 largest.
 * `scale` follows the pools, so a pool still maps to the paper's size it stands for.
 */
export function smallConfig(cfg: ExperimentConfig): ExperimentConfig {
  const out: ExperimentConfig = structuredClone(cfg);
  if (out.corpus.synthetic) out.corpus.synthetic.articles = Math.min(out.corpus.synthetic.articles, SMALL.articles);
  out.validation = { queries: Math.min(out.validation.queries, SMALL.validation) };
  const d = out.protocols.dataset;
  if (d) {
    const f = Math.min(1, SMALL.maxPool / Math.max(...d.pools));
    d.pools = d.pools.map((p) => Math.max(1, Math.round(p * f)));
    d.queries = Math.min(d.queries, SMALL.queries);
    d.repeats = Math.min(d.repeats, SMALL.repeats);
    out.scale = cfg.scale * f;
  }
  const fl = out.protocols.field;
  if (fl) {
    const fields = fl.fields.filter((f) => SMALL.fields.includes(f));
    Object.assign(fl, { queries: Math.min(fl.queries, SMALL.fieldQueries), pool: Math.min(fl.pool, SMALL.fieldPool), repeats: Math.min(fl.repeats, SMALL.repeats), fields: fields.length ? fields : fl.fields });
  }
  return out;
}

/** Runs `fn` with the repository root as the current directory: a config's relative paths mean what they mean on the command line. */
async function inRepo<T>(fn: () => Promise<T>): Promise<T> {
  const cwd = process.cwd();
  process.chdir(REPO_ROOT);
  try {
    return await fn();
  } finally {
    process.chdir(cwd);
  }
}

/** The config a notebook asked for, with its work and results folders (absolute). */
export function notebookConfig(opts: NotebookOptions = {}): { cfg: ExperimentConfig; variant: string; small: boolean } {
  const small = opts.small ?? isSmallMode();
  const file = resolve(REPO_ROOT, opts.config ?? 'configs/default.yaml');
  let cfg = loadConfig(file);
  if (small) cfg = smallConfig(cfg);
  const have = Object.keys(cfg.protocols) as Protocol[];
  const want = new Set(opts.protocols ?? have);
  if (want.has('mdcr')) want.add('field');
  // Tuning (BM25's k1/b, Profiler's β) draws its validation split from the dataset level's settings.
  if (opts.tune || anyTuned(cfg.models)) want.add('dataset');
  const missing = [...want].filter((p) => !cfg.protocols[p]);
  if (missing.length) throw new CitebenchError(`${file}: has no ${missing.join(', ')} protocol (it has ${have.join(', ') || 'none'})`);
  for (const p of have) if (!want.has(p)) delete cfg.protocols[p];
  if (opts.tune) cfg.models.push(...tunedVariants(cfg.models));
  const abs = (p: string) => (isAbsolute(p) ? p : join(REPO_ROOT, p));
  const envWork = process.env.CITEBENCH_WORK;
  const work = envWork ? abs(envWork) : small ? join(REPO_ROOT, 'data/notebooks-small') : abs(cfg.work);
  const variant = [cfg.name, ...(opts.protocols ? [...want].sort() : []), ...(opts.tune ? ['tuned'] : [])].join('-');
  const whole = !opts.protocols || have.every((p) => want.has(p));
  // Small-data mode mirrors the config's folders under its own root: configs that share a work folder (beyond.yaml
  // uses default.yaml's corpus and index) share it there too; each config's whole run has its own results.
  cfg.work = small ? join(work, basename(cfg.work)) : work;
  const own = !small && !envWork ? abs(cfg.results) : cfg.name === basename(cfg.work) ? join(cfg.work, 'results') : join(work, cfg.name, 'results');
  cfg.results = whole && !opts.tune ? own : join(cfg.work, 'notebooks', variant);
  return { cfg, variant, small };
}

/** Does a results index hold every protocol (and tuning) that a config asks for? */
function covers(r: ResultsIndex, cfg: ExperimentConfig): boolean {
  const has = (p: string) => r.cells.some((c) => c.protocol === p);
  return (!cfg.protocols.dataset || has('dataset')) && (!cfg.protocols.field || has('field')) && (!cfg.protocols.mdcr || !!r.mdcr)
    && cfg.models.every((m) => !entryOf(m).tuning?.(m) || r.tuning.some((t) => t.model === m.name));
}

/**
 * The results a notebook shows, as frames. Interactive: the config's own results folder (for configs/default.yaml,
 * `npm run reproduce`'s data/default/results) when it exists and covers the request — reused as it is, never
 * recomputed; otherwise the config (restricted to `protocols`, plus the tuned variants with `tune`: `bm25-tuned`) runs into
 * <work>/notebooks/<variant>, every stage and cell cached. Small-data mode always runs (cached) in its own folders.
 */
export async function notebookResults(opts: NotebookOptions = {}): Promise<ResultsFrames> {
  const { cfg, small } = notebookConfig(opts);
  const store = cfg.corpus.store ? resolve(REPO_ROOT, cfg.corpus.store) : join(cfg.work, 'store');
  // Verbose small runs take seconds: one line per cell would bury the notebook's output.
  const verbose = (l: string) => { if (!(small && l.startsWith('[cells]'))) console.log(repoRelative(l)); };
  const say = opts.log ?? ((l: string) => console.log(repoRelative(l)));
  const main = small ? undefined : resolve(REPO_ROOT, loadConfig(resolve(REPO_ROOT, opts.config ?? 'configs/default.yaml')).results);
  if (main && existsSync(join(main, 'results.json'))) {
    const r = readResults(main);
    if (covers(r, cfg)) {
      say(`results: ${main} (reused as it is: config ${r.name}, hash ${r.configHash}, scale ${r.scale}; delete it or run the config again to refresh)`);
      return loadResults(main, { store });
    }
  }
  // Not verbose: one line per stage in the notebook, every line in run.log.
  const progress = opts.log || opts.verbose ? undefined : new NotebookLog({ file: join(cfg.results, 'run.log'), show: repoRelative });
  const log = opts.log ?? progress?.log ?? verbose;
  const where = `results: ${cfg.results}${small ? ' (small-data mode: CITEBENCH_SMALL=1)' : ''}`;
  if (progress) progress.say(where);
  else log(where);
  try {
    const out = await inRepo(() => runExperiment(cfg, { log }));
    out.store.close();
    return loadResults(out.resultsDir, { store });
  } finally {
    progress?.close();
  }
}

/**
 * The corpus store of a config (default: `npm run reproduce`'s synthetic corpus; small-data mode: 10,000 articles),
 * synthesized, prefiltered and built if absent — the corpus stage of `citebench run`; or, with `store`, a store
 * built from real S2ORC shards by `citebench corpus build` (a path from the repository root). Close it when done.
 */
export async function notebookCorpus(opts: Pick<NotebookOptions, 'config' | 'small' | 'log' | 'verbose'> & { store?: string } = {}): Promise<{ store: CorpusStore; dir: string; synthetic: boolean }> {
  const say = opts.log ?? ((l: string) => console.log(repoRelative(l)));
  if (opts.store) {
    const dir = resolve(REPO_ROOT, opts.store);
    say(`corpus store: ${dir} (given)`);
    return { store: CorpusStore.open(dir), dir, synthetic: false };
  }
  const { cfg } = notebookConfig({ ...opts, protocols: [] });
  // Not verbose: one progress line, every line in <work>/corpus.log.
  const progress = opts.log || opts.verbose ? undefined : new NotebookLog({ file: join(cfg.work, 'corpus.log'), show: repoRelative });
  const { store } = await inRepo(async () => {
    try {
      return await prepareCorpus(cfg, progress ? progress.log : say);
    } finally {
      progress?.close();
    }
  });
  const dir = cfg.corpus.store ? resolve(REPO_ROOT, cfg.corpus.store) : join(cfg.work, 'store');
  return { store, dir, synthetic: !cfg.corpus.store };
}
