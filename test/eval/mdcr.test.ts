/**
 * mdcr-eval against values computed independently here (a direct reading of evaluate.py + trec_eval rules):
 * binary labels, a candidate listed both as a negative and as true (relevant), float32 ties broken by
 * candidate id descending, per-field mean ×100 rounded, AVG of the rounded values.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { evaluateMdcr, MDCR_NEGATIVE_TYPES } from '../../src/eval/mdcr.ts';
import { readJsonFile } from '../../src/util/json.ts';
import { InputError } from '../../src/util/errors.ts';
import { cliArgv } from '../helpers/cli.ts';
import { Rng } from '../../src/util/rng.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'citebench-mdcr-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

type Bench = Record<string, Record<string, Record<string, string[]>>>;

/** Two fields, 5 queries each: 5 true + 10 per negative type, some overlaps, scores with float32 ties. */
function buildBenchmark(): { bench: Bench; scores: Record<string, number> } {
  const rng = new Rng(42);
  const bench: Bench = {};
  const scores: Record<string, number> = {};
  for (const field of ['Biology', 'Art']) {
    bench[field] = {};
    for (let q = 0; q < 5; q++) {
      const qid = `${field.slice(0, 3)}${q}`;
      const lists: Record<string, string[]> = { true: [] };
      for (let i = 0; i < 5; i++) lists.true.push(`p${q}_${i}`);
      for (const type of MDCR_NEGATIVE_TYPES) {
        lists[type] = [];
        for (let i = 0; i < 10; i++) lists[type].push(`${type}${rng.nextInt(40)}`); // shared ids across types
      }
      lists.bm25[0] = lists.true[0]; // listed as a negative AND as true: relevant
      lists.specter[3] = lists.bm25[4]; // the same negative in two lists
      bench[field][qid] = lists;
      const all = new Set(Object.values(lists).flat());
      for (const cid of all) scores[`${qid}_${cid}`] = Math.round(rng.next() * 20) / 20; // many exact ties
      // Doubles that differ but round to the same float32: a tie for trec_eval 9.0.8, broken by id descending.
      scores[`${qid}_${lists.true[1]}`] = 0.7;
      scores[`${qid}_${lists.random[2]}`] = 0.7 + 1e-12;
      assert.equal(Math.fround(0.7), Math.fround(0.7 + 1e-12));
    }
  }
  return { bench, scores };
}

/**
 * np.round(x, 4) as numpy defines it: x·10⁴ rounded half to even, ÷10⁴. The AVG of two 4-dp values often ends in
 * an exact half (e.g. 14.67185 → 14.6718), where Math.round would differ.
 */
function npRound(x: number): number {
  const y = x * 1e4;
  let r = Math.round(y);
  if (r - y === 0.5 && r % 2 !== 0) r -= 1; // Math.round took the half up to an odd number
  return r / 1e4;
}

/** Reference evaluation, written from the definitions (not from the evaluator's code). */
function reference(bench: Bench, scores: Record<string, number>, types: string[]) {
  const fields: Record<string, { map: number; ndcg: number; recall_5: number }> = {};
  const order = ['Art', 'Biology'].filter((f) => f in bench); // evaluate.py's FIELDS order
  for (const field of order) {
    const sums = { map: 0, ndcg: 0, recall_5: 0 };
    const qids = Object.keys(bench[field]);
    for (const qid of qids) {
      const label = new Map<string, number>();
      for (const t of types) for (const c of bench[field][qid][t]) label.set(c, t === 'true' ? 1 : 0);
      const ranked = [...label.keys()].sort((a, b) => {
        const sa = Math.fround(scores[`${qid}_${a}`]);
        const sb = Math.fround(scores[`${qid}_${b}`]);
        return sb - sa || (a < b ? 1 : a > b ? -1 : 0);
      });
      const R = [...label.values()].filter((l) => l === 1).length;
      let hits = 0;
      let ap = 0;
      let dcg = 0;
      ranked.forEach((c, i) => {
        if (label.get(c) === 1) {
          hits++;
          ap += hits / (i + 1);
          dcg += 1 / Math.log2(i + 2);
        }
      });
      let idcg = 0;
      for (let i = 0; i < R; i++) idcg += 1 / Math.log2(i + 2);
      sums.map += ap / R;
      sums.ndcg += dcg / idcg;
      sums.recall_5 += ranked.slice(0, 5).filter((c) => label.get(c) === 1).length / R;
    }
    const r = npRound;
    fields[field] = { map: r((100 * sums.map) / qids.length), ndcg: r((100 * sums.ndcg) / qids.length), recall_5: r((100 * sums.recall_5) / qids.length) };
  }
  const avg = (m: 'map' | 'ndcg' | 'recall_5') => npRound(order.reduce((s, f) => s + fields[f][m], 0) / order.length);
  return { fields, avg: { map: avg('map'), ndcg: avg('ndcg'), recall_5: avg('recall_5') } };
}

test('mdcr evaluation equals an independent computation (overlapping lists, float32 ties)', () => {
  const { bench, scores } = buildBenchmark();
  const got = evaluateMdcr(bench, scores);
  const want = reference(bench, scores, [...MDCR_NEGATIVE_TYPES, 'true']);
  assert.deepEqual(got.fields.map((f) => f.field), ['Art', 'Biology']);
  for (const f of got.fields) assert.deepEqual(f.values, want.fields[f.field], f.field);
  assert.deepEqual(got.avg, want.avg);
  // The overlap matters: treating the bm25-listed positive as a negative would change map.
  assert.ok(got.fields[0].values.map > 0 && got.fields[0].values.map < 100);
});

test('--candidate-type: 5 positives + one negative type (paper Table 4)', () => {
  const { bench, scores } = buildBenchmark();
  for (const type of ['bm25', 'random'] as const) {
    const got = evaluateMdcr(bench, scores, { candidateType: type });
    const want = reference(bench, scores, [type, 'true']);
    for (const f of got.fields) assert.deepEqual(f.values, want.fields[f.field], `${type} ${f.field}`);
    assert.deepEqual(got.avg, want.avg);
  }
});

test('float32 tie: the 0.7 / 0.7+1e-12 pair is ordered by candidate id, not by the double', () => {
  // One query: true "a" at 0.7, negative "b" at 0.7 + 1e-12. As float32 they tie; "b" > "a" ranks b first.
  const bench = { Art: { q: { true: ['a'], bm25: ['b'], graph: [], most_cited: [], random: [], scincl: [], specter: [] } } };
  const r = evaluateMdcr(bench, { q_a: 0.7, q_b: 0.7 + 1e-12 });
  assert.equal(r.fields[0].values.map, 50);
  const r2 = evaluateMdcr(bench, { q_a: 0.7, q_b: 0.8 });
  assert.equal(r2.fields[0].values.map, 50);
  const r3 = evaluateMdcr(bench, { q_a: 0.7 + 1e-7, q_b: 0.7 });
  assert.equal(r3.fields[0].values.map, 100);
});

test('mdcr-eval CLI: --json output and the table', () => {
  const { bench, scores } = buildBenchmark();
  const b = join(dir, 'bench.json');
  const s = join(dir, 'scores.json');
  writeFileSync(b, JSON.stringify(bench));
  writeFileSync(s, JSON.stringify(scores));
  const r = spawnSync(process.execPath, cliArgv(['mdcr-eval', '--benchmark', b, '--scores', s, '--json']), { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  const want = reference(bench, scores, [...MDCR_NEGATIVE_TYPES, 'true']);
  assert.deepEqual(out.AVG, want.avg);
  assert.equal(out.fields.Art.map, want.fields.Art.map);
  const t = spawnSync(process.execPath, cliArgv(['mdcr-eval', '--benchmark', b, '--scores', s, '--candidate-type', 'scincl']), { cwd: ROOT, encoding: 'utf8' });
  assert.equal(t.status, 0, t.stderr);
  assert.match(t.stdout, /5 true \+ scincl negatives/);
  assert.match(t.stdout, /^AVG /m);
  const bad = spawnSync(process.execPath, cliArgv(['mdcr-eval', '--benchmark', b, '--scores', s, '--candidate-type', 'bm26']), { cwd: ROOT, encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /unknown candidate type 'bm26'/);
  assert.doesNotMatch(bad.stderr, /at .*\.ts:\d+/); // no stack trace
});

test('mdcr errors: missing score key, malformed JSON position, empty query, unknown field', () => {
  const { bench, scores } = buildBenchmark();
  const key = Object.keys(scores)[3];
  const missing = { ...scores };
  delete missing[key];
  assert.throws(() => evaluateMdcr(bench, missing, { scoresPath: 's.json' }), (e: unknown) => e instanceof InputError && e.field === key && /missing score/.test(e.message));
  assert.throws(() => evaluateMdcr(bench, { ...scores, [key]: 'high' }), /score "high" is not a finite number/);
  const p = join(dir, 'broken.json');
  writeFileSync(p, '{\n  "a": 1,\n  "b": oops\n}');
  assert.throws(() => readJsonFile(p), (e: unknown) => e instanceof InputError && e.line === 3 && /malformed JSON at column 8/.test(e.message));
  assert.throws(() => evaluateMdcr({ Art: { q: { true: [] } } }, {}, { lenient: true }), /no candidates/);
  assert.throws(() => evaluateMdcr({ Arts: {} }, {}), /unknown field 'Arts'/);
});

test('mdcr: a missing negative list is an error naming field, query and type; lenient evaluates it as empty', () => {
  const { bench, scores } = buildBenchmark();
  const qid = Object.keys(bench.Art)[2];
  const holed = structuredClone(bench);
  delete holed.Art[qid].graph;
  assert.throws(
    () => evaluateMdcr(holed, scores, { benchmarkPath: 'b.json' }),
    (e: unknown) => e instanceof InputError && e.field === `Art / ${qid} / graph` && /^b\.json \[Art \/ \w+ \/ graph\]: missing candidate list 'graph' of query '\w+' in field Art \(--lenient/.test(e.message),
  );
  const lenient = evaluateMdcr(holed, scores, { lenient: true });
  assert.equal(lenient.missingLists, 1);
  const emptied = structuredClone(bench);
  emptied.Art[qid].graph = [];
  const want = evaluateMdcr(emptied, scores);
  assert.deepEqual(lenient.avg, want.avg);
  assert.equal(want.missingLists, 0);
  // Evaluating one other candidate type does not need the missing list.
  assert.equal(evaluateMdcr(holed, scores, { candidateType: 'bm25' }).missingLists, 0);

  const b = join(dir, 'holed.json');
  const s = join(dir, 'holed-scores.json');
  writeFileSync(b, JSON.stringify(holed));
  writeFileSync(s, JSON.stringify(scores));
  const cli = (...extra: string[]) => spawnSync(process.execPath, cliArgv(['mdcr-eval', '--benchmark', b, '--scores', s, ...extra]), { cwd: ROOT, encoding: 'utf8' });
  const r = cli();
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /^citebench: .*holed\.json \[Art \/ \w+ \/ graph\]: missing candidate list 'graph'/);
  assert.equal(r.stderr.trim().split('\n').length, 1);
  assert.equal(r.stdout, '');
  const l = cli('--lenient', '--json');
  assert.equal(l.status, 0, l.stderr);
  assert.deepEqual(JSON.parse(l.stdout).AVG, want.avg);
  assert.match(l.stderr, /warning: 1 candidate lists missing from .* were treated as empty/);
});
