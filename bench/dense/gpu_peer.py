"""PyTorch `transformers` encoding on a GPU: the peer figure for docs/benchmarks.md ("Encoding on a GPU").

    python3 bench/dense/gpu_peer.py OUT.json [N_TEXTS=8192] [BATCH=64]

Random-weight models built from their configs (no download): SciBERT's shape (BERT-base, the paper's encoders),
XLM-RoBERTa-base and ModernBERT-base. The same inputs as bench/dense/modern.ts: seeded token sequences with
lengths uniform in 32..512, sorted by length into batches (as citebench's Encoder batches), then forward, mean
pooling over the attention mask and the vectors copied to the host. Timed after two warm-up batches, with
torch.cuda.synchronize() around; float32 (TF32 matmuls off, as `transformers` leaves them) and bfloat16.
Also prints what the machine offers for onnxruntime (providers) and whether node is on the PATH.
"""
import json
import shutil
import subprocess
import sys
import time

import torch
import transformers
from transformers import AutoModel, BertConfig, ModernBertConfig, XLMRobertaConfig

out = sys.argv[1]
n_texts = int(sys.argv[2]) if len(sys.argv) > 2 else 8192
batch = int(sys.argv[3]) if len(sys.argv) > 3 else 64


def texts(vocab, seed=12345):
    g = torch.Generator().manual_seed(seed)
    lens = torch.randint(32, 513, (n_texts,), generator=g)
    return [torch.randint(5, vocab, (int(n),), generator=g) for n in lens]


def encode(model, seqs, dtype, pad_id):
    order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]))
    vecs = [None] * len(seqs)
    batches = [order[i:i + batch] for i in range(0, len(order), batch)]

    def run(b):
        L = max(len(seqs[i]) for i in b)
        ids = torch.full((len(b), L), pad_id, dtype=torch.long)
        mask = torch.zeros((len(b), L), dtype=torch.long)
        for r, i in enumerate(b):
            ids[r, :len(seqs[i])] = seqs[i]
            mask[r, :len(seqs[i])] = 1
        ids, mask = ids.cuda(non_blocking=True), mask.cuda(non_blocking=True)
        with torch.autocast('cuda', dtype=dtype, enabled=dtype != torch.float32):
            h = model(input_ids=ids, attention_mask=mask).last_hidden_state
        m = mask.unsqueeze(-1).to(h.dtype)
        v = ((h * m).sum(1) / m.sum(1)).float().cpu()
        for r, i in enumerate(b):
            vecs[i] = v[r]

    with torch.inference_mode():
        for b in batches[-2:]:
            run(b)  # warm-up on the longest batches (kernel choice, allocator)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for b in batches:
            run(b)
        torch.cuda.synchronize()
        return time.perf_counter() - t0


CASES = {
    'scibert-shape (BERT-base, vocab 31090)': (BertConfig(vocab_size=31090), 0),
    'xlm-roberta-base-shape': (XLMRobertaConfig(vocab_size=250002, max_position_embeddings=514, type_vocab_size=1, pad_token_id=1), 1),
    'modernbert-base-shape': (ModernBertConfig(), 50283),
}

torch.manual_seed(0)
report = {
    'gpu': torch.cuda.get_device_name(0), 'torch': torch.__version__, 'transformers': transformers.__version__,
    'n_texts': n_texts, 'batch': batch, 'mean_tokens': None, 'node': shutil.which('node'), 'cases': [],
}
try:
    import onnxruntime
    report['onnxruntime'] = [onnxruntime.__version__, onnxruntime.get_available_providers()]
except Exception as e:  # noqa: BLE001 - a probe: say what happened
    report['onnxruntime'] = repr(e)
report['nvidia_smi'] = subprocess.run(['nvidia-smi', '--query-gpu=name,driver_version,memory.total', '--format=csv,noheader'], capture_output=True, text=True).stdout.strip()
for name, (cfg, pad) in CASES.items():
    model = AutoModel.from_config(cfg).cuda().eval()
    seqs = texts(cfg.vocab_size)
    report['mean_tokens'] = sum(len(s) for s in seqs) / len(seqs)
    for dtype in (torch.float32, torch.bfloat16):
        secs = min(encode(model, seqs, dtype, pad) for _ in range(2))
        row = {'case': name, 'dtype': str(dtype).replace('torch.', ''), 'attn': model.config._attn_implementation,
               'seconds': round(secs, 3), 'texts_per_s': round(n_texts / secs, 1)}
        report['cases'].append(row)
        print(json.dumps(row), flush=True)
    del model
    torch.cuda.empty_cache()
with open(out, 'w') as f:
    json.dump(report, f, indent=1)
print(json.dumps({k: v for k, v in report.items() if k != 'cases'}))
