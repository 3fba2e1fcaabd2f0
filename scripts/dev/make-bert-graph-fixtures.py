"""Regenerate test/dense/fixtures/bert-graph/ (development only, not run by tests).

Tiny random BERTs saved the way transformers saves them (save_pretrained → config.json + model.safetensors), and what
PyTorch transformers computes for a few id sequences: last_hidden_state and the mean of the layers' outputs
(hidden_states[1:], the definition of the `mean_hidden_states` output of the project's ONNX models), one sequence at a
time and as one padded batch. Cases:
  bertmodel-f32/      BertModel keys, float32
  pretraining-f16/    BertForPreTraining keys (`bert.` prefix, heads, pooler), float16
The model runs with transformers' default attention implementation (sdpa).
quantized.json: onnxruntime's own weight quantization (quant_utils.quantize_data, as quantize_dynamic with
weight_type=QInt8 applies it: MatMul weights [in, out] int8 symmetric, embedding tables uint8 asymmetric) of every
weight of bertmodel-f32, plus crafted arrays with exact rounding ties, for src/retrieval/dense/quantize.ts.
Needs torch, transformers, safetensors, onnx, onnxruntime:  python scripts/dev/make-bert-graph-fixtures.py
"""
import json
import os

import torch
from transformers import BertConfig, BertForPreTraining, BertModel

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
out = os.path.join(root, 'test', 'dense', 'fixtures', 'bert-graph')

cfg = dict(vocab_size=300, hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
           max_position_embeddings=64, type_vocab_size=2, layer_norm_eps=1e-12, hidden_act='gelu')


def run(model, ids, types, mask):
    with torch.no_grad():
        o = model(input_ids=torch.tensor(ids), token_type_ids=torch.tensor(types), attention_mask=torch.tensor(mask),
                  output_hidden_states=True)
    mean = torch.stack(o.hidden_states[1:]).mean(0)
    return o.last_hidden_state.tolist(), mean.tolist()


def make(name, cls, dtype, seed):
    torch.manual_seed(seed)
    full = cls(BertConfig(**cfg)).eval()
    # Non-trivial LayerNorm parameters and biases (initialisation sets them to 1 and 0).
    with torch.no_grad():
        for n, p in full.named_parameters():
            if n.endswith('bias') or 'LayerNorm' in n:
                p.add_(torch.randn_like(p) * 0.1)
    d = os.path.join(out, name)
    full.to(dtype).save_pretrained(d)
    # Reference: the model as loaded from the saved file (float16 weights widened, computed in float32).
    model = BertModel.from_pretrained(d, dtype=torch.float32, add_pooling_layer=False).eval()
    g = torch.Generator().manual_seed(seed + 1)
    seqs = []
    for length in (5, 9, 3, 12, 7):
        ids = [2] + torch.randint(5, cfg['vocab_size'], (length - 2,), generator=g).tolist() + [3]
        types = [0] * length if length != 12 else [0] * 6 + [1] * 6
        seqs.append((ids, types))
    single = []
    for ids, types in seqs:
        last, mean = run(model, [ids], [types], [[1] * len(ids)])
        single.append({'input_ids': ids, 'token_type_ids': types, 'last_hidden_state': last[0], 'mean_hidden_states': mean[0]})
    width = max(len(i) for i, _ in seqs)
    pad = lambda v: v + [0] * (width - len(v))
    # The batch also carries a fully padded row (attention mask all zeros): sdpa gives its attention output 0.
    b_ids = [pad(i) for i, _ in seqs] + [[0] * width]
    b_types = [pad(t) for _, t in seqs] + [[0] * width]
    b_mask = [pad([1] * len(i)) for i, _ in seqs] + [[0] * width]
    last, mean = run(model, b_ids, b_types, b_mask)
    batch = {'input_ids': b_ids, 'token_type_ids': b_types, 'attention_mask': b_mask, 'last_hidden_state': last, 'mean_hidden_states': mean}
    with open(os.path.join(d, 'expected.json'), 'w') as f:
        json.dump({'attn_implementation': model.config._attn_implementation, 'single': single, 'batch': batch}, f)
    print(d, sorted(os.listdir(d)))


make('bertmodel-f32', BertModel, torch.float32, 11)
make('pretraining-f16', BertForPreTraining, torch.float16, 23)


def quantized_reference():
    import numpy as np
    from onnx import TensorProto
    from onnxruntime.quantization.quant_utils import quantize_data
    from safetensors.numpy import load_file

    sd = load_file(os.path.join(out, 'bertmodel-f32', 'model.safetensors'))
    cases = []

    def add(name, arr, qtype, symmetric):
        zp, scale, q = quantize_data(arr.flatten(), qtype, symmetric)
        cases.append({'name': name, 'signed': qtype == TensorProto.INT8, 'input': arr.flatten().tolist(),
                      'scale': float(scale), 'zero_point': int(zp), 'values': q.astype(int).tolist()})

    for k, v in sorted(sd.items()):
        if k.endswith('.weight') and v.ndim == 2 and 'embeddings' not in k:
            add(k + '.T', np.ascontiguousarray(v.T), TensorProto.INT8, True)
        elif 'embeddings' in k and k.endswith('embeddings.weight'):
            add(k, v, TensorProto.UINT8, False)
    # Exact ties: scale 1 (absmax 127 / range 255), values at .5.
    ties = np.array([127, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.49, -126.5], dtype=np.float32)
    add('ties-int8', ties, TensorProto.INT8, True)
    add('ties-uint8', np.array([-127.5, 127.5, 0.5, 1.5, -0.5, 2.5], dtype=np.float32), TensorProto.UINT8, False)
    add('zeros-int8', np.zeros(4, dtype=np.float32), TensorProto.INT8, True)
    add('positive-uint8', np.array([0.25, 3.0, 1.0], dtype=np.float32), TensorProto.UINT8, False)
    with open(os.path.join(out, 'quantized.json'), 'w') as f:
        json.dump(cases, f)


quantized_reference()
