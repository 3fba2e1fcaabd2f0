/** TREC readers: bad input is an error naming file, line and field; trec_eval's lenient bits still parse. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTrecTables, readQrels, readRun } from '../../src/eval/trec-io.ts';
import { runToCsr, qrelsToCsr } from '../../src/eval/trec-csr.ts';
import { float32Text, float32TextByPrecision, parseDecimal } from '../../src/eval/trec-numbers.ts';
import { trecEvalText } from '../../src/eval/trec-eval.ts';
import { InputError } from '../../src/util/errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'citebench-trecio-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function file(text: string): string {
  const p = join(dir, `f${n++}.txt`);
  writeFileSync(p, text);
  return p;
}
const QRELS = file('q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n');

function loadRun(text: string) {
  const tables = newTrecTables();
  const qe = readQrels(QRELS, tables);
  const path = file(text);
  const re = readRun(path, tables);
  qrelsToCsr(qe, tables.queries.size, tables);
  return { path, csr: runToCsr(re, tables.queries.size, tables), re };
}

function expectInputError(fn: () => unknown, line: number | undefined, field: string | undefined, message: RegExp) {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof InputError, `InputError expected, got ${e}`);
    assert.equal(e.line, line);
    assert.equal(e.field, field);
    assert.match(e.message, message);
    assert.ok(e.message.startsWith(e.file), 'message names the file');
    return true;
  });
}

test('run: duplicate docno within a query names both lines', () => {
  expectInputError(() => loadRun('q1 Q0 a 1 3 t\nq2 Q0 a 1 3 t\n# comment\nq1 Q0 x 2 2 t\nq1 Q0 a 3 1 t\n'), 5, 'docno', /query 'q1' has docno 'a' retrieved twice \(first at line 1\)/);
  // A docno absent from the qrels, twice.
  expectInputError(() => loadRun('q1 Q0 zz 1 3 t\n\nq1 Q0 zz 2 2 t\n'), 3, 'docno', /'zz' retrieved twice \(first at line 1\)/);
});

test('run: non-numeric, NaN and infinite scores are errors (trec_eval would read them as 0)', () => {
  expectInputError(() => loadRun('q1 Q0 a 1 3 t\nq1 Q0 b 2 abc t\n'), 2, 'score', /'abc' is not a number/);
  expectInputError(() => loadRun('q1 Q0 a 1 NaN t\n'), 1, 'score', /'NaN' is not a number/);
  expectInputError(() => loadRun('q1 Q0 a 1 Infinity t\n'), 1, 'score', /'Infinity' is not a number/);
  expectInputError(() => loadRun('q1 Q0 a 1 -inf t\n'), 1, 'score', /not a number/);
  expectInputError(() => loadRun('q1 Q0 a 1 1e999 t\n'), 1, 'score', /'1e999' is not a finite number/);
  expectInputError(() => loadRun('q1 Q0 a 1 1.2.3 t\n'), 1, 'score', /not a number/);
  // Finite as a double but infinite as trec_eval 9.0.8's float32: named on its line, not ranked as infinity.
  expectInputError(() => loadRun('q1 Q0 a 1 3 t\nq1 Q0 b 2 -3.5e38 t\n'), 2, 'score', /'-3.5e38' is beyond float32's range/);
  const tables = newTrecTables();
  readQrels(QRELS, tables);
  assert.equal(readRun(file('q1 Q0 a 1 3.5e38 t\n'), tables, { float64: true }).value[0], 3.5e38); // trec_eval 10's doubles
});

test('run: malformed lines name the missing field', () => {
  expectInputError(() => loadRun('q1 Q0 a 1 3 t\nq1 Q0 b 2 3\n'), 2, 'tag', /missing field 'tag'/);
  expectInputError(() => loadRun('q1 Q0 a\n'), 1, 'rank', /missing field 'rank'/);
  expectInputError(() => loadRun('# only a comment\n\n'), undefined, undefined, /no run lines/);
  expectInputError(() => readRun(join(dir, 'absent.txt'), newTrecTables()), undefined, undefined, /cannot open: ENOENT/);
});

test('run: lenient like trec_eval — extra fields, tabs, blank/comment lines, CRLF, no final newline', () => {
  const { csr, re } = loadRun('q1\tQ0\ta\t1\t 2.5\tT1 extra junk\r\n\n# c\nq2 Q0 c 1 +1e-3 T2\r\nq1 Q0 b 2 -.5 T3');
  assert.equal(re.count, 3);
  assert.equal(re.runId, 'T3'); // the last line's tag
  assert.deepEqual([...csr.offsets], [0, 2, 3]);
  assert.deepEqual([...csr.scores], [2.5, Math.fround(-0.5), Math.fround(1e-3)]);
  // Every C isspace() byte separates fields; bytes above 127 belong to the token (isspace is false for them).
  const odd = loadRun('q1\vQ0\fd\u00e9x\t1 \r 4 t\nq1 Q0 d\u00e9y 2 3 t\n');
  assert.equal(odd.re.count, 2);
  assert.deepEqual([...odd.csr.scores], [4, 3]);
  const bytes = (t: string) => Buffer.from(t, 'utf8').toString('latin1'); // docnos are kept as bytes
  assert.deepEqual([...odd.re.doc].map((d) => odd.re.docnos!.get(d)), [bytes('d\u00e9x'), bytes('d\u00e9y')]);
});

test('qrels: duplicate judgements, non-integer labels and short lines are errors', () => {
  const dup = file('q1 0 a 1\nq1 0 b 0\nq1 0 a 0\n');
  const tables = newTrecTables();
  const e = readQrels(dup, tables);
  expectInputError(() => qrelsToCsr(e, tables.queries.size, tables), 3, 'docno', /query 'q1' has docno 'a' judged twice \(first at line 1\)/);
  expectInputError(() => readQrels(file('q1 0 a 1\nq1 0 b x\n'), newTrecTables()), 2, 'relevance', /'x' is not an integer/);
  expectInputError(() => readQrels(file('q1 0 a 1.5\n'), newTrecTables()), 1, 'relevance', /'1.5' is not an integer/);
  expectInputError(() => readQrels(file('q1 0 a\n'), newTrecTables()), 1, 'relevance', /missing field 'relevance'/);
  expectInputError(() => readQrels(file('q1 0 a 1 9\n'), newTrecTables()), 1, undefined, /too many fields/);
  expectInputError(() => readQrels(file(''), newTrecTables()), undefined, undefined, /no qrels lines/);
});

test('no query in both qrels and run is an error (as trec_eval)', () => {
  assert.throws(() => trecEvalText(QRELS, file('q9 Q0 a 1 1 t\n'), ['map']), /no queries with both results and relevance info/);
});

test('parseDecimal: correctly rounded, strict grammar', () => {
  const p = (s: string) => {
    const b = Buffer.from(s, 'latin1');
    return parseDecimal(b, 0, b.length);
  };
  for (const s of ['0', '1', '-2.5', '+3.', '.25', '1e3', '1.5E-7', '2.129133', '0.1', '123456789012345678901234', '9007199254740993', '4.9e-324', '1.7976931348623157e308']) {
    assert.equal(p(s), Number(s), s);
  }
  for (const s of ['', '-', '.', 'e5', '1e', '1e+', 'abc', '0x10', '1,5', 'NaN', 'inf', '1..2']) assert.ok(Number.isNaN(p(s)), s);
  assert.equal(p('1e400'), Infinity);
});

test('float32 (default, trec_eval 9.0.8) vs --trec-eval-10 doubles on a run file', () => {
  // a is relevant; a's score is larger only as a double: as float32 the two tie and docno 'b' > 'a' ranks b first.
  const run = file('q1 Q0 a 1 1.0000000001 t\nq1 Q0 b 2 1.0 t\n');
  const rr = (text: string) => text.split('\n').find((l) => l.startsWith('recip_rank'))!.split('\t')[2];
  assert.equal(rr(trecEvalText(QRELS, run, ['recip_rank'])), '0.5000');
  assert.equal(rr(trecEvalText(QRELS, run, ['recip_rank'], { trecEval10: true })), '1.0000');
});

test('float32Text (nine digits once, shorter roundings derived) equals its definition by toPrecision(1…9)', () => {
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  let s = 7;
  const next = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0);
  const xs: number[] = [0, -0, 1, -1, 0.1, 34.624446, 1e-14, 9.99999e21, 1e22];
  for (let i = 0; i < 200000; i++) {
    u[0] = next();
    if (Number.isFinite(f[0])) xs.push(f[0]); // every magnitude, the slow range included
    xs.push(Math.fround((next() % 100000000) / 1e6)); // scores as BM25 writes them
  }
  for (let e = -45; e < 40; e++) {
    for (const d of [-2, -1, 0, 1, 2]) {
      f[0] = 2 ** e;
      u[0] += d; // both sides of a power of two, where the float32 gaps differ
      xs.push(f[0], -f[0]);
    }
  }
  // Decimals whose nine digits end in a half at every shorter precision (the case toPrecision(p) decides).
  for (let e = -16; e < 24; e++) for (let m = 1; m < 400; m++) xs.push(Math.fround(m * 10 ** e), Math.fround((m + 0.5) * 10 ** e), Math.fround((m * 1000 + 5) * 10 ** (e - 4)));
  let mismatches = 0;
  for (const x of xs) if (float32Text(x) !== float32TextByPrecision(x)) assert.fail(`${x}: ${float32Text(x)} vs ${float32TextByPrecision(x)} (${++mismatches})`);
  assert.equal(float32Text(Math.fround(34.624446)), '34.624447');
  assert.equal(float32Text(Math.fround(0.1)), '0.1');
});
