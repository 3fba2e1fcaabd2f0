// The regression comparator (src/report/regressions.ts) on a hand-made results index: every number becomes a
// row value, an equal run gives no difference, and a value changed in its last bit, a missing cell, an extra
// cell, a missing or extra measure and another config are each one readable line with both values in full.
// The file format reads back to the same rows; a malformed file is one line naming the file, line and key.
// (That configs/ci.yaml's run equals regressions/ci.json is checked in test/experiments/run.test.ts, on its run.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { SIGNIFICANCE_FAMILY, type CellSummary, type ResultsIndex } from '../../src/report/results.ts';
import {
  compareRegressions, formatRegressionDiff, formatRegressionFile, readRegressionFile, regressionRows, type RegressionFile,
} from '../../src/report/regressions.ts';
import { InputError } from '../../src/util/errors.ts';

const cell = (model: string, group: string, means: Record<string, number>): CellSummary => ({
  key: 'k', model, protocol: 'dataset', split: 'test', field: null, poolSize: 800, poolMembers: 800, repeat: 1, queries: 12,
  emptyLists: 0, means, files: { run: `runs/${model}/${group}.trec`, qrels: `qrels/${group}.qrels` }, file: `cells/${model}/${group}.json`,
});

function results(): ResultsIndex {
  return {
    format: 'citebench-results', version: 1, name: 't', configHash: 'abcd1234',
    corpus: { kind: 'synthetic', articles: 100, citations: 900 }, seed: 1, scale: 1, queryYear: 2019, k: 10,
    measures: ['MAP', 'nDCG'], models: [], skipped: [], excluded: { files: [] }, fieldRepeats: {},
    tuning: [{ model: 'bm25-tuned', measure: 'map', queries: 5, poolSize: 800, params: { k1: [0.9, 1.2], b: [0.4, 0.75] }, grid: [{ params: { k1: 0.9, b: 0.4 }, score: 0.25 }, { params: { k1: 1.2, b: 0.75 }, score: 0.3 }], chosen: { k1: 1.2, b: 0.75 } }],
    cells: [cell('bm25', 'dataset/800-r1', { MAP: 0.6179439784753351, nDCG: 0.8003087827094287 }), cell('bm25', 'dataset/800-r2', { MAP: 0.5, nDCG: 0.7 })],
    mdcr: {
      files: {}, queriesPerSplit: {}, chosenModels: [], jaccard: { models: [], matrix: [], average: [] }, notes: [],
      results: {
        bm25: {
          all: { avg: { map: 44.1712, ndcg: 71.2718, recall_5: 38.75 }, fields: [{ field: 'Biology', queries: 4, values: { map: 58.7672, ndcg: 80.7521, recall_5: 50 } }] },
          types: { random: { avg: { map: 90, ndcg: 95, recall_5: 80 }, fields: [] } },
        },
      },
    },
    significance: {
      baselines: ['bm25'], trials: 100, seed: 1, family: SIGNIFICANCE_FAMILY, alpha: 0.05,
      rows: [
        { baseline: 'bm25', protocol: 'dataset', setting: 'transductive', measure: 'MAP', field: null, poolSize: 800, model: 'nav', queries: 12, meanDiff: 0.01, pT: 0.2, pRandomization: 0.21, pHolm: 0.4, pRandomizationHolm: 0.42 },
        { baseline: 'bm25', protocol: 'field', setting: 'inductive', measure: 'MAP', field: 'Biology', poolSize: 1100, model: 'nav', queries: 4, meanDiff: 0.02, pT: 0.3, pRandomization: 0.31, pHolm: 0.6, pRandomizationHolm: 0.62 },
      ],
    },
  };
}

const file = (r: ResultsIndex): RegressionFile => ({ format: 'citebench-regressions', version: 1, about: ['synthetic'], config: r.name, configHash: r.configHash, rows: regressionRows(r) });

test('regressionRows: every number of results.json, one row per cell, tuning, MDCR field and paired test', () => {
  const rows = regressionRows(results());
  assert.deepEqual(Object.keys(rows), [
    'corpus', 'tuning/bm25-tuned/chosen', 'tuning/bm25-tuned/grid', 'cells/bm25/dataset/800-r1', 'cells/bm25/dataset/800-r2',
    'mdcr/bm25/all/AVG', 'mdcr/bm25/all/Biology', 'mdcr/bm25/random/AVG', 'significance/transductive/dataset/800/nav/MAP',
    'significance/inductive/field/Bio/nav/MAP',
  ]);
  assert.deepEqual(rows['cells/bm25/dataset/800-r1'], { queries: 12, poolMembers: 800, MAP: 0.6179439784753351, nDCG: 0.8003087827094287 });
  assert.deepEqual(rows['tuning/bm25-tuned/grid'], { 'map k1=0.9 b=0.4': 0.25, 'map k1=1.2 b=0.75': 0.3 });
  assert.deepEqual(rows['mdcr/bm25/all/AVG'], { map: 44.1712, ndcg: 71.2718, recall_5: 38.75 });
  assert.equal(rows['significance/transductive/dataset/800/nav/MAP'].pHolm, 0.4);
  assert.equal(rows['significance/inductive/field/Bio/nav/MAP'].pRandomizationHolm, 0.62);
});

test('compareRegressions: equal runs agree; a last-bit change, a missing and an extra cell, measures and the config are flagged', () => {
  const expected = file(results());
  assert.deepEqual(compareRegressions(expected, file(results())), []);

  const r = results();
  r.cells[0].means.MAP = 0.6179439784753352; // one ulp away: equality, not a tolerance
  r.cells.splice(1, 1); // a cell gone
  r.cells.push(cell('dense', 'dataset/800-r1', { MAP: 0.125, nDCG: 0.5 })); // a cell that was not there
  delete r.cells[0].means.nDCG; // a measure gone
  (r.mdcr!.results.bm25.all.avg as Record<string, number>).recall_10 = 1; // a measure added
  r.configHash = 'ffff0000';
  const got = file(r);
  const diffs = compareRegressions(expected, got);
  assert.deepEqual(diffs, [
    { kind: 'config', row: 'configHash', expected: 'abcd1234', got: 'ffff0000' },
    { kind: 'changed', row: 'cells/bm25/dataset/800-r1', name: 'MAP', expected: 0.6179439784753351, got: 0.6179439784753352 },
    { kind: 'missing', row: 'cells/bm25/dataset/800-r1', name: 'nDCG', expected: 0.8003087827094287 },
    { kind: 'missing', row: 'cells/bm25/dataset/800-r2' },
    { kind: 'extra', row: 'mdcr/bm25/all/AVG', name: 'recall_10', got: 1 },
    { kind: 'extra', row: 'cells/dense/dataset/800-r1' },
  ]);
  assert.equal(
    formatRegressionDiff(diffs, expected.rows, got.rows),
    [
      'config changed  configHash: expected abcd1234, got ffff0000 (values recorded for another config)',
      'changed  cells/bm25/dataset/800-r1  MAP: expected 0.6179439784753351, got 0.6179439784753352 (+1.11e-16)',
      'missing  cells/bm25/dataset/800-r1  nDCG: expected 0.8003087827094287, not in the results',
      'missing  cells/bm25/dataset/800-r2: expected queries 12, poolMembers 800, MAP 0.5, nDCG 0.7, not in the results',
      'extra    mdcr/bm25/all/AVG  recall_10: got 1, not in the expected values',
      'extra    cells/dense/dataset/800-r1: got queries 12, poolMembers 800, MAP 0.125, nDCG 0.5, not in the expected values',
    ].join('\n'),
  );
});

test('regression file: one row per line, reads back to the same doubles; a malformed file names file, line and key', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'cb-regr-'));
  try {
    const f = file(results());
    const p = join(tmp, 'x.json');
    writeFileSync(p, formatRegressionFile(f));
    const text = readFileSync(p, 'utf8');
    assert.deepEqual(JSON.parse(text), f);
    assert.deepEqual(readRegressionFile(p), f);
    const line = text.split('\n').findIndex((l) => l.startsWith('    "cells/bm25/dataset/800-r1": {')) + 1;
    assert.ok(line > 0, 'a row is one line');
    assert.deepEqual(compareRegressions(readRegressionFile(p), f), []);

    writeFileSync(p, text.replace('"MAP":0.6179439784753351', '"MAP":"0.6179"'));
    assert.throws(() => readRegressionFile(p), (e: unknown) => e instanceof InputError && e.message === `${p}:${line} [cells/bm25/dataset/800-r1.MAP]: must be a number, got "0.6179"`);
    writeFileSync(p, '{"format": "citebench-results", "version": 1}');
    assert.throws(() => readRegressionFile(p), (e: unknown) => e instanceof InputError && e.message.startsWith(`${p}: not a citebench regressions file`));
    writeFileSync(p, text.replace('"rows": {', '"rows": {<<<<<<< HEAD'));
    assert.throws(() => readRegressionFile(p), (e: unknown) => e instanceof InputError && e.message.startsWith(`${p}:`));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
