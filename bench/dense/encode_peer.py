"""Python onnxruntime peer of bench/dense/encode.ts: same model file, same token batches, 2 intra-op threads.
usage: python bench/dense/encode_peer.py   (after encode.ts wrote bench/out/dense/encode-batches.json)"""
import json, os, resource, time
import numpy as np
import onnxruntime as ort

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, '..', 'out', 'dense')
model = os.path.join(here, '..', '..', '..', 'shared', 'models', 'scibert-base-random', 'onnx', 'model_quantized.onnx')
spec = json.load(open(os.path.join(out, 'encode-batches.json')))
so = ort.SessionOptions()
so.intra_op_num_threads = 2
so.inter_op_num_threads = 1
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
sess = ort.InferenceSession(model, so, providers=['CPUExecutionProvider'])

def run(batch):
    L = len(batch[0])
    ids = np.zeros((len(batch), L), dtype=np.int64)
    mask = np.zeros((len(batch), L), dtype=np.int64)
    for r, t in enumerate(batch):
        ids[r, :len(t)] = t
        mask[r, :len(t)] = 1
    h = sess.run(['last_hidden_state'], {'input_ids': ids, 'attention_mask': mask, 'token_type_ids': np.zeros_like(ids)})[0]
    return h[:, 0, :]

run([b[:] for b in spec['batches'][0][:4]])  # warm-up
t0 = time.perf_counter()
cls = [run(b) for b in spec['batches']]
s = time.perf_counter() - t0
vec = np.concatenate(cls)  # in sorted order
n = vec.shape[0]
node = np.fromfile(os.path.join(out, 'encode-node.f32'), dtype=np.float32).reshape(n, -1)
node_sorted = node[spec['order']]
tokens = sum(len(t) for b in spec['batches'] for t in b)
line = json.dumps({
    'what': 'Python onnxruntime %s, same model and token batches, 2 threads' % ort.__version__,
    'articles': n, 'seconds': s, 'articlesPerSecond': n / s, 'tokensPerSecond': tokens / s,
    'maxAbsDiffVsNode': float(np.abs(vec - node_sorted).max()),
    'peakRssMiB': round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
})
print(line)
open(os.path.join(out, 'results.jsonl'), 'a').write(line + '\n')
