"""What sentence-transformers' default precision does to a bfloat16 checkpoint's vectors (development only): the
Qwen3-Embedding-shaped fixture folder (test/dense/fixtures/decoder-st/qwen3-lasttoken-left, random weights) encoded
as SentenceTransformer loads it by default (dtype "auto": bfloat16) and in float32 (what citebench computes), on the
fixture's articles: the largest |Δ| of a vector component, and the share of each article's top-10 neighbours
(documents against documents, itself left out) that change.  python scripts/dev/check-bf16-vs-fp32.py"""
import json
import os

import torch
from sentence_transformers import SentenceTransformer

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
folder = os.path.join(root, 'test', 'dense', 'fixtures', 'decoder-st', 'qwen3-lasttoken-left')
records = [json.loads(l) for l in open(os.path.join(root, 'test', 'dense', 'fixtures', 'st', 'corpus.jsonl'), encoding='utf-8') if l.strip()]
texts = [r['title'] + ' ' + r['abstract'] for r in records]
out = {}
for name, kw in (('auto', {}), ('float32', {'model_kwargs': {'dtype': torch.float32}})):
    st = SentenceTransformer(folder, device='cpu', **kw)
    out[name] = (str(next(st.parameters()).dtype), st.encode_document(texts, convert_to_tensor=True, batch_size=8).float())
a, b = out['auto'][1], out['float32'][1]
def top(v):
    s = v @ v.T
    s.fill_diagonal_(float('-inf'))
    return s.topk(10, dim=1).indices
ta, tb = top(a), top(b)
changed = sum(len(set(x.tolist()) - set(y.tolist())) for x, y in zip(ta, tb)) / ta.numel()
print(json.dumps({'default_dtype': out['auto'][0], 'max_abs_delta': float((a - b).abs().max()), 'top10_changed': changed, 'articles': len(texts)}))
