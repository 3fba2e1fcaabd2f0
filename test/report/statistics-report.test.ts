/**
 * The statistics of results.json's significance record in the report: the letter groups beside the means (a table
 * per measure and protocol), the slices tables, their LaTeX (letters as superscripts, every number printed), and
 * the stored slices, means and groups checked against the cell files.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { fabricateResults } from '../../bench/report/fabricate.ts';
import { referencesBin, significanceStage, sliceFrame, type QueryFacts } from '../../src/experiments/significance-stage.ts';
import { meanInterval } from '../../src/eval/statistics.ts';
import { renderMarkdownReport } from '../../src/report/markdown.ts';
import { readCell, readResults, type ResultsIndex } from '../../src/report/results.ts';
import { buildTables } from '../../src/report/report-tables.ts';
import { latexFiles } from '../../src/report/latex.ts';
import { intervalText, reportSlices } from '../../src/report/statistics-tables.ts';
import { fmtValue } from '../../src/report/tables.ts';
import { loadResults } from '../../src/report/frames.ts';
import { parseConfig } from '../../src/experiments/config.ts';

const PDFLATEX = '/usr/bin/pdflatex';
const skipTex = existsSync(PDFLATEX) ? false : 'no pdflatex (scripts/setup.sh installs texlive-latex-recommended)';
let tmp = '';
let res = '';
let r: ResultsIndex;

// Facts of a fake store: a field and a year from the id's digits, citation counts from the docno.
const facts: QueryFacts = {
  fieldOf: (id) => ['Biology', 'Physics', 'Art'][Number(id) % 3],
  yearOf: (id) => 2015 + (Number(id) % 4),
  citationsOf: (id) => Number(id) % 17,
};

before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'cb-stats-report-'));
  res = join(tmp, 'res');
  fabricateResults(res, {
    queries: 24, pools: [800, 1600], scale: 1, repeats: 2, models: ['bm25', 'scibert', 'specter', 'scincl', 'aspire-bm', 'aspire-cs'],
    fields: ['Biology', 'Computer Science'], fieldQueries: 8, fieldPool: 500, k: 30, cited: 5, seed: 3,
  });
  r = readResults(res);
  r.significance = significanceStage({ measures: r.measures, seed: r.seed, significance: { correction: 'bh' } }, res, r.models, r.cells, undefined, facts);
  writeFileSync(join(res, 'results.json'), JSON.stringify(r, null, 1));
});
after(() => tmp && rmSync(tmp, { recursive: true, force: true }));

test('the record: the chosen correction, means with intervals, letter groups valid for the stored Tukey p, deterministic', () => {
  const s = r.significance!;
  assert.equal(s.correction, 'bh');
  assert.ok(s.rows.every((x) => x.correction === 'bh' && x.ci95 && x.bootstrapCi95 && typeof x.effectSize === 'number'));
  assert.ok(s.rows.some((x) => x.pAdjusted !== x.pHolm), 'BH differs from Holm somewhere');
  // A dataset cell's mean with its interval, recomputed from the cell files (mean over repeats per query).
  const m = s.means!.find((x) => x.protocol === 'dataset' && x.model === 'specter' && x.poolSize === 1600 && x.measure === r.measures[0])!;
  const perQuery = new Map<string, number[]>();
  for (const c of r.cells.filter((c) => c.protocol === 'dataset' && c.model === 'specter' && c.poolSize === 1600 && c.split === 'test')) {
    const rec = readCell(res, c);
    rec.queryIds.forEach((q, i) => perQuery.set(q, [...(perQuery.get(q) ?? []), rec.perQuery[r.measures[0]][i]]));
  }
  const want = meanInterval(Float64Array.from([...perQuery.keys()].sort(), (q) => perQuery.get(q)!.reduce((a, b) => a + b, 0) / perQuery.get(q)!.length));
  assert.equal(m.queries, want.n);
  assert.ok(Math.abs(m.mean - want.mean) < 1e-12 && Math.abs(m.ci95![0] - want.ci95![0]) < 1e-12);
  // Letters: two models share one iff their Tukey p ≥ alpha.
  assert.ok(s.groups!.length >= 2 * r.measures.length);
  for (const g of s.groups!) {
    const pairs = s.allPairs!.filter((x) => x.protocol === g.protocol && x.setting === g.setting && x.measure === g.measure && x.poolSize === g.poolSize);
    assert.equal(pairs.length, 15, '6 models: 15 pairs');
    for (const p of pairs) assert.equal([...g.letters[p.a]].some((l) => g.letters[p.b].includes(l)), p.pTukey >= s.alpha, `${g.measure} ${p.a} ${p.b}`);
  }
  const again = significanceStage({ measures: r.measures, seed: r.seed, significance: { correction: 'bh' } }, res, r.models, r.cells, undefined, facts);
  assert.equal(JSON.stringify(again), JSON.stringify(s), 'the same seed: the same record');
});

test('slices: n, mean and interval per group exact against the cell files; every attribute; the notebook frames', () => {
  const rows = r.significance!.slices!;
  assert.deepEqual([...new Set(rows.map((x) => x.attribute))], ['field', 'year', 'references', 'citations']);
  // references at the dataset level, 1600 pool, bm25: recomputed straight from the cells and qrels files.
  const cells = r.cells.filter((c) => c.protocol === 'dataset' && c.poolSize === 1600 && c.split === 'test' && c.model === 'bm25');
  const measure = r.measures[0];
  const byQuery = new Map<string, number[]>();
  const refs = new Map<string, number>();
  for (const c of cells) {
    const rec = readCell(res, c);
    rec.queryIds.forEach((q, i) => byQuery.set(q, [...(byQuery.get(q) ?? []), rec.perQuery[measure][i]]));
    if (existsSync(join(res, rec.files.qrels))) {
      for (const line of readFileSync(join(res, rec.files.qrels), 'utf8').split('\n')) {
        const f = line.split(/\s+/);
        if (f.length >= 4 && Number(f[3]) > 0 && !refs.has(`${c.repeat}|${f[0]}|${f[2]}`)) refs.set(`${c.repeat}|${f[0]}|${f[2]}`, 1);
      }
    }
  }
  const fieldRows = rows.filter((x) => x.protocol === 'dataset' && x.poolSize === 1600 && x.measure === measure && x.attribute === 'field' && x.model === 'bm25');
  for (const x of fieldRows) {
    const qs = [...byQuery.keys()].filter((q) => facts.fieldOf(q) === x.slice).sort();
    const want = meanInterval(Float64Array.from(qs, (q) => byQuery.get(q)!.reduce((a, b) => a + b, 0) / byQuery.get(q)!.length));
    assert.equal(x.queries, want.n, x.slice);
    assert.ok(Math.abs(x.mean - want.mean) < 1e-12 && Math.abs(x.ci95![1] - want.ci95![1]) < 1e-12, x.slice);
  }
  assert.equal(fieldRows.reduce((a, x) => a + x.queries, 0), byQuery.size, 'every query in one field slice');
  // Differences: the baseline carries none, every other model its paired difference.
  const other = rows.find((x) => x.model === 'specter' && x.attribute === 'year')!;
  assert.equal(other.baseline, 'bm25');
  assert.ok(Number.isFinite(other.meanDiff));
  assert.equal(referencesBin(1), '1');
  assert.equal(referencesBin(4), '3–4');
  assert.equal(referencesBin(9), '9–16');
  assert.equal(referencesBin(40), '33+');
  const res2 = loadResults(res);
  assert.ok(res2.slices!.numRows() === rows.length && res2.slices!.columnNames().includes('diffLo'));
  assert.ok(res2.groups!.numRows() > 0 && res2.groups!.columnNames().includes('letters'));
  assert.ok(res2.significance!.columnNames().includes('ci95Lo') && res2.significance!.columnNames().includes('effectSize'));
  // sliceFrame on the run's per-query frame gives the stored rows back (dataset level, one pool).
  const pq = (res2.queries({ protocol: 'dataset', split: 'test' }).objects() as Record<string, unknown>[]).filter((x: Record<string, unknown>) => x.pool === 1600)
    .map((x: Record<string, unknown>) => ({ ...x, field: facts.fieldOf(String(x.query)) }));
  const f = sliceFrame(pq, { baseline: 'bm25', measures: [measure], by: 'field' }).objects() as Record<string, unknown>[];
  for (const x of fieldRows) {
    const y = f.find((z) => z.slice === x.slice && z.model === 'bm25')!;
    assert.ok(Math.abs((y.mean as number) - x.mean) < 1e-12 && y.queries === x.queries, `sliceFrame ${x.slice}`);
  }
});

test('the report: a letter-group table per measure and protocol, slices tables; Markdown and HTML show them', () => {
  const tables = buildTables(r, undefined);
  const groups = tables.filter((t) => t.id.startsWith('groups-'));
  assert.equal(groups.length, new Set(r.significance!.groups!.map((g) => `${g.protocol}|${g.measure}`)).size);
  const g = groups.find((t) => t.id === `groups-dataset-${r.measures[0].toLowerCase().replace(/[^a-z0-9]+/g, '-')}`)!;
  const stored = r.significance!.groups!.filter((x) => x.protocol === 'dataset' && x.measure === r.measures[0]).sort((a, b) => a.poolSize - b.poolSize);
  for (const row of g.rows) {
    stored.forEach((s, k) => {
      const v = row.cells[2 * k];
      const ci = row.cells[2 * k + 1];
      assert.ok(v.kind === 'value' && v.letters === s.letters[row.label] && Math.abs(v.value! - 100 * s.means[row.label]) < 1e-9);
      assert.ok(ci.kind === 'text' && ci.text === intervalText(s.ci95[row.label] ?? undefined));
    });
  }
  const slices = tables.filter((t) => t.id.startsWith('slices-'));
  // The fabricated dataset level writes no qrels files: references and citations are sliced at the field level only.
  assert.deepEqual(slices.map((t) => t.id), ['slices-field', 'slices-year']);
  assert.deepEqual(slices.map((t) => t.id), [...new Set(reportSlices(r).map((x) => `slices-${x.attribute}`))]);
  const md = renderMarkdownReport(r);
  assert.match(md, /all pairs of models, dataset level/);
  assert.match(md, /<sup>a/);
  assert.match(md, /by year/);
  assert.ok(reportSlices(r).every((x) => x.protocol === 'dataset' && x.poolSize === 1600 && x.measure === r.measures[0]));
});

test('LaTeX: the letter groups as superscripts, explained in the caption; every number of the new tables printed', { skip: skipTex }, () => {
  const tables = buildTables(r, undefined).filter((t) => /^(groups|slices)-/.test(t.id));
  const files = latexFiles(r, tables);
  const dir = join(tmp, 'tex');
  spawnSync('mkdir', ['-p', dir]);
  for (const f of files) {
    writeFileSync(join(dir, f.file), f.tex);
    const doc = f.file.replace(/\.tex$/, '-doc.tex');
    writeFileSync(join(dir, doc), `\\documentclass{article}\\usepackage{booktabs}\\usepackage{graphicx}\\begin{document}\\input{${f.file}}\\end{document}\n`);
    const p = spawnSync(PDFLATEX, ['-interaction=nonstopmode', '-halt-on-error', doc], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    assert.equal(p.status, 0, `${f.file}: ${(p.stdout.match(/^!.*(\n.*){0,4}/m) ?? [p.stdout.slice(-1500)])[0]}`);
    const text = spawnSync('pdftotext', [join(dir, doc.replace(/\.tex$/, '.pdf')), '-'], { encoding: 'utf8' }).stdout.replace(/\s+/g, ' ');
    const t = tables.find((x) => f.tex.includes(`tab:citebench-${x.id}`))!;
    for (const row of t.rows) {
      for (const c of row.cells) {
        const nums = c.kind === 'value' ? (c.value === undefined ? [] : [fmtValue(c.value)]) : c.text.match(/-?\d+(\.\d+)?/g) ?? [];
        for (const n of nums) assert.ok(text.includes(n.replace(/^-/, '')), `${t.id}: ${n} printed`);
        if (c.kind === 'value' && c.letters) assert.ok(f.tex.includes(`$^{\\mathrm{${c.letters}}}$`), `${t.id}: letters ${c.letters} as a superscript`);
      }
    }
    if (t.id.startsWith('groups-')) assert.match(text, /models sharing a letter do not differ significantly/);
  }
});

test('config: significance.correction, allPairs and slices parsed; a bad value is one line naming the key', () => {
  const base = 'name: x\nseed: 1\ncorpus: {synthetic: {articles: 6000}}\nmeasures: [MAP]\nvalidation: {queries: 4}\nmodels:\n  bm25: {}\nprotocols:\n  dataset: {queries: 4, pools: [800], repeats: 1}\n';
  const ok = parseConfig(`${base}significance: {correction: bh, allPairs: false, slices: [year, citations]}\n`, join(tmp, 'x.yaml'));
  assert.deepEqual(ok.significance, { correction: 'bh', allPairs: false, slices: ['year', 'citations'] });
  for (const [bad, msg] of [['{correction: sidak}', /significance\.correction.*unknown correction 'sidak' \(expected one of: holm, bonferroni, bh, none\)/], ['{slices: [field, colour]}', /significance\.slices\.1.*unknown query attribute 'colour'/]] as const) {
    assert.throws(() => parseConfig(`${base}significance: ${bad}\n`, join(tmp, 'x.yaml')), (e: Error) => msg.test(e.message) && !e.message.includes('\n'), bad);
  }
});
