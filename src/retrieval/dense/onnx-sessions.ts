/**
 * The candidate-generation graphs (Gemm, then TopK or the full score block) as onnxruntime sessions, built
 * once per (graph, dimension, threads) and shared by every search in the thread.
 */
import * as ort from 'onnxruntime-node';
import { buildModel, ElemType, type NodeSpec } from './onnx-graph.ts';

const sessions = new Map<string, Promise<ort.InferenceSession>>();

export function session(kind: 'l2-topk' | 'ip-topk' | 'l2-gemm' | 'ip-gemm' | 'l2-full' | 'ip-full', d: number, threads: number): Promise<ort.InferenceSession> {
  const key = `${kind}/${d}/${threads}`;
  let s = sessions.get(key);
  if (!s) {
    const l2 = kind.startsWith('l2');
    const topk = kind.endsWith('topk');
    const full = kind.endsWith('full');
    const inputs: { name: string; type: number; shape: (number | string)[] }[] = [
      { name: 'Q', type: ElemType.FLOAT, shape: ['b', d] },
      { name: 'P', type: ElemType.FLOAT, shape: ['n', d] },
    ];
    const nodes: NodeSpec[] = [];
    if (l2) {
      // S = 2·Q·Pᵀ − |p|² (+ −|q|² for the full graph): −squared distance up to the per-query constant.
      inputs.push({ name: 'C', type: ElemType.FLOAT, shape: ['n'] });
      nodes.push({ op: 'Gemm', inputs: ['Q', 'P', 'C'], outputs: [full ? 'G' : 'S'], attrs: { alpha: { f: 2 }, transB: { i: 1 } } });
      if (full) {
        inputs.push({ name: 'R', type: ElemType.FLOAT, shape: ['b', 1] });
        nodes.push({ op: 'Add', inputs: ['G', 'R'], outputs: ['S'] });
      }
    } else {
      nodes.push({ op: 'Gemm', inputs: ['Q', 'P'], outputs: ['S'], attrs: { transB: { i: 1 } } });
    }
    const outputs = [] as { name: string; type: number; shape: (number | string)[] }[];
    if (topk) {
      inputs.push({ name: 'K', type: ElemType.INT64, shape: [1] });
      nodes.push({ op: 'TopK', inputs: ['S', 'K'], outputs: ['V', 'I'], attrs: { axis: { i: 1 }, largest: { i: 1 }, sorted: { i: 1 } } });
      outputs.push({ name: 'V', type: ElemType.FLOAT, shape: ['b', 'k'] }, { name: 'I', type: ElemType.INT64, shape: ['b', 'k'] });
    } else {
      outputs.push({ name: 'S', type: ElemType.FLOAT, shape: ['b', 'n'] });
    }
    s = ort.InferenceSession.create(buildModel({ inputs, outputs, nodes }), {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    });
    sessions.set(key, s);
  }
  return s;
}
