/**
 * The report's significance marks are results.json's stored decisions by construction: every mark of every
 * marked table (Tables 1, 2, 7, 8) parsed back from the rendered HTML and report.md equals the stored row of its cell (t-test
 * mark ⇔ pHolm < 0.05, randomization mark ⇔ pRandomizationHolm < 0.05, the p-values in its title); a tampered
 * record changes the marks; a results.json of an older citebench renders without marks and says how to add them.
 * The stored rows themselves are checked against tests recomputed from the cell files.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { fabricateResults } from '../../bench/report/fabricate.ts';
import { FIELDS, FIELD_ABBREV } from '../../src/corpus/fields.ts';
import { holm, pairedTTest } from '../../src/eval/significance.ts';
import { legendOf, tableHtml } from '../../src/report/html.ts';
import { significanceStage } from '../../src/experiments/significance-stage.ts';
import { tableHeading } from '../../src/report/tables.ts';
import { renderMarkdownReport } from '../../src/report/markdown.ts';
import { loadPaperNumbers } from '../../src/report/paper-numbers.ts';
import { buildTables } from '../../src/report/report-tables.ts';
import { readCell, readResults, type ResultsIndex } from '../../src/report/results.ts';
import { significanceKey, significanceRows } from '../../src/report/significance.ts';

let tmp = '';
let r: ResultsIndex;
const paper = loadPaperNumbers();

before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'citebench-marks-'));
  fabricateResults(tmp, {
    queries: 16, pools: [800, 1600], scale: 1, repeats: 2, models: ['bm25', 'scibert', 'specter', 'scincl'],
    fields: ['Biology', 'Computer Science', 'Art'], fieldQueries: 8, fieldPool: 500, k: 30, cited: 5, seed: 11,
  });
  r = readResults(tmp);
});
after(() => rmSync(tmp, { recursive: true, force: true }));

/** Every value cell's mark and title, parsed back from a table's HTML: row label → cells (null: no sig span). */
function parseMarks(html: string): Map<string, ({ mark: string; title: string } | null)[]> {
  const rows = new Map<string, ({ mark: string; title: string } | null)[]>();
  for (const tr of html.split('<tr>').filter((x) => x.includes('scope="row"'))) {
    const label = /<span class="label">([^<]*)<\/span>/.exec(tr)![1];
    rows.set(label, [...tr.matchAll(/<td class="num[^"]*">(.*?)<\/td>/g)].map((m) => {
      const s = /<span class="sig" title="([^"]*)">([^<]*)<\/span>/.exec(m[1]);
      return s ? { title: s[1].replace(/&amp;/g, '&'), mark: s[2] } : null;
    }));
  }
  return rows;
}

/** Where each column of a marked table points: (protocol, field, pool size, measure), or null (AVG). */
function columnsOf(id: string, res: ResultsIndex) {
  const setting: 'inductive' | 'transductive' = id.endsWith('-inductive') ? 'inductive' : 'transductive';
  if (id.startsWith('table1')) {
    const sizes = [...new Set(res.cells.filter((c) => c.protocol === 'dataset').map((c) => c.poolSize))].sort((a, b) => a - b);
    return sizes.flatMap((poolSize) => res.measures.map((measure) => ({ protocol: 'dataset' as const, setting, field: null, poolSize, measure })));
  }
  const measure = ({ table2: 'MAP', table7: 'nDCG', table8: 'R@30' } as Record<string, string>)[id.replace(/-inductive$/, '')];
  const fieldCells = res.cells.filter((c) => c.protocol === 'field');
  const fields = FIELDS.filter((f) => fieldCells.some((c) => c.field === f));
  return [...fields.map((field) => ({ protocol: 'field' as const, setting, field, poolSize: fieldCells[0].poolSize, measure })), null];
}

/** report.md's marks of one table (the first Markdown table after its heading): row label → the marks after each value. */
function parseMarkdownMarks(md: string, heading: string): Map<string, ({ mark: string; title: string } | null)[]> {
  const lines = md.slice(md.indexOf(`## ${heading}`)).split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const rows = new Map<string, ({ mark: string; title: string } | null)[]>();
  for (const l of lines.slice(start + 2)) {
    if (!l.startsWith('|')) break;
    const [label, ...cells] = l.split('|').slice(1, -1).map((x) => x.trim());
    rows.set(label.replace(/ \(random weights\)$/, ''), cells.map((c) => ({ mark: /[*†]*$/.exec(c)![0], title: '' })));
  }
  return rows;
}

/**
 * Checks every mark of every marked table, in the HTML and in report.md, against the record; returns how many
 * HTML cells carried a test.
 */
function checkMarks(res: ResultsIndex): number {
  const stored = significanceRows(res);
  let tested = 0;
  const tables = buildTables(res, paper).filter((t) => /^table[1278](-inductive)?$/.test(t.id));
  assert.equal(tables.length, 4);
  const md = renderMarkdownReport(res, paper);
  for (const t of tables) {
    const cols = columnsOf(t.id, res);
    for (const [model, cells] of parseMarkdownMarks(md, tableHeading(t))) {
      assert.equal(cells.length, cols.length, `report.md ${t.id} ${model}: columns`);
      cells.forEach((got, j) => {
        const row = cols[j] && stored.get(significanceKey({ ...cols[j]!, model }))?.[0];
        assert.equal(got!.mark, row ? `${row.pHolm < 0.05 ? '*' : ''}${row.pRandomizationHolm < 0.05 ? '†' : ''}` : '', `report.md ${t.id} ${model} column ${j}`);
      });
    }
    for (const [model, cells] of parseMarks(tableHtml(t))) {
      assert.equal(cells.length, cols.length, `${t.id} ${model}: columns`);
      cells.forEach((got, j) => {
        const col = cols[j];
        const row = col && stored.get(significanceKey({ ...col, model }))?.[0];
        if (!row) return assert.equal(got, null, `${t.id} ${model} column ${j}: no stored test, no mark`);
        const want = `${row.pHolm < 0.05 ? '*' : ''}${row.pRandomizationHolm < 0.05 ? '†' : ''}`;
        assert.equal(got?.mark, want, `${t.id} ${model} column ${j}`);
        assert.ok(got!.title.includes(`over ${row.queries} queries`) && got!.title.includes(`(Holm ${row.pHolm.toPrecision(3)})`) && got!.title.includes(`(Holm ${row.pRandomizationHolm.toPrecision(3)})`), got!.title);
        tested++;
      });
    }
  }
  return tested;
}

test('every mark of Tables 1, 2, 7, 8 is the stored decision of its cell', () => {
  const n = checkMarks(r);
  // 3 models × (2 pools × 3 measures + 3 fields × 3 tables)
  assert.equal(n, 3 * (2 * 3 + 3 * 3));
  const marks = buildTables(r, paper).flatMap((t) => t.rows.flatMap((x) => x.cells)).filter((c) => c.kind === 'value' && c.sig);
  assert.ok(marks.some((c) => c.kind === 'value' && c.sig!.some((s) => s.pHolm < 0.05)) && marks.some((c) => c.kind === 'value' && c.sig!.some((s) => s.pHolm >= 0.05)), 'both decisions occur');
});

test('a tampered record changes the rendered marks', () => {
  const t = structuredClone(r);
  const s = t.significance!;
  for (const row of s.rows) {
    row.pHolm = row.pHolm < 0.05 ? 0.5 : 0.01;
    row.pRandomizationHolm = row.pRandomizationHolm < 0.05 ? 0.5 : 0.01;
    // The marks follow the record's correction (Holm here): its adjusted p-values are Holm's.
    row.pAdjusted = row.pHolm;
    row.pRandomizationAdjusted = row.pRandomizationHolm;
  }
  assert.equal(checkMarks(t), checkMarks(r));
  const before = tableHtml(buildTables(r, paper)[0]);
  const afterHtml = tableHtml(buildTables(t, paper)[0]);
  const flip = (m: string) => (m.includes('*') ? '' : '*') + (m.includes('†') ? '' : '†');
  const a = parseMarks(before);
  const b = parseMarks(afterHtml);
  for (const [model, cells] of a) cells.forEach((c, j) => assert.equal(b.get(model)![j]?.mark, c === null ? undefined : flip(c.mark), `${model} ${j}`));
  // A row removed from the record: its cell has no mark.
  const u = structuredClone(r);
  const gone = u.significance!.rows.shift()!;
  const cells = parseMarks(tableHtml(buildTables(u, paper)[0])).get(gone.model)!;
  assert.equal(cells[0], null);
});

test('the stored rows equal the tests recomputed from the cell files (Table 1, MAP: one Holm family)', () => {
  const cells = r.cells.filter((c) => c.protocol === 'dataset' && c.split === 'test');
  const perQuery = (model: string, size: number) => {
    const sum = new Map<string, number[]>();
    for (const c of cells.filter((x) => x.model === model && x.poolSize === size)) {
      const rec = readCell(tmp, c);
      rec.queryIds.forEach((q, i) => sum.set(q, [...(sum.get(q) ?? []), rec.perQuery.MAP[i]]));
    }
    return new Map([...sum].map(([q, v]) => [q, v.reduce((a, b) => a + b, 0) / v.length]));
  };
  const fam: { key: string; p: number; diff: number }[] = [];
  for (const model of ['scibert', 'specter', 'scincl']) {
    for (const size of [800, 1600]) {
      const a = perQuery(model, size);
      const b = perQuery('bm25', size);
      const qs = [...a.keys()].sort();
      const t = pairedTTest(qs.map((q) => a.get(q)!), qs.map((q) => b.get(q)!));
      fam.push({ key: significanceKey({ protocol: 'dataset', setting: 'transductive', measure: 'MAP', field: null, poolSize: size, model }), p: t.p, diff: t.meanDiff });
    }
  }
  const adj = holm(fam.map((x) => x.p));
  const stored = significanceRows(r);
  fam.forEach((x, i) => {
    const [row] = stored.get(x.key)!;
    assert.equal(row.pT, x.p, x.key);
    assert.equal(row.meanDiff, x.diff, x.key);
    assert.equal(row.pHolm, adj[i], `${x.key}: Holm over Table 1's MAP comparisons`);
  });
  assert.deepEqual(r.significance!.baselines, ['bm25']);
  assert.equal(r.significance!.rows.filter((x) => x.protocol === 'field').length, 3 * 3 * 3, 'every model × field × measure at the field level');
  assert.ok(r.significance!.rows.every((x) => x.field === null ? x.protocol === 'dataset' : FIELD_ABBREV[x.field as (typeof FIELDS)[number]] !== undefined));
});

test('a results.json of an older citebench: tables without marks, a note naming the command to rerun', () => {
  for (const old of [
    (x: ResultsIndex) => delete x.significance,
    // the record's earlier shape: beyond-paper rows only, no family
    (x: ResultsIndex) => (x.significance = { baseline: 'bm25', trials: 10000, seed: 1, rows: [] } as unknown as ResultsIndex['significance']),
  ]) {
    const t = structuredClone(r);
    old(t);
    const tables = buildTables(t, paper);
    for (const tb of tables.filter((x) => /^table[1278]$/.test(x.id))) {
      assert.ok(!tableHtml(tb).includes('class="sig"'), `${tb.id}: no marks`);
      assert.match(tb.intro, /No significance marks: this results\.json was written by an older citebench.*run `citebench run` on its config \(fabricated\) again/);
    }
    assert.match(renderMarkdownReport(t, paper), /No significance marks/);
  }
  for (const tb of buildTables(r, paper)) assert.ok(!tb.intro.includes('No significance marks'));
});

test('two baselines: results.json stores both; every cell carries a test against each, marked * † and ‡ §, and the legends say so', () => {
  const t = structuredClone(r);
  t.significance = significanceStage({ measures: t.measures, seed: t.seed, significance: { baselines: ['bm25', 'specter'] } }, tmp, t.models, t.cells);
  assert.deepEqual(t.significance.baselines, ['bm25', 'specter']);
  const rows = significanceRows(t);
  let cells = 0;
  for (const tb of buildTables(t, paper).filter((x) => /^table[1278]$/.test(x.id))) {
    const cols = columnsOf(tb.id, t);
    for (const tr of tableHtml(tb).split('<tr>').filter((x) => x.includes('scope="row"'))) {
      const model = /<span class="label">([^<]*)<\/span>/.exec(tr)![1];
      [...tr.matchAll(/<td class="num[^"]*">(.*?)<\/td>/g)].forEach((m, j) => {
        if (!cols[j]) return;
        const want = rows.get(significanceKey({ ...cols[j]!, model })) ?? [];
        const got = [...m[1].matchAll(/<span class="sig" title="vs ([^ ]+) [^"]*">([^<]*)<\/span>/g)].map((x) => ({ baseline: x[1], mark: x[2] }));
        assert.deepEqual(got.map((x) => x.baseline), want.map((x) => x.baseline), `${tb.id} ${model} column ${j}: one test per baseline, in order`);
        want.forEach((x, i) => {
          const [tm, rm] = x.baseline === 'bm25' ? ['*', '†'] : ['‡', '§'];
          assert.equal(got[i].mark, `${x.pHolm < 0.05 ? tm : ''}${x.pRandomizationHolm < 0.05 ? rm : ''}`);
        });
        if (want.length === 2) cells++;
      });
    }
    assert.match(legendOf(tb), /\* paired t-test, † paired randomization test against bm25; ‡ paired t-test, § paired randomization test against specter/);
  }
  assert.ok(cells > 0, 'models other than both baselines are tested against both');
  assert.match(renderMarkdownReport(t, paper), /Marks: `\*` paired t-test, `†` paired randomization test against bm25; `‡` paired t-test, `§` paired randomization test against specter/);
});

test('a results.json of the previous format (one baseline, rows without it) is read as it is: the same marks', () => {
  const old = structuredClone(r) as unknown as { significance: Record<string, unknown> };
  const { baselines, rows, ...rest } = r.significance!;
  old.significance = { ...rest, baseline: baselines[0], family: 'protocol, setting, measure', rows: rows.map(({ baseline: _b, ...x }) => x) };
  const dir = mkdtempSync(join(tmpdir(), 'citebench-marks-old-'));
  try {
    cpSync(tmp, dir, { recursive: true });
    writeFileSync(join(dir, 'results.json'), JSON.stringify(old));
    const back = readResults(dir);
    assert.deepEqual(back.significance, r.significance);
    assert.equal(renderMarkdownReport(back, paper), renderMarkdownReport(r, paper));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
