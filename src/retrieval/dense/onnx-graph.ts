/**
 * A minimal ONNX model writer (protobuf by hand, no dependency) for the small compute graphs dense search runs
 * through onnxruntime: its MLAS matrix multiply is BLAS-class and multi-threaded, which plain JS loops are not.
 * Only the ONNX fields these graphs use are written (field numbers from onnx/onnx.proto3).
 */

class PbWriter {
  private parts: Uint8Array[] = [];
  private varint(v: number | bigint): void {
    let x = BigInt.asUintN(64, BigInt(v));
    const out: number[] = [];
    while (x >= 0x80n) {
      out.push(Number((x & 0x7fn) | 0x80n));
      x >>= 7n;
    }
    out.push(Number(x));
    this.parts.push(Uint8Array.from(out));
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
    this.parts.push(b);
    return this;
  }
  bytes(field: number, b: Uint8Array): this {
    this.key(field, 2);
    this.varint(b.length);
    this.parts.push(b);
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
export const ElemType = { FLOAT: 1, UINT8: 2, INT8: 3, INT32: 6, INT64: 7 } as const;
type Dim = number | string;

export interface NodeSpec {
  op: string;
  inputs: string[];
  outputs: string[];
  attrs?: Record<string, { i: number } | { f: number } | { ints: number[] }>;
}

export interface GraphSpec {
  inputs: { name: string; type: number; shape: Dim[] }[];
  outputs: { name: string; type: number; shape: Dim[] }[];
  nodes: NodeSpec[];
  opset?: number;
}

function valueInfo(v: { name: string; type: number; shape: Dim[] }): PbWriter {
  const shape = new PbWriter();
  for (const d of v.shape) shape.msg(1, typeof d === 'number' ? new PbWriter().int(1, d) : new PbWriter().str(2, d));
  const tensorType = new PbWriter().int(1, v.type).msg(2, shape);
  return new PbWriter().str(1, v.name).msg(2, new PbWriter().msg(1, tensorType));
}

/** Serialise a graph to ONNX ModelProto bytes (IR 8, default opset 17). */
export function buildModel(g: GraphSpec): Uint8Array {
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
  for (const i of g.inputs) graph.msg(11, valueInfo(i));
  for (const o of g.outputs) graph.msg(12, valueInfo(o));
  return new PbWriter()
    .int(1, 8)
    .str(2, 'citebench')
    .msg(7, graph)
    .msg(8, new PbWriter().str(1, '').int(2, g.opset ?? 17))
    .finish();
}
