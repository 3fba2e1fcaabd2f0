/**
 * trec_eval 9.0.8's own test outputs (../shared/data/trec_eval): for every measure citebench implements, our
 * output equals trec_eval's line for line (the lines of measures we do not implement are left out of both).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { trecEvalText } from '../../src/eval/trec-eval.ts';
import type { EvalOptions } from '../../src/eval/types.ts';
import { cliArgv } from '../helpers/cli.ts';

const DATA = fileURLToPath(new URL('../../../shared/data/trec_eval/', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const skip = existsSync(DATA) ? false : `trec_eval fixtures not found at ${DATA} (../shared absent)`;

/** Measures trec_eval prints that citebench does not implement (their golden lines are not compared). */
const NOT_IMPLEMENTED: string[] = []; // every measure of these outputs is implemented
const notImplemented = (name: string) => NOT_IMPLEMENTED.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : name === p));

const cases: { golden: string; qrels: string; run: string; measures: string[]; opts: EvalOptions & { perQuery?: boolean } }[] = [
  { golden: 'out.test', qrels: 'qrels.test', run: 'results.test', measures: [], opts: {} },
  { golden: 'out.test.a', qrels: 'qrels.test', run: 'results.test', measures: ['all_trec'], opts: {} },
  { golden: 'out.test.aq', qrels: 'qrels.test', run: 'results.test', measures: ['all_trec'], opts: { perQuery: true } },
  { golden: 'out.test.aqc', qrels: 'qrels.test', run: 'results.trunc', measures: ['all_trec'], opts: { perQuery: true, missing: 'zero' } },
  {
    golden: 'out.test.aqcM',
    qrels: 'qrels.test',
    run: 'results.trunc',
    measures: ['all_trec'],
    opts: { perQuery: true, missing: 'zero', maxDocsPerQuery: 100 },
  },
  // trec_eval -m all_trec -mrelstring.20 -q -l2
  { golden: 'out.test.aql', qrels: 'qrels.rel_level', run: 'results.test', measures: ['all_trec', 'relstring.20'], opts: { perQuery: true, relevanceLevel: 2 } },
];

function goldenLines(file: string): string[] {
  return readFileSync(DATA + file, 'latin1')
    .split('\n')
    .filter((l) => l !== '' && !notImplemented(l.split('\t')[0].trimEnd()));
}

for (const c of cases) {
  test(`trec_eval golden ${c.golden}: identical lines for every implemented measure`, { skip }, () => {
    const ours = trecEvalText(DATA + c.qrels, DATA + c.run, c.measures, c.opts).split('\n').filter((l) => l !== '');
    const want = goldenLines(c.golden);
    assert.ok(want.length >= 17, `golden ${c.golden} has lines to compare`);
    assert.deepEqual(ours, want);
  });
}

test('goldens cover the measures the issue names', { skip }, () => {
  const names = new Set(goldenLines('out.test.aq').map((l) => l.split('\t')[0].trimEnd()));
  for (const m of ['num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'map', 'Rprec', 'recip_rank', 'P_5', 'P_1000', 'recall_5', 'recall_1000', 'ndcg', 'ndcg_cut_10', 'runid',
    'gm_map', 'bpref', 'gm_bpref', 'iprec_at_recall_0.10', '11pt_avg', 'Rprec_mult_0.20', 'utility', 'map_cut_10', 'relative_P_5', 'success_1',
    'set_P', 'set_relative_P', 'set_recall', 'set_map', 'set_F', 'num_nonrel_judged_ret', 'relstring', 'infAP', 'binG', 'G', 'ndcg_rel', 'Rndcg']) {
    assert.ok(names.has(m), `${m} compared`);
  }
});

test('citebench eval CLI prints trec_eval output byte for byte (-m all_trec -q -c -M100)', { skip }, () => {
  const r = spawnSync(
    process.execPath,
    cliArgv(['eval', DATA + 'qrels.test', DATA + 'results.trunc', '-m', 'all_trec', '-q', '-c', '-M100']),
    { cwd: ROOT, encoding: 'latin1' },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.split('\n').filter(Boolean), goldenLines('out.test.aqcM'));
  assert.ok(r.stdout.endsWith('\n'));
});

test('citebench eval CLI: -l2 and trec_eval-style attached values (-M100, -mmap)', { skip }, () => {
  const r = spawnSync(process.execPath, cliArgv(['eval', '-l2', '-mmap', '-m', 'ndcg', '-q', DATA + 'qrels.rel_level', DATA + 'results.test']), {
    cwd: ROOT,
    encoding: 'latin1',
  });
  assert.equal(r.status, 0, r.stderr);
  const want = goldenLines('out.test.aql').filter((l) => /^(map|ndcg) /.test(l));
  assert.deepEqual(r.stdout.split('\n').filter(Boolean), want);
});
