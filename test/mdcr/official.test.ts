/**
 * MDCR files the official evaluator reads: `mdcr build` writes evaluate.py's seven keys whatever models it had
 * (empty lists where a model was missing, said in notes and the build report), `mdcr-eval --official` evaluates
 * exactly what evaluate.py evaluates (checked against a transliteration of it), and `--format evaluate.py` prints
 * evaluate.py's own text (checked byte for byte against what evaluate.py printed; see fixtures/official/README.md).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { synthesize, SYNTH_DEFAULTS } from '../../src/corpus/synth.ts';
import { buildCorpusStore } from '../../src/corpus/store-build.ts';
import { CorpusStore } from '../../src/corpus/store.ts';
import { PAPER_PREFILTER } from '../../src/corpus/prefilter.ts';
import { buildIndex } from '../../src/retrieval/bm25/index.ts';
import { saveIndex } from '../../src/retrieval/bm25/index-format.ts';
import { evaluateMdcr, pyFloat } from '../../src/eval/mdcr.ts';
import { Rng } from '../../src/util/rng.ts';
import { REPO } from '../helpers/shared.ts';
import { EVALUATE_PY_NEG_TYPES, evaluatePy } from '../helpers/evaluate-py.ts';
import { cliArgv } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'cb-mdcr-official-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const FIXTURE = join(REPO, 'test', 'mdcr', 'fixtures', 'official');
const OFFICIAL = EVALUATE_PY_NEG_TYPES;
type Bench = Record<string, Record<string, Record<string, string[]>>>;

const cli = (args: string[], cwd = REPO) => spawnSync(process.execPath, cliArgv(args), { cwd, encoding: 'utf8' });
const readJson = (p: string) => JSON.parse(readFileSync(p, 'utf8'));
const common = () => ['--corpus', join(dir, 'store'), '--queries-per-field', '3', '--fields', 'Med,Phy', '--pool-size', '2000', '--threads', '1'];

/** A ranked-list run per split and field over the plan's pools, in an order given by `rank` (any ranking will do). */
function writeRuns(name: string, rank: (pool: string[]) => string[]): string {
  for (const split of ['test', 'val'])
    for (const f of ['Med', 'Phy']) {
      const plan = (k: string) => readFileSync(join(dir, 'plan', 'plan', split, `${f}.${k}.txt`), 'utf8').trim().split('\n');
      const pool = rank(plan('pool')).slice(0, 300);
      mkdirSync(join(dir, 'runs', name, split), { recursive: true });
      writeFileSync(join(dir, 'runs', name, split, `${f}.trec`), plan('queries').flatMap((q) => pool.filter((d) => d !== q).map((d, r) => `${q} Q0 ${d} ${r + 1} ${-r} ${name}\n`)).join(''));
    }
  return `${name}=${join(dir, 'runs', name, '{split}', '{field}.trec')}`;
}

test('setup: synthetic store, BM25 index, the plan the runs cover', async () => {
  await synthesize({ ...SYNTH_DEFAULTS, articles: 9000, seed: 3 }, join(dir, 'shards'));
  await buildCorpusStore({ input: join(dir, 'shards'), out: join(dir, 'store'), prefilter: PAPER_PREFILTER });
  const store = CorpusStore.open(join(dir, 'store'));
  saveIndex(await buildIndex(store), join(dir, 'bm25'));
  store.close();
  const plan = cli(['mdcr', 'build', ...common(), '--out', join(dir, 'plan'), '--write-plan']);
  assert.equal(plan.status, 0, plan.stderr);
});

test('BM25 only: all seven official keys, scincl and specter empty — said in notes and the build report', () => {
  const r = cli(['mdcr', 'build', ...common(), '--out', join(dir, 'bm25only'), '--bm25-index', join(dir, 'bm25')]);
  assert.equal(r.status, 0, r.stderr);
  for (const split of ['test', 'val']) {
    const b: Bench = readJson(join(dir, 'bm25only', `mdcr_${split}.json`));
    for (const queries of Object.values(b))
      for (const lists of Object.values(queries)) {
        assert.deepEqual(Object.keys(lists), OFFICIAL);
        assert.equal(lists.bm25.length, 10);
        assert.deepEqual([lists.scincl, lists.specter], [[], []]);
      }
  }
  const notes = r.stderr.split('\n').filter((l) => l.startsWith('note: '));
  assert.ok(notes.includes('note: official keys scincl, specter hold empty lists (scincl: no such model given; specter: no such model given): evaluate.py reads them as no candidates'), r.stderr);
  // Two of 19 fields: one line says evaluate.py cannot read it.
  assert.equal(notes.filter((n) => /official evaluate.py cannot read this benchmark/.test(n)).length, 1);
  assert.ok(notes.some((n) => n.includes("2 of the 19 fields: the official evaluate.py cannot read this benchmark (it iterates all 19 and stops with KeyError 'Art')")));
  const rep = readJson(join(dir, 'bm25only', 'mdcr_build_report.json'));
  assert.deepEqual(rep.official.keys, OFFICIAL);
  assert.deepEqual(rep.official.empty, ['scincl', 'specter']);
  assert.deepEqual(rep.official.extra, []);
  assert.equal(rep.official.fields, 2);
  assert.equal(rep.official.notes.length, 2);
  // --official on it stops where evaluate.py would, in one line; the default evaluator reads it.
  const scores: Record<string, number> = {};
  const b: Bench = readJson(join(dir, 'bm25only', 'mdcr_test.json'));
  for (const qs of Object.values(b)) for (const [q, l] of Object.entries(qs)) Object.values(l).flat().forEach((c, i) => (scores[`${q}_${c}`] = (i * 7) % 11));
  writeFileSync(join(dir, 'scores-bm25only.json'), JSON.stringify(scores));
  const ev = cli(['mdcr-eval', '--benchmark', join(dir, 'bm25only', 'mdcr_test.json'), '--scores', join(dir, 'scores-bm25only.json'), '--official']);
  assert.equal(ev.status, 2);
  assert.match(ev.stderr, /field 'Art' missing \(2 of the 19 fields present\): evaluate.py stops here with a KeyError/);
  assert.equal(ev.stderr.trim().split('\n').length, 1);
  assert.equal(cli(['mdcr-eval', '--benchmark', join(dir, 'bm25only', 'mdcr_test.json'), '--scores', join(dir, 'scores-bm25only.json')]).status, 0);
  // An empty official key has no candidate-type analysis (5 positives alone would score 100).
  const ct = cli(['mdcr-eval', '--benchmark', join(dir, 'bm25only', 'mdcr_test.json'), '--scores', join(dir, 'scores-bm25only.json'), '--candidate-type', 'scincl']);
  assert.equal(ct.status, 2);
  assert.match(ct.stderr, /candidate type 'scincl' holds no candidates/);
  const tables = cli(['mdcr', 'tables', '--benchmark', join(dir, 'bm25only', 'mdcr_test.json'), '--scores', `m=${join(dir, 'scores-bm25only.json')}`]);
  assert.equal(tables.status, 0, tables.stderr);
  assert.match(tables.stdout, /\| model \| bm25 MAP \| bm25 R@5 \| graph MAP \| graph R@5 \| most_cited MAP \| most_cited R@5 \| random MAP \| random R@5 \|\n/);
});

test('three models named as the paper\'s: every key holds candidates, no empty-key note', () => {
  const hash = (s: string) => [...s].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0, 7);
  const scincl = writeRuns('scincl', (p) => [...p].reverse());
  const specter = writeRuns('specter', (p) => [...p].sort((a, b) => hash(a) - hash(b) || (a < b ? -1 : 1)));
  const r = cli(['mdcr', 'build', ...common(), '--out', join(dir, 'three'), '--bm25-index', join(dir, 'bm25'), '--run', scincl, '--run', specter]);
  assert.equal(r.status, 0, r.stderr);
  for (const split of ['test', 'val']) {
    const b: Bench = readJson(join(dir, 'three', `mdcr_${split}.json`));
    for (const queries of Object.values(b))
      for (const lists of Object.values(queries)) {
        assert.deepEqual(Object.keys(lists), OFFICIAL);
        for (const k of OFFICIAL) assert.equal(lists[k].length, k === 'true' ? 5 : 10, k);
      }
  }
  assert.doesNotMatch(r.stderr, /empty lists|does not read/);
  assert.deepEqual(readJson(join(dir, 'three', 'mdcr_build_report.json')).official.empty, []);
});

test('another model than the paper\'s: its key is kept after the official ones, with a one-line notice', () => {
  const other = writeRuns('other', (p) => [...p].sort().reverse());
  const r = cli(['mdcr', 'build', ...common(), '--out', join(dir, 'other'), '--bm25-index', join(dir, 'bm25'), '--run', other]);
  assert.equal(r.status, 0, r.stderr);
  const b: Bench = readJson(join(dir, 'other', 'mdcr_test.json'));
  const lists = Object.values(b.Medicine)[0];
  assert.deepEqual(Object.keys(lists), ['bm25', 'graph', 'most_cited', 'random', 'scincl', 'specter', 'other', 'true']);
  assert.equal(lists.other.length, 10);
  const extra = r.stderr.split('\n').filter((l) => /keys the official evaluate.py does not read/.test(l));
  assert.deepEqual(extra, ['note: model-based candidates of other are under keys the official evaluate.py does not read (it reads only bm25, graph, most_cited, random, scincl, specter, true): there they are left out; citebench mdcr-eval evaluates them']);
  assert.deepEqual(readJson(join(dir, 'other', 'mdcr_build_report.json')).official.extra, ['other']);
});

test('--format evaluate.py prints evaluate.py\'s text byte for byte (golden printed by evaluate.py itself)', () => {
  const r = cli(['mdcr-eval', '--benchmark', 'mdcr_test.json', '--scores', 'scores_bm25.json', '--format', 'evaluate.py'], FIXTURE);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, readFileSync(join(FIXTURE, 'evaluate-py.golden.txt'), 'utf8'));
  // The fixture is what citebench writes: 19 fields, the seven keys, every key holding candidates.
  const b: Bench = readJson(join(FIXTURE, 'mdcr_test.json'));
  assert.equal(Object.keys(b).length, 19);
  for (const qs of Object.values(b)) for (const l of Object.values(qs)) assert.deepEqual(Object.keys(l), OFFICIAL);
});

test('--official gives evaluate.py\'s numbers: its key list and order, `true` winning a duplicate, other keys and fields ignored', () => {
  const bench: Bench = readJson(join(FIXTURE, 'mdcr_test.json'));
  const scores: Record<string, number> = readJson(join(FIXTURE, 'scores_bm25.json'));
  const check = (b: Bench, s: Record<string, number>) => {
    const want = evaluatePy(b, s);
    const got = evaluateMdcr(b, s, { official: true });
    for (const f of got.fields) assert.deepEqual(f.values, want.fields[f.field], f.field);
    assert.equal(got.fields.length, 19);
    assert.deepEqual(got.avg, want.avg);
    return got;
  };
  const plain = check(bench, scores);
  // Perturb: an extra key evaluate.py never reads (its candidates scored high), a positive also listed as a
  // negative (before `true` in the loop: relevant), a negative listed under two keys, a field it never visits.
  const rng = new Rng(9);
  const p: Bench = JSON.parse(JSON.stringify(bench));
  const s = { ...scores };
  for (const qs of Object.values(p))
    for (const [qid, l] of Object.entries(qs)) {
      l.extra = Array.from({ length: 10 }, (_, i) => `x${qid}-${i}`);
      for (const c of l.extra) s[`${qid}_${c}`] = 1000 + rng.next();
      l.graph[0] = l.true[0];
      l.random[1] = l.bm25[2];
    }
  const official = check(p, s);
  assert.notDeepEqual(official.avg, plain.avg, 'the duplicated positive changes the numbers');
  // The default evaluator reads every key, so the extra candidates count there, and not under --official.
  const all = evaluateMdcr(p, s);
  assert.ok(all.avg.map < official.avg.map - 1, `extra key evaluated by default (${all.avg.map}) but not by --official (${official.avg.map})`);
  const withField = { ...p, Astrology: p.Art };
  assert.deepEqual(evaluateMdcr(withField, s, { official: true }).avg, official.avg);
  assert.throws(() => evaluateMdcr(withField, s), /unknown field 'Astrology'/);
  // A key evaluate.py looks up and does not find: an error naming it (evaluate.py: KeyError).
  const missing: Bench = JSON.parse(JSON.stringify(bench));
  const [qid] = Object.keys(missing.Biology);
  delete missing.Biology[qid].specter;
  assert.throws(() => evaluatePy(missing, scores), /KeyError: 'specter'/);
  assert.throws(() => evaluateMdcr(missing, scores, { official: true }), new RegExp(`Biology / ${qid} / specter.*missing candidate list 'specter'.*evaluate.py stops here with a KeyError`));
});

test('mdcr-eval --official: json and table output, option conflicts refused in one line', () => {
  const args = ['mdcr-eval', '--benchmark', 'mdcr_test.json', '--scores', 'scores_bm25.json'];
  const j = cli([...args, '--official', '--format', 'json'], FIXTURE);
  assert.equal(j.status, 0, j.stderr);
  const out = JSON.parse(j.stdout);
  assert.equal(out.official, true);
  const want = evaluatePy(readJson(join(FIXTURE, 'mdcr_test.json')), readJson(join(FIXTURE, 'scores_bm25.json')));
  assert.deepEqual(out.AVG, want.avg);
  const t = cli([...args, '--official'], FIXTURE);
  assert.match(t.stdout, /^candidates: evaluate.py's keys \(bm25, graph, most_cited, random, scincl, specter, true\)\n/);
  for (const bad of [['--official', '--lenient'], ['--format', 'evaluate.py', '--candidate-type', 'graph'], ['--format', 'csv'], ['--json', '--format', 'table']]) {
    const r = cli([...args, ...bad], FIXTURE);
    assert.equal(r.status, 2, bad.join(' '));
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
});

test('pyFloat prints as Python prints a float64 (numpy str): shortest digits, .0 on integers', () => {
  assert.deepEqual([60, 44.399, 29.15, 0.1, 0, 0.0001, 1e-5, 1.5e-7, 1e16, 123456789012345.6].map(pyFloat),
    ['60.0', '44.399', '29.15', '0.1', '0.0', '0.0001', '1e-05', '1.5e-07', '1e+16', '123456789012345.6']);
});
