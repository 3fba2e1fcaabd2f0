/**
 * A minimal ONNX model writer (protobuf by hand, no dependency) for the compute graphs citebench runs through
 * onnxruntime: the small dense-search graphs (its MLAS matrix multiply is BLAS-class and multi-threaded, which plain
 * JS loops are not) and whole encoders built from checkpoints (encoder-graph/). Only the ONNX fields these graphs use
 * are written (field numbers from onnx/onnx.proto3). Initializers are written with their sizes computed first, so
 * a model of any size streams to a file one tensor at a time (`writeModel`) instead of being assembled in memory.
 */
import { basename, dirname, join } from 'node:path';
import { writeFileAtomicWith } from '../../util/atomic.ts';

export class PbWriter {
  private parts: Uint8Array[] = [];
  /** Bytes written so far. */
  length = 0;
  private push(b: Uint8Array): void {
    this.parts.push(b);
    this.length += b.length;
  }
  private varint(v: number | bigint): void {
    let x = BigInt.asUintN(64, BigInt(v));
    const out: number[] = [];
    while (x >= 0x80n) {
      out.push(Number((x & 0x7fn) | 0x80n));
      x >>= 7n;
    }
    out.push(Number(x));
    this.push(Uint8Array.from(out));
  }
  private key(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }
  int(field: number, v: number | bigint): this {
    this.key(field, 0);
    this.varint(v);
    return this;
  }
  float(field: number, v: number): this {
    this.key(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, v, true);
    this.push(b);
    return this;
  }
  bytes(field: number, b: Uint8Array): this {
    this.lengthPrefix(field, b.length);
    this.push(b);
    return this;
  }
  /** The key and length of a length-delimited field whose `n` content bytes the caller writes next. */
  lengthPrefix(field: number, n: number): this {
    this.key(field, 2);
    this.varint(n);
    return this;
  }
  str(field: number, s: string): this {
    return this.bytes(field, new TextEncoder().encode(s));
  }
  msg(field: number, w: PbWriter): this {
    return this.bytes(field, w.finish());
  }
  finish(): Uint8Array {
    const n = this.parts.reduce((a, p) => a + p.length, 0);
    const out = new Uint8Array(n);
    let o = 0;
    for (const p of this.parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
}

/** onnx.TensorProto.DataType codes. */
export const ElemType = { FLOAT: 1, UINT8: 2, INT8: 3, INT32: 6, INT64: 7, BOOL: 9 } as const;
type Dim = number | string;

export interface NodeSpec {
  op: string;
  inputs: string[];
  outputs: string[];
  attrs?: Record<string, { i: number } | { f: number } | { ints: number[] }>;
}

/** A constant tensor stored in the model (TensorProto with raw_data, little-endian). */
export interface Initializer {
  name: string;
  type: number;
  dims: number[];
  /** Exact size of `data()`, known before the data is produced. */
  byteLength: number;
  /** The raw bytes, produced when the initializer is written (so only one large tensor is in memory at a time). */
  data: () => Uint8Array;
  /** The same bytes in consecutive pieces, where a tensor is better never held whole (`writeModel` prefers them). */
  chunks?: () => Iterable<Uint8Array>;
}

export interface GraphSpec {
  inputs: { name: string; type: number; shape: Dim[] }[];
  outputs: { name: string; type: number; shape: Dim[] }[];
  nodes: NodeSpec[];
  initializers?: Initializer[];
  opset?: number;
}

export function int64Initializer(name: string, values: number[], dims: number[] = [values.length]): Initializer {
  const b = new BigInt64Array(values.map((v) => BigInt(v)));
  return { name, type: ElemType.INT64, dims, byteLength: b.byteLength, data: () => new Uint8Array(b.buffer) };
}

/** A rank-0 float tensor (a scalar constant that broadcasts). */
export function scalarInitializer(name: string, value: number): Initializer {
  return { name, type: ElemType.FLOAT, dims: [], byteLength: 4, data: () => new Uint8Array(Float32Array.of(value).buffer) };
}

function valueInfo(v: { name: string; type: number; shape: Dim[] }): PbWriter {
  const shape = new PbWriter();
  for (const d of v.shape) shape.msg(1, typeof d === 'number' ? new PbWriter().int(1, d) : new PbWriter().str(2, d));
  const tensorType = new PbWriter().int(1, v.type).msg(2, shape);
  return new PbWriter().str(1, v.name).msg(2, new PbWriter().msg(1, tensorType));
}

/** Where an external initializer's bytes are: its offset and length in the data file beside the model. */
interface ExternalAt {
  offset: number;
  length: number;
}

/**
 * The ModelProto as a sequence of chunks: serialised fields, and initializer data still to be produced. Protobuf
 * fields may come in any order, so the graph is nodes, then initializers, then inputs and outputs. An initializer
 * listed in `external` is written as a reference (data_location EXTERNAL, `location` / `offset` / `length`, as
 * onnx's external-data format) to `dataFile` beside the model, and its bytes are not in the chunks.
 */
function modelChunks(g: GraphSpec, external?: { dataFile: string; at: Map<string, ExternalAt> }): (Uint8Array | Initializer)[] {
  const head = graphHead(g);
  const tail = new PbWriter();
  for (const i of g.inputs) tail.msg(11, valueInfo(i));
  for (const o of g.outputs) tail.msg(12, valueInfo(o));
  const tailBytes = tail.finish();
  const inits: (Uint8Array | Initializer)[] = [];
  let initBytes = 0;
  for (const t of g.initializers ?? []) {
    const tensor = new PbWriter();
    for (const d of t.dims) tensor.int(1, d);
    tensor.int(2, t.type).str(8, t.name);
    const ext = external?.at.get(t.name);
    if (ext) {
      const entry = (k: string, v: string) => new PbWriter().str(1, k).str(2, v);
      tensor.msg(13, entry('location', external!.dataFile)).msg(13, entry('offset', String(ext.offset))).msg(13, entry('length', String(ext.length))).int(14, 1);
      const tensorBytes = tensor.finish();
      const prefixed = new PbWriter().lengthPrefix(5, tensorBytes.length).finish();
      inits.push(prefixed, tensorBytes);
      initBytes += prefixed.length + tensorBytes.length;
      continue;
    }
    tensor.lengthPrefix(9, t.byteLength);
    const prefix = new PbWriter().lengthPrefix(5, tensor.length + t.byteLength).finish();
    const tensorHead = tensor.finish();
    inits.push(prefix, tensorHead, t);
    initBytes += prefix.length + tensorHead.length + t.byteLength;
  }
  const model = new PbWriter()
    .int(1, 8)
    .str(2, 'citebench')
    .lengthPrefix(7, head.length + initBytes + tailBytes.length)
    .finish();
  const opset = new PbWriter().msg(8, new PbWriter().str(1, '').int(2, g.opset ?? 17)).finish();
  return [model, head, ...inits, tailBytes, opset];
}

/** Serialise a graph to ONNX ModelProto bytes (IR 8, default opset 17). */
export function buildModel(g: GraphSpec): Uint8Array {
  const chunks = modelChunks(g).map((c) => (c instanceof Uint8Array ? c : checkedData(c)));
  const out = new Uint8Array(chunks.reduce((a, c) => a + c.length, 0));
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

/**
 * A protobuf message may not exceed 2 GiB, and onnxruntime refuses a model file over it: above this many bytes of
 * initializers (a 0.6B-parameter encoder in float32 is 2.4 GB) the large tensors go to an external data file.
 */
export const EXTERNAL_DATA_ABOVE = 1.8e9;
/** Initializers of at least this many bytes go external; each starts on a page boundary (onnxruntime can map it). */
const EXTERNAL_MIN_BYTES = 1024;
const EXTERNAL_ALIGN = 4096;

/** Stream one initializer's bytes, checking the count it declared. */
function writeInitializer(c: Initializer, write: (chunk: Uint8Array) => void): void {
  if (!c.chunks) return write(checkedData(c));
  let n = 0;
  for (const piece of c.chunks()) {
    n += piece.byteLength;
    if (n > c.byteLength) break;
    write(piece);
  }
  if (n !== c.byteLength) throw new Error(`initializer ${c.name}: ${n} bytes or more, declared ${c.byteLength}`);
}

/**
 * Write the model to `path` atomically, producing one initializer's data (or one piece of it) at a time. When the
 * initializers exceed `externalAbove` bytes (default EXTERNAL_DATA_ABOVE), the large ones go to `<name>.data` beside
 * the model, written (atomically) first, so a model file on disk always has its data.
 */
export function writeModel(path: string, g: GraphSpec, opts: { externalAbove?: number } = {}): void {
  const inits = g.initializers ?? [];
  const total = inits.reduce((a, t) => a + t.byteLength, 0);
  let external: { dataFile: string; at: Map<string, ExternalAt> } | undefined;
  if (total > (opts.externalAbove ?? EXTERNAL_DATA_ABOVE)) {
    const dataFile = `${basename(path)}.data`;
    const at = new Map<string, ExternalAt>();
    let offset = 0;
    for (const t of inits) {
      if (t.byteLength < EXTERNAL_MIN_BYTES) continue;
      offset = Math.ceil(offset / EXTERNAL_ALIGN) * EXTERNAL_ALIGN;
      at.set(t.name, { offset, length: t.byteLength });
      offset += t.byteLength;
    }
    external = { dataFile, at };
    writeFileAtomicWith(join(dirname(path), dataFile), (write) => {
      let written = 0;
      for (const t of inits) {
        const a = at.get(t.name);
        if (!a) continue;
        if (a.offset > written) write(new Uint8Array(a.offset - written));
        writeInitializer(t, write);
        written = a.offset + a.length;
      }
    });
  }
  writeFileAtomicWith(path, (write) => {
    for (const c of modelChunks(g, external)) {
      if (c instanceof Uint8Array) write(c);
      else writeInitializer(c, write);
    }
  });
}

function checkedData(t: Initializer): Uint8Array {
  const b = t.data();
  // The size was written before the data: a mismatch would corrupt the file.
  if (b.byteLength !== t.byteLength) throw new Error(`initializer ${t.name}: ${b.byteLength} bytes, declared ${t.byteLength}`);
  return b;
}

function graphHead(g: GraphSpec): Uint8Array {
  const graph = new PbWriter();
  g.nodes.forEach((n, k) => {
    const node = new PbWriter();
    for (const i of n.inputs) node.str(1, i);
    for (const o of n.outputs) node.str(2, o);
    node.str(3, `${n.op}_${k}`).str(4, n.op);
    for (const [name, a] of Object.entries(n.attrs ?? {})) {
      const attr = new PbWriter().str(1, name);
      if ('i' in a) attr.int(3, a.i).int(20, 2);
      else if ('f' in a) attr.float(2, a.f).int(20, 1);
      else {
        for (const v of a.ints) attr.int(8, v);
        attr.int(20, 7);
      }
      node.msg(5, attr);
    }
    graph.msg(1, node);
  });
  graph.str(2, 'citebench');
  return graph.finish();
}
