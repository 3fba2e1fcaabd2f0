/** Measures and the in-memory API on small hand-computed cases (expected values derived here, by hand). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluate, evaluateRankedLists, parseMeasure, selectMeasures, writeQrels, writeRun, trecEvalText } from '../../src/eval/index.ts';
import { formatFixed4 } from '../../src/eval/trec-format.ts';
import type { QrelsCsr, RunCsr } from '../../src/eval/types.ts';
import { CitebenchError } from '../../src/util/errors.ts';

// Docs by id; docnos sort like their names.
const DOCNOS = ['d1', 'd2', 'd3', 'd4', 'd5', 'd6'];
const docOrder = Uint32Array.from(DOCNOS.map((_, i) => i)); // names already in byte order
const [d1, d2, d3, d4, d5, d6] = [0, 1, 2, 3, 4, 5];

/** Query 0 (A): judged d1:1 d2:0 d3:2 d4:1 d5:-1; run d1 .9, d2 .8, d3 .8 (tie), d6 .5, d5 .4. */
function queryA(): { qrels: QrelsCsr; run: RunCsr } {
  return {
    qrels: { offsets: Uint32Array.of(0, 5), docs: Uint32Array.of(d1, d2, d3, d4, d5), labels: Int32Array.of(1, 0, 2, 1, -1) },
    run: { offsets: Uint32Array.of(0, 5), docs: Uint32Array.of(d1, d2, d3, d6, d5), scores: Float64Array.of(0.9, 0.8, 0.8, 0.5, 0.4) },
  };
}

function values(specs: string[], qrels: QrelsCsr, run: RunCsr, options = {}): Record<string, number> {
  const { measures } = selectMeasures(specs);
  const r = evaluate({ qrels, run, measures, docOrder, options });
  return Object.fromEntries(measures.map((m, i) => [m.name, r.summary[i]]));
}

test('hand-computed measures: ranking d1, d3 (tie with d2 broken by docno descending), d2, d6, d5', () => {
  const { qrels, run } = queryA();
  const v = values(['map', 'ndcg', 'P.2,5', 'recall.1,5', 'recip_rank', 'Rprec', 'num_rel', 'num_rel_ret', 'num_ret', 'num_q', 'F1.5', 'ndcg_cut.2', 'success.1', 'map_cut.1'], qrels, run);
  // Relevant (label ≥ 1): d1 (rank 1), d3 (rank 2), d4 (never retrieved) ⇒ R = 3.
  assert.equal(v.num_rel, 3);
  assert.equal(v.num_rel_ret, 2);
  assert.equal(v.num_ret, 5);
  assert.equal(v.num_q, 1);
  assert.equal(v.map, (1 / 1 + 2 / 2) / 3);
  assert.equal(v.map_cut_1, 1 / 3);
  assert.equal(v.P_2, 1);
  assert.equal(v.P_5, 2 / 5);
  assert.equal(v.recall_1, 1 / 3);
  assert.equal(v.recall_5, 2 / 3);
  assert.equal(v.recip_rank, 1);
  assert.equal(v.Rprec, 2 / 3); // top 3 = d1, d3, d2
  assert.equal(v.success_1, 1);
  assert.ok(Math.abs(v.F1_5 - (2 * 0.4 * (2 / 3)) / (0.4 + 2 / 3)) < 1e-15);
  // Gains = labels: DCG = 1/log2(2) + 2/log2(3); ideal = 2/log2(2) + 1/log2(3) + 1/log2(4) (from all qrels).
  assert.ok(Math.abs(v.ndcg - (1 + 2 / Math.log2(3)) / (2 + 1 / Math.log2(3) + 0.5)) < 1e-15);
  assert.ok(Math.abs(v.ndcg_cut_2 - (1 + 2 / Math.log2(3)) / (2 + 1 / Math.log2(3))) < 1e-15);
});

test('-l 2: only label ≥ 2 is relevant for map/P/recall; ndcg still uses every label as gain', () => {
  const { qrels, run } = queryA();
  const base = values(['ndcg'], qrels, run);
  const v = values(['map', 'num_rel', 'P.1', 'recip_rank', 'ndcg'], qrels, run, { relevanceLevel: 2 });
  assert.equal(v.num_rel, 1);
  assert.equal(v.map, 1 / 2);
  assert.equal(v.P_1, 0);
  assert.equal(v.recip_rank, 1 / 2);
  assert.equal(v.ndcg, base.ndcg);
});

test('-M 2: only the top 2 are evaluated, num_rel still counts every relevant doc', () => {
  const { qrels, run } = queryA();
  const v = values(['num_ret', 'num_rel', 'map', 'P.5'], qrels, run, { maxDocsPerQuery: 2 });
  assert.equal(v.num_ret, 2);
  assert.equal(v.num_rel, 3);
  assert.equal(v.map, 2 / 3);
  assert.equal(v.P_5, 2 / 5);
});

test('float32 ties (trec_eval 9.0.8) vs double scores (trec_eval 10)', () => {
  // 1.0000000001 and 1.0 are the same float32: tied, so docno descending puts d2 before d1.
  const qrels: QrelsCsr = { offsets: Uint32Array.of(0, 1), docs: Uint32Array.of(d1), labels: Int32Array.of(1) };
  const run: RunCsr = { offsets: Uint32Array.of(0, 2), docs: Uint32Array.of(d1, d2), scores: Float64Array.of(1.0000000001, 1.0) };
  assert.equal(Math.fround(1.0000000001), 1);
  assert.equal(values(['recip_rank'], qrels, run).recip_rank, 1 / 2);
  assert.equal(values(['recip_rank'], qrels, run, { trecEval10: true }).recip_rank, 1);
  // -0 and +0 are equal scores in C: a tie, broken by docno.
  const zeros: RunCsr = { offsets: Uint32Array.of(0, 2), docs: Uint32Array.of(d1, d2), scores: Float64Array.of(0, -0) };
  assert.equal(values(['recip_rank'], qrels, zeros).recip_rank, 1 / 2);
});

test('missing-query policy: skip (default) vs zero (-c); run-only queries are never evaluated', () => {
  const a = queryA();
  // Query 1 (B) judged but not in the run; query 2 (C) in the run but not judged.
  const qrels: QrelsCsr = {
    offsets: Uint32Array.of(0, 5, 6, 6),
    docs: Uint32Array.of(...a.qrels.docs, d6),
    labels: Int32Array.of(...a.qrels.labels, 1),
  };
  const run: RunCsr = {
    offsets: Uint32Array.of(0, 5, 5, 6),
    docs: Uint32Array.of(...a.run.docs, d4),
    scores: Float64Array.of(...a.run.scores, 0.3),
  };
  const { measures } = selectMeasures(['map', 'num_q', 'num_rel']);
  const skip = evaluate({ qrels, run, measures, docOrder });
  const zero = evaluate({ qrels, run, measures, docOrder, options: { missing: 'zero' } });
  assert.deepEqual([skip.numEvaluated, skip.numQrelsQueries, skip.numMissingFromRun, skip.numWithoutQrels], [1, 2, 1, 1]);
  const [numQ, numRel, map] = ['num_q', 'num_rel', 'map'].map((n) => measures.findIndex((m) => m.name === n));
  assert.equal(skip.summary[map], 2 / 3);
  assert.equal(zero.summary[map], 2 / 3 / 2);
  assert.equal(skip.summary[numQ], 1);
  assert.equal(zero.summary[numQ], 2);
  assert.equal(skip.summary[numRel], 3);
  assert.equal(zero.summary[numRel], 4); // -c: every label > 0 in the qrels
  assert.ok(Number.isNaN(skip.perQuery[map][1]));
  assert.equal(zero.perQuery[map][1], 0);
  assert.ok(Number.isNaN(zero.perQuery[map][2]));
  assert.deepEqual([...zero.evaluated], [1, 0, 0]);
});

test('a doc retrieved twice for a query is an error, not a silently wrong number', () => {
  const { qrels } = queryA();
  const run: RunCsr = { offsets: Uint32Array.of(0, 2), docs: Uint32Array.of(d1, d1), scores: Float64Array.of(1, 0.5) };
  assert.throws(() => evaluate({ qrels, run, measures: parseMeasure('map'), docOrder }), CitebenchError);
  const nan: RunCsr = { offsets: Uint32Array.of(0, 1), docs: Uint32Array.of(d1), scores: Float64Array.of(NaN) };
  assert.throws(() => evaluate({ qrels, run: nan, measures: parseMeasure('map'), docOrder }), /not a finite number/);
});

test('RankedLists from a retriever evaluate directly (Float32 scores, lists re-ranked by trec_eval rule)', () => {
  const { qrels } = queryA();
  // Lists in a wrong order: the evaluator ranks by score, ties by docno.
  const lists = { offsets: Uint32Array.of(0, 3), docs: Uint32Array.of(d2, d3, d1), scores: Float32Array.of(0.5, 0.5, 0.9) };
  const r = evaluateRankedLists(lists, qrels, parseMeasure('recip_rank').concat(parseMeasure('P.2')), { docOrder });
  assert.equal(r.summary[0], 1);
  assert.equal(r.summary[1], 1); // d1, then d3 (label 2) before d2
});

test('in-memory API and the TREC file path agree (writeRun/writeQrels round trip)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'citebench-eval-'));
  try {
    const { qrels, run } = queryA();
    const qp = join(dir, 'q.txt');
    const rp = join(dir, 'r.txt');
    writeQrels(qp, ['A'], (d) => DOCNOS[d], qrels);
    writeRun(rp, { qids: ['A'], docnos: (d) => DOCNOS[d], run: { ...run, scores: Float32Array.from(run.scores) }, tag: 'mem' });
    const specs = ['map', 'ndcg', 'P.5', 'recall.5', 'Rprec', 'recip_rank'];
    const text = trecEvalText(qp, rp, specs);
    const mem = values(specs, qrels, run);
    for (const line of text.trim().split('\n')) {
      const [name, qid, value] = line.split('\t');
      assert.equal(qid, 'all');
      assert.equal(value, formatFixed4(mem[name.trim()]), name);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('measure names: trec, printed and paper forms', () => {
  const names = (s: string) => parseMeasure(s).map((m) => m.name);
  assert.deepEqual(names('nDCG@10'), ['ndcg_cut_10']);
  assert.deepEqual(names('ndcg_cut.10'), ['ndcg_cut_10']);
  assert.deepEqual(names('ndcg_cut_10'), ['ndcg_cut_10']);
  assert.deepEqual(names('R@30'), ['recall_30']);
  assert.deepEqual(names('recall.30'), ['recall_30']);
  assert.deepEqual(names('P@5'), ['P_5']);
  assert.deepEqual(names('P.5'), ['P_5']);
  assert.deepEqual(names('MAP'), ['map']);
  assert.deepEqual(names('nDCG'), ['ndcg']);
  assert.deepEqual(names('MRR'), ['recip_rank']);
  assert.deepEqual(names('F1@20'), ['F1_20']);
  assert.deepEqual(names('recall.10,5'), ['recall_5', 'recall_10']);
  assert.deepEqual(names('P'), ['P_5', 'P_10', 'P_15', 'P_20', 'P_30', 'P_100', 'P_200', 'P_500', 'P_1000']);
  assert.deepEqual(names('num_rel_ret'), ['num_rel_ret']);
  assert.throws(() => parseMeasure('foo'), /unknown measure 'foo'/);
  assert.throws(() => parseMeasure('gm_ap'), /unknown measure/);
  assert.deepEqual(names('iprec_at_recall.0.5'), ['iprec_at_recall_0.50']);
  assert.deepEqual(names('Rprec_mult.1,2'), ['Rprec_mult_1.00', 'Rprec_mult_2.00']);
  assert.throws(() => parseMeasure('P.0'), /positive integer/);
  assert.throws(() => parseMeasure('P.5,5'), /duplicate/);
  // trec_eval prints in its table order whatever the -m order.
  assert.deepEqual(selectMeasures(['ndcg', 'recall.30', 'map']).measures.map((m) => m.name), ['map', 'recall_30', 'ndcg']);
});

test('C printf %6.4f: exact ties round half to even, like trec_eval', () => {
  assert.equal(formatFixed4(0.03125), '0.0312');
  assert.equal(formatFixed4(0.09375), '0.0938');
  assert.equal(formatFixed4(0.15625), '0.1562');
  assert.equal(formatFixed4(0.5), '0.5000');
  assert.equal(formatFixed4(1 / 3), '0.3333');
  assert.equal(formatFixed4(2 / 3), '0.6667');
  assert.equal(formatFixed4(-412.6666666), '-412.6667');
  assert.equal(formatFixed4(0), '0.0000');
});
