"""Export a BERT checkpoint folder to ONNX with torch.onnx.export (development only): the stand-in for an
optimum-cli export when timing citebench's converted graph (bench/dense/convert.ts) — optimum is not installed
here. Outputs last_hidden_state and mean_hidden_states (the mean of hidden_states[1:]), as the project's
exported models define them; inputs input_ids, attention_mask, token_type_ids (int64, dynamic batch and seq).

    python scripts/dev/export-bert-onnx.py MODEL_DIR OUT.onnx
"""
import sys

import torch
from transformers import BertModel


class WithMean(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, attention_mask, token_type_ids):
        o = self.m(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids, output_hidden_states=True)
        return o.last_hidden_state, torch.stack(o.hidden_states[1:]).mean(0)


src, dst = sys.argv[1], sys.argv[2]
model = WithMean(BertModel.from_pretrained(src, dtype=torch.float32, add_pooling_layer=False).eval())
ids = torch.tensor([[102, 1000, 2000, 103]])
axes = {0: 'batch', 1: 'seq'}
with torch.no_grad():
    torch.onnx.export(model, (ids, torch.ones_like(ids), torch.zeros_like(ids)), dst, dynamo=False, opset_version=14,
                      input_names=['input_ids', 'attention_mask', 'token_type_ids'],
                      output_names=['last_hidden_state', 'mean_hidden_states'],
                      dynamic_axes={'input_ids': axes, 'attention_mask': axes, 'token_type_ids': axes,
                                    'last_hidden_state': axes, 'mean_hidden_states': axes})
print(dst, file=sys.stderr)
