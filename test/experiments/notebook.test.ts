// What a notebook's first cell gets (src/experiments/notebook.ts): small-data mode's config, the protocol and
// tuning variants and their folders, and the rule that an existing results folder of the config is reused as it
// is (never recomputed or overwritten) when it holds what is asked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { DEFAULT_TUNE_GRID, loadConfig } from '../../src/experiments/config.ts';
import { REPO_ROOT, SMALL, notebookConfig, notebookResults, smallConfig } from '../../src/experiments/notebook.ts';
import { paperPool } from '../../src/report/report-tables.ts';
import { CitebenchError } from '../../src/util/errors.ts';
import { REPO } from '../helpers/shared.ts';

let tmp = '';
const saved = { small: process.env.CITEBENCH_SMALL, work: process.env.CITEBENCH_WORK };
before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'cb-notebook-'));
  delete process.env.CITEBENCH_SMALL;
  delete process.env.CITEBENCH_WORK;
});
after(() => {
  if (saved.small !== undefined) process.env.CITEBENCH_SMALL = saved.small;
  if (saved.work !== undefined) process.env.CITEBENCH_WORK = saved.work;
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test('REPO_ROOT is the repository root, whatever the current directory', () => {
  assert.equal(REPO_ROOT, REPO);
});

test('small-data mode shrinks the default config, keeps its pool ratios and the paper pools they stand for', () => {
  const full = loadConfig(join(REPO, 'configs/default.yaml'));
  const s = smallConfig(full);
  assert.equal(s.corpus.synthetic!.articles, SMALL.articles);
  assert.equal(s.protocols.dataset!.queries, SMALL.queries);
  assert.deepEqual(s.protocols.dataset!.pools, [400, 1000, 2000, 4000]);
  assert.deepEqual(s.protocols.dataset!.pools.map((p) => paperPool(p, s.scale)), ['200k', '500k', '1M', '2M']);
  assert.equal(s.protocols.dataset!.repeats, 2);
  assert.deepEqual([...s.protocols.field!.fields].sort(), [...SMALL.fields].sort());
  assert.equal(s.protocols.field!.queries, SMALL.fieldQueries);
  assert.equal(s.protocols.field!.pool, SMALL.fieldPool);
  assert.ok(s.protocols.mdcr);
  assert.equal(full.corpus.synthetic!.articles, 420_000, 'the config itself is not changed');
});

test('notebookConfig: protocols (MDCR brings the field level), tuning, folders, and a clear error for a missing protocol', () => {
  const whole = notebookConfig({ small: false });
  assert.deepEqual(Object.keys(whole.cfg.protocols).sort(), ['dataset', 'field', 'mdcr']);
  assert.equal(whole.cfg.results, join(REPO, 'data/default/results'), "the whole config: reproduce's own results folder");
  const mdcr = notebookConfig({ small: false, protocols: ['mdcr'] });
  assert.deepEqual(Object.keys(mdcr.cfg.protocols).sort(), ['field', 'mdcr']);
  assert.equal(mdcr.cfg.work, join(REPO, 'data/default'), 'the corpus and index of reproduce are shared');
  assert.equal(mdcr.cfg.results, join(REPO, 'data/default/notebooks/default-field-mdcr'));
  const tuned = notebookConfig({ small: false, protocols: ['dataset'], tune: true });
  assert.deepEqual(Object.keys(tuned.cfg.protocols), ['dataset']);
  const m = tuned.cfg.models.find((x) => x.name === 'bm25-tuned');
  assert.ok(m && m.kind === 'bm25');
  assert.deepEqual(m.tune, DEFAULT_TUNE_GRID);
  assert.equal(tuned.cfg.results, join(REPO, 'data/default/notebooks/default-dataset-tuned'));
  const small = notebookConfig({ small: true, protocols: ['dataset'] });
  assert.equal(small.cfg.work, join(REPO, 'data/notebooks-small/default'));
  assert.equal(small.cfg.corpus.synthetic!.articles, SMALL.articles);
  process.env.CITEBENCH_WORK = join(tmp, 'w');
  try {
    assert.equal(notebookConfig({ small: true }).cfg.results, join(tmp, 'w/default/results'));
  } finally {
    delete process.env.CITEBENCH_WORK;
  }
  assert.throws(() => notebookConfig({ config: 'configs/beyond.yaml', protocols: ['field'] }), (e: Error) => e instanceof CitebenchError && /beyond\.yaml: has no field protocol \(it has dataset\)/.test(e.message));
});

test('notebookResults: runs a config once, then reuses its results folder as it is when it covers the request', async () => {
  const text = readFileSync(join(REPO, 'configs/ci.yaml'), 'utf8').replace(/^work: .*$/m, `work: ${join(tmp, 'ci')}`).replace(/^results: .*$/m, `results: ${join(tmp, 'ci/results')}`);
  const config = join(tmp, 'ci.yaml');
  writeFileSync(config, text);
  const lines: string[] = [];
  const log = (l: string) => lines.push(l);
  const first = await notebookResults({ config, small: false, log });
  assert.equal(first.dir, join(tmp, 'ci/results'));
  assert.ok(lines.some((l) => l.startsWith('[corpus]')), 'the first call ran the config');
  const stamp = statSync(join(first.dir, 'results.json')).mtimeMs;

  lines.length = 0;
  const dataset = await notebookResults({ config, small: false, protocols: ['dataset'], tune: true, log });
  assert.equal(dataset.dir, first.dir, 'dataset level + tuning: the whole run holds both (ci.yaml tunes bm25-tuned)');
  assert.equal(lines.length, 1);
  assert.match(lines[0], /reused as it is: config ci, hash \w+, scale 1/);
  assert.equal(statSync(join(first.dir, 'results.json')).mtimeMs, stamp, 'not rewritten');
  assert.ok(!existsSync(join(tmp, 'ci/notebooks')), 'no second results folder');
  assert.equal(dataset.cells.numRows(), first.cells.numRows(), 'the reused folder as it is (every protocol)');

  // Without the main folder, a protocol subset runs into its own folder beside it.
  rmSync(join(tmp, 'ci/results'), { recursive: true });
  const only = await notebookResults({ config, small: false, protocols: ['dataset'], log });
  assert.equal(only.dir, join(tmp, 'ci/notebooks/ci-dataset'));
  assert.deepEqual([...new Set(only.cells.array('protocol'))], ['dataset']);

  // A main folder without the field level does not cover a field request: that runs, and the main folder stays.
  const config2 = join(tmp, 'ci2.yaml');
  writeFileSync(config2, text.replace(/^results: .*$/m, `results: ${only.dir}`));
  const before = statSync(join(only.dir, 'results.json')).mtimeMs;
  lines.length = 0;
  const field = await notebookResults({ config: config2, small: false, protocols: ['field'], log });
  assert.equal(field.dir, join(tmp, 'ci/notebooks/ci-dataset-field'), 'ci.yaml tunes a model: the dataset level comes along for its validation split');
  assert.ok(!lines.some((l) => /reused/.test(l)));
  assert.deepEqual([...new Set(field.cells.array('protocol'))].sort(), ['dataset', 'field']);
  assert.equal(statSync(join(only.dir, 'results.json')).mtimeMs, before, 'the main folder is not touched');
});

test('notebookResults without a log: one line per stage in the notebook, the whole log in the results folder\'s run.log; verbose prints it all', async () => {
  const text = readFileSync(join(REPO, 'configs/ci.yaml'), 'utf8').replace(/^work: .*$/m, `work: ${join(tmp, 'quiet')}`).replace(/^results: .*$/m, `results: ${join(tmp, 'quiet/results')}`);
  const config = join(tmp, 'ci-quiet.yaml');
  // A work folder of its own: every stage computes (a cached cell logs no lines of its own).
  writeFileSync(config, text);
  const printed = async (fn: () => Promise<unknown>) => {
    let out = '';
    const write = process.stdout.write;
    // Text only: the test runner reports to its parent through stdout in binary frames, which pass on.
    process.stdout.write = ((s: string | Uint8Array, ...rest: never[]) => (typeof s === 'string' ? ((out += s), true) : write.call(process.stdout, s, ...rest))) as typeof process.stdout.write;
    try {
      await fn();
    } finally {
      process.stdout.write = write;
    }
    return out.split('\n').filter(Boolean).map((l) => l.split('\r').pop()!.trimEnd());
  };
  let res: Awaited<ReturnType<typeof notebookResults>> | undefined;
  const quiet = await printed(async () => (res = await notebookResults({ config, small: false, protocols: ['dataset'] })));
  const log = readFileSync(join(res!.dir, 'run.log'), 'utf8').split('\n').filter(Boolean);
  assert.ok(log.filter((l) => l.startsWith('[cells]')).length >= 8, 'run.log holds every cell\'s lines');
  // A line per job that reported progress (synthesis, the store, the index, each tuned grid, the cells), each
  // left as its summary, between the results folder and the log's path.
  const jobs = quiet.slice(1, -1);
  assert.ok(jobs.length >= 3 && jobs.every((l) => /^\[[^\]]+\] [\d.]+[kM]? [a-z ]+ in [\d.ms]+ — /.test(l)), `a summary line per job:\n${quiet.join('\n')}`);
  assert.equal(new Set(jobs.map((l) => l.split(']')[0])).size, jobs.length, 'one line per job');
  assert.ok(jobs.some((l) => /^\[tune bm25-tuned\] 4 grid points in /.test(l)), quiet.join('\n'));
  assert.ok(jobs.some((l) => /^\[cells\] \d+ cells in /.test(l)), quiet.join('\n'));
  assert.match(quiet[0], /^results: /);
  assert.match(quiet.at(-1)!, /^full log: .*quiet\/notebooks\/ci-dataset\/run\.log$/);
  // verbose: every line the run logs, printed as it comes (the same run again, cached: the same lines each time).
  const verbose = await printed(() => notebookResults({ config, small: false, protocols: ['dataset'], verbose: true }));
  const lines: string[] = [];
  await notebookResults({ config, small: false, protocols: ['dataset'], log: (l) => lines.push(l) });
  assert.ok(lines.length > 3);
  assert.deepEqual(verbose, lines.map((l) => l.replaceAll(REPO, '')));
});
