// Checkpoint readers against what PyTorch saved: the fixtures (scripts/dev/make-checkpoint-fixtures.py) hold the
// same random BERT as safetensors, zip and legacy pytorch_model.bin (zip-views pickled with protocol 4), float32 and float16, BertModel and
// BertForPreTraining keys, each with a manifest of every tensor's dtype, shape and sha256 of its float32 values as
// torch loads them back. Bad files (a pickle naming os.system, unknown opcodes, truncation, damaged headers,
// missing shards) must fail with one line naming the file, without running anything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { checkpointFiles, readCheckpoint } from '../../src/retrieval/dense/checkpoint/index.ts';
import { readSafetensorsFile } from '../../src/retrieval/dense/checkpoint/safetensors.ts';
import { unpickle } from '../../src/retrieval/dense/checkpoint/unpickle.ts';
import { CitebenchError } from '../../src/util/errors.ts';

const ROOT = new URL('./fixtures/checkpoints', import.meta.url).pathname;
const CASES = readdirSync(ROOT).filter((c) => existsSync(join(ROOT, c, 'manifest.json')));

interface Manifest {
  tensors: Record<string, { dtype: string; shape: number[]; sha256: string; sum: number; samples: [number, number][] }>;
  tied: string[][];
}
const manifest = (c: string): Manifest => JSON.parse(readFileSync(join(ROOT, c, 'manifest.json'), 'utf8')) as Manifest;
const sha = (v: Float32Array): string => createHash('sha256').update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength)).digest('hex');
const tmp = (): string => mkdtempSync(join(tmpdir(), 'cb-ckpt-'));

/** The error `fn` throws: a CitebenchError of one line naming `file`. */
function oneLineError(fn: () => unknown, file: string, pattern: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof CitebenchError, `not a CitebenchError: ${String(e)}`);
    assert.ok(!e.message.includes('\n'), `more than one line: ${e.message}`);
    assert.ok(e.message.includes(file), `does not name ${file}: ${e.message}`);
    assert.match(e.message, pattern);
    return true;
  });
}

test('the fixtures cover every format, dtype and key layout', () => {
  const names = CASES.join(' ');
  for (const v of ['safetensors-', 'zip-', 'legacy-', '-f32-', '-f16-', '-bertmodel', '-pretraining']) assert.ok(names.includes(v), v);
  assert.ok(CASES.length >= 8);
});

for (const c of CASES) {
  test(`${c}: every tensor equals what PyTorch saved`, () => {
    const m = manifest(c);
    const ck = readCheckpoint(join(ROOT, c));
    assert.equal(ck.format, c.startsWith('safetensors') ? 'safetensors' : c.startsWith('zip') ? 'torch-zip' : 'torch-legacy');
    assert.deepEqual([...ck.tensors.keys()].sort(), Object.keys(m.tensors).sort());
    for (const [name, e] of Object.entries(m.tensors)) {
      const t = ck.tensors.get(name)!;
      assert.equal(t.dtype, e.dtype, name);
      assert.deepEqual([...t.shape], e.shape, name);
      const v = t.float32();
      assert.equal(v.length, e.shape.reduce((a, b) => a * b, 1), name);
      for (const [i, x] of e.samples) assert.equal(v[i], x, `${name}[${i}]`);
      assert.equal(sha(v), e.sha256, `${name}: values differ from torch's`);
    }
  });
}

test('BertModel and BertForPreTraining key layouts; tied decoder weights read the shared storage', () => {
  const bm = readCheckpoint(join(ROOT, 'zip-f16-bertmodel'));
  assert.ok(bm.tensors.has('embeddings.word_embeddings.weight'));
  assert.ok(bm.tensors.has('encoder.layer.1.output.LayerNorm.bias'));
  assert.deepEqual([...bm.tensors.get('embeddings.word_embeddings.weight')!.shape], [31090, 16]);
  for (const c of ['zip-f32-pretraining', 'legacy-f32-pretraining']) {
    const pt = readCheckpoint(join(ROOT, c));
    assert.deepEqual(manifest(c).tied, [
      ['bert.embeddings.word_embeddings.weight', 'cls.predictions.decoder.weight'],
      ['cls.predictions.bias', 'cls.predictions.decoder.bias'],
    ]);
    for (const k of ['bert.embeddings.word_embeddings.weight', 'cls.predictions.transform.dense.weight', 'cls.seq_relationship.weight']) assert.ok(pt.tensors.has(k), `${c}: ${k}`);
    assert.deepEqual(pt.tensors.get('cls.predictions.decoder.weight')!.float32(), pt.tensors.get('bert.embeddings.word_embeddings.weight')!.float32());
  }
  // The legacy pretraining case carries the int64 position_ids buffer of transformers 3.x-4.30 checkpoints.
  const ids = readCheckpoint(join(ROOT, 'legacy-f32-pretraining')).tensors.get('bert.embeddings.position_ids')!;
  assert.equal(ids.dtype, 'I64');
  assert.equal(ids.float32()[511], 511);
});

test('float16 checkpoints widen exactly: the f16 weights are the f32 weights rounded to binary16', () => {
  const f32 = readCheckpoint(join(ROOT, 'safetensors-f32-bertmodel')).tensors.get('encoder.layer.0.attention.self.query.weight')!.float32();
  for (const c of ['zip-f16-bertmodel', 'legacy-f16-bertmodel']) {
    const t = readCheckpoint(join(ROOT, c)).tensors.get('encoder.layer.0.attention.self.query.weight')!;
    assert.equal(t.dtype, 'F16');
    const f16 = t.float32();
    for (let i = 0; i < f32.length; i++) {
      // Round-to-nearest to 11 significant bits (values here are normal halves): the error is at most half an ulp.
      const ulp = 2 ** (Math.floor(Math.log2(Math.abs(f32[i]!))) - 10);
      assert.ok(Math.abs(f16[i]! - f32[i]!) <= ulp / 2, `${c}[${i}]: ${f16[i]} vs ${f32[i]}`);
      assert.equal(Math.round(f16[i]! / ulp) * ulp, f16[i], `${c}[${i}] is not a binary16 value`);
    }
  }
});

test('strided views are copied in C order: a transposed matrix, and a slice at a storage offset', () => {
  for (const c of ['zip-views', 'legacy-views']) {
    const t = readCheckpoint(join(ROOT, c)).tensors;
    const parent = t.get('parent')!.float32();
    const tr = t.get('transposed')!.float32();
    const sl = t.get('slice')!.float32();
    for (let i = 0; i < 6; i++) for (let j = 0; j < 5; j++) assert.equal(tr[i * 5 + j], parent[j * 6 + i]);
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) assert.equal(sl[i * 3 + j], parent[(i + 1) * 6 + j + 2]);
  }
});

test('checkpointFiles and the order of preference', () => {
  assert.equal(checkpointFiles(tmp()), undefined);
  const empty = tmp();
  oneLineError(() => readCheckpoint(empty), empty, /no model\.safetensors or pytorch_model\.bin/);
  const both = tmp();
  copyFileSync(join(ROOT, 'zip-f16-bertmodel', 'pytorch_model.bin'), join(both, 'pytorch_model.bin'));
  copyFileSync(join(ROOT, 'safetensors-f32-bertmodel', 'model.safetensors'), join(both, 'model.safetensors'));
  assert.deepEqual(checkpointFiles(both), [join(both, 'model.safetensors')]);
  assert.equal(readCheckpoint(both).format, 'safetensors');
});

test('sharded pytorch_model.bin and model.safetensors indexes; a missing shard is named', () => {
  for (const [src, file, index] of [
    ['zip-f32-pretraining', 'pytorch_model.bin', 'pytorch_model.bin.index.json'],
    ['safetensors-f32-bertmodel', 'model.safetensors', 'model.safetensors.index.json'],
  ] as const) {
    const dir = tmp();
    // Two "shards": the same file twice, the index assigning the first tensor to one and the rest to the other.
    const ext = file.endsWith('.bin') ? 'bin' : 'safetensors';
    const a = `shard-00001-of-00002.${ext}`;
    const b = `shard-00002-of-00002.${ext}`;
    copyFileSync(join(ROOT, src, file), join(dir, a));
    copyFileSync(join(ROOT, src, file), join(dir, b));
    const names = Object.keys(manifest(src).tensors);
    const weightMap = Object.fromEntries(names.map((n, i) => [n, i === 0 ? a : b]));
    writeFileSync(join(dir, index), JSON.stringify({ metadata: {}, weight_map: weightMap }));
    assert.deepEqual(checkpointFiles(dir), [join(dir, index), join(dir, a), join(dir, b)]);
    const ck = readCheckpoint(dir);
    assert.equal(ck.tensors.size, names.length);
    assert.equal(sha(ck.tensors.get(names[0]!)!.float32()), manifest(src).tensors[names[0]!]!.sha256);
    writeFileSync(join(dir, index), JSON.stringify({ weight_map: { ...weightMap, extra: 'shard-00003-of-00003.bin' } }));
    oneLineError(() => readCheckpoint(dir), join(dir, index), /shard shard-00003-of-00003\.bin is missing/);
  }
});

// --- hostile and damaged files ---------------------------------------------------------------------------------

const enc = (s: string): number[] => [...new TextEncoder().encode(s)];
/** `posix.system('touch <marker>')` as Python's pickle writes it (protocol 2: GLOBAL, then REDUCE). */
function systemPickle(module: string, name: string, marker: string): Uint8Array {
  const cmd = enc(`touch ${marker}`);
  return new Uint8Array([0x80, 2, 0x63, ...enc(`${module}\n${name}\n`), 0x58, cmd.length, 0, 0, 0, ...cmd, 0x85, 0x52, 0x2e]);
}
/** The same through protocol 4's STACK_GLOBAL. */
function stackGlobalPickle(module: string, name: string, marker: string): Uint8Array {
  const m = enc(module);
  const n = enc(name);
  const cmd = enc(`touch ${marker}`);
  return new Uint8Array([0x80, 4, 0x8c, m.length, ...m, 0x8c, n.length, ...n, 0x93, 0x8c, cmd.length, ...cmd, 0x85, 0x52, 0x2e]);
}

/**
 * A stored (uncompressed) zip archive, as torch.save writes one; CRCs are left 0 (the reader does not need them).
 * With `zip64`, every size and offset goes through the zip64 records, as in archives above 4 GB.
 */
function storedZip(entries: [string, Uint8Array][], zip64 = false): Uint8Array {
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  const FULL = 0xffffffff;
  let at = 0;
  for (const [name, data] of entries) {
    const nm = new TextEncoder().encode(name);
    const lh = new DataView(new ArrayBuffer(30));
    lh.setUint32(0, 0x04034b50, true);
    lh.setUint32(18, data.length, true);
    lh.setUint32(22, data.length, true);
    lh.setUint16(26, nm.length, true);
    const extra = new DataView(new ArrayBuffer(zip64 ? 28 : 0));
    if (zip64) {
      extra.setUint16(0, 1, true);
      extra.setUint16(2, 24, true);
      extra.setBigUint64(4, BigInt(data.length), true);
      extra.setBigUint64(12, BigInt(data.length), true);
      extra.setBigUint64(20, BigInt(at), true);
    }
    const cd = new DataView(new ArrayBuffer(46));
    cd.setUint32(0, 0x02014b50, true);
    cd.setUint32(20, zip64 ? FULL : data.length, true);
    cd.setUint32(24, zip64 ? FULL : data.length, true);
    cd.setUint16(28, nm.length, true);
    cd.setUint16(30, extra.byteLength, true);
    cd.setUint32(42, zip64 ? FULL : at, true);
    parts.push(new Uint8Array(lh.buffer), nm, data);
    central.push(new Uint8Array(cd.buffer), nm, new Uint8Array(extra.buffer));
    at += 30 + nm.length + data.length;
  }
  const cdSize = central.reduce((s, p) => s + p.length, 0);
  const tail: Uint8Array[] = [];
  if (zip64) {
    const rec = new DataView(new ArrayBuffer(56));
    rec.setUint32(0, 0x06064b50, true);
    rec.setBigUint64(24, BigInt(entries.length), true);
    rec.setBigUint64(32, BigInt(entries.length), true);
    rec.setBigUint64(40, BigInt(cdSize), true);
    rec.setBigUint64(48, BigInt(at), true);
    const loc = new DataView(new ArrayBuffer(20));
    loc.setUint32(0, 0x07064b50, true);
    loc.setBigUint64(8, BigInt(at + cdSize), true);
    tail.push(new Uint8Array(rec.buffer), new Uint8Array(loc.buffer));
  }
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, zip64 ? 0xffff : entries.length, true);
  end.setUint16(10, zip64 ? 0xffff : entries.length, true);
  end.setUint32(12, zip64 ? FULL : cdSize, true);
  end.setUint32(16, zip64 ? FULL : at, true);
  return Buffer.concat([...parts, ...central, ...tail, new Uint8Array(end.buffer)]);
}

test('a pickle naming os.system, posix.system or builtins.eval is refused without running it', () => {
  for (const [module, name] of [['posix', 'system'], ['os', 'system'], ['builtins', 'eval'], ['nt', 'system']]) {
    for (const make of [systemPickle, stackGlobalPickle]) {
      for (const layout of ['legacy', 'zip']) {
        const dir = tmp();
        const marker = join(dir, 'pwned');
        const file = join(dir, 'pytorch_model.bin');
        const pkl = make(module!, name!, marker);
        writeFileSync(file, layout === 'zip' ? storedZip([['archive/data.pkl', pkl]]) : pkl);
        oneLineError(() => readCheckpoint(dir), file, new RegExp(`names global '${module}\\.${name}', which a state_dict does not need; refusing to load it \\(a checkpoint is untrusted input\\)`));
        assert.ok(!existsSync(marker), 'the command ran');
      }
    }
  }
});

test('a storage class cannot be called, and REDUCE needs an allowed function', () => {
  const pkl = new Uint8Array([0x80, 2, 0x63, ...enc('torch\nFloatStorage\n'), 0x29, 0x52, 0x2e]);
  oneLineError(() => unpickle(pkl, { file: 'x.pkl' }), 'x.pkl', /calls torch\.FloatStorage/);
});

test('unknown and unsupported opcodes are named with their offset', () => {
  oneLineError(() => unpickle(new Uint8Array([0x80, 2, 0xff]), { file: 'a.pkl' }), 'a.pkl', /unknown pickle opcode 0xff at offset 2/);
  // INST (0x69) imports and calls a class in protocol 0: refused by name.
  oneLineError(() => unpickle(new Uint8Array([0x80, 2, 0x28, 0x69, ...enc('os\nsystem\n'), 0x2e]), { file: 'b.pkl' }), 'b.pkl', /opcode INST \(0x69\) at offset 3 is not one a state_dict needs/);
  const dir = tmp();
  const file = join(dir, 'pytorch_model.bin');
  writeFileSync(file, storedZip([['archive/data.pkl', new Uint8Array([0x80, 2, 0x7d, 0xfe, 0x2e])]]));
  oneLineError(() => readCheckpoint(dir), file, /unknown pickle opcode 0xfe at offset 3/);
});

function truncatedCopy(src: string, keep: (size: number) => number): { dir: string; file: string } {
  const dir = tmp();
  const bytes = readFileSync(src);
  const file = join(dir, src.endsWith('.bin') ? 'pytorch_model.bin' : 'model.safetensors');
  writeFileSync(file, bytes.subarray(0, keep(bytes.length)));
  return { dir, file };
}

test('a truncated zip checkpoint is refused in one line', () => {
  const src = join(ROOT, 'zip-f16-bertmodel', 'pytorch_model.bin');
  for (const keep of [(n: number) => n - 10, (n: number) => Math.floor(n * 0.6), () => 100]) {
    const { dir, file } = truncatedCopy(src, keep);
    oneLineError(() => readCheckpoint(dir), file, /truncated/);
  }
});

test('a truncated legacy checkpoint is refused in one line, in its storages or its pickles', () => {
  const src = join(ROOT, 'legacy-f16-bertmodel', 'pytorch_model.bin');
  for (const [keep, what] of [
    [(n: number) => n - 1, /truncated \(storage \S+: \d+ bytes from offset/],
    [(n: number) => Math.floor(n * 0.5), /truncated \(storage/],
    [() => 300, /truncated pickle/],
  ] as const) {
    const { dir, file } = truncatedCopy(src, keep);
    oneLineError(() => readCheckpoint(dir), file, what);
  }
});

function safetensors(header: object, data: number): Uint8Array {
  const h = new TextEncoder().encode(JSON.stringify(header));
  const len = new DataView(new ArrayBuffer(8));
  len.setBigUint64(0, BigInt(h.length), true);
  return Buffer.concat([new Uint8Array(len.buffer), h, new Uint8Array(data)]);
}

test('damaged safetensors files are refused in one line naming the tensor', () => {
  const dir = tmp();
  const file = join(dir, 'model.safetensors');
  const cases: [Uint8Array, RegExp][] = [
    [new Uint8Array([0xff, 0xff, 0xff, 0x0f, 0, 0, 0, 0, 0x7b, 0x7d]), /header of \d+ bytes, file of 10/],
    [safetensors({ w: { dtype: 'F32', shape: [2, 2], data_offsets: [0, 16] } }, 8), /tensor 'w': data_offsets \[0, 16\] lie outside the 8 data bytes/],
    [safetensors({ w: { dtype: 'F32', shape: [2, 2], data_offsets: [0, 12] } }, 16), /tensor 'w': 12 bytes for shape \[2,2\] of F32 \(need 16\)/],
    [safetensors({ w: { dtype: 'F8_E4M3', shape: [2], data_offsets: [0, 2] } }, 2), /tensor 'w': dtype "F8_E4M3" is not one citebench reads/],
    [new Uint8Array([1, 2, 3]), /not a safetensors file/],
    // The tensors must tile the data buffer exactly, as safetensors' own reader (Metadata::validate) requires.
    [
      safetensors({ a: { dtype: 'F32', shape: [4], data_offsets: [0, 16] }, b: { dtype: 'F32', shape: [2], data_offsets: [8, 16] } }, 16),
      /tensor 'b': data_offsets \[8, 16\] overlap tensor 'a' \[0, 16\]/,
    ],
    [
      safetensors({ a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] }, b: { dtype: 'F32', shape: [2], data_offsets: [12, 20] } }, 20),
      /tensor 'b': data_offsets \[12, 20\] leave data bytes \[8, 12\) unused after tensor 'a'/,
    ],
    [safetensors({ a: { dtype: 'F32', shape: [2], data_offsets: [4, 12] } }, 12), /tensor 'a': data_offsets \[4, 12\] leave data bytes \[0, 4\) unused before it/],
    [safetensors({ a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] } }, 11), /3 bytes after the last tensor 'a' \(it ends at data byte 8 of 11\)/],
    [safetensors({ __metadata__: { format: 'pt' } }, 4), /no tensors, but 4 data bytes after the header/],
  ];
  for (const [bytes, what] of cases) {
    writeFileSync(file, bytes);
    oneLineError(() => readCheckpoint(dir), file, what);
  }
  // A well-formed file reads (the same writer, so the failures above are the damage alone).
  writeFileSync(file, safetensors({ w: { dtype: 'F32', shape: [2], data_offsets: [0, 8] } }, 8));
  assert.deepEqual([...readSafetensorsFile(file).get('w')!.float32()], [0, 0]);
  // bfloat16 is the top half of a float32: 0x3f80 = 1, 0xc020 = -2.5, 0x3e2a = 0.166015625.
  const bf16 = safetensors({ w: { dtype: 'BF16', shape: [3], data_offsets: [0, 6] } }, 6);
  bf16.set([0x80, 0x3f, 0x20, 0xc0, 0x2a, 0x3e], bf16.length - 6);
  writeFileSync(file, bf16);
  assert.deepEqual([...readCheckpoint(dir).tensors.get('w')!.float32()], [1, -2.5, 0.166015625]);
  const { dir: cut, file: cutFile } = truncatedCopy(join(ROOT, 'safetensors-f16-pretraining', 'model.safetensors'), (n) => n - 2);
  oneLineError(() => readCheckpoint(cut), cutFile, /lie outside the \d+ data bytes/);
});

test('a file that is neither zip nor pickle, and a pickle that is not a state_dict', () => {
  const dir = tmp();
  const file = join(dir, 'pytorch_model.bin');
  writeFileSync(file, 'hello world');
  oneLineError(() => readCheckpoint(dir), file, /not a PyTorch checkpoint/);
  // A zip whose pickle is a list, not a dict of tensors.
  writeFileSync(file, storedZip([['archive/data.pkl', new Uint8Array([0x80, 2, 0x5d, 0x2e])]]));
  oneLineError(() => readCheckpoint(dir), file, /no dict of tensors/);
  // A zip naming a storage it does not hold.
  const pid = [0x28, 0x58, 7, 0, 0, 0, ...enc('storage'), 0x63, ...enc('torch\nFloatStorage\n'), 0x58, 1, 0, 0, 0, ...enc('0'), 0x58, 3, 0, 0, 0, ...enc('cpu'), 0x4b, 4, 0x74, 0x51];
  const tensor = [0x63, ...enc('torch._utils\n_rebuild_tensor_v2\n'), 0x28, ...pid, 0x4b, 0, 0x4b, 4, 0x85, 0x4b, 1, 0x85, 0x89, 0x7d, 0x74, 0x52];
  const sd = new Uint8Array([0x80, 2, 0x7d, 0x58, 1, 0, 0, 0, ...enc('w'), ...tensor, 0x73, 0x2e]);
  writeFileSync(file, storedZip([['archive/data.pkl', sd]]));
  oneLineError(() => readCheckpoint(dir), file, /storage 0 has no entry archive\/data\/0/);
  // With the storage present it reads; with the view reaching past it, it is refused when read.
  for (const zip64 of [false, true]) {
    writeFileSync(file, storedZip([['archive/data.pkl', sd], ['archive/data/0', new Uint8Array(new Float32Array([1, 2, 3, 4]).buffer)]], zip64));
    assert.deepEqual([...readCheckpoint(dir).tensors.get('w')!.float32()], [1, 2, 3, 4], zip64 ? 'zip64 records' : 'plain zip');
  }
  writeFileSync(file, storedZip([['archive/data.pkl', sd], ['archive/data/0', new Uint8Array(8)]]));
  oneLineError(() => readCheckpoint(dir), file, /storage 0 holds 8 bytes, 4 F32 elements need 16/);
});
