// One built synthetic corpus per test run, shared by the test files whose configs name the same one: the corpus
// stage's outputs (the store and, when asked, the BM25 index, each with the stamp `citebench run` checks) are
// built once into a folder keyed by the corpus stage's own stamp (generator version and settings, prefilter, store
// and index formats) and copied into a test's work folder, where the run finds them up to date — as it would
// after an earlier run of its own. The folder lives for one `npm test` (scripts/run-tests.mjs sets
// CITEBENCH_TEST_FIXTURES and removes it afterwards), so nothing outlives a change to the code that builds them;
// a file run on its own builds into a folder of its process. Built under a temporary name and renamed into
// place: two test files asking at once both build, one rename wins, and neither sees a half-built folder.
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExperimentConfig } from '../../src/experiments/config.ts';
import { corpusStamp, prepareCorpus } from '../../src/experiments/corpus-stage.ts';
import { prepareBm25Index } from '../../src/experiments/kinds/bm25.ts';
import { INDEX_VERSION } from '../../src/retrieval/bm25/index-format.ts';

let own: string | undefined;
function fixturesDir(): string {
  const shared = process.env.CITEBENCH_TEST_FIXTURES;
  if (shared) return shared;
  if (!own) {
    own = mkdtempSync(join(tmpdir(), 'cb-test-fixtures-'));
    const dir = own;
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return own;
}

/** Builds `name` in the fixtures folder once: `build` fills a temporary folder, renamed into place when done. */
async function once(name: string, build: (tmp: string) => Promise<void>): Promise<string> {
  const built = join(fixturesDir(), name);
  if (existsSync(built)) return built;
  const tmp = `${built}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  await build(tmp);
  try {
    renameSync(tmp, built);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(built)) throw e; // else another test file's build won the rename: use that one
  }
  return built;
}

/**
 * Fills `work` (the config's work folder, or the folder a test passes to `citebench run --work`) with the built
 * synthetic corpus `cfg` names — the store and store.config.json — and, when `bm25` is set, its BM25 index and
 * bm25-index.config.json, so that the run starts after its corpus stage. Only for synthetic corpora: a given
 * store is the test's own input already.
 */
export async function seedCorpusStage(cfg: ExperimentConfig, work: string, { bm25 = false } = {}): Promise<void> {
  if (!cfg.corpus.synthetic) throw new Error('seedCorpusStage: only synthetic corpora are built and shared');
  const key = corpusStamp(cfg).key.slice(0, 24);
  const corpus = await once(key, async (tmp) => {
    const { store } = await prepareCorpus({ ...cfg, work: tmp }, () => {});
    store.close();
    rmSync(join(tmp, 'shards'), { recursive: true, force: true }); // the synthesizer's output the store was built from
  });
  mkdirSync(work, { recursive: true });
  for (const f of ['store', 'store.config.json']) cpSync(join(corpus, f), join(work, f), { recursive: true });
  if (!bm25) return;
  const index = await once(`${key}-bm25-v${INDEX_VERSION}`, async (tmp) => {
    // The test's own copy of the store: the index records the store it was built from.
    const { store, info } = await prepareCorpus({ ...cfg, work }, () => {});
    try {
      await prepareBm25Index({ ...cfg, work: tmp }, store, info, () => {});
    } finally {
      store.close();
    }
  });
  for (const f of ['bm25-index', 'bm25-index.config.json']) cpSync(join(index, f), join(work, f), { recursive: true });
}
