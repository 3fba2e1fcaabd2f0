"""PyTorch transformers peer of bench/dense/modern.ts: the model folder loaded by AutoModel in float32 (a bfloat16
checkpoint computed in float32, as citebench computes it), the same token batches right-padded, the same threads;
mean pooling over the real tokens. What a user would run on a CPU instead of citebench.
usage: python bench/dense/encode_torch_peer.py MODEL_DIR BATCHES.json THREADS [ROUNDS=1]
A warm-up round, then ROUNDS timed rounds; prints one JSON line: the seconds of each round and the peak RSS."""
import json
import resource
import sys
import time

import torch
import transformers
from transformers import AutoModel

model_dir, batches_file, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 1
torch.set_num_threads(threads)
spec = json.load(open(batches_file))
model = AutoModel.from_pretrained(model_dir, dtype=torch.float32).eval()


def run(batch):
    width = len(batch[0])
    ids = torch.zeros((len(batch), width), dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for r, t in enumerate(batch):
        ids[r, :len(t)] = torch.tensor(t)
        mask[r, :len(t)] = 1
    with torch.inference_mode():
        h = model(input_ids=ids, attention_mask=mask).last_hidden_state
    m = mask[:, :, None].to(h.dtype)
    return (h * m).sum(1) / m.sum(1)


for b in spec['batches']:
    run(b)
seconds = []
for _ in range(rounds):
    t0 = time.perf_counter()
    for b in spec['batches']:
        run(b)
    seconds.append(time.perf_counter() - t0)
print(json.dumps({'seconds': seconds, 'torch': torch.__version__, 'transformers': transformers.__version__,
                  'peakRssMiB': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}))
