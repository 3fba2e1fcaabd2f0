#!/usr/bin/env node
// Runs test/**/*.test.ts with node's built-in test runner (Node 20 has no --test globbing for .ts), in two tiers:
//   npm test              the unit and exactness suites: measures, BM25 against Lucene, encoders against PyTorch,
//                         readers, sampling, the report's parts (2½–5½ minutes on 2 shared cores: docs/contributing.md, Test time)
//   npm run test:e2e      the end-to-end suites (E2E below): whole runs and their resumption after kills, the
//                         command line on built stores, clusters (SLURM, shards, locks), notebooks and reports in a browser,
//                         and the checks that drive other tools over the whole package (tsc over the generated
//                         types and the notebooks, require() through tsx, pdflatex)
//                         (about 650 s of CPU: an estimated 6–9 minutes on 2 idle cores; docs/contributing.md, Test time)
//   npm run test:all      both; CI (.ci/run) runs both, so no suite is left out of the green check
// Extra arguments filter by path substring over both tiers: `npm test -- corpus` runs every corpus suite.
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

/** The end-to-end suites: processes, kills, clusters, browsers, whole runs (each minutes, not seconds). */
const E2E = [
  'test/beyond/inductive.test.ts',
  'test/bm25/cli.test.ts',
  'test/bm25/index-kill.test.ts',
  'test/cli/progress.test.ts',
  'test/cli/rerank-cli.test.ts',
  'test/cluster/',
  'test/corpus/bad-input.test.ts',
  'test/corpus/beir.test.ts',
  'test/corpus/build-resume.test.ts',
  'test/corpus/build-threads.test.ts',
  'test/corpus/openalex-bad.test.ts',
  'test/corpus/openalex.test.ts',
  'test/corpus/s2-datasets.test.ts',
  'test/corpus/store-compact.test.ts',
  'test/corpus/synth-openalex.test.ts',
  'test/corpus/synth-store.test.ts',
  'test/dense/cli.test.ts',
  'test/dense/paper-checkpoints.test.ts',
  'test/dense/remote.test.ts',
  'test/eval/dist-entry.test.ts',
  'test/experiments/beir.test.ts',
  'test/experiments/cells.test.ts',
  'test/experiments/embeddings-run.test.ts',
  'test/experiments/llm-run.test.ts',
  'test/experiments/notebook.test.ts',
  'test/experiments/pipelines-run.test.ts',
  'test/experiments/pool-index-run.test.ts',
  'test/experiments/roles-run.test.ts',
  'test/experiments/run.test.ts',
  'test/experiments/topics-run.test.ts',
  'test/mdcr/build.test.ts',
  'test/mdcr/official.test.ts',
  'test/mdcr/score-candidates.test.ts',
  'test/mdcr/score-config.test.ts',
  'test/mdcr/score.test.ts',
  'test/notebooks/import.test.ts',
  'test/notebooks/notebooks.test.ts',
  'test/notebooks/types.test.ts',
  'test/report/beyond-report.test.ts',
  'test/report/html-report.test.ts',
  'test/report/latex-figures.test.ts',
  'test/report/notebook-content.test.ts',
  'test/report/wide-tables.test.ts',
  'test/util/buffered-file.test.ts',
];

const root = new URL('..', import.meta.url).pathname;

/** bin/citebench.js's check: dist/ exists and no source it was built from is newer than it. */
function distIsFresh() {
  try {
    const stamp = join(root, 'dist/inputs.json');
    const built = statSync(stamp).mtimeMs;
    return JSON.parse(readFileSync(stamp, 'utf8')).inputs.every((p) => statSync(join(root, p)).mtimeMs <= built);
  } catch {
    return false;
  }
}
const args = process.argv.slice(2);
const tier = args.includes('--all') ? 'all' : args.includes('--e2e') ? 'e2e' : 'unit';
const filters = args.filter((a) => !a.startsWith('--'));
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.ts')) files.push(relative(root, p));
  }
})(join(root, 'test'));
const missing = E2E.filter((e) => !files.some((f) => f.startsWith(e)));
if (missing.length) {
  console.error(`scripts/run-tests.mjs: E2E names suites that do not exist: ${missing.join(', ')}`);
  process.exit(1);
}
const isE2e = (f) => E2E.some((e) => f.startsWith(e));
const selected = filters.length
  ? files.filter((f) => filters.some((s) => f.includes(s)))
  : files.filter((f) => tier === 'all' || (tier === 'e2e') === isE2e(f));
if (selected.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}
// The tests start the commands they only need to run from dist/ while it is as new as every source
// (test/helpers/cli.ts): a stale dist/ is rebuilt first (about a second; a failed build leaves the sources).
if (!distIsFresh()) {
  const b = spawnSync(process.execPath, [join(root, 'scripts/build-cli.mjs')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (b.status !== 0) console.error('scripts/run-tests.mjs: dist/ was not rebuilt; the commands run from the sources');
}
const reporter = process.stdout.isTTY ? 'spec' : 'tap';
// Built fixtures the test files share for this run (test/helpers/corpus-fixture.ts), removed after it.
const fixtures = mkdtempSync(join(tmpdir(), 'cb-test-fixtures-'));
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-reporter=${reporter}`, '--test-concurrency=2', ...selected], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, CITEBENCH_TEST_FIXTURES: fixtures },
});
rmSync(fixtures, { recursive: true, force: true });
process.exit(r.status ?? 1);
