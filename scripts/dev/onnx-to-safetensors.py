"""Rebuild a BERT checkpoint folder from a transformers ONNX export (development only), for checking citebench's
converted graph against the exported one on the same weights (scripts/dev/bert-graph-vs-export.ts).

    python scripts/dev/onnx-to-safetensors.py MODEL_DIR OUT_DIR

MODEL_DIR is a folder like ../shared/models/tiny-scibert-random (config.json, tokenizer files, onnx/model.onnx).
The exporter renames the Linear weights (`onnx::MatMul_386`, stored transposed as [in, out]) and folds equal
biases into Identity aliases; both are traced back through the graph to the BertModel parameter names. OUT_DIR
gets config.json, the tokenizer files and model.safetensors (BertModel keys, float32).
"""
import os
import re
import shutil
import sys

import numpy as np
import onnx
from onnx import numpy_helper
from safetensors.numpy import save_file

src, dst = sys.argv[1], sys.argv[2]
g = onnx.load(os.path.join(src, 'onnx', 'model.onnx')).graph
values = {t.name: numpy_helper.to_array(t) for t in g.initializer}
for n in g.node:  # Identity aliases of initializers
    if n.op_type == 'Identity' and n.input[0] in values:
        values[n.output[0]] = values[n.input[0]]
state = {}
for name, v in values.items():
    if name.startswith('m.'):
        state[name[2:]] = v
for n in g.node:  # '/m/encoder/layer.0/attention/self/query/MatMul' -> encoder.layer.0.attention.self.query.weight
    m = re.fullmatch(r'/m/(.*)/MatMul', n.name)
    if n.op_type == 'MatMul' and m and n.input[1] in values:
        state[m.group(1).replace('/', '.') + '.weight'] = values[n.input[1]].T
os.makedirs(dst, exist_ok=True)
save_file({k: np.ascontiguousarray(v, dtype=np.float32) for k, v in sorted(state.items())}, os.path.join(dst, 'model.safetensors'))
for f in ('config.json', 'tokenizer.json', 'tokenizer_config.json', 'vocab.txt'):
    if os.path.exists(os.path.join(src, f)):
        shutil.copy(os.path.join(src, f), dst)
print(dst, len(state), 'tensors', file=sys.stderr)
