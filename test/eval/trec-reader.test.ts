/**
 * The compiled TREC reader (native/trec-reader.cc, through trec-io.ts's readQrels and readRun) against the
 * TypeScript readers it stands in for: on seeded qrels and runs full of trec_eval's lenient corners (every C
 * isspace() byte, CRLF, comment and blank lines, extra fields, long qids and docnos, a line longer than the read
 * chunk, queries split into several segments, no final newline, every form of decimal score and integer label,
 * docnos judged and not, enough docnos to grow the docno table and its filter) both give the same entries bit for
 * bit — docno ids, labels, line numbers, float32 and float64 scores, query segments, fresh docnos, run tag — and
 * the same docno table, array for array; and the compiled one really read them (it did not leave them to
 * TypeScript). On a bad line it leaves the file to TypeScript, so the error is the same InputError, and
 * CITEBENCH_TREC_READER=off reads without it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTrecTables, readQrels, readQrelsCompiled, readRun, readRunCompiled, type TrecEntries, type TrecTables } from '../../src/eval/trec-io.ts';
import { trecEvalText } from '../../src/eval/trec-eval.ts';
import { InputError } from '../../src/util/errors.ts';
import { loadAddon } from '../../src/util/native-addon.ts';

const built = process.env.CITEBENCH_TREC_READER === 'off' ? null : loadAddon('citebench_trec_reader').addon;
const skip = built ? undefined : 'the compiled TREC reader is off (CITEBENCH_TREC_READER=off) or not built here (npm run build:kernel)';

const dir = mkdtempSync(join(tmpdir(), 'citebench-scanner-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function file(content: string | Buffer): string {
  const p = join(dir, `f${n++}.txt`);
  writeFileSync(p, content);
  return p;
}

/** mulberry32: a seeded stream of [0, 1). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SCORES = ['1', '-0', '+3.5', '.5', '5.', '1e5', '1E-5', '-1.5e+3', '0.1', '123456789012345678901234', '0.000000000000000000000000001',
  '9007199254740993', '3.4028235e38', '-3.40282356e38', '1e-40', '4.9e-324', '2.2250738585072011e-308', '00000000000000000000000001.25',
  '0.30000000000000004', '3.4028235677973362e38', '1.00000000000000011102230246251565404236316680908203125', '-12.75', '7e22', '7e23'];
const SPACES = [' ', '\t', '\v', '\f', '\r', '  ', ' \t '];

/** A run with every corner the readers must agree on, and its qrels. */
function makeRun(seed: number): { qrels: string; run: Buffer } {
  const r = rng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const sp = () => pick(SPACES);
  const qids = Array.from({ length: 12 }, (_, i) => (i === 3 ? `q${'x'.repeat(300)}${i}` : `q${i}`));
  const docno = (i: number) => (i % 50 === 7 ? `D${'y'.repeat(40)}${i}` : i % 31 === 5 ? `d\u00e9${i}` : `d${i}`);
  // Judgements: labels in every form, each (qid, docno) once; seed 2 judges 6,000 docnos (the table and its
  // filter grow); the lenient corners of the format between them.
  const qrels: string[] = [];
  const LABELS = ['0', '1', '2', '+1', '-1', '-0', '007', '99999', '-123456789', '-2'];
  const judged = seed === 2 ? 500 : 8;
  for (const q of qids) {
    const seen = new Set<string>();
    for (let k = 0; k < judged; k++) {
      const d = seed === 2 && k >= 8 ? `j${qids.indexOf(q)}-${k}` : docno(Math.floor(r() * 400));
      if (seen.has(d)) continue;
      seen.add(d);
      if (r() < 0.03) qrels.push(r() < 0.5 ? '' : `#${sp()}comment 1 2 3`);
      qrels.push(`${r() < 0.1 ? sp() : ''}${q}${sp()}0${sp()}${d}${sp()}${pick(LABELS)}${r() < 0.1 ? '\r' : ''}`);
    }
  }
  const parts: Buffer[] = [];
  const line = (s: string) => parts.push(Buffer.from(s, 'latin1'));
  // Queries in an order of their own, one of them in two segments (q5 … q2 … q5).
  const order = [5, 2, 5, 0, 1, 3, 4, 6, 7, 8, 9, 10, 11];
  const used = new Map<number, Set<string>>();
  for (const qi of order) {
    const seen = used.get(qi) ?? new Set<string>();
    used.set(qi, seen);
    for (let k = 0; k < 60; k++) {
      const d = docno(Math.floor(r() * 400));
      if (seen.has(d)) continue;
      seen.add(d);
      if (r() < 0.05) line('\n');
      if (r() < 0.03) line(`# a comment${sp()}with fields\n`);
      const extra = r() < 0.1 ? `${sp()}extra${sp()}fields` : '';
      const eol = r() < 0.1 ? '\r\n' : '\n';
      const lead = r() < 0.1 ? sp() : '';
      // Corners, plain decimals of every length, and mantissas over powers of ten (fast and slow paths).
      const u = r();
      const score = u < 0.3 ? pick(SCORES) : u < 0.65 ? (r() * 2000 - 1000).toFixed(Math.floor(r() * 16)) : `${Math.floor(r() * 1e15)}e${Math.floor(r() * 60) - 40}`;
      line(`${lead}${qids[qi]}${sp()}Q0${sp()}${d}${sp()}${k + 1}${sp()}${score}${sp()}tag${qi % 3}${extra}${eol}`);
    }
  }
  // One line longer than the 1 MiB read chunk (its ignored fields), then a last line without newline.
  line(`q0 Q0 long 1 2.5 tagL ${'z'.repeat(1_200_000)}\n`);
  line(`q1${sp()}Q0${sp()}last 1 0.25 tagEnd`);
  return { qrels: `${qrels.join('\n')}${seed % 2 ? '\n' : ''}`, run: Buffer.concat(parts) };
}

function bytes(a: ArrayBufferView): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

function sameEntries(a: TrecEntries, b: TrecEntries, what: string): void {
  assert.equal(a.count, b.count, `${what}: count`);
  for (const k of ['doc', 'value', 'segQuery', 'segStart'] as const) assert.ok(bytes(a[k]).equals(bytes(b[k])) && a[k].constructor === b[k].constructor, `${what}: ${k}`);
  assert.equal(a.runId, b.runId, `${what}: run tag`);
  const da = a.docnos!;
  const db = b.docnos!;
  assert.equal(da.size, db.size, `${what}: docnos`);
  for (let id = 0; id < da.size; id++) {
    assert.equal(da.get(id), db.get(id), `${what}: docno ${id}`);
    if (id >= da.base) assert.equal(da.hash(id), db.hash(id), `${what}: hash of docno ${id}`);
  }
}

function sameQrels(a: TrecEntries, b: TrecEntries, what: string): void {
  assert.equal(a.count, b.count, `${what}: count`);
  for (const k of ['doc', 'value', 'segQuery', 'segStart', 'line'] as const) assert.ok(bytes(a[k]!).equals(bytes(b[k]!)) && a[k]!.constructor === b[k]!.constructor, `${what}: ${k}`);
}

/** The docno tables array for array (as far as they are used), and the query tables string for string. */
function sameTables(a: TrecTables, b: TrecTables, what: string): void {
  assert.equal(a.docs.size, b.docs.size, `${what}: docnos`);
  const ta = a.docs.lookupArrays();
  const tb = b.docs.lookupArrays();
  const n = a.docs.size;
  assert.ok(bytes(ta.starts.subarray(0, n + 1)).equals(bytes(tb.starts.subarray(0, n + 1))), `${what}: starts`);
  assert.ok(bytes(ta.arena.subarray(0, ta.starts[n])).equals(bytes(tb.arena.subarray(0, tb.starts[n]))), `${what}: arena`);
  assert.ok(bytes(ta.hashes.subarray(0, n)).equals(bytes(tb.hashes.subarray(0, n))), `${what}: hashes`);
  assert.ok(bytes(ta.slots).equals(bytes(tb.slots)), `${what}: slots`);
  assert.ok(bytes(ta.filter).equals(bytes(tb.filter)) && ta.filterMask === tb.filterMask, `${what}: filter`);
  const qids = (t: TrecTables) => [...Array(t.queries.size).keys()].map((i) => t.queries.get(i));
  assert.deepEqual(qids(a), qids(b), `${what}: queries`);
}

/** Read qrels and run compiled (neither may be left to TypeScript) and in TypeScript. */
function readBoth(qrelsPath: string, runPath: string, float64: boolean) {
  const compiledTables = newTrecTables();
  const compiledQrels = readQrelsCompiled(qrelsPath, compiledTables);
  const compiled = readRunCompiled(runPath, compiledTables, float64);
  const tsTables = newTrecTables();
  const tsQrels = readQrels(qrelsPath, tsTables, { typescript: true });
  const ts = readRun(runPath, tsTables, { float64, typescript: true });
  return { compiled, ts, compiledQrels, tsQrels, compiledTables, tsTables };
}

test('compiled TREC reader: the TypeScript readers\' entries and tables bit for bit on seeded qrels and runs full of corners', { skip }, () => {
  const pairs: [string, string][] = [];
  for (const seed of [1, 2, 3, 4]) {
    const { qrels, run } = makeRun(seed);
    const q = file(qrels);
    const f = file(run);
    pairs.push([q, f]);
    for (const float64 of [false, true]) {
      const { compiled, ts, compiledQrels, tsQrels, compiledTables, tsTables } = readBoth(q, f, float64);
      assert.ok(compiledQrels, `seed ${seed}: the compiled reader read the qrels itself`);
      assert.ok(compiled, `seed ${seed}: the compiled reader read the run itself`);
      sameQrels(compiledQrels, tsQrels, `seed ${seed} qrels`);
      sameEntries(compiled, ts, `seed ${seed}, float64 ${float64}`);
      sameTables(compiledTables, tsTables, `seed ${seed}`);
      if (seed === 2) assert.ok(compiledTables.docs.size > 4096, 'enough docnos to grow the filter');
      // Interning goes on in an adopted table as in the one that interned all along.
      for (const t of [compiledTables, tsTables]) for (let i = 0; i < 3000; i++) t.docs.internString(`after-${i}`);
      sameTables(compiledTables, tsTables, `seed ${seed}, interning after`);
      // 13 query blocks (q5 twice), then q0's long line and q1's last: a query in two places is two segments.
      assert.equal(compiled.segQuery.length, 15);
    }
  }
  // The printed evaluations, with the reader on here and off in one child process.
  const off = spawnSync(process.execPath, ['--import', 'tsx', '-e',
    `import('${new URL('../../src/eval/trec-eval.ts', import.meta.url).href}').then((m) => process.stdout.write(JSON.stringify(${JSON.stringify(pairs)}.map(([q, f]) => m.trecEvalText(q, f, ['all_trec'], { perQuery: true })))))`],
  { encoding: 'utf8', env: { ...process.env, CITEBENCH_TREC_READER: 'off' } });
  assert.equal(off.status, 0, off.stderr);
  const offTexts = JSON.parse(off.stdout) as string[];
  pairs.forEach(([q, f], i) => assert.equal(trecEvalText(q, f, ['all_trec'], { perQuery: true }), offTexts[i], `seed ${i + 1}: trec_eval output`));
});

test('compiled TREC reader: a bad line is left to TypeScript, which says what is wrong', { skip }, () => {
  const q = file('q1 0 a 1\nq1 0 b 0\n');
  const cases: [string, RegExp][] = [
    ['q1 Q0 a 1 3 t\nq1 Q0 b 2 3\n', /:2 \[tag\]: missing field 'tag'/],
    ['q1 Q0 a 1 abc t\n', /'abc' is not a number/],
    ['q1 Q0 a 1 1e999 t\n', /'1e999' is not a finite number/],
    ['q1 Q0 a 1 0x10 t\n', /'0x10' is not a number/],
    ['q1 Q0 a 1 inf t\n', /'inf' is not a number/],
    ['q1 Q0 a 1 3.5e38 t\n', /'3.5e38' is beyond float32's range/],
    ['q1 Q0 a 1 1.2.3 t\n', /not a number/],
  ];
  for (const [text, message] of cases) {
    const f = file(text);
    const tables = newTrecTables();
    readQrels(q, tables);
    assert.equal(readRunCompiled(f, tables, false), undefined, `${JSON.stringify(text)} is left to TypeScript`);
    assert.throws(() => readRun(f, tables), (e: unknown) => e instanceof InputError && message.test(e.message), JSON.stringify(text));
  }
  const qrelsCases: [string, RegExp][] = [
    ['q1 0 a 1\nq1 0 b\n', /:2 \[relevance\]: missing field 'relevance'/],
    ['q1 0 a 1 x\n', /:1: too many fields/],
    ['q1 0 a 1.5\n', /'1.5' is not an integer relevance label/],
    ['q1 0 a 1234567890\n', /'1234567890' is not an integer relevance label/],
    ['q1 0 a abc\n', /'abc' is not an integer relevance label/],
  ];
  for (const [text, message] of qrelsCases) {
    const f = file(text);
    assert.equal(readQrelsCompiled(f, newTrecTables()), undefined, `${JSON.stringify(text)} is left to TypeScript`);
    assert.throws(() => readQrels(f, newTrecTables()), (e: unknown) => e instanceof InputError && message.test(e.message), JSON.stringify(text));
  }
  // Nine-digit labels, the most the readers take.
  const nine = file('q1 0 a 123456789\nq1 0 b -123456789\n');
  const tsTables = newTrecTables();
  const compiledTables = newTrecTables();
  const compiledQrels = readQrelsCompiled(nine, compiledTables);
  assert.ok(compiledQrels);
  sameQrels(compiledQrels, readQrels(nine, tsTables, { typescript: true }), 'nine digits');
  sameTables(compiledTables, tsTables, 'nine digits');
  assert.deepEqual([...compiledQrels.value], [123456789, -123456789]);
  // Scores that underflow (strtod's ERANGE) are read, as TypeScript reads them: subnormal, or a signed zero.
  const tiny = file('q1 Q0 a 1 1e-400 t\nq1 Q0 b 2 -1e-400 t\nq1 Q0 c 3 4.9e-324 t\n');
  const { compiled, ts } = readBoth(q, tiny, true);
  assert.ok(compiled);
  sameEntries(compiled, ts, 'underflow');
  assert.deepEqual([...compiled.value].map((v) => (Object.is(v, -0) ? '-0' : String(v))), ['0', '-0', '5e-324']);
});
