/**
 * `mdcr score` on a tiny hand-made benchmark: BM25 against a brute-force BM25 written here (exact lengths),
 * dense scoring with a random-weight model (shape and determinism only), error messages, and the markdown tables.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { EnglishAnalyzer } from '../../src/retrieval/bm25/analyzer.ts';
import { mdcrPairs, readMdcrData } from '../../src/eval/mdcr-data.ts';
import { evaluateMdcr, type MdcrResult } from '../../src/eval/mdcr.ts';
import { mdcrTable3, mdcrTable4 } from '../../src/report/mdcr-tables.ts';
import { Encoder } from '../../src/retrieval/dense/encoder.ts';
import { resolveModel } from '../../src/retrieval/dense/models.ts';
import { REPO, SHARED } from '../helpers/shared.ts';
import { cliArgv } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'cb-mdcr-score-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const TINY = join(SHARED, 'models', 'tiny-scibert-random');
const cli = (args: string[]) => spawnSync(process.execPath, cliArgv(args), { cwd: REPO, encoding: 'utf8' });

const WORDS = 'protein cell graph neural network citation model gene tumor learning quantum field energy market price policy vote brain memory river soil'.split(' ');
const papers: { paper_id: string; title: string; abstract: string | null }[] = [];
for (let i = 0; i < 30; i++) {
  const w = (k: number) => WORDS[(i * 7 + k * 3) % WORDS.length];
  papers.push({ paper_id: String(1000 + i), title: `${w(0)} ${w(1)} of ${w(2)}`, abstract: i % 9 === 4 ? null : `We study ${w(1)} and ${w(3)} ${w(3)} with ${w(4)}; the ${w(5)} ${w(0)} results.` });
}
// Two fields; one query appears in both (its candidates are scored once, as the union).
const bench = {
  Biology: {
    '1000': { alpha: ['1005', '1006', '1007'], graph: ['1008', '1009'], true: ['1001', '1002', '1003', '1004', '1005'] },
    '1010': { alpha: ['1011', '1012'], graph: ['1013', '1029'], true: ['1014', '1015', '1016', '1017', '1018'] },
  },
  Physics: {
    '1000': { alpha: ['1020', '1021'], graph: ['1022'], true: ['1001', '1023', '1024', '1025', '1026'] },
  },
};

test('setup: benchmark and data files', () => {
  writeFileSync(join(dir, 'bench.json'), JSON.stringify(bench));
  writeFileSync(join(dir, 'data.jsonl'), papers.map((p) => JSON.stringify(p)).join('\n') + '\n');
});

/** Lucene BM25 (k1, b, exact lengths) from its definition, in float64. */
function bruteBm25(k1: number, b: number): Map<string, number> {
  const an = new EnglishAnalyzer();
  const terms = (p: (typeof papers)[number]) => {
    const out: string[] = [];
    an.forEachTerm(`${p.title} ${p.abstract ?? ''}`, (t: string) => out.push(t));
    return out;
  };
  const docs = papers.map(terms);
  const N = docs.filter((d) => d.length > 0).length;
  const avgdl = docs.reduce((s, d) => s + d.length, 0) / N;
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  const out = new Map<string, number>();
  const byId = new Map(papers.map((p, i) => [p.paper_id, i]));
  for (const fieldData of Object.values(bench))
    for (const [qid, lists] of Object.entries(fieldData))
      for (const cid of Object.values(lists).flat()) {
        const q = docs[byId.get(qid)!];
        const d = docs[byId.get(cid)!];
        const qtf = new Map<string, number>();
        for (const t of q) qtf.set(t, (qtf.get(t) ?? 0) + 1);
        let s = 0;
        for (const [t, boost] of qtf) {
          const tf = d.filter((x) => x === t).length;
          if (tf === 0) continue;
          const idf = Math.log(1 + (N - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
          s += (boost * idf * tf) / (tf + k1 * (1 - b + (b * d.length) / avgdl));
        }
        out.set(`${qid}_${cid}`, s);
      }
  return out;
}

test('BM25 scores every pair like a brute-force BM25 over the data file (collection = all its papers)', async () => {
  const data = readMdcrData(join(dir, 'data.jsonl'));
  const pairs = mdcrPairs(bench, data);
  assert.equal(pairs.queries.length, 2, 'the query of two fields is scored once');
  const out = join(dir, 'bm25-accurate.json');
  const r = cli(['mdcr', 'score', '--benchmark', join(dir, 'bench.json'), '--data', join(dir, 'data.jsonl'), '--model', 'bm25', '--k1', '1.2', '--b', '0.75', '--accurate', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  const got = JSON.parse(readFileSync(out, 'utf8')) as Record<string, number>;
  const want = bruteBm25(1.2, 0.75);
  assert.deepEqual(Object.keys(got).sort(), [...want.keys()].sort(), 'a score for every pair, nothing else');
  let nonzero = 0;
  for (const [k, v] of want) {
    assert.equal(Math.fround(got[k]), got[k], 'float32 value');
    assert.ok(Math.abs(got[k] - v) <= 1e-5 * Math.max(1, v), `${k}: ${got[k]} vs ${v}`);
    if (v > 0) nonzero++;
  }
  assert.ok(nonzero > 10, 'most pairs share terms');
});

test('mdcr score CLI: bm25 bytes identical across runs, keys byte-sorted, --eval prints the table; mdcr tables', () => {
  const run = (out: string) => cli(['mdcr', 'score', '--benchmark', join(dir, 'bench.json'), '--data', join(dir, 'data.jsonl'), '--model', 'bm25', '--out', out, '--eval']);
  const a = run(join(dir, 'a.json'));
  assert.equal(a.status, 0, a.stderr);
  assert.match(a.stdout, /Biology\s+2\s/);
  assert.match(a.stdout, /AVG/);
  const b = run(join(dir, 'b.json'));
  assert.equal(b.status, 0, b.stderr);
  const text = readFileSync(join(dir, 'a.json'));
  assert.ok(text.equals(readFileSync(join(dir, 'b.json'))));
  const keys = Object.keys(JSON.parse(text.toString()));
  assert.deepEqual(keys, [...keys].sort());
  const ev = cli(['mdcr-eval', '--benchmark', join(dir, 'bench.json'), '--scores', join(dir, 'a.json'), '--candidate-type', 'alpha']);
  assert.equal(ev.status, 0, ev.stderr);
  const t = cli(['mdcr', 'tables', '--benchmark', join(dir, 'bench.json'), '--scores', `bm25=${join(dir, 'a.json')}`, '--scores', `again=${join(dir, 'b.json')}`]);
  assert.equal(t.status, 0, t.stderr);
  assert.match(t.stdout, /\| field \| bm25 MAP \| bm25 R@5 \| again MAP \| again R@5 \|/);
  assert.match(t.stdout, /\| model \| alpha MAP \| alpha R@5 \| graph MAP \| graph R@5 \|/);
});

test('errors: a paper missing from the data file, a malformed data line, a missing model folder', () => {
  writeFileSync(join(dir, 'short.jsonl'), papers.filter((p) => p.paper_id !== '1029').map((p) => JSON.stringify(p)).join('\n'));
  const miss = cli(['mdcr', 'score', '--benchmark', join(dir, 'bench.json'), '--data', join(dir, 'short.jsonl'), '--model', 'bm25', '--out', join(dir, 'x.json')]);
  assert.equal(miss.status, 2);
  assert.match(miss.stderr, /bench\.json \[Biology \/ 1010 \/ graph\]: paper 1029 is not in .*short\.jsonl/);
  writeFileSync(join(dir, 'bad.jsonl'), `${JSON.stringify(papers[0])}\n{"paper_id": 5, "title": 3}\n`);
  assert.throws(() => readMdcrData(join(dir, 'bad.jsonl')), /bad\.jsonl:2 \[title\]: expected a string or null/);
  const noModel = cli(['mdcr', 'score', '--benchmark', join(dir, 'bench.json'), '--data', join(dir, 'data.jsonl'), '--model', join(dir, 'no-such-model'), '--out', join(dir, 'x.json')]);
  assert.equal(noModel.status, 2);
  assert.match(noModel.stderr, /unknown model '.*no-such-model': not one of scibert/);
  const notLocal = cli(['mdcr', 'score', '--benchmark', join(dir, 'bench.json'), '--data', join(dir, 'data.jsonl'), '--model', 'specter', '--models-dir', dir, '--out', join(dir, 'x.json')]);
  assert.equal(notLocal.status, 2);
  assert.match(notLocal.stderr, /model 'specter' \(allenai\/specter\) is not available locally/);
  assert.ok(!existsSync(join(dir, 'x.json')), 'no scores file on error');
});

test('dense scoring with a random-weight model: every pair, float32, −squared L2 (≤ 0), deterministic bytes', { skip: existsSync(TINY) ? false : `needs ${TINY}` }, async () => {
  const out = (n: string) => join(dir, n);
  const r1 = cli(['mdcr', 'score', '--benchmark', join(dir, 'bench.json'), '--data', join(dir, 'data.jsonl'), '--model', TINY, '--out', out('d1.json'), '--threads', '1']);
  assert.equal(r1.status, 0, r1.stderr);
  const r2 = cli(['mdcr', 'score', '--benchmark', join(dir, 'bench.json'), '--data', join(dir, 'data.jsonl'), '--model', TINY, '--out', out('d2.json'), '--threads', '1', '--batch', '3']);
  assert.equal(r2.status, 0, r2.stderr);
  const s1 = JSON.parse(readFileSync(out('d1.json'), 'utf8')) as Record<string, number>;
  const s2 = JSON.parse(readFileSync(out('d2.json'), 'utf8')) as Record<string, number>;
  assert.deepEqual(Object.keys(s1).sort(), [...bruteBm25(0.9, 0.4).keys()].sort());
  for (const [k, v] of Object.entries(s1)) {
    assert.equal(Math.fround(v), v);
    assert.ok(v <= 0, `${k} = ${v}`);
    assert.ok(Math.abs(v - s2[k]) <= 1e-4 * Math.max(1, -v), 'batch composition changes only float rounding');
  }
  assert.ok(readFileSync(out('d1.json')).equals(readFileSync(cli(['mdcr', 'score', '--benchmark', join(dir, 'bench.json'), '--data', join(dir, 'data.jsonl'), '--model', TINY, '--out', out('d3.json'), '--threads', '1']).status === 0 ? out('d3.json') : 'missing')), 'same input ⇒ same bytes');
  // One pair checked against vectors encoded here, one article at a time.
  const enc = await Encoder.load(resolveModel(TINY), { threads: 1 });
  const a = await enc.encode([{ title: papers[0].title, abstract: papers[0].abstract ?? '' }]);
  const c = await enc.encode([{ title: papers[5].title, abstract: papers[5].abstract ?? '' }]);
  await enc.release();
  let d2 = 0;
  for (let j = 0; j < a.dim; j++) d2 += (a.vectors[j] - c.vectors[j]) ** 2;
  assert.ok(Math.abs(s1['1000_1005'] + d2) <= 1e-4 * Math.max(1, d2), `${s1['1000_1005']} vs ${-d2}`);
});

test('markdown Table 3 (fields in paper order, AVG last) and Table 4 (models × candidate types)', () => {
  const mk = (vals: Record<string, [number, number]>, type?: string): MdcrResult => ({
    fields: Object.entries(vals).map(([field, [map, r5]]) => ({ field, queries: 1, values: { map, ndcg: 0, recall_5: r5 }, perQuery: {} as never, queryIds: [] })),
    avg: { map: 42.25, ndcg: 0, recall_5: 40.75 },
    candidateType: type,
    missingLists: 0,
  });
  const t3 = mdcrTable3([{ model: 'bm25', result: mk({ Biology: [38.3, 33.6], Art: [38.2, 32.3] }) }, { model: 'x', result: mk({ Art: [1, 2] }) }]);
  assert.equal(
    t3,
    '| field | bm25 MAP | bm25 R@5 | x MAP | x R@5 |\n|---|---:|---:|---:|---:|\n| Art | 38.2 | 32.3 | 1.0 | 2.0 |\n| Bio | 38.3 | 33.6 | – | – |\n| AVG | 42.3 | 40.8 | 42.3 | 40.8 |\n',
  );
  const t4 = mdcrTable4([{ model: 'bm25', byType: { graph: mk({ Art: [1, 1] }, 'graph'), random: mk({ Art: [1, 1] }, 'random') } }], { digits: 2 });
  assert.equal(t4, '| model | graph MAP | graph R@5 | random MAP | random R@5 |\n|---|---:|---:|---:|---:|\n| bm25 | 42.25 | 40.75 | 42.25 | 40.75 |\n');
  assert.ok(evaluateMdcr);
});

test('the published data files\' schema (SciRepEval reads key paper_id, fields title and abstract): numeric ids, absent or null texts, extra fields, a repeated id', () => {
  const lines = [
    { paper_id: 7, title: 'Numbered paper', abstract: 'An abstract.', year: 2019, mag_field_of_study: ['Biology'] },
    { paper_id: '8', title: null },
    { paper_id: '9', abstract: 'Only an abstract.', outbound_citations: ['7'] },
    { paper_id: '8', title: 'Other title', abstract: 'Other abstract.' }, // a repeat with other texts: the first is used
    { paper_id: '9', abstract: 'Only an abstract.' }, // an identical repeat: nothing to say
  ];
  writeFileSync(join(dir, 'published.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const d = readMdcrData(join(dir, 'published.jsonl'));
  assert.deepEqual(d.ids, ['7', '8', '9']);
  assert.deepEqual([0, 1, 2].map((i) => d.texts.text(i)), [
    { title: 'Numbered paper', abstract: 'An abstract.' }, { title: '', abstract: '' }, { title: '', abstract: 'Only an abstract.' },
  ]);
  assert.deepEqual(d.conflicts, { count: 1, firstLine: 4, paperId: '8' });
  // mdcr score says so in one line and scores with the first text.
  writeFileSync(join(dir, 'published.json'), JSON.stringify({ Biology: { '7': { bm25: ['8'], true: ['9'] } } }));
  const r = cli(['mdcr', 'score', '--benchmark', join(dir, 'published.json'), '--data', join(dir, 'published.jsonl'), '--model', 'bm25', '--out', join(dir, 'published-scores.json')]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /published\.jsonl: 1 line\(s\) repeat a paper id with other texts \(first: line 4, paper 8\); each id's first line is used/);
  assert.deepEqual(Object.keys(JSON.parse(readFileSync(join(dir, 'published-scores.json'), 'utf8'))), ['7_8', '7_9']);
});
