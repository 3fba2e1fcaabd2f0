"""Python onnxruntime peer of bench/dense/modern.ts: the same ONNX file, the same token batches, the same session
options (intra-op threads, one inter-op thread, all graph optimizations), mean pooling over the real tokens.
usage: python bench/dense/encode_modern_peer.py MODEL.onnx BATCHES.json NODE_VECTORS.f32 THREADS [ROUNDS=1]
After a warm-up round over all batches (as the Node side: the first pass over a fresh session pays for touching
its weights and arena, seconds on this machine), ROUNDS timed rounds. Prints one JSON line: the seconds of each
round for all batches (forward + pooling) and the largest difference from the Node vectors."""
import json
import sys
import time

import numpy as np
import onnxruntime as ort

model, batches_file, node_file, threads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 1
spec = json.load(open(batches_file))
so = ort.SessionOptions()
so.intra_op_num_threads = threads
so.inter_op_num_threads = 1
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
sess = ort.InferenceSession(model, so, providers=['CPUExecutionProvider'])
inputs = [i.name for i in sess.get_inputs()]


def run(batch):
    width = len(batch[0])
    ids = np.zeros((len(batch), width), dtype=np.int64)
    mask = np.zeros((len(batch), width), dtype=np.int64)
    for r, t in enumerate(batch):
        ids[r, :len(t)] = t
        mask[r, :len(t)] = 1
    feeds = {'input_ids': ids, 'attention_mask': mask}
    if 'token_type_ids' in inputs:
        feeds['token_type_ids'] = np.zeros_like(ids)
    h = sess.run(['last_hidden_state'], feeds)[0]
    m = mask[:, :, None].astype(np.float64)
    return ((h * m).sum(1) / m.sum(1)).astype(np.float32)


for b in spec['batches']:  # warm-up round, as the Node side
    run(b)
seconds = []
for _ in range(rounds):
    t0 = time.perf_counter()
    vectors = np.concatenate([run(b) for b in spec['batches']])
    seconds.append(time.perf_counter() - t0)
node = np.fromfile(node_file, dtype=np.float32).reshape(len(spec['order']), -1)[spec['order']]
print(json.dumps({'seconds': seconds, 'onnxruntime': ort.__version__, 'maxAbsDiffVsNode': float(np.abs(vectors - node).max())}))
