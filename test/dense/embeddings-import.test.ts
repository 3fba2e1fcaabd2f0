// Embeddings from elsewhere: SciRepEval JSONL, .npy (versions 1–3, float32 and float16) and safetensors
// vectors import into an embedding store exactly (float16 widened exactly), ids outside the corpus are counted
// and named, and every bad input is one line naming the file and line or row; a killed import resumes; export
// writes a .npy whose header reads back and which imports to the same chunks; the retriever over imported
// vectors rejects a query without one and skips (or, strict, rejects) a pool article without one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, openSync, closeSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { CitebenchError } from '../../src/util/errors.ts';
import { importEmbeddings, type ImportCorpus } from '../../src/retrieval/dense/import/import.ts';
import { exportEmbeddings } from '../../src/retrieval/dense/import/export.ts';
import { readNpyHeader } from '../../src/retrieval/dense/import/npy.ts';
import { DenseRetriever } from '../../src/retrieval/dense/retriever.ts';
import { toHalf, decodeHalf } from '../../src/retrieval/dense/float16.ts';
import { REPO } from '../helpers/shared.ts';
import { npyBytes, safetensorsBytes, jsonlText, bytesOf, writeWithIds } from './embeddings-files.ts';
import { cliArgv } from '../helpers/cli.ts';

const N = 40; // corpus size
const D = 5;
const CHUNK = 8;
const corpusIds = Array.from({ length: N }, (_, i) => String(1000 + i * 7));
const corpus: ImportCorpus & { id(i: number): string } = {
  size: N,
  indexOf: (id) => corpusIds.indexOf(id),
  id: (i) => corpusIds[i],
};

/** Deterministic float32 values with full mantissas, negative and tiny ones included. */
function vectorsFor(rows: number): Float32Array {
  const v = new Float32Array(rows * D);
  let s = 12345;
  for (let i = 0; i < v.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    v[i] = ((s / 2 ** 32) - 0.5) * (i % 7 === 0 ? 1e-30 : 3);
  }
  return v;
}

// The file lists papers in another order than the corpus, two ids that are not in the corpus, and lacks four corpus articles.
const fileIds = [...corpusIds.slice(4).reverse(), '999999', 'not-a-paper'];
const V = vectorsFor(fileIds.length);
const tmp = () => mkdtempSync(join(tmpdir(), 'cb-emb-import-'));
const opts = (dir: string) => ({ dir, distance: 'l2' as const, chunkSize: CHUNK });

function expectedRow(id: string, v = V): Float32Array {
  const r = fileIds.indexOf(id);
  return v.subarray(r * D, (r + 1) * D);
}

async function oneLine(p: Promise<unknown>, re: RegExp) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof CitebenchError, `not a CitebenchError: ${(e as Error).stack}`);
    assert.ok(!e.message.includes('\n'), `more than one line: ${e.message}`);
    assert.match(e.message, re);
    return true;
  });
}

test('import: JSONL, .npy v1/v2/v3 and safetensors give the same store, values exact; ids outside the corpus counted and named', async () => {
  const dir = tmp();
  try {
    const files: string[] = [];
    // SciRepEval writes whatever id type the dataset has: strings here, an integer for one row.
    const jsonIds: (string | number)[] = fileIds.map((id, i) => (i === 3 ? Number(id) : id));
    writeFileSync(join(dir, 'a.jsonl'), jsonlText(jsonIds, V, D));
    files.push('a.jsonl');
    for (const version of [1, 2, 3] as const) {
      writeWithIds(join(dir, `v${version}.npy`), npyBytes('<f4', [fileIds.length, D], bytesOf(V), { version }), fileIds);
      files.push(`v${version}.npy`);
    }
    writeWithIds(join(dir, 'a.safetensors'), safetensorsBytes({ embeddings: { dtype: 'F32', shape: [fileIds.length, D], data: bytesOf(V) } }), fileIds);
    files.push('a.safetensors');
    const chunks: Map<string, Buffer>[] = [];
    for (const f of files) {
      const r = await importEmbeddings(join(dir, f), corpus, opts(join(dir, `store-${f}`)));
      assert.equal(r.rows, fileIds.length, f);
      assert.equal(r.dim, D);
      assert.equal(r.imported, N - 4, f);
      assert.deepEqual(r.notInCorpus, { count: 2, first: ['999999', 'not-a-paper'] }, f);
      assert.equal(r.written, N - 4);
      assert.equal(r.store.manifest.fingerprint, r.sha256);
      const idx = Uint32Array.from({ length: N - 4 }, (_, k) => k + 4);
      const got = r.store.load(idx).vectors;
      idx.forEach((i, k) => assert.deepEqual(got.subarray(k * D, (k + 1) * D), expectedRow(corpusIds[i]), `${f} row of ${corpusIds[i]}`));
      chunks.push(new Map(readdirSync(r.store.dir).filter((n) => n.startsWith('chunk-')).map((n) => [n, readFileSync(join(r.store.dir, n))])));
    }
    // The chunk files do not depend on the format the vectors came in.
    for (const c of chunks.slice(1)) assert.deepEqual(c, chunks[0]);
    // Importing the same file again reads nothing but its hash.
    const again = await importEmbeddings(join(dir, 'a.jsonl'), corpus, opts(join(dir, 'store-a.jsonl')));
    assert.equal(again.written, 0);
    assert.equal(again.imported, N - 4);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('import: float16 (.npy <f2, safetensors F16, BF16) widens exactly', async () => {
  const dir = tmp();
  try {
    const halves = Uint16Array.from(V, (x) => toHalf(x));
    const wide = decodeHalf(halves);
    writeWithIds(join(dir, 'h.npy'), npyBytes('<f2', [fileIds.length, D], bytesOf(halves)), fileIds);
    writeWithIds(join(dir, 'h.safetensors'), safetensorsBytes({ embeddings: { dtype: 'F16', shape: [fileIds.length, D], data: bytesOf(halves) } }), fileIds);
    const bf = Uint16Array.from(new Uint32Array(V.buffer.slice(0)), (u) => u >>> 16);
    const bfWide = new Float32Array(Uint32Array.from(bf, (h) => h << 16).buffer);
    writeWithIds(join(dir, 'b.safetensors'), safetensorsBytes({ other: { dtype: 'F32', shape: [1], data: bytesOf(Float32Array.of(1)) }, embeddings: { dtype: 'BF16', shape: [fileIds.length, D], data: bytesOf(bf) } }), fileIds);
    for (const [f, want] of [['h.npy', wide], ['h.safetensors', wide], ['b.safetensors', bfWide]] as const) {
      const r = await importEmbeddings(join(dir, f), corpus, opts(join(dir, `s-${f}`)));
      const got = r.store.load(Uint32Array.of(4, 20, 39)).vectors;
      [4, 20, 39].forEach((i, k) => assert.deepEqual(got.subarray(k * D, (k + 1) * D), expectedRow(corpusIds[i], want), `${f} ${i}`));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('import: every bad input is one line naming the file and the line or row', async () => {
  const dir = tmp();
  try {
    const run = (name: string, content: string | Uint8Array, ids?: string[]) => {
      const p = join(dir, name);
      if (ids) writeWithIds(p, content as Uint8Array, ids);
      else writeFileSync(p, content);
      return importEmbeddings(p, corpus, opts(join(dir, `s-${name}`)));
    };
    const good = jsonlText(fileIds, V, D).split('\n');
    // JSONL: wrong dimension, NaN and Infinity as Python's json writes them, malformed line, bad id, duplicate
    const wrongDim = [...good];
    wrongDim[6] = JSON.stringify({ doc_id: fileIds[6], embedding: [1, 2, 3] });
    await oneLine(run('dim.jsonl', wrongDim.join('\n')), /dim\.jsonl:7 \[embedding\]: has 3 values; the first vector \(line 1\) has 5/);
    const nan = [...good];
    nan[9] = `{"doc_id": "${fileIds[9]}", "embedding": [0.5, 1.0, NaN, 2.0, 3.0]}`;
    await oneLine(run('nan.jsonl', nan.join('\n')), /nan\.jsonl:10 \[embedding\[2\]\]: NaN is not a finite number/);
    const inf = [...good];
    inf[0] = `{"doc_id": "${fileIds[0]}", "embedding": [-Infinity, 1.0, 0.0, 2.0, 3.0]}`;
    await oneLine(run('inf.jsonl', inf.join('\n')), /inf\.jsonl:1 \[embedding\[0\]\]: -Infinity is not a finite number/);
    const big = [...good];
    big[2] = JSON.stringify({ doc_id: fileIds[2], embedding: [1, 2, 3, 1e39, 5] });
    await oneLine(run('big.jsonl', big.join('\n')), /big\.jsonl:3 \[embedding\[3\]\]: Infinity is not a finite number/);
    const bad = [...good];
    bad[4] = '{"doc_id": "x", "embedding": [1, 2,';
    await oneLine(run('bad.jsonl', bad.join('\n')), /bad\.jsonl:5: malformed JSON/);
    const noId = [...good];
    noId[1] = JSON.stringify({ paper_id: 'x', embedding: [1, 2, 3, 4, 5] });
    await oneLine(run('noid.jsonl', noId.join('\n')), /noid\.jsonl:2 \[doc_id\]: expected a paper id/);
    const dup = [...good];
    dup[12] = dup[2];
    await oneLine(run('dup.jsonl', dup.join('\n')), /dup\.jsonl:13: paper \d+ occurs twice \(first at .*dup\.jsonl:3\)/);
    // .npy: NaN row, header problems, ids
    const withNan = V.slice();
    withNan[7 * D + 1] = NaN;
    await oneLine(run('nan.npy', npyBytes('<f4', [fileIds.length, D], bytesOf(withNan)), fileIds), new RegExp(`nan\\.npy: row 7 \\(paper ${fileIds[7]}\\) \\[embedding\\[1\\]\\]: NaN is not a finite number`));
    await oneLine(run('fortran.npy', npyBytes('<f4', [fileIds.length, D], bytesOf(V), { fortran: true }), fileIds), /fortran\.npy: the array is in Fortran order; save a C-ordered copy/);
    await oneLine(run('be.npy', npyBytes('>f4', [fileIds.length, D], bytesOf(V)), fileIds), /be\.npy: big-endian is not read/);
    await oneLine(run('f8.npy', npyBytes('<f8', [fileIds.length, D], bytesOf(V)), fileIds), /f8\.npy: dtype <f8 is not read; save little-endian float32 or float16/);
    await oneLine(run('flat.npy', npyBytes('<f4', [fileIds.length * D], bytesOf(V)), fileIds), /flat\.npy: shape \(\d+,\) is not \(n, d\)/);
    await oneLine(run('short.npy', npyBytes('<f4', [fileIds.length, D], bytesOf(V)).subarray(0, 200), fileIds), /short\.npy: \d+ data bytes for shape \(38, 5\) of <f4 \(need 760\)/);
    await oneLine(run('magic.npy', Buffer.from('PK\x03\x04 not numpy at all'), fileIds), /magic\.npy: not a \.npy file/);
    await oneLine(run('v9.npy', Buffer.concat([Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 9, 0]), Buffer.alloc(60)]), fileIds), /v9\.npy: \.npy format version 9\.0/);
    await oneLine(run('few.npy', npyBytes('<f4', [fileIds.length, D], bytesOf(V)), fileIds.slice(1)), /few\.ids\.txt: 37 paper ids for the 38 rows of .*few\.npy/);
    const gap = [...fileIds];
    gap[5] = '';
    await oneLine(run('gap.npy', npyBytes('<f4', [fileIds.length, D], bytesOf(V)), gap), /gap\.ids\.txt:6: empty line/);
    writeFileSync(join(dir, 'noids.npy'), npyBytes('<f4', [fileIds.length, D], bytesOf(V)));
    await oneLine(importEmbeddings(join(dir, 'noids.npy'), corpus, opts(join(dir, 's-noids'))), /noids\.ids\.txt: no such ids file; .*noids\.npy needs its paper ids/);
    // safetensors: which tensor, its shape, a NaN row
    const st = (t: Record<string, { dtype: string; shape: number[]; data: Uint8Array }>) => safetensorsBytes(t);
    await oneLine(run('two.safetensors', st({ a: { dtype: 'F32', shape: [1], data: bytesOf(Float32Array.of(1)) }, b: { dtype: 'F32', shape: [1], data: bytesOf(Float32Array.of(1)) } }), fileIds), /two\.safetensors: no tensor named 'embeddings' among 'a', 'b'/);
    await oneLine(run('i64.safetensors', st({ embeddings: { dtype: 'I32', shape: [fileIds.length, D], data: bytesOf(V) } }), fileIds), /i64\.safetensors: tensor 'embeddings': dtype I32 is not read/);
    await oneLine(run('3d.safetensors', st({ embeddings: { dtype: 'F32', shape: [fileIds.length, 1, D], data: bytesOf(V) } }), fileIds), /3d\.safetensors: tensor 'embeddings': shape \[38,1,5\] is not \[n, d\]/);
    const infRow = V.slice();
    infRow[10 * D + 4] = -Infinity;
    await oneLine(run('inf.safetensors', st({ embeddings: { dtype: 'F32', shape: [fileIds.length, D], data: bytesOf(infRow) } }), fileIds), new RegExp(`inf\\.safetensors: row 10 \\(paper ${fileIds[10]}\\) \\[embedding\\[4\\]\\]: -Infinity is not a finite number`));
    await oneLine(run('x.parquet', 'nope'), /x\.parquet: unknown embeddings format/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('import: a killed import resumes at its first missing chunk, to the same bytes', async () => {
  const dir = tmp();
  try {
    const f = join(dir, 'a.npy');
    writeWithIds(f, npyBytes('<f4', [fileIds.length, D], bytesOf(V)), fileIds);
    const full = (await importEmbeddings(f, corpus, opts(join(dir, 'full')))).store.dir;
    // What a kill leaves: some chunks, no import.json (it is written last).
    const cut = join(dir, 'cut');
    await importEmbeddings(f, corpus, opts(cut));
    rmSync(join(cut, 'import.json'));
    rmSync(join(cut, 'chunk-000002.bin'));
    rmSync(join(cut, 'chunk-000004.bin'));
    const r = await importEmbeddings(f, corpus, opts(cut));
    assert.equal(r.written, 2 * CHUNK, 'only the two missing chunks are written');
    const bytes = (d: string) => new Map(readdirSync(d).sort().map((n) => [n, readFileSync(join(d, n))]));
    assert.deepEqual(bytes(cut), bytes(full));
    // The ids are part of the identity: the same .npy with its rows named otherwise is another import.
    const otherIds = [...fileIds];
    [otherIds[0], otherIds[1]] = [otherIds[1], otherIds[0]];
    writeFileSync(join(dir, 'other.ids.txt'), otherIds.join('\n') + '\n');
    const swapped = await importEmbeddings(f, corpus, { ...opts(join(dir, 'swapped')), ids: join(dir, 'other.ids.txt') });
    assert.notEqual(swapped.sha256, r.sha256);
    assert.deepEqual(swapped.store.load(Uint32Array.of(corpus.indexOf(fileIds[0]))).vectors, expectedRow(fileIds[1]));
    await oneLine(importEmbeddings(f, corpus, { ...opts(cut), ids: join(dir, 'other.ids.txt') }), /made with different settings: model fingerprint/);
    // Another file can never resume into this store.
    const g = join(dir, 'b.npy');
    writeWithIds(g, npyBytes('<f4', [fileIds.length, D], bytesOf(vectorsFor(fileIds.length + 1).subarray(D))), fileIds);
    rmSync(join(cut, 'import.json'));
    await oneLine(importEmbeddings(g, corpus, opts(cut)), /made with different settings: model fingerprint/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('export: a .npy whose header reads back, float32 rows in corpus order, that imports to the same chunks', async () => {
  const dir = tmp();
  try {
    const f = join(dir, 'a.jsonl');
    writeFileSync(f, jsonlText(fileIds, V, D));
    const a = await importEmbeddings(f, corpus, opts(join(dir, 'a')));
    const out = join(dir, 'x.npy');
    const e = exportEmbeddings(a.store, corpus.id, out);
    assert.deepEqual([e.rows, e.dim, e.ids], [N - 4, D, join(dir, 'x.ids.txt')]);
    const fd = openSync(out, 'r');
    const h = readNpyHeader(fd, statSync(out).size, out);
    closeSync(fd);
    assert.deepEqual([h.version, h.descr, h.shape, h.dataOffset % 64], [[1, 0], '<f4', [N - 4, D], 0]);
    const ids = readFileSync(e.ids, 'utf8').trimEnd().split('\n');
    assert.deepEqual(ids, corpusIds.slice(4));
    const data = readFileSync(out).subarray(h.dataOffset);
    const rows = new Float32Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
    ids.forEach((id, r) => assert.deepEqual(rows.subarray(r * D, (r + 1) * D), expectedRow(id)));
    const b = await importEmbeddings(out, corpus, opts(join(dir, 'b')));
    const chunks = (d: string) => new Map(readdirSync(d).filter((n) => n.startsWith('chunk-')).map((n) => [n, readFileSync(join(d, n))]));
    assert.deepEqual(chunks(b.store.dir), chunks(a.store.dir));
    assert.throws(() => exportEmbeddings(a.store, corpus.id, join(dir, 'x.bin')), /name the \.npy file to write/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('retriever over imported vectors: no vector for a query is an error; for a pool article a counted skip, or strict an error', async () => {
  const dir = tmp();
  try {
    const f = join(dir, 'a.npy');
    writeWithIds(f, npyBytes('<f4', [fileIds.length, D], bytesOf(V)), fileIds);
    const { store } = await importEmbeddings(f, corpus, opts(join(dir, 's')));
    const imported = (strict: boolean) => ({ file: f, strict, paperId: corpus.id });
    const skip = new DenseRetriever({ name: 'x', store, distance: 'l2', imported: imported(false) });
    const all = Uint32Array.from({ length: N }, (_, i) => i);
    const queries = Uint32Array.of(5, 17, 30);
    const r = await skip.search({ queries, pool: all, k: 10 });
    assert.equal(skip.lastSkipped, 4);
    // The same lists as a search over the pool of the articles that have a vector.
    const plain = new DenseRetriever({ name: 'x', store, distance: 'l2' });
    const want = await plain.search({ queries, pool: all.subarray(4), k: 10 });
    assert.deepEqual(r, want);
    await oneLine(skip.search({ queries: Uint32Array.of(5, 2, 3), pool: all, k: 10 }), new RegExp(`a\\.npy: no vector for query paper ${corpusIds[2]} \\(nor for 1 more queries\\); every query needs one`));
    const strict = new DenseRetriever({ name: 'x', store, distance: 'l2', imported: imported(true) });
    await oneLine(strict.search({ queries, pool: all, k: 10 }), new RegExp(`a\\.npy: no vector for 4 pool article\\(s\\) \\(first: paper ${corpusIds[0]}\\)`));
    assert.deepEqual(await strict.search({ queries, pool: all.subarray(4), k: 10 }), want);
    assert.notEqual(skip.fingerprint, strict.fingerprint);
    // Candidate lists (MDCR-style): an article without a vector ranks last, at −Infinity.
    const c = await skip.search({ queries: Uint32Array.of(5), candidates: [Uint32Array.of(1, 8, 9)], k: 5 });
    assert.deepEqual([c.docs[2], c.scores[2]], [1, -Infinity]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('MDCR from imported vectors: exact pair scores; a candidate without a vector ranks last and is counted, a query without one is an error', async () => {
  const dir = tmp();
  try {
    const f = join(dir, 'a.npy');
    writeWithIds(f, npyBytes('<f4', [fileIds.length, D], bytesOf(V)), fileIds);
    const { store } = await importEmbeddings(f, corpus, opts(join(dir, 's')));
    // Candidate mode over the store: corpus 5 asks for 6, 7 and 1 (no vector: the file lacks corpus 0..3).
    const imported = (strict: boolean) => ({ file: f, strict, paperId: corpus.id });
    const dense = new DenseRetriever({ name: 'x', store, distance: 'l2', imported: imported(false) });
    const r = await dense.search({ queries: Uint32Array.of(5), candidates: [Uint32Array.of(1, 6, 7)], k: 10, excludeSelf: false });
    const q = expectedRow(corpusIds[5]);
    const l2 = (id: string) => {
      const c = expectedRow(id);
      let s = 0;
      for (let j = 0; j < D; j++) s += (q[j] - c[j]) ** 2;
      return Math.fround(-s);
    };
    const byDoc = new Map(Array.from(r.docs, (d, i) => [d, r.scores[i]]));
    assert.deepEqual([byDoc.get(6), byDoc.get(7), byDoc.get(1)], [l2(corpusIds[6]), l2(corpusIds[7]), -Infinity]);
    assert.equal(r.docs[2], 1, 'the candidate without a vector ranks last');
    assert.equal(dense.lastSkipped, 1);
    const strict = new DenseRetriever({ name: 'x', store, distance: 'l2', imported: imported(true) });
    await oneLine(strict.search({ queries: Uint32Array.of(5), candidates: [Uint32Array.of(1, 6, 7)], k: 10, excludeSelf: false }), new RegExp(`no vector for 1 candidate article\\(s\\) \\(first: paper ${corpusIds[1]}\\)`));
    await oneLine(dense.search({ queries: Uint32Array.of(1), candidates: [Uint32Array.of(6)], k: 10 }), new RegExp(`no vector for query paper ${corpusIds[1]}`));

    // mdcr score --embeddings: the data file's own ids, no corpus — the same scores.
    const dataIds = [corpusIds[5], corpusIds[6], corpusIds[7], corpusIds[1]];
    writeFileSync(join(dir, 'data.jsonl'), dataIds.map((id) => JSON.stringify({ paper_id: id, title: '', abstract: '' })).join('\n') + '\n');
    const bench = (query: string, lists: Record<string, string[]>) => (writeFileSync(join(dir, 'bench.json'), JSON.stringify({ 'Computer Science': { [query]: lists } })), join(dir, 'bench.json'));
    const score = (b: string, ...extra: string[]) => spawnSync(process.execPath, cliArgv(['mdcr', 'score', '--benchmark', b, '--data', join(dir, 'data.jsonl'), '--embeddings', f, '--distance', 'l2', '--out', join(dir, 'scores.json'), ...extra]), { cwd: REPO, encoding: 'utf8', env: { ...process.env, CI: 'true' } });
    const m = score(bench(corpusIds[5], { true: [corpusIds[6]], random: [corpusIds[7], corpusIds[1]] }));
    assert.equal(m.status, 0, m.stderr);
    assert.match(m.stderr, /1 candidate\(s\) have no vector in .*a\.npy and rank last/);
    const got = JSON.parse(readFileSync(join(dir, 'scores.json'), 'utf8')) as Record<string, number>;
    assert.deepEqual([6, 7, 1].map((i) => got[`${corpusIds[5]}_${corpusIds[i]}`]), [l2(corpusIds[6]), l2(corpusIds[7]), -3.4028234663852886e38]);
    const strictRun = score(join(dir, 'bench.json'), '--strict');
    assert.equal(strictRun.status, 2, 'bad input: exit 2, as every command');
    assert.match(strictRun.stderr, /^citebench: .*no vector for 1 candidate article/);
    assert.equal(strictRun.stderr.trim().split('\n').length, 1, 'one line');
    const noQuery = score(bench(corpusIds[1], { true: [corpusIds[6]] }));
    assert.equal(noQuery.status, 2);
    assert.match(noQuery.stderr, new RegExp(`no vector for query paper ${corpusIds[1]}`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
