/**
 * MDCR construction on a small synthetic store with hand-made ranked lists: every property below is checked
 * against a computation written here from the definitions, not with the builder's helpers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { synthesize, SYNTH_DEFAULTS } from '../../src/corpus/synth.ts';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { PAPER_PREFILTER } from '../../src/corpus/prefilter.ts';
import { FIELDS, FIELD_ABBREV, type Field, type FieldName } from '../../src/corpus/fields.ts';
import { sampleQueries, eligibleQueries } from '../../src/sampling/pools.ts';
import { Rng } from '../../src/util/rng.ts';
import { readRunLists } from '../../src/experiments/mdcr-stage.ts';
import type { MdcrPlan } from '../../src/sampling/mdcr-plan.ts';
import {
  buildMdcrSplit, mostCitedOfField, mdcrBenchmarkText, mdcrDataRecords, mdcrDataText, sampleMdcrQueries, type MdcrBuild, type RankedIds,
} from '../../src/sampling/mdcr-build.ts';
import { evaluateMdcr } from '../../src/eval/mdcr.ts';
import { buildIndex } from '../../src/retrieval/bm25/index.ts';
import { saveIndex } from '../../src/retrieval/bm25/index-format.ts';
import { REPO } from '../helpers/shared.ts';
import { cliArgv } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'cb-mdcr-build-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
let store: CorpusStore;
const FIELDS_USED: Field[] = ['Medicine', 'Physics'];
const N = 6;
let queries: { test: Map<Field, Uint32Array>; val: Map<Field, Uint32Array>; notes?: string[] };
const MODELS = ['alpha', 'beta', 'gamma', 'delta'];
let lists: Record<string, Map<Field, RankedIds>>;
let built: MdcrBuild;

const citedSet = (q: number) => new Set(store.outbound(q));

/**
 * Hand-made ranked lists: `alpha` and `beta` share most of their top (high Jaccard), `gamma` and `delta` are
 * independent shuffles. Cited articles are mixed in so "first 200 uncited" differs from "first 200".
 */
function makeLists(qs: Map<Field, Uint32Array>, seedBase: number): Record<string, Map<Field, RankedIds>> {
  const out: Record<string, Map<Field, RankedIds>> = {};
  for (const [m, name] of MODELS.entries()) {
    out[name] = new Map();
    for (const [f, qa] of qs) {
      const offsets = new Uint32Array(qa.length + 1);
      const docs: number[] = [];
      qa.forEach((q, k) => {
        const rng = new Rng(seedBase * 1000 + k * 10 + (name === 'beta' ? 0 : m) + FIELDS.indexOf(f) * 100);
        const perm = rng.shuffle(Array.from({ length: store.size }, (_, i) => i)).slice(0, 400).filter((d) => d !== q);
        if (name === 'beta') perm.splice(0, 30, ...new Rng(k + 7).shuffle(Array.from({ length: 30 }, (_, i) => perm[200 + i]))); // alter alpha a little
        const cited = [...store.outbound(q)];
        const list = [...cited.slice(0, 3), ...perm.slice(0, 100), ...cited.slice(3), ...perm.slice(100)];
        docs.push(...new Set(list));
        offsets[k + 1] = docs.length;
      });
      out[name].set(f, { offsets, docs: Uint32Array.from(docs) });
    }
  }
  return out;
}

function bruteTopNegatives(q: number, list: Uint32Array, depth = 200): Set<number> {
  const cited = citedSet(q);
  const out: number[] = [];
  for (const d of list) {
    if (out.length === depth) break;
    if (d !== q && !cited.has(d) && !out.includes(d)) out.push(d);
  }
  return new Set(out);
}

const rowOf = (r: RankedIds, k: number) => r.docs.subarray(r.offsets[k], r.offsets[k + 1]);

test('setup: small synthetic store, disjoint val/test queries citing ≥ 5 store articles', async () => {
  await synthesize({ ...SYNTH_DEFAULTS, articles: 9000, seed: 3 }, join(dir, 'shards'));
  await buildCorpusStore({ input: join(dir, 'shards'), out: join(dir, 'store'), prefilter: PAPER_PREFILTER });
  store = CorpusStore.open(join(dir, 'store'));
  queries = sampleMdcrQueries(store, { fields: FIELDS_USED, count: N, seed: 1 });
  for (const f of FIELDS_USED) {
    const t = queries.test.get(f)!;
    const v = queries.val.get(f)!;
    assert.equal(t.length, N);
    assert.equal(v.length, N);
    const ts = new Set(t);
    for (const q of v) assert.ok(!ts.has(q), 'val and test disjoint');
    for (const q of [...t, ...v]) {
      assert.equal(store.years[q], 2019);
      assert.ok(store.fields[q] & (1 << FIELDS.indexOf(f)));
      assert.ok(store.outbound(q).length >= 5);
    }
    // Test = the field-level sampler with minCited 5.
    assert.deepEqual(t, sampleQueries(store, { count: N, seed: 1, field: f, minCited: 5 }));
  }
  lists = makeLists(queries.test, 1);
  built = buildMdcrSplit(store, { queries: queries.test, modelLists: lists, seed: 1, split: 'test' });
});

test('sampleQueries minCited: every query cites enough; default unchanged by the option', () => {
  const q8 = sampleQueries(store, { count: 20, seed: 2, minCited: 8 });
  for (const q of q8) assert.ok(store.outbound(q).length >= 8);
  assert.deepEqual(sampleQueries(store, { count: 20, seed: 2, minCited: 1 }), sampleQueries(store, { count: 20, seed: 2 }));
});

test('sampleMdcrQueries: a field whose test split leaves too few gets every remaining query for val, with a note', () => {
  assert.deepEqual(queries.notes ?? [], [], 'no note when both splits fill');
  const n = eligibleQueries(store, { field: 'Physics', minCited: 5 }).length;
  const count = Math.ceil(n * 0.6);
  const s = sampleMdcrQueries(store, { fields: ['Physics'], count, seed: 1 });
  assert.equal(s.test.get('Physics')!.length, count);
  assert.equal(s.val.get('Physics')!.length, n - count);
  assert.deepEqual(s.notes, [`val: field Physics: ${n - count} validation queries instead of ${count} — ${n} articles are eligible and the test split (with any excluded ids) takes the other ${count}`]);
});

test('Jaccard matrix equals a brute-force computation; the 3 lowest averages are chosen', () => {
  const m = MODELS.length;
  const expect = Array.from({ length: m }, () => new Array<number>(m).fill(0));
  let nq = 0;
  for (const f of FIELDS_USED) {
    queries.test.get(f)!.forEach((q, k) => {
      nq++;
      const sets = MODELS.map((name) => bruteTopNegatives(q, rowOf(lists[name].get(f)!, k)));
      for (let i = 0; i < m; i++)
        for (let j = 0; j < m; j++) {
          const inter = [...sets[i]].filter((x) => sets[j].has(x)).length;
          expect[i][j] += inter / (sets[i].size + sets[j].size - inter);
        }
    });
  }
  assert.deepEqual(built.jaccard.models, MODELS);
  for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) assert.ok(Math.abs(built.jaccard.matrix[i][j] - expect[i][j] / nq) < 1e-12, `J[${i}][${j}]`);
  const avg = expect.map((row, i) => row.reduce((s, v, j) => s + (i === j ? 0 : v / nq), 0) / (m - 1));
  built.jaccard.average.forEach((a, i) => assert.ok(Math.abs(a! - avg[i]) < 1e-12));
  assert.ok(expect[0][1] / nq > 0.5, 'alpha and beta overlap by construction');
  const byAvg = MODELS.map((n, i) => ({ n, a: avg[i] })).sort((x, y) => x.a - y.a).slice(0, 3).map((x) => x.n);
  assert.deepEqual(new Set(built.chosen), new Set(byAvg));
  assert.equal(built.chosen.length, 3);
  assert.ok(!(built.chosen.includes('alpha') && built.chosen.includes('beta')), 'the overlapping pair is not both chosen');
});

test('each query: keys in fixed order with true last, 5 + 6 × 10 candidates, no duplicates, negatives uncited', () => {
  const types = [...built.chosen, 'graph', 'most_cited', 'random'];
  for (const f of FIELDS_USED) {
    const qs = queries.test.get(f)!;
    assert.deepEqual(Object.keys(built.benchmark[f]).sort(), Array.from(qs, (q) => store.id(q)).sort());
    for (const q of qs) {
      const lists = built.benchmark[f][store.id(q)];
      // evaluate.py's seven keys in its order (the paper's models absent here: empty), then the chosen models, true last.
      assert.deepEqual(Object.keys(lists), ['bm25', 'graph', 'most_cited', 'random', 'scincl', 'specter', ...built.chosen, 'true']);
      for (const k of ['bm25', 'scincl', 'specter']) assert.deepEqual(lists[k], []);
      assert.equal(lists.true.length, 5);
      const cited = new Set(Array.from(store.outbound(q), (d) => store.id(d)));
      for (const id of lists.true) assert.ok(cited.has(id), 'positive is cited');
      const all = Object.values(lists).flat();
      assert.equal(new Set(all).size, all.length, 'no candidate twice in one query');
      for (const t of types) {
        assert.equal(lists[t].length, 10, `${t} has 10`);
        for (const id of lists[t]) {
          assert.ok(!cited.has(id), `${t} negative ${id} is cited by the query`);
          assert.notEqual(id, store.id(q));
        }
      }
    }
  }
  assert.equal(built.counts.queries, 2 * N);
  assert.equal(built.counts.pairs, 2 * N * 65);
  for (const t of types) assert.equal(built.counts.perType[t].short, 0);
});

/**
 * Inbound citation counts over the whole input, read from the raw shards here: both S2ORC lists merged, links
 * to ids outside the input and self-citations dropped, each citing record counted once (prefilter rule 4).
 */
function inputInboundFromShards(): Map<string, number> {
  const shards = readdirSync(join(dir, 'shards')).filter((f) => f.endsWith('.jsonl.gz')).sort();
  const recs = shards.flatMap((f) => gunzipSync(readFileSync(join(dir, 'shards', f))).toString('utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l)));
  const ids = new Set(recs.map((r) => r.paper_id as string));
  const links = new Set<string>();
  for (const r of recs) {
    for (const c of r.outbound_citations ?? []) if (ids.has(c) && c !== r.paper_id) links.add(`${r.paper_id} ${c}`);
    for (const c of r.inbound_citations ?? []) if (ids.has(c) && c !== r.paper_id) links.add(`${c} ${r.paper_id}`);
  }
  const count = new Map<string, number>();
  for (const l of links) {
    const t = l.slice(l.indexOf(' ') + 1);
    count.set(t, (count.get(t) ?? 0) + 1);
  }
  return count;
}

test('most_cited ranks by the input\'s citation counts, not the prefiltered store\'s (they disagree here)', () => {
  const input = inputInboundFromShards();
  const byId = (a: number, b: number) => Buffer.compare(Buffer.from(store.id(a)), Buffer.from(store.id(b)));
  let differ = 0;
  for (const f of FIELDS_USED) {
    const bit = 1 << FIELDS.indexOf(f);
    const members: number[] = [];
    for (let i = 0; i < store.size; i++) if (store.fields[i] & bit) members.push(i);
    for (const i of members) assert.equal(store.inputInbound[i], input.get(store.id(i)) ?? 0, `input count of ${store.id(i)}`);
    const inputTop = [...members].sort((a, b) => (input.get(store.id(b)) ?? 0) - (input.get(store.id(a)) ?? 0) || byId(a, b)).slice(0, 200);
    assert.deepEqual(Array.from(mostCitedOfField(store, f, 200)), inputTop);
    // In-store in-degree, from the outbound lists: the ranking the builder must NOT use.
    const inStore = (i: number) => store.inbound(i).length;
    const storeTop = new Set([...members].sort((a, b) => inStore(b) - inStore(a) || byId(a, b)).slice(0, 200));
    differ += inputTop.filter((i) => !storeTop.has(i)).length;
  }
  assert.ok(differ > 0, 'the fixture must have field top-200 sets that differ between input and store counts');
});

test('model-based candidates lie in their model\'s top-200 negatives; most_cited in the field\'s top 200', () => {
  const input = inputInboundFromShards();
  const count = (i: number) => input.get(store.id(i)) ?? 0;
  for (const f of FIELDS_USED) {
    const bit = 1 << FIELDS.indexOf(f);
    const members = [];
    for (let i = 0; i < store.size; i++) if (store.fields[i] & bit) members.push(i);
    members.sort((a, b) => count(b) - count(a) || Buffer.compare(Buffer.from(store.id(a)), Buffer.from(store.id(b))));
    const top = new Set(members.slice(0, 200).map((i) => store.id(i)));
    queries.test.get(f)!.forEach((q, k) => {
      const lists = built.benchmark[f][store.id(q)];
      for (const name of built.chosen) {
        const neg = new Set([...bruteTopNegatives(q, rowOf(listsFor(name, f), k))].map((d) => store.id(d)));
        for (const id of lists[name]) assert.ok(neg.has(id), `${name} candidate ${id} not in its top-200 negatives`);
      }
      for (const id of lists.most_cited) assert.ok(top.has(id), `most_cited ${id} not in ${f}'s top 200`);
    });
  }
});

function listsFor(name: string, f: Field): RankedIds {
  return lists[name].get(f)!;
}

test('graph candidates: neighbours of the cited articles taken in walk order (overlap desc, id asc)', () => {
  for (const f of FIELDS_USED) {
    for (const q of queries.test.get(f)!) {
      const lists = built.benchmark[f][store.id(q)];
      const oc = new Set(store.outbound(q));
      const nbrs = (c: number) => {
        const s = new Set<number>();
        for (const d of store.outbound(c)) s.add(d);
        for (let i = 0; i < store.size; i++) if (store.outbound(i).includes(c)) s.add(i); // citing c, by a scan
        return s;
      };
      const cited = [...oc];
      const ov = new Map(cited.map((c) => [c, [...nbrs(c)].filter((x) => oc.has(x)).length / oc.size]));
      cited.sort((a, b) => ov.get(b)! - ov.get(a)! || Buffer.compare(Buffer.from(store.id(a)), Buffer.from(store.id(b))));
      const before = new Set(built.chosen.flatMap((t) => lists[t]));
      const graph = new Set(lists.graph);
      const used = new Set<string>();
      let remaining = graph.size;
      for (const c of cited) {
        if (remaining === 0) break;
        const elig = [...nbrs(c)].map((d) => store.id(d)).filter((id) => id !== store.id(q) && !oc.has(store.indexOf(id)) && !before.has(id) && !used.has(id));
        const inGraph = elig.filter((id) => graph.has(id));
        if (elig.length <= remaining) assert.equal(inGraph.length, elig.length, 'an earlier cited article contributes all its eligible neighbours');
        else assert.equal(inGraph.length, remaining, 'the last cited article fills the remaining places');
        for (const id of elig) used.add(id);
        remaining -= inGraph.length;
      }
      assert.equal(remaining, 0, 'every graph candidate is a neighbour met in walk order');
    }
  }
});

test('determinism: same inputs ⇒ identical bytes; another seed differs; data file lists every id once', () => {
  const again = buildMdcrSplit(store, { queries: queries.test, modelLists: makeLists(queries.test, 1), seed: 1, split: 'test' });
  assert.equal(mdcrBenchmarkText(again.benchmark), mdcrBenchmarkText(built.benchmark));
  const other = buildMdcrSplit(store, { queries: queries.test, modelLists: lists, seed: 2, split: 'test' });
  assert.notEqual(mdcrBenchmarkText(other.benchmark), mdcrBenchmarkText(built.benchmark));
  const recs = mdcrDataRecords(store, built.benchmark);
  const text = mdcrDataText(recs);
  assert.equal(text, mdcrDataText(mdcrDataRecords(store, again.benchmark)));
  const ids = new Set<string>();
  for (const qs of Object.values(built.benchmark)) for (const [qid, l] of Object.entries(qs)) [qid, ...Object.values(l).flat()].forEach((x) => ids.add(x));
  const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((r) => r.paper_id), [...ids].sort());
  for (const r of lines) {
    assert.deepEqual(Object.keys(r), ['paper_id', 'title', 'abstract']);
    assert.equal(r.title, store.text(store.indexOf(r.paper_id)).title);
  }
});

test('the output parses with mdcr-eval, including each model-named candidate type', () => {
  const bench = JSON.parse(mdcrBenchmarkText(built.benchmark));
  const rng = new Rng(5);
  const scores: Record<string, number> = {};
  for (const qs of Object.values(bench) as Record<string, Record<string, string[]>>[])
    for (const [qid, l] of Object.entries(qs)) for (const c of Object.values(l).flat()) scores[`${qid}_${c}`] = rng.next();
  const all = evaluateMdcr(bench, scores);
  assert.deepEqual(all.fields.map((f) => f.field), FIELDS_USED);
  assert.equal(all.missingLists, 0);
  for (const t of [...built.chosen, 'graph']) assert.equal(evaluateMdcr(bench, scores, { candidateType: t }).candidateType, t);
  assert.throws(() => evaluateMdcr(bench, scores, { candidateType: 'nosuch' }), /unknown candidate type 'nosuch'/);
  assert.throws(() => evaluateMdcr(bench, scores, { candidateType: 'bm25' }), /candidate type 'bm25' holds no candidates/);
});

test('fewer than 3 models, none, a forced choice, and shortfalls are reported, never silent', () => {
  const two = buildMdcrSplit(store, { queries: queries.test, modelLists: { gamma: lists.gamma, delta: lists.delta }, seed: 1, split: 'test' });
  assert.deepEqual(two.chosen, ['gamma', 'delta']);
  assert.ok(two.notes.some((n) => /only 2 model/.test(n)));
  const none = buildMdcrSplit(store, { queries: queries.test, seed: 1, split: 'test' });
  assert.deepEqual(none.chosen, []);
  assert.ok(none.notes.some((n) => /no model ranked lists/.test(n)));
  assert.deepEqual(Object.keys(Object.values(none.benchmark.Medicine)[0]), ['bm25', 'graph', 'most_cited', 'random', 'scincl', 'specter', 'true']);
  const forced = buildMdcrSplit(store, { queries: queries.test, modelLists: lists, seed: 1, split: 'val', chosen: ['beta'] });
  assert.deepEqual(forced.chosen, ['beta']);
  const short = buildMdcrSplit(store, { queries: queries.test, seed: 1, split: 'test', mostCitedTop: 4 });
  const c = short.counts.perType.most_cited;
  assert.ok(c.short >= 6 * 2 * N && c.shortQueries === 2 * N, `shortfall counted (${c.short})`);
  assert.equal(c.got + c.short, 10 * 2 * N);
  assert.ok(short.notes.some((n) => /most_cited' is \d+ candidates short/.test(n)));
});

test("readRunLists: a run's lists in trec_eval's order (score desc, ties docno desc, rank column ignored); unknown docno named by line", () => {
  const plan: MdcrPlan = { fields: FIELDS_USED, queries: { test: queries.test, val: queries.val }, pools: { test: new Map(), val: new Map() }, seed: 1 };
  const want: Record<string, Map<Field, number[][]>> = { test: new Map(), val: new Map() };
  const file = (split: string, f: Field) => join(dir, 'order-runs', `${split}-${FIELD_ABBREV[f]}.trec`);
  mkdirSync(join(dir, 'order-runs'), { recursive: true });
  for (const split of ['test', 'val'] as const) {
    for (const [f, qs] of queries[split]) {
      const rows: number[][] = [];
      const lines: string[] = [];
      qs.forEach((q, k) => {
        const docs = [...rowOf(lists.alpha.get(f)!, k)].slice(0, 40);
        // Scores 40, 39, …, except docs 0–2 and 10–11 tie (then docno descending decides); lines shuffled, and the
        // rank column says the reverse of the scores.
        const score = (i: number) => (i <= 2 ? 40 : i === 11 ? 30 : 40 - i);
        const tieGroups = [[0, 1, 2], [10, 11]];
        const order = docs.map((_, i) => i);
        for (const g of tieGroups) {
          const byId = g.map((i) => docs[i]).sort((a, b) => (store.id(a) < store.id(b) ? 1 : -1));
          g.forEach((i, j) => (order[i] = docs.indexOf(byId[j])));
        }
        rows.push(order.map((i) => docs[i]));
        new Rng(k + 99).shuffle(docs.map((d, i) => `${store.id(q)} Q0 ${store.id(d)} ${40 - i} ${score(i)} alpha`)).forEach((l) => lines.push(l));
      });
      want[split].set(f, rows);
      writeFileSync(file(split, f), `# a comment line, skipped as trec_eval skips it\n${lines.join('\n')}\n`);
    }
  }
  const got = readRunLists(store, file as (split: string, f: FieldName) => string, plan);
  for (const split of ['test', 'val'] as const) {
    for (const f of FIELDS_USED) {
      const r = got[split].get(f)!;
      want[split].get(f)!.forEach((row, k) => assert.deepEqual([...rowOf(r, k)], row, `${split} ${f} query ${k}`));
    }
  }
  const bad = join(dir, 'order-runs', 'bad.trec');
  const q0 = store.id(queries.test.get(FIELDS_USED[0])![0]);
  writeFileSync(bad, `${q0} Q0 ${store.id(0)} 1 3 x\n\n${q0} Q0 not-a-paper 2 2 x\n`);
  assert.throws(() => readRunLists(store, bad, plan), (e: Error) => e.message === `${bad}:3 [docno]: paper not-a-paper is not in the corpus store`);
});

test('CLI: mdcr build with a BM25 index and a {split}/{field} run: byte-identical reruns; mdcr-eval reads it', async () => {
  const ix = await buildIndex(store);
  saveIndex(ix, join(dir, 'bm25'));
  const cli = (args: string[]) => spawnSync(process.execPath, cliArgv(args), { cwd: REPO, encoding: 'utf8' });
  const common = ['--corpus', join(dir, 'store'), '--queries-per-field', '3', '--fields', 'Med,Phy', '--pool-size', '2000'];
  const plan = cli(['mdcr', 'build', ...common, '--out', join(dir, 'out1'), '--write-plan']);
  assert.equal(plan.status, 0, plan.stderr);
  // A "model" whose run ranks the pool in reverse id order (any ranking will do).
  for (const split of ['test', 'val'])
    for (const f of ['Med', 'Phy']) {
      const qs = readFileSync(join(dir, 'out1', 'plan', split, `${f}.queries.txt`), 'utf8').trim().split('\n');
      const pool = readFileSync(join(dir, 'out1', 'plan', split, `${f}.pool.txt`), 'utf8').trim().split('\n').reverse().slice(0, 300);
      mkdirSync(join(dir, 'runs', split), { recursive: true });
      writeFileSync(join(dir, 'runs', split, `${f}.trec`), qs.flatMap((q) => pool.filter((d) => d !== q).map((d, r) => `${q} Q0 ${d} ${r + 1} ${-r} rev\n`)).join(''));
    }
  const args = (out: string) => ['mdcr', 'build', ...common, '--out', out, '--bm25-index', join(dir, 'bm25'), '--run', `rev=${join(dir, 'runs', '{split}', '{field}.trec')}`, '--threads', '1'];
  const r1 = cli(args(join(dir, 'out1')));
  assert.equal(r1.status, 0, r1.stderr);
  assert.match(r1.stderr, /only 2 model\(s\) given \(bm25, rev\)/);
  const r2 = cli(args(join(dir, 'out2')));
  assert.equal(r2.status, 0, r2.stderr);
  for (const f of ['mdcr_test.json', 'mdcr_test_data.jsonl', 'mdcr_val.json', 'mdcr_val_data.jsonl'])
    assert.ok(readFileSync(join(dir, 'out1', f)).equals(readFileSync(join(dir, 'out2', f))), `${f} identical`);
  const test = JSON.parse(readFileSync(join(dir, 'out1', 'mdcr_test.json'), 'utf8'));
  const val = JSON.parse(readFileSync(join(dir, 'out1', 'mdcr_val.json'), 'utf8'));
  for (const f of ['Medicine', 'Physics']) {
    const lists = Object.values(test[f])[0] as Record<string, string[]>;
    assert.deepEqual(Object.keys(lists), ['bm25', 'graph', 'most_cited', 'random', 'scincl', 'specter', 'rev', 'true']);
    assert.equal(lists.bm25.length, 10);
    assert.deepEqual([lists.scincl, lists.specter], [[], []]);
    for (const q of Object.keys(val[f])) assert.ok(!(q in test[f]), 'val/test disjoint');
  }
  // Scores for every pair, then mdcr-eval with a model-named candidate type.
  const scores: Record<string, number> = {};
  for (const qs of Object.values(test) as Record<string, Record<string, string[]>>[])
    for (const [qid, l] of Object.entries(qs)) Object.values(l).flat().forEach((c, i) => (scores[`${qid}_${c}`] = i % 7));
  writeFileSync(join(dir, 'scores.json'), JSON.stringify(scores));
  const ev = cli(['mdcr-eval', '--benchmark', join(dir, 'out1', 'mdcr_test.json'), '--scores', join(dir, 'scores.json'), '--candidate-type', 'rev', '--json']);
  assert.equal(ev.status, 0, ev.stderr);
  assert.equal(JSON.parse(ev.stdout).candidateType, 'rev');
  const missing = cli(['mdcr', 'build', ...common, '--out', join(dir, 'out3'), '--run', `x=${join(dir, 'nope.trec')}`]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /nope\.trec: cannot open/);
  assert.ok(FIELD_ABBREV.Medicine === 'Med');
});
