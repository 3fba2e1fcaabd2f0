/**
 * SciRepEval's embeddings file (evaluation/embeddings_generator.py writes `json.dumps({"doc_id": k, "embedding":
 * v.tolist()})` a line): `doc_id` a string or an integer, `embedding` a list of numbers, the same length on every
 * line. The file is read once, line by line, checking every line and remembering each one's byte span; a row's
 * values are read again from its span when its chunk is stored. Numbers are the float32 values NumPy printed as
 * doubles, so rounding them to float32 gives the stored values exactly. Python's json writes a NaN or infinity as
 * the bare token NaN / Infinity (not JSON): such a line is an error naming the element, not "malformed JSON".
 */
import { closeSync, readSync } from 'node:fs';
import { openForReading } from '../../../util/open-file.ts';
import { CitebenchError, InputError } from '../../../util/errors.ts';
import { Growable } from '../../../util/growable.ts';
import { checkFinite, type VectorFile } from './vector-file.ts';

const NON_FINITE = /(?<=[[,]\s*)-?(?:NaN|Infinity)(?=\s*[,\]])/;

export function openJsonl(path: string): VectorFile {
  const fd = openForReading(path);
  try {
    const starts = new Growable(Float64Array);
    const lengths = new Growable(Uint32Array);
    const lineNo = new Growable(Uint32Array);
    const ids: string[] = [];
    let dim = -1;
    let one = new Float32Array(0);
    forEachLine(fd, (bytes, start, line) => {
      const text = bytes.toString('utf8');
      if (text.trim() === '') return;
      const rec = parseLine(text, path, line);
      const id = rec.doc_id;
      if (typeof id === 'number' ? !Number.isSafeInteger(id) : typeof id !== 'string' || id === '')
        throw new InputError(path, line, 'doc_id', `expected a paper id (a non-empty string or an integer), got ${JSON.stringify(id)}`);
      const emb = rec.embedding;
      if (!Array.isArray(emb)) throw new InputError(path, line, 'embedding', `expected a list of numbers, got ${JSON.stringify(emb)?.slice(0, 40)}`);
      if (dim < 0) {
        if (emb.length === 0) throw new InputError(path, line, 'embedding', 'is empty');
        dim = emb.length;
        one = new Float32Array(dim);
      } else if (emb.length !== dim) throw new InputError(path, line, 'embedding', `has ${emb.length} values; the first vector (line ${lineNo.get(0)}) has ${dim}: every vector must have the same dimension`);
      toFloat32(emb, one, 0, path, line);
      ids.push(String(id));
      starts.push(start);
      lengths.push(bytes.length);
      lineNo.push(line);
    });
    if (ids.length === 0) throw new CitebenchError(`${path}: no vectors (expected {"doc_id": …, "embedding": […]} on each line)`);
    return {
      path, format: 'jsonl', rows: ids.length, dim,
      id: (r) => ids[r],
      where: (r) => `${path}:${lineNo.get(r)}`,
      read(r, out, at) {
        const b = Buffer.alloc(lengths.get(r));
        if (readSync(fd, b, 0, b.length, starts.get(r)) !== b.length) throw new CitebenchError(`${path}: changed while importing (line ${lineNo.get(r)} is no longer there)`);
        const rec = parseLine(b.toString('utf8'), path, lineNo.get(r));
        toFloat32(rec.embedding as unknown[], out, at, path, lineNo.get(r));
      },
      close: () => closeSync(fd),
    };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

function parseLine(text: string, path: string, line: number): Record<string, unknown> {
  let rec: unknown;
  try {
    rec = JSON.parse(text);
  } catch (e) {
    const token = NON_FINITE.exec(text)?.[0];
    if (token !== undefined) {
      let withNull: { embedding?: unknown } | undefined;
      try {
        withNull = JSON.parse(text.replace(new RegExp(NON_FINITE.source, 'g'), 'null'));
      } catch {
        /* malformed besides the tokens: reported below */
      }
      const emb = withNull?.embedding;
      const j = Array.isArray(emb) ? emb.indexOf(null) : -1;
      if (j >= 0) throw new InputError(path, line, `embedding[${j}]`, `${token} is not a finite number; vectors must hold finite values (check the encoder's output)`);
    }
    throw new InputError(path, line, undefined, `malformed JSON: ${(e as Error).message.split('\n')[0]}`);
  }
  if (typeof rec !== 'object' || rec === null || Array.isArray(rec)) throw new InputError(path, line, undefined, 'expected a JSON object {"doc_id": …, "embedding": […]}');
  return rec as Record<string, unknown>;
}

function toFloat32(emb: unknown[], out: Float32Array, at: number, path: string, line: number): void {
  for (let j = 0; j < emb.length; j++) {
    const x = emb[j];
    if (typeof x !== 'number') throw new InputError(path, line, `embedding[${j}]`, `expected a number, got ${JSON.stringify(x)}`);
    out[at + j] = x;
  }
  // A finite double beyond float32's range rounds to ±Infinity: caught here too.
  checkFinite(out, at, emb.length, () => `${path}:${line}`);
}

/** Call `f` with each line's bytes (newline excluded), its byte offset and its 1-based number. */
function forEachLine(fd: number, f: (bytes: Buffer, start: number, line: number) => void): void {
  const buf = Buffer.alloc(16 << 20);
  let carry = Buffer.alloc(0);
  let carryStart = 0;
  let pos = 0;
  let line = 0;
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, pos);
    if (n === 0) break;
    let data = buf.subarray(0, n);
    let dataStart = pos;
    if (carry.length) {
      data = Buffer.concat([carry, data]);
      dataStart = carryStart;
    }
    pos += n;
    let from = 0;
    for (let nl = data.indexOf(0x0a, from); nl >= 0; nl = data.indexOf(0x0a, from)) {
      const end = nl > from && data[nl - 1] === 0x0d ? nl - 1 : nl;
      f(data.subarray(from, end), dataStart + from, ++line);
      from = nl + 1;
    }
    carry = Buffer.from(data.subarray(from));
    carryStart = dataStart + from;
  }
  if (carry.length) f(carry, carryStart, ++line);
}
