// `citebench run` end to end on configs/ci.yaml (a small synthetic corpus, every protocol): the results folder
// holds every run, qrels and cell; each cell's numbers equal `citebench eval` on its own files; the sampling
// rules hold as invariants against the corpus; two runs give identical bytes; a SIGKILL mid-run and a rerun
// give the files of an unbroken run; the Markdown report's numbers come from the cell files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { CorpusStore } from '../../src/corpus/store.ts';
import { FIELDS, FIELD_ABBREV, type Field } from '../../src/corpus/fields.ts';
import { fieldCited } from '../../src/sampling/pools.ts';
import { parseConfig } from '../../src/experiments/config.ts';
import { runExperiment } from '../../src/experiments/run.ts';
import { topicSetsOf } from '../../src/experiments/adhoc.ts';
import { createHash } from 'node:crypto';
import { readResults, readCell, meanOverRepeats } from '../../src/report/results.ts';
import { InputError } from '../../src/util/errors.ts';
import { compareRegressions, formatRegressionDiff, readRegressionFile, regressionRows } from '../../src/report/regressions.ts';
import { cliArgv } from '../helpers/cli.ts';

const root = new URL('../..', import.meta.url).pathname;
const CLI = join(root, 'src/cli.ts');
const CONFIG = join(root, 'configs/ci.yaml');

function cli(args: string[], env: NodeJS.ProcessEnv = {}, pre: string[] = []) {
  return spawnSync(process.execPath, pre.length ? ['--import', 'tsx', ...pre, CLI, ...args] : cliArgv(args), { encoding: 'utf8', cwd: root, env: { ...process.env, CI: 'true', ...env } });
}

function files(dir: string): string[] {
  const out: string[] = [];
  (function walk(d: string) {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  })(dir);
  return out;
}

function sameFiles(a: string, b: string, except = ['timings.json']) {
  const fa = files(a).filter((f) => !except.includes(f));
  assert.deepEqual(fa, files(b).filter((f) => !except.includes(f)));
  for (const f of fa) assert.ok(readFileSync(join(a, f)).equals(readFileSync(join(b, f))), `${f} differs`);
}

test('config: errors name the file, line and key', () => {
  const bad = (text: string, re: RegExp) => {
    assert.throws(() => parseConfig(text, 'x.yaml'), (e: unknown) => e instanceof InputError && re.test(e.message), text);
  };
  const base = 'corpus: {synthetic: {articles: 100}}\nmodels: {bm25: {}}\nprotocols:\n  dataset: {queries: 5}\n';
  assert.equal(parseConfig(base, 'x.yaml').models[0].kind, 'bm25');
  bad(base + 'colour: red\n', /^x\.yaml:5 \[colour\]: unknown key/);
  bad(base.replace('queries: 5', 'queries: -5'), /^x\.yaml:4 \[protocols\.dataset\.queries\]: must be a positive integer/);
  bad(base.replace('bm25: {}', 'bm25: {k1: fast}'), /x\.yaml:2 \[models\.bm25\.k1\]: must be a number ≥ 0/);
  bad(base.replace('corpus: {synthetic: {articles: 100}}', 'corpus: {}'), /\[corpus\]: give corpus\.store/);
  bad(base + '  mdcr: {}\n', /\[protocols\.mdcr\]: MDCR is built on the field-level protocol/);
  bad(base.replace('dataset: {queries: 5}', 'field: {fields: [Medicine, Alchemy]}'), /x\.yaml:4 \[protocols\.field\.fields\.1\]: unknown MAG field 'Alchemy'/);
  bad('models: [bm25\n', /x\.yaml:\d+: YAML syntax/);
  bad(base + 'measures: [P]\n', /\[measures\.0\]: 'P' expands to \d+ measures/);
  bad(base + 'measures: [NoSuch]\n', /\[measures\.0\]: /);
  bad(base.replace('queries: 5', 'queries: 2.5'), /\[protocols\.dataset\.queries\]: must be a positive integer/);
  bad(base.replace('queries: 5', 'queries: 5, pools: [-5]'), /\[protocols\.dataset\.pools\.0\]: must be a positive integer/);
  bad(base.replace('queries: 5', 'queries: 5, repeats: 0'), /\[protocols\.dataset\.repeats\]/);
  bad(base + 'k: 0\n', /\[k\]: must be a positive integer/);
  bad(base + 'seed: 1.5\n', /\[seed\]: must be an integer in \[0, 2\^32\)/);
  bad(base + 'seed: 4294967297\n', /\[seed\]/);
  bad(base + 'emptyLists: skip\n', /\[emptyLists\]: must be zero or error/);
  bad(base.replace('bm25: {}', 'bm25: {kind: sparse}'), /\[models\.bm25\.kind\]: must be bm25, dense, embeddings, fusion, navigation, profiler or rerank/);
  bad(base.replace('bm25: {}', 'specter: {pooling: median}'), /\[models\.specter\.pooling\]: must be aspire or cls, mean, max, lasttoken, mean_sqrt_len_tokens, weightedmean \(several joined by '\+'\), got 'median'/);
  assert.throws(() => parseConfig(base, 'x.yaml', { seed: 1.5 }), /--seed must be an integer/);
  assert.throws(() => parseConfig(base, 'x.yaml', { repeats: 0 }), /--repeats must be a positive integer/);
  // scale multiplies every paper-sized count
  const c = parseConfig(base + 'scale: 0.5\n', 'x.yaml');
  assert.equal(c.protocols.dataset!.queries, 3);
  assert.deepEqual(c.protocols.dataset!.pools, [100_000, 250_000, 500_000, 1_000_000]);
  assert.equal(c.corpus.synthetic!.articles, 50);
});

test('citebench run: results folder, exact cells, sampling invariants, determinism, resume after SIGKILL', { timeout: 600_000 }, async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'cb-run-'));
  try {
    const work = join(tmp, 'work');
    const A = join(tmp, 'A');
    let r = cli(['run', CONFIG, '--work', work, '--results', A, '--dry-run']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /cells: \d+ pool groups × 2 models/);
    assert.match(r.stdout, /estimate/);
    assert.ok(!existsSync(A), 'a dry run writes nothing');

    r = cli(['run', CONFIG, '--work', work, '--results', A]);
    assert.equal(r.status, 0, r.stderr);
    const res = readResults(A);
    // every number equals the expected value checked in (regressions/ci.json), to the last bit
    const expected = readRegressionFile(join(root, 'regressions/ci.json'));
    const got = { configHash: res.configHash, rows: regressionRows(res) };
    const drift = compareRegressions(expected, got);
    assert.ok(
      drift.length === 0,
      `configs/ci.yaml drifted from regressions/ci.json (if intended: npm run regressions:update -- ci, and commit its diff):\n${formatRegressionDiff(drift, expected.rows, got.rows)}`,
    );
    const store = CorpusStore.open(join(work, 'store'));
    try {
      // every cell has its run, qrels and record, and `citebench eval` on those files gives its means
      assert.ok(res.cells.length > 0);
      for (const c of res.cells) {
        assert.ok(existsSync(join(A, c.files.run)) && existsSync(join(A, c.files.qrels)) && existsSync(join(A, c.file)), c.file);
      }
      for (const c of res.cells.filter((_, i) => i % 7 === 0)) {
        const e = cli(['eval', '-c', '-m', 'MAP', '-m', 'nDCG', '-m', 'R@30', join(A, c.files.qrels), join(A, c.files.run)]);
        assert.equal(e.status, 0, e.stderr);
        const got = Object.fromEntries(e.stdout.trim().split('\n').map((l) => l.split(/\s+/)).map((f) => [f[0], Number(f[2])]));
        assert.equal(got.map, Number(c.means.MAP.toFixed(4)), `${c.file} MAP`);
        assert.equal(got.ndcg, Number(c.means.nDCG.toFixed(4)), `${c.file} nDCG`);
        assert.equal(got.recall_30, Number(c.means['R@30'].toFixed(4)), `${c.file} R@30`);
      }

      // sampling invariants, checked against the corpus
      const testIds = new Set<string>();
      const valIds = new Set<string>();
      for (const c of res.cells) {
        const cell = readCell(A, c);
        const qrels = readFileSync(join(A, c.files.qrels), 'utf8').trim().split('\n').map((l) => l.split(' '));
        const pool = new Set(readFileSync(join(A, c.files.run), 'utf8').trim().split('\n').map((l) => l.split(' ')[2]));
        for (const qid of cell.queryIds) {
          const q = store.indexOf(qid);
          assert.equal(store.years[q], 2019, 'queries are from the query year');
          if (c.field) assert.ok(store.fields[q] & (1 << FIELDS.indexOf(c.field as Field)), `query ${qid} is labelled ${c.field}`);
          (c.split === 'test' ? testIds : valIds).add(`${c.protocol}/${c.field}/${qid}`);
          // qrels = every article the query cites in the store (pools hold all of them)
          const cited = new Set<string>();
          for (let e = store.outOffsets[q]; e < store.outOffsets[q + 1]; e++) cited.add(store.id(store.outTargets[e]));
          assert.deepEqual(new Set(qrels.filter((l) => l[0] === qid).map((l) => l[2])), cited, `qrels of ${qid}`);
        }
        for (const doc of pool) {
          const d = store.indexOf(doc);
          assert.ok(store.years[d] <= 2019, 'candidates are from the query year or before');
        }
        assert.equal(cell.queries, cell.queryIds.length);
        assert.equal(cell.emptyLists, 0);
      }
      for (const v of valIds) assert.ok(!testIds.has(v), `validation query ${v} is also a test query`);

      // field level: a field gets one repeat exactly when its field-cited set is not larger than the pool
      const cfg = parseConfig(readFileSync(CONFIG, 'utf8'), CONFIG);
      for (const f of cfg.protocols.field!.fields) {
        const n = res.cells.filter((c) => c.protocol === 'field' && c.split === 'test' && c.field === f && c.model === 'bm25').length;
        assert.equal(res.fieldRepeats[FIELD_ABBREV[f as Field]], n);
        // the fill set: articles cited by any input record of the field (verified against the raw shards in
        // test/sampling/field-cited.test.ts), published in or before the query year
        const fill = Array.from(fieldCited(store, f)).filter((i) => store.years[i] > 0 && store.years[i] <= 2019).length;
        assert.equal(n, fill <= cfg.protocols.field!.pool ? 1 : cfg.protocols.field!.repeats, `${f}: repeat rule (${fill} field-cited articles)`);
      }
      // tuning chose a grid point on the validation split
      assert.equal(res.tuning.length, 1);
      assert.ok(res.tuning[0].grid.some((p) => p.params.k1 === res.tuning[0].chosen.k1 && p.params.b === res.tuning[0].chosen.b));
      // `citebench bm25 tune` on the same split (its topic set written as files) is the same tuner: the same
      // score at every grid point, to the last bit, and the same choice.
      const t = res.tuning[0];
      const split = topicSetsOf(cfg, store).get(t.topics!);
      const f = (name: string, lines: string[]) => (writeFileSync(join(tmp, name), lines.join('\n') + '\n'), join(tmp, name));
      const qrelsLines = Array.from(split.topics, (q, i) => Array.from(split.qrels!.docs.subarray(split.qrels!.offsets[i], split.qrels!.offsets[i + 1]), (d) => `${store.id(q)} 0 ${store.id(d)} 1`)).flat();
      const tuned = cli(['bm25', 'tune', '--index', join(work, 'bm25-index'), '--corpus', join(work, 'store'), '--k', String(cfg.k),
        '--queries', f('val.queries', Array.from(split.topics, (q) => store.id(q))), '--qrels', f('val.qrels', qrelsLines), '--pool', f('val.pool', Array.from(split.pool!, (d) => store.id(d))),
        '--k1-grid', t.params.k1.join(','), '--b-grid', t.params.b.join(','), '--measure', t.measure, '--out', join(tmp, 'tuning.json')]);
      assert.equal(tuned.status, 0, tuned.stderr);
      const cliRecord = JSON.parse(readFileSync(join(tmp, 'tuning.json'), 'utf8'));
      assert.deepEqual(cliRecord.grid, t.grid, 'every grid point scores the same');
      assert.deepEqual(cliRecord.chosen, t.chosen);

      // the report's Table 1 numbers are the cell files' means over repeats
      const report = readFileSync(join(A, 'report.md'), 'utf8');
      assert.match(report, /Synthetic corpus/);
      for (const t of ['Table 1', 'Table 2', 'Table 7', 'Table 8', 'Table 3', 'Table 4']) assert.match(report, new RegExp(`## ${t} `));
      const cellsFromFiles = res.cells.map((c) => readCell(A, c));
      const rows = meanOverRepeats(cellsFromFiles).filter((x) => x.protocol === 'dataset' && x.model === 'bm25');
      const line = report.split('\n').find((l) => l.startsWith('| bm25 |'))!;
      const printed = line.split('|').slice(2, -1).map((s) => s.trim());
      const expect = rows.sort((a, b) => a.poolSize - b.poolSize).flatMap((x) => ['MAP', 'nDCG', 'R@30'].map((m) => (100 * x.means[m]).toFixed(1)));
      assert.deepEqual(printed, expect);
    } finally {
      store.close();
    }

    // a rerun reuses every cell: `citebench regressions check` runs the config again and finds no drift
    r = cli(['regressions', 'check', 'ci', '--work', work, '--results', A]);
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /queries over/);
    assert.match(r.stderr, /\d+ rows of regressions\/ci\.json equal the run's/);
    // against a drifted copy: exit 1, one line per difference; `update` rewrites it to regressions/ci.json's bytes
    const drifted = join(tmp, 'ci.json');
    const m = /"cells\/bm25\/dataset\/800-r1": \{[^}]*"MAP":([0-9.e-]+)/.exec(readFileSync(join(root, 'regressions/ci.json'), 'utf8'))!;
    writeFileSync(drifted, readFileSync(join(root, 'regressions/ci.json'), 'utf8').replace(`"MAP":${m[1]}`, '"MAP":0.5'));
    r = cli(['regressions', 'check', 'ci', '--work', work, '--results', A, '--expected', drifted]);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`1 difference between ci\\.json .*\\nchanged  cells/bm25/dataset/800-r1  MAP: expected 0\\.5, got ${m[1].replace('.', '\\.')} `));
    r = cli(['regressions', 'update', 'ci', '--work', work, '--results', A, '--expected', drifted]);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(readFileSync(drifted).equals(readFileSync(join(root, 'regressions/ci.json'))), 'update writes the checked-in bytes');

    // same config + seed into another folder: identical bytes
    const B = join(tmp, 'B');
    r = cli(['run', CONFIG, '--work', work, '--results', B]);
    assert.equal(r.status, 0, r.stderr);
    sameFiles(A, B);

    // SIGKILL after the 5th cell, then a rerun: the files of an unbroken run
    const C = join(tmp, 'C');
    r = cli(['run', CONFIG, '--work', work, '--results', C], { KILL_AFTER_CELLS: '5' }, ['--import', join(root, 'test/experiments/fixtures/kill-after-cells.mjs')]);
    assert.equal(r.signal, 'SIGKILL', r.stderr);
    assert.ok(!existsSync(join(C, 'results.json')));
    r = cli(['run', CONFIG, '--work', work, '--results', C]);
    assert.equal(r.status, 0, r.stderr);
    sameFiles(A, C);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('citebench run: a dense model end to end (random weights, marked so) and a missing one skipped', { timeout: 300_000 }, async (t) => {
  const tiny = join(root, '../shared/models/tiny-scibert-random');
  if (!existsSync(tiny)) return t.skip(`needs ${tiny} (../shared)`);
  const tmp = mkdtempSync(join(tmpdir(), 'cb-run-dense-'));
  try {
    // A BERT checkpoint folder as the hub publishes it (safetensors + vocab.txt, no ONNX): converted on first use.
    const ckpt = join(tmp, 'random-ckpt');
    const fix = join(root, 'test/dense/fixtures/checkpoints');
    cpSync(join(fix, 'safetensors-f32-bertmodel'), ckpt, { recursive: true });
    for (const f of ['vocab.txt', 'tokenizer_config.json']) cpSync(join(fix, f), join(ckpt, f));
    const cfgPath = join(tmp, 'dense.yaml');
    writeFileSync(cfgPath, [
      'name: dense', 'seed: 3', 'corpus: {synthetic: {articles: 3000}}', 'k: 50',
      'models:', '  bm25: {}', `  tiny: {model: ${tiny}}`, `  ckpt: {model: ${ckpt}}`, '  specter: {modelsDir: ' + join(tmp, 'no-models') + '}',
      'protocols:', '  dataset: {queries: 6, pools: [500], repeats: 1}', '',
    ].join('\n'));
    const r = cli(['run', cfgPath, '--work', join(tmp, 'work'), '--results', join(tmp, 'R')]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /specter: skipped/);
    const res = readResults(join(tmp, 'R'));
    assert.deepEqual(res.models.map((m) => [m.name, m.weights]), [['bm25', 'lexical'], ['tiny', 'random'], ['ckpt', 'random']]);
    // The report's metadata names each dense model's weight files with their SHA-256: the ONNX file, or the
    // checkpoint a model was converted from.
    const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');
    assert.deepEqual(res.models.find((m) => m.name === 'tiny')!.settings.weightFiles, [{ file: 'model.onnx', sha256: sha(join(tiny, 'onnx', 'model.onnx')) }]);
    assert.deepEqual(res.models.find((m) => m.name === 'ckpt')!.settings.weightFiles, [{ file: 'model.safetensors', sha256: sha(join(ckpt, 'model.safetensors')) }]);
    assert.match(r.stderr, /converting model\.safetensors \(safetensors\) to ONNX/);
    assert.deepEqual(res.skipped.map((s) => s.name), ['specter']);
    const report = readFileSync(join(tmp, 'R', 'report.md'), 'utf8');
    assert.match(report, /\| tiny \(random weights\) \|/);
    assert.match(report, /Random weights\./);
    const cell = res.cells.find((c) => c.model === 'tiny')!;
    assert.equal(readFileSync(join(tmp, 'R', cell.files.run), 'utf8').trim().split('\n').length, 6 * 50);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('runExperiment: query exclusion lists are honoured, recorded (path, sha256, counts) and part of the cell key', { timeout: 120_000 }, async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'cb-run-excl-'));
  try {
    const text = 'name: x\nseed: 2\ncorpus: {synthetic: {articles: 4000}}\nk: 50\nmodels: {bm25: {}}\nprotocols:\n  dataset: {queries: 10, pools: [600], repeats: 1}\n';
    const work = join(tmp, 'work');
    const plain = await runExperiment(parseConfig(text, 'x.yaml', { work, results: join(tmp, 'A') }), { log: () => {} });
    const cellA = readCell(join(tmp, 'A'), plain.results.cells[0]);
    const listed = cellA.queryIds.slice(0, 4);
    const file = join(tmp, 'specter-train.txt');
    writeFileSync(file, ['# training queries', ...listed, 'not-in-store'].join('\n') + '\n');
    const cfg = parseConfig(text + `excludeQueries: [${file}]\n`, 'x.yaml', { work, results: join(tmp, 'B') });
    const ex = await runExperiment(cfg, { log: () => {} });
    assert.deepEqual(ex.results.excluded.files, [{ path: file, sha256: createHash('sha256').update(readFileSync(file)).digest('hex'), ids: 5, notInStore: 1 }]);
    const cellB = readCell(join(tmp, 'B'), ex.results.cells[0]);
    for (const id of listed) assert.ok(!cellB.queryIds.includes(id), `${id} is excluded`);
    assert.equal(cellB.queryIds.length, 10);
    assert.notEqual(cellB.key, cellA.key);
    assert.match(ex.report, /Excluded query ids: .*specter-train\.txt \(sha256 [0-9a-f]{12}…, 5 ids, 1 not in the store\)/);
    plain.store.close();
    ex.store.close();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('runExperiment: a field too small for both splits gets a smaller validation split, counted in results.json, the report and MDCR', { timeout: 180_000 }, async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'cb-run-short-'));
  try {
    const { synthesize, SYNTH_DEFAULTS } = await import('../../src/corpus/synth.ts');
    const { buildCorpusStore } = await import('../../src/corpus/store-build.ts');
    const { PAPER_PREFILTER } = await import('../../src/corpus/prefilter.ts');
    const { eligibleQueries } = await import('../../src/sampling/pools.ts');
    await synthesize({ ...SYNTH_DEFAULTS, articles: 6000, seed: 5 }, join(tmp, 'shards'));
    await buildCorpusStore({ input: join(tmp, 'shards'), out: join(tmp, 'store'), prefilter: PAPER_PREFILTER });
    const store = CorpusStore.open(join(tmp, 'store'));
    // Two fields: one with room for both splits, one whose test split leaves fewer than asked for val.
    const sizes = FIELDS.map((field) => ({ field, n: eligibleQueries(store, { field, minCited: 5 }).length })).sort((a, b) => a.n - b.n);
    const small = sizes.find((x) => x.n >= 8)!;
    const queries = Math.ceil(small.n * 0.6);
    const big = sizes.find((x) => x.n >= 2 * queries + 2)!;
    store.close();
    const text = `name: short\nseed: 3\ncorpus: {store: ${join(tmp, 'store')}}\nk: 100\nmodels: {bm25: {}}\n` +
      `protocols:\n  field: {queries: ${queries}, pool: 600, repeats: 1, fields: ["${small.field}", "${big.field}"]}\n  mdcr: {}\n`;
    const run = await runExperiment(parseConfig(text, 'x.yaml', { work: join(tmp, 'work'), results: join(tmp, 'R') }), { log: () => {} });
    const expected = { protocol: 'field', split: 'val', field: small.field, setting: 'transductive', requested: queries, sampled: small.n - queries, eligible: small.n };
    assert.deepEqual(run.results.validationShortfalls, [expected]);
    assert.deepEqual(readResults(join(tmp, 'R')).validationShortfalls, [expected]);
    const line = `field ${small.field}: ${small.n - queries} validation queries instead of ${queries} — ${small.n} articles are eligible and the test split (with any excluded ids) takes the other ${queries}`;
    assert.ok(run.report.includes(`Smaller validation split: ${line}.`), run.report.slice(0, 2000));
    // MDCR's val split holds exactly those queries; its build report and the results index say why.
    const valFile = JSON.parse(readFileSync(join(tmp, 'R', 'mdcr', 'mdcr_val.json'), 'utf8'));
    const testFile = JSON.parse(readFileSync(join(tmp, 'R', 'mdcr', 'mdcr_test.json'), 'utf8'));
    const abbrevOrName = (f: string) => Object.keys(valFile).find((k) => k === f || k === FIELD_ABBREV[f as keyof typeof FIELD_ABBREV])!;
    assert.equal(Object.keys(valFile[abbrevOrName(small.field)]).length, small.n - queries);
    assert.equal(Object.keys(valFile[abbrevOrName(big.field)]).length, queries);
    for (const q of Object.keys(valFile[abbrevOrName(small.field)])) assert.ok(!(q in testFile[abbrevOrName(small.field)]), 'val and test disjoint');
    const build = JSON.parse(readFileSync(join(tmp, 'R', 'mdcr', 'mdcr_build_report.json'), 'utf8'));
    assert.ok(build.val.notes.includes(`val: ${line}`), JSON.stringify(build.val.notes));
    assert.ok(run.results.mdcr!.notes.includes(`val: ${line}`));
    assert.equal(run.results.mdcr!.queriesPerSplit.val, small.n - queries + queries);
    run.store.close();
    // Enough room everywhere: no shortfall key at all (older results.json files stay byte-identical).
    const roomy = text.replace(`"${small.field}", `, '');
    const r2 = await runExperiment(parseConfig(roomy, 'x.yaml', { work: join(tmp, 'work'), results: join(tmp, 'R2') }), { log: () => {} });
    assert.ok(!('validationShortfalls' in r2.results));
    assert.ok(!readFileSync(join(tmp, 'R2', 'results.json'), 'utf8').includes('validationShortfalls'));
    r2.store.close();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
