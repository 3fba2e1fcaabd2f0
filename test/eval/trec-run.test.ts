/**
 * The one reader of TREC runs as ranked lists (eval/trec-run.ts), which MDCR and the report's drill-down pages
 * use. Its order is trec_eval's, checked against the evaluator itself; on the runs citebench writes it agrees
 * with the two rules those readers had before (rank column; float64 score, docno descending), and where those
 * rules differed from trec_eval it follows trec_eval.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRankedRun, readRelevant } from '../../src/eval/trec-run.ts';
import { lineNumbersOf } from '../../src/eval/line-scan.ts';
import { writeRun } from '../../src/eval/trec-write.ts';
import { trecEvalText } from '../../src/eval/trec-eval.ts';
import { InputError } from '../../src/util/errors.ts';
import { Rng } from '../../src/util/rng.ts';

const dir = mkdtempSync(join(tmpdir(), 'citebench-trecrun-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function file(text: string): string {
  const p = join(dir, `r${n++}.trec`);
  writeFileSync(p, text, 'latin1');
  return p;
}

const docnos = (path: string, opts?: Parameters<typeof readRankedRun>[1]) => Object.fromEntries([...readRankedRun(path, opts).lists].map(([q, l]) => [q, l.map((x) => x.docno)]));

/** The rule the drill-down pages had: the rank column. */
function byRankColumn(text: string): Record<string, string[]> {
  const out: Record<string, { r: number; d: string }[]> = {};
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 6) continue;
    (out[f[0]] ??= []).push({ r: Number(f[3]), d: f[2] });
  }
  return Object.fromEntries(Object.entries(out).map(([q, l]) => [q, l.sort((a, b) => a.r - b.r).map((x) => x.d)]));
}

/** The rule MDCR's reader had: the score as a double, descending; ties by docno descending. */
function byDoubleScore(text: string): Record<string, string[]> {
  const out: Record<string, { s: number; d: string }[]> = {};
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 5) continue;
    (out[f[0]] ??= []).push({ s: Number(f[4]), d: f[2] });
  }
  return Object.fromEntries(Object.entries(out).map(([q, l]) => [q, l.sort((a, b) => b.s - a.s || (a.d < b.d ? 1 : a.d > b.d ? -1 : 0)).map((x) => x.d)]));
}

/** Rank of each doc as trec_eval sees it: recip_rank with that doc the only relevant one. */
function trecEvalRank(run: string, qid: string, docno: string): number {
  const qrels = file(`${qid} 0 ${docno} 1\n`);
  const out = trecEvalText(qrels, run, ['recip_rank']);
  return Math.round(1 / Number(out.trim().split('\t')[2]));
}

test("a run citebench writes: trec_eval's order = the rank column = the double-score rule", () => {
  const rng = new Rng(5);
  const qids = ['q2', 'q10', 'q1'];
  const offsets = new Uint32Array(qids.length + 1);
  const docs: number[] = [];
  const scores: number[] = [];
  for (let q = 0; q < qids.length; q++) {
    for (let i = 0; i < 60; i++) {
      docs.push(q * 100 + i);
      scores.push(Math.fround(Math.floor(rng.next() * 12) / 7)); // few distinct values: many ties
    }
    offsets[q + 1] = docs.length;
  }
  const path = join(dir, 'written.trec');
  writeRun(path, { qids, docnos: (d) => `doc${(d * 7919) % 1000}`, run: { offsets, docs: Uint32Array.from(docs), scores: Float32Array.from(scores) }, tag: 't' });
  const text = readFileSync(path, 'latin1');
  const got = docnos(path);
  assert.deepEqual(Object.keys(got), qids, 'queries in file order');
  assert.deepEqual(got, byRankColumn(text));
  assert.deepEqual(got, byDoubleScore(text));
  for (const i of [0, 7, 31, 59]) assert.equal(trecEvalRank(path, 'q10', got.q10[i]), i + 1, `rank ${i + 1} as trec_eval ranks it`);
});

test("where the old rules differed, trec_eval's order: rank column ignored, float32 ties, # lines, duplicates", () => {
  // The rank column says the reverse of the scores.
  const reversed = 'q Q0 a 3 0.9 t\nq Q0 b 2 0.5 t\nq Q0 c 1 0.1 t\n';
  const p1 = file(reversed);
  assert.deepEqual(docnos(p1), { q: ['a', 'b', 'c'] });
  assert.deepEqual(byRankColumn(reversed), { q: ['c', 'b', 'a'] }, 'the drill-down rule read the rank column');
  // Doubles that are one float32: a tie for trec_eval 9.0.8, decided by docno descending (trec_eval 10: doubles).
  const close = 'q Q0 a 1 0.30000000000000004 t\nq Q0 b 2 0.3 t\nq Q0 c 3 0.1 t\n';
  const p2 = file(close);
  assert.deepEqual(docnos(p2), { q: ['b', 'a', 'c'] });
  assert.equal(trecEvalRank(p2, 'q', 'b'), 1);
  assert.deepEqual(byDoubleScore(close), { q: ['a', 'b', 'c'] }, "MDCR's rule ranked by the double");
  assert.deepEqual(docnos(p2, { trecEval10: true }), { q: ['a', 'b', 'c'] });
  // Comment and blank lines are skipped; a docno twice in one query is an error naming its line.
  assert.deepEqual(docnos(file('# run of x\n\nq Q0 a 1 1 t\n')), { q: ['a'] });
  const dup = file('q Q0 a 1 2 t\nq Q0 b 2 1 t\n# c\nq Q0 a 3 0 t\n');
  assert.throws(() => readRankedRun(dup), (e: unknown) => e instanceof InputError && e.line === 4 && e.field === 'docno' && /retrieved twice \(first at line 1\)/.test(e.message));
});

test('interleaved queries: entries point at their lines; a query filter keeps only the wanted ones', () => {
  const p = file('# header\nb Q0 x 1 1 t\na Q0 y 1 2 t\n\nb Q0 z 2 3 t\na Q0 w 2 1 t\n');
  const r = readRankedRun(p);
  assert.deepEqual([...r.lists.keys()], ['b', 'a']);
  assert.deepEqual(r.lists.get('b')!.map((x) => [x.docno, x.score, lineNumbersOf(p, [x.entry])[0]]), [['z', 3, 5], ['x', 1, 2]]);
  assert.deepEqual(r.lists.get('a')!.map((x) => [x.docno, lineNumbersOf(p, [x.entry])[0]]), [['y', 3], ['w', 6]]);
  assert.equal(r.runId, 't');
  assert.deepEqual(docnos(p, { queries: new Set(['a', 'nope']) }), { a: ['y', 'w'] });
});

test('a run already best first (no sort: the fast path) ranks and evaluates as the same lines shuffled', () => {
  const rng = new Rng(11);
  const lines: { q: string; d: string; s: number }[] = [];
  for (const q of ['q1', 'q2']) {
    const scores = Array.from({ length: 80 }, () => Math.floor(rng.next() * 9) / 4).sort((a, b) => b - a); // many ties
    scores.forEach((s, i) => lines.push({ q, d: `d${(i * 37) % 101}`, s }));
  }
  const text = (ls: typeof lines) => ls.map((l, i) => `${l.q} Q0 ${l.d} ${i + 1} ${l.s} t\n`).join('');
  const sorted = file(text(lines));
  const shuffled = [...lines];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
  }
  const mixed = file(text(shuffled));
  assert.deepEqual(docnos(sorted), docnos(mixed));
  assert.deepEqual(docnos(sorted), byDoubleScore(text(lines)));
  const qrels = file(lines.filter((_, i) => i % 7 === 0).map((l) => `${l.q} 0 ${l.d} 1`).join('\n') + '\n');
  const m = ['map', 'ndcg', 'P.10', 'recip_rank'];
  assert.equal(trecEvalText(qrels, sorted, m), trecEvalText(qrels, mixed, m));
});

test('readRelevant: each query\'s docnos labelled > 0 in file order, queries interleaved, filtered; qrels errors as trec_eval\'s reader', () => {
  const f = join(dir, 'rel.qrels');
  writeFileSync(f, '# judged\nq1 0 d3 1\nq2 0 d1 0\nq1 0 d1 2\nq2 0 d9 1\nq1 0 d7 -1\nq3 0 d2 1\n');
  assert.deepEqual([...readRelevant(f)], [['q1', ['d3', 'd1']], ['q2', ['d9']], ['q3', ['d2']]]);
  assert.deepEqual([...readRelevant(f, { queries: new Set(['q2']) })], [['q2', ['d9']]]);
  writeFileSync(f, 'q1 0 d3 1\nq1 0 d4 x\n');
  assert.throws(() => readRelevant(f), (e: unknown) => e instanceof InputError && /rel\.qrels:2.*not an integer/.test((e as Error).message));
});
