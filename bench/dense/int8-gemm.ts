/**
 * onnxruntime's single-threaded matrix multiply on this CPU: float32 Gemm against the uint8 × int8
 * MatMulInteger (VNNI) an int8 pre-filter would use; figures for docs/benchmarks.md.
 * usage: node --import tsx bench/dense/int8-gemm.ts [queries] [poolRows] [reps]
 */
import { appendFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { buildModel, ElemType } from '../../src/retrieval/dense/onnx-graph.ts';

const d = 768;
const [m, n, reps] = [512, 16384, 5].map((dflt, i) => Number(process.argv[2 + i] ?? dflt));

async function rate(model: Uint8Array, feeds: Record<string, ort.Tensor>): Promise<number> {
  const s = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  await s.run(feeds);
  const t0 = performance.now();
  for (let r = 0; r < reps; r++) await s.run(feeds);
  const sec = (performance.now() - t0) / 1000 / reps;
  return (2 * m * n * d) / sec / 1e9;
}

const f32 = await rate(
  buildModel({
    inputs: [{ name: 'Q', type: ElemType.FLOAT, shape: ['b', d] }, { name: 'P', type: ElemType.FLOAT, shape: ['n', d] }],
    outputs: [{ name: 'S', type: ElemType.FLOAT, shape: ['b', 'n'] }],
    nodes: [{ op: 'Gemm', inputs: ['Q', 'P'], outputs: ['S'], attrs: { transB: { i: 1 } } }],
  }),
  {
    Q: new ort.Tensor('float32', new Float32Array(m * d).map(() => Math.random()), [m, d]),
    P: new ort.Tensor('float32', new Float32Array(n * d).map(() => Math.random()), [n, d]),
  },
);
const i8 = await rate(
  buildModel({
    inputs: [{ name: 'Q', type: ElemType.UINT8, shape: ['b', d] }, { name: 'P', type: ElemType.INT8, shape: [d, 'n'] }],
    outputs: [{ name: 'S', type: ElemType.INT32, shape: ['b', 'n'] }],
    nodes: [{ op: 'MatMulInteger', inputs: ['Q', 'P'], outputs: ['S'] }],
  }),
  {
    Q: new ort.Tensor('uint8', new Uint8Array(m * d).map(() => Math.floor(Math.random() * 256)), [m, d]),
    P: new ort.Tensor('int8', new Int8Array(n * d).map(() => Math.floor(Math.random() * 255) - 127), [d, n]),
  },
);
const line = JSON.stringify({ what: 'onnxruntime 1-thread matrix multiply', m, n, d, float32GflopS: +f32.toFixed(1), uint8int8GopS: +i8.toFixed(1) });
console.log(line);
appendFileSync(new URL('../out/dense/results.jsonl', import.meta.url), line + '\n');
