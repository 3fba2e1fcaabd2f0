// `citebench export` on a real small results folder (configs/ci.yaml: two BM25 models, dataset and field level,
// tuning, MDCR). Every Parquet file is read back with hyparquet (an independent reader) and every CSV file with
// a parser written here, and each row is compared with the expected rows built in this test from results.json
// and the cell files it names — doubles compared with ===. Two exports of the same folder give the same bytes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { loadConfig } from '../../src/experiments/config.ts';
import { runExperiment } from '../../src/experiments/run.ts';
import { csvField, exportResults } from '../../src/report/export.ts';
import { loadResults } from '../../src/report/frames.ts';
import { readResults } from '../../src/report/results.ts';
import { TIDY_TABLE_NAMES } from '../../src/report/tidy.ts';
import { run as cli } from '../../src/cli/commands/export.ts';
import { CitebenchError } from '../../src/util/errors.ts';
import { tree } from '../helpers/files.ts';
import { REPO } from '../helpers/shared.ts';

type Row = Record<string, unknown>;
let tmp = '';
let dir = '';
const expected = new Map<string, { columns: string[]; rows: unknown[][] }>();

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'cb-export-'));
  const cfg = loadConfig(join(REPO, 'configs/ci.yaml'), { work: join(tmp, 'work'), results: join(tmp, 'results') });
  const out = await runExperiment(cfg, { log: () => {} });
  out.store.close();
  dir = out.resultsDir;
  // The expected tables, from the JSON files alone.
  const r = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
  const weights = new Map(r.models.map((m: Row) => [m.name, m.weights]));
  const KEY = ['model', 'weights', 'protocol', 'split', 'setting', 'field', 'task', 'pool_size', 'repeat', 'group'];
  const key = (c: Row) => [c.model, weights.get(c.model) ?? null, c.protocol, c.split, c.setting ?? 'transductive', c.field, c.task ?? null, c.poolSize, c.repeat, (c.file as string).split('/').slice(2).join('/').replace(/\.json$/, '')];
  const cells: unknown[][] = [];
  const perQuery: unknown[][] = [];
  for (const c of r.cells) {
    for (const [m, v] of Object.entries(c.means)) cells.push([...key(c), c.poolMembers, c.queries, c.emptyLists, m, v, c.file, c.files.run, c.files.qrels]);
    const rec = JSON.parse(readFileSync(join(dir, c.file), 'utf8'));
    for (const [m, vals] of Object.entries(rec.perQuery as Record<string, number[]>)) rec.queryIds.forEach((q: string, i: number) => perQuery.push([...key(c), q, m, vals[i]]));
  }
  expected.set('cells', { columns: [...KEY, 'pool_members', 'queries', 'empty_lists', 'measure', 'value', 'cell_file', 'run_file', 'qrels_file'], rows: cells });
  expected.set('per_query', { columns: [...KEY, 'query_id', 'measure', 'value'], rows: perQuery });
  expected.set('tuning', {
    // One row per grid point and parameter.
    columns: ['model', 'measure', 'queries', 'pool_size', 'point', 'param', 'value', 'score', 'chosen'],
    rows: r.tuning.flatMap((t: Row & { grid: { params: Record<string, number>; score: number }[]; chosen: Record<string, number> }) => t.grid.flatMap((g, i) => Object.entries(g.params).map(([param, value]) => [
      t.model, t.measure, t.queries, t.poolSize, i + 1, param, value, g.score, Object.keys(t.chosen).every((k) => g.params[k] === t.chosen[k]),
    ]))),
  });
  const fields: unknown[][] = [];
  const types: unknown[][] = [];
  for (const [model, e] of Object.entries(r.mdcr.results as Record<string, { all: Row; types: Record<string, Row> }>)) {
    for (const [cand, s] of [['all', e.all] as const, ...Object.entries(e.types)]) {
      const fs = s.fields as { field: string; queries: number; values: Record<string, number> }[];
      for (const f of fs) for (const [m, v] of Object.entries(f.values)) fields.push([model, cand, f.field, f.queries, m, v]);
      for (const [m, v] of Object.entries(s.avg as Record<string, number>)) types.push([model, cand, fs.reduce((n, f) => n + f.queries, 0), m, v]);
    }
  }
  expected.set('mdcr_fields', { columns: ['model', 'candidates', 'field', 'queries', 'measure', 'value'], rows: fields });
  expected.set('mdcr_types', { columns: ['model', 'candidates', 'queries', 'measure', 'value'], rows: types });
  expected.set('models', { columns: ['model', 'kind', 'weights', 'settings'], rows: r.models.map((m: Row) => [m.name, m.kind, m.weights, JSON.stringify(m.settings)]) });
});

after(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** RFC 4180 reader (quoted fields, doubled quotes, CRLF records): every field as its text. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let f = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (f += '"'), (i += 2);
      else if (ch === '"') (quoted = false), i++;
      else (f += ch), i++;
    } else if (ch === '"') (quoted = true), i++;
    else if (ch === ',') row.push(f), (f = ''), i++;
    else if (ch === '\r' && text[i + 1] === '\n') row.push(f), rows.push(row), (row = []), (f = ''), (i += 2);
    else assert.notEqual(ch, '\n', 'a bare LF outside quotes'), (f += ch), i++;
  }
  assert.equal(f, '', 'the last record ends with CRLF');
  assert.equal(row.length, 0);
  return rows;
}

/** The CSV text of an expected value: the parse of the text must give the value back exactly. */
function fromCsv(text: string, want: unknown): unknown {
  if (want === null) return text === '' ? null : text;
  if (typeof want === 'number') return Number(text);
  if (typeof want === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  return text;
}

test('Parquet: every table read back by hyparquet equals results.json and the cell files, typed columns', async () => {
  const out = join(tmp, 'pq');
  const written = exportResults(dir, { format: 'parquet', out });
  assert.deepEqual(written.map((w) => w.table), [...TIDY_TABLE_NAMES]);
  assert.ok(expected.get('per_query')!.rows.length > 500 && expected.get('mdcr_types')!.rows.length > 10);
  for (const name of TIDY_TABLE_NAMES) {
    const want = expected.get(name)!;
    const bytes = readFileSync(join(out, `${name}.parquet`));
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const meta = parquetMetadata(file);
    assert.deepEqual(meta.schema.slice(1).map((s) => s.name), want.columns, `${name}: columns`);
    for (const s of meta.schema.slice(1)) {
      const type = ['value', 'score'].includes(s.name) ? 'DOUBLE' : s.name === 'chosen' ? 'BOOLEAN' : ['pool_size', 'repeat', 'pool_members', 'queries', 'empty_lists', 'point'].includes(s.name) ? 'INT32' : 'BYTE_ARRAY';
      assert.equal(s.type, type, `${name}.${s.name}: type`);
      assert.equal(s.repetition_type, ['cells', 'per_query'].includes(name) && ['field', 'weights', 'task'].includes(s.name) ? 'OPTIONAL' : 'REQUIRED', `${name}.${s.name}: nullability`);
    }
    const rows = (await parquetReadObjects({ file })) as Row[];
    assert.equal(rows.length, want.rows.length, `${name}: rows`);
    assert.equal(written.find((w) => w.table === name)!.rows, want.rows.length);
    rows.forEach((row, i) => want.columns.forEach((c, j) => assert.equal(row[c], want.rows[i][j], `${name} row ${i} ${c}`)));
  }
});

test('CSV: RFC 4180, every field reads back as the value of results.json (doubles round-trip exactly)', () => {
  const out = join(tmp, 'csv');
  exportResults(dir, { format: 'csv', out });
  for (const name of TIDY_TABLE_NAMES) {
    const want = expected.get(name)!;
    const [head, ...rows] = parseCsv(readFileSync(join(out, `${name}.csv`), 'utf8'));
    assert.deepEqual(head, want.columns);
    assert.equal(rows.length, want.rows.length, `${name}: rows`);
    rows.forEach((row, i) => want.rows[i].forEach((v, j) => assert.equal(fromCsv(row[j], v), v, `${name} row ${i} ${want.columns[j]}: '${row[j]}'`)));
  }
  // The models' settings are JSON: quoted, inner quotes doubled.
  assert.match(readFileSync(join(out, 'models.csv'), 'utf8'), /,"\{""k1"":0\.9,""b"":0\.4,/);
});

test('csvField: quoting and numbers', () => {
  assert.equal(csvField('a,b'), '"a,b"');
  assert.equal(csvField('say "x"'), '"say ""x"""');
  assert.equal(csvField('two\nlines'), '"two\nlines"');
  assert.equal(csvField('Čćž'), 'Čćž');
  assert.equal(csvField(null), '');
  assert.equal(csvField(0.1 + 0.2), '0.30000000000000004');
  assert.equal(csvField(1e-7), '1e-7');
  assert.equal(csvField(-0), '-0');
  assert.equal(csvField(false), 'false');
  for (const x of [Math.PI, 1 / 3, 5e-324, 1.7976931348623157e308, 0.6179439784753351]) assert.equal(Number(csvField(x)), x);
});

test('same results ⇒ byte-identical files, in both formats; the CLI writes the same', async () => {
  for (const format of ['parquet', 'csv'] as const) {
    const a = join(tmp, `det-${format}-a`);
    const b = join(tmp, `det-${format}-b`);
    exportResults(dir, { format, out: a });
    const log = console.log;
    console.log = () => {};
    try {
      assert.equal(await cli([dir, '--format', format, '--out', b]), 0);
    } finally {
      console.log = log;
    }
    const ta = tree(a);
    const tb = tree(b);
    assert.deepEqual([...ta.keys()].sort(), TIDY_TABLE_NAMES.map((n) => `${n}.${format}`).sort());
    for (const [f, bytes] of ta) assert.ok(bytes.equals(tb.get(f)!), `${format}: ${f} differs between two exports`);
  }
});

test('notebook API: tidy() is the exported table; tuning and models frames come from it', () => {
  const res = loadResults(dir);
  for (const name of TIDY_TABLE_NAMES) {
    const want = expected.get(name)!;
    const t = res.tidy(name);
    assert.deepEqual(t.columnNames(), want.columns);
    const rows = t.objects() as Row[];
    assert.equal(rows.length, want.rows.length);
    rows.forEach((row, i) => want.columns.forEach((c, j) => assert.equal(row[c], want.rows[i][j], `${name} row ${i} ${c}`)));
  }
  // The frame: one row per grid point, a column per parameter.
  assert.deepEqual(res.tuning.columnNames(), ['model', 'measure', 'queries', 'pool', 'point', 'score', 'chosen', 'k1', 'b']);
  const points = res.tuning.objects() as Row[];
  const t = readResults(dir).tuning[0];
  assert.deepEqual(points.map((p) => [p.k1, p.b, p.score]), t.grid.map((g) => [g.params.k1, g.params.b, g.score]));
  assert.throws(() => res.tidy('nope' as never), CitebenchError);
});

test('bad input: one line naming the folder or the option', async () => {
  const empty = join(tmp, 'empty');
  assert.throws(() => exportResults(empty, { format: 'csv' }), (e: Error) => e instanceof CitebenchError && /no results\.json/.test(e.message));
  await assert.rejects(cli([dir, '--format', 'xlsx']), (e: Error) => e instanceof CitebenchError && /--format must be parquet or csv, got 'xlsx'/.test(e.message));
  await assert.rejects(cli([dir]), (e: Error) => e instanceof CitebenchError && /--format must be parquet or csv/.test(e.message));
});
