/**
 * The mechanics every architecture's parts share: nodes and initializers appended in order, checkpoint weights as
 * (optionally int8) initializers streamed into the file slice by slice, Linear, LayerNorm and embedding tables as
 * onnxruntime's exporters and quantizer write them. Parts (bert.ts, modernbert.ts, attention.ts, adapters.ts) only
 * say what to compute; this module says how it is written. Node names are the op and its position, so the same
 * parts in the same order always give the same bytes.
 */
import { bytesOf } from '../../../util/identity.ts';
import type { CheckpointTensor } from '../checkpoint/tensors.ts';
import { ElemType, int64Initializer, scalarInitializer, type Initializer, type NodeSpec } from '../onnx-graph.ts';
import { int8SymmetricParams, quantizeSlice, rangeOf, uint8AsymmetricParams, type QuantParams } from '../quantize.ts';

/** Elements per slice when a large tensor is streamed into the file (16 MB of float32). */
const SLICE = 4 << 20;

/** float32 values produced in slices; `release` drops anything cached once the last reader is done. */
interface FloatSource {
  readonly length: number;
  slices(): Iterable<Float32Array>;
  release(): void;
}

/** A tensor computed whole (a transposed weight): made on first use, kept until released. */
function computed(length: number, make: () => Float32Array): FloatSource {
  let cache: Float32Array | undefined;
  return {
    length,
    *slices() {
      yield (cache ??= make());
    },
    release: () => (cache = undefined),
  };
}

/** A checkpoint tensor as stored, read slice by slice where the reader can (a 250 k × 768 table is 768 MB). */
function stored(t: CheckpointTensor): FloatSource {
  const n = t.shape.reduce((a, b) => a * b, 1);
  const range = t.float32Range;
  if (!range || n <= SLICE) return computed(n, () => t.float32());
  return {
    length: n,
    *slices() {
      for (let at = 0; at < n; at += SLICE) yield range(at, Math.min(SLICE, n - at));
    },
    release: () => {},
  };
}


function floatInit(name: string, dims: number[], src: FloatSource): Initializer {
  return {
    name,
    type: ElemType.FLOAT,
    dims,
    byteLength: 4 * src.length,
    data: () => {
      const out = new Float32Array(src.length);
      let at = 0;
      for (const s of src.slices()) out.set(s, (at += s.length) - s.length);
      src.release();
      return bytesOf(out);
    },
    chunks: function* () {
      for (const s of src.slices()) yield bytesOf(s);
      src.release();
    },
  };
}

/**
 * A quantized tensor as three initializers named as onnxruntime's quantizer names them (`_scale`, `_zero_point`,
 * `_quantized`): the scale, written first, reads the tensor once for its range; the values, written last,
 * quantize it slice by slice.
 */
function quantizedInits(name: string, dims: number[], src: FloatSource, signed: boolean): Initializer[] {
  let p: QuantParams | undefined;
  const params = () => (p ??= (signed ? int8SymmetricParams : uint8AsymmetricParams)(rangeOf(src.slices())));
  const type = signed ? ElemType.INT8 : ElemType.UINT8;
  const values = function* () {
    for (const s of src.slices()) yield bytesOf(quantizeSlice(s, params()));
    src.release();
  };
  return [
    { name: `${name}_scale`, type: ElemType.FLOAT, dims: [], byteLength: 4, data: () => bytesOf(Float32Array.of(params().scale)) },
    { name: `${name}_zero_point`, type, dims: [], byteLength: 1, data: () => Uint8Array.of(params().zeroPoint & 0xff) },
    {
      name: `${name}_quantized`,
      type,
      dims,
      byteLength: src.length,
      data: () => {
        const out = new Uint8Array(src.length);
        let at = 0;
        for (const s of values()) out.set(s, (at += s.length) - s.length);
        return out;
      },
      chunks: values,
    },
  ];
}

/** PyTorch Linear stores [out, in]; MatMul wants [in, out]. */
function transposed(t: CheckpointTensor): FloatSource {
  const [rows, cols] = t.shape as [number, number];
  return computed(rows * cols, () => {
    const a = t.float32();
    const out = new Float32Array(a.length);
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = a[r * cols + c]!;
    return out;
  });
}

/** A checkpoint tensor under the initializer name it gets in the graph. */
export interface Param {
  readonly name: string;
  readonly tensor: CheckpointTensor;
}

export type Attrs = NodeSpec['attrs'];

export class GraphBuilder {
  readonly nodes: NodeSpec[] = [];
  readonly initializers: Initializer[] = [];
  /** One DynamicQuantizeLinear per activation tensor (query, key and value share theirs). */
  private readonly dynQuant = new Map<string, string[]>();
  /** Names of the initializers written so far (constants and weights), each written once. */
  private readonly constants = new Set<string>();

  /**
   * `quantize`: int8 weights as onnxruntime's quantize_dynamic(weight_type=QInt8) writes them (quantize.ts):
   * MatMul weights int8 with activations quantized at run time (DynamicQuantizeLinear + MatMulInteger),
   * embedding tables uint8.
   */
  constructor(readonly quantize: boolean) {}

  node(op: string, inputs: string[], output: string, attrs?: Attrs): string {
    this.nodes.push({ op, inputs, outputs: [output], attrs });
    return output;
  }

  nodeN(op: string, inputs: string[], outputs: string[], attrs?: Attrs): string[] {
    this.nodes.push({ op, inputs, outputs, attrs });
    return outputs;
  }

  /** A float constant (rank 0), written once under its name. */
  scalar(name: string, value: number): string {
    if (!this.constants.has(name)) this.initializers.push(scalarInitializer(name, value));
    this.constants.add(name);
    return name;
  }

  /** An int64 vector constant, written once under its name. */
  ints(name: string, values: number[]): string {
    if (!this.constants.has(name)) this.initializers.push(int64Initializer(name, values));
    this.constants.add(name);
    return name;
  }

  /** An int64 scalar (rank 0) constant, written once under its name. */
  int(name: string, value: number): string {
    if (!this.constants.has(name)) this.initializers.push(int64Initializer(name, [value], []));
    this.constants.add(name);
    return name;
  }

  /** A float32 vector constant computed here (rotary frequencies), written once under its name. */
  floats(name: string, values: Float32Array): string {
    if (!this.constants.has(name)) this.initializers.push(floatInit(name, [values.length], computed(values.length, () => values)));
    this.constants.add(name);
    return name;
  }

  /** A checkpoint tensor as a float32 initializer (float16/bfloat16 widened exactly), written once however often used. */
  weight(p: Param): string {
    if (!this.constants.has(p.name)) this.initializers.push(floatInit(p.name, [...p.tensor.shape], stored(p.tensor)));
    this.constants.add(p.name);
    return p.name;
  }

  /** x·Wᵀ (+ b), W a PyTorch Linear weight [nOut, nIn]; int8 as quantize_dynamic writes a MatMul with a constant weight. */
  linear(x: string, w: Param, bias: Param | undefined, out: string): string {
    const [nOut, nIn] = w.tensor.shape as [number, number];
    const wT = `${w.name}.T`;
    const b = bias && this.weight(bias);
    const mmOut = b ? `${out}.mm` : out;
    let mm: string;
    if (!this.quantize) {
      this.initializers.push(floatInit(wT, [nIn, nOut], transposed(w.tensor)));
      mm = this.node('MatMul', [x, wT], mmOut);
    } else {
      this.initializers.push(...quantizedInits(wT, [nIn, nOut], transposed(w.tensor), true));
      let q = this.dynQuant.get(x);
      if (!q) {
        q = this.nodeN('DynamicQuantizeLinear', [x], [`${x}_quantized`, `${x}_scale`, `${x}_zero_point`]);
        this.dynQuant.set(x, q);
      }
      const scales = this.node('Mul', [q[1]!, `${wT}_scale`], `${out}.scales`);
      const acc = this.node('MatMulInteger', [q[0]!, `${wT}_quantized`, q[2]!, `${wT}_zero_point`], `${out}.mmi`);
      mm = this.node('Mul', [this.node('Cast', [acc], `${out}.mmi_f`, { to: { i: ElemType.FLOAT } }), scales], mmOut);
    }
    return b ? this.node('Add', [mm, b], out) : mm;
  }

  /** LayerNormalization over the last axis; `bias` absent for the bias-free norms (ModernBERT's). */
  layerNorm(x: string, weight: Param, bias: Param | undefined, eps: number, out: string): string {
    const inputs = [x, this.weight(weight)];
    if (bias) inputs.push(this.weight(bias));
    return this.node('LayerNormalization', inputs, out, { axis: { i: -1 }, epsilon: { f: eps } });
  }

  /** An embedding table, as a float32 initializer or (quantized) uint8 values dequantized after the lookup. */
  table(p: Param): { name: string; dequantize: (x: string) => string } {
    if (!this.quantize) return { name: this.weight(p), dequantize: (x) => x };
    this.initializers.push(...quantizedInits(p.name, [...p.tensor.shape], stored(p.tensor), false));
    return { name: `${p.name}_quantized`, dequantize: (x) => this.node('DequantizeLinear', [x, `${p.name}_scale`, `${p.name}_zero_point`], `${x}.dq`) };
  }

  /**
   * RMSNorm over the last axis, x / √(mean(x²) + ε) · w, as onnxruntime fuses it (SimplifiedLayerNormalization);
   * `plusOne`: Gemma's zero-centred gain, 1 + w computed in float32 as Gemma3RMSNorm computes it.
   */
  rmsNorm(x: string, weight: Param, eps: number, plusOne: boolean, out: string): string {
    const ms = this.node('ReduceMean', [this.node('Pow', [x, this.scalar('c.f2', 2)], `${out}.sq`)], `${out}.ms`, { axes: { ints: [-1] }, keepdims: { i: 1 } });
    const normed = this.node('Div', [x, this.node('Sqrt', [this.node('Add', [ms, this.scalar(`c.eps${eps}`, eps)], `${out}.ms_eps`)], `${out}.rms`)], `${out}.normed`);
    return this.node('Mul', [normed, plusOne ? this.weightPlusOne(weight) : this.weight(weight)], out);
  }

  /** 1 + w of a checkpoint tensor, in float32, written once. */
  private weightPlusOne(p: Param): string {
    const name = `${p.name}+1`;
    if (!this.constants.has(name)) {
      const n = p.tensor.shape.reduce((a, b) => a * b, 1);
      this.initializers.push(floatInit(name, [...p.tensor.shape], computed(n, () => p.tensor.float32().map((v) => Math.fround(1 + v)))));
    }
    this.constants.add(name);
    return name;
  }

  /** SiLU, x · σ(x) (the SwiGLU gate). */
  silu(h: string, p: string): string {
    return this.node('Mul', [h, this.node('Sigmoid', [h], `${p}.sigmoid`)], `${p}.silu`);
  }

  /** GELU's tanh form (gelu_pytorch_tanh): ½x(1 + tanh(√(2/π)(x + 0.044715x³))). */
  geluTanh(h: string, p: string): string {
    const cube = this.node('Mul', [this.node('Mul', [h, h], `${p}.gelu_sq`), h], `${p}.gelu_cube`);
    const inner = this.node('Add', [h, this.node('Mul', [cube, this.scalar('c.gelu_a', 0.044715)], `${p}.gelu_ax3`)], `${p}.gelu_inner`);
    const t = this.node('Tanh', [this.node('Mul', [inner, this.scalar('c.gelu_k', Math.sqrt(2 / Math.PI))], `${p}.gelu_scaled`)], `${p}.gelu_tanh`);
    return this.node('Mul', [this.node('Mul', [h, 'c.half'], `${p}.gelu_halfx`), this.node('Add', [t, 'c.f1'], `${p}.gelu_1t`)], `${p}.gelu`);
  }

  /** GELU, exact erf form, written as transformers' exports write it (onnxruntime fuses it into one Gelu op). */
  gelu(h: string, p: string): string {
    const erf = this.node('Erf', [this.node('Div', [h, this.scalar('c.sqrt2', Math.SQRT2)], `${p}.gelu_div`)], `${p}.gelu_erf`);
    return this.node('Mul', [this.node('Mul', [h, this.node('Add', [erf, this.scalar('c.f1', 1)], `${p}.gelu_add`)], `${p}.gelu_mul`), this.scalar('c.half', 0.5)], `${p}.gelu`);
  }
}
