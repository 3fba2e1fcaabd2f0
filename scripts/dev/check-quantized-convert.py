"""Check citebench's int8 conversion against onnxruntime's quantizer (development only).

    node -e "..." / any caller of convertCheckpoint(dir) and convertCheckpoint(dir, {quantize: true}), then
    python scripts/dev/check-quantized-convert.py CONVERTED_DIR     # the folder holding model.onnx + model_quantized.onnx

Runs onnxruntime's quantize_dynamic(model.onnx, weight_type=QInt8) (how the project's int8 models were made) on
citebench's float32 conversion (any architecture it builds) and compares, by name, every quantized initializer (values, scales, zero points)
with citebench's own model_quantized.onnx; then both int8 models' outputs on the same random inputs.
"""
import os
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper
from onnxruntime.quantization import QuantType, quantize_dynamic

d = sys.argv[1]
ref = os.path.join(tempfile.mkdtemp(), 'ort_quantized.onnx')
quantize_dynamic(os.path.join(d, 'model.onnx'), ref, weight_type=QuantType.QInt8)
theirs = {t.name: numpy_helper.to_array(t) for t in onnx.load(ref).graph.initializer}
ours = {t.name: numpy_helper.to_array(t) for t in onnx.load(os.path.join(d, 'model_quantized.onnx')).graph.initializer}
names = sorted(n for n in ours if n.endswith(('_quantized', '_scale', '_zero_point')))
common = [n for n in names if n in theirs]
differ = [n for n in common if not (ours[n].dtype == theirs[n].dtype and np.array_equal(ours[n], theirs[n]))]
print(f'quantized initializers: {len(names)} ours, {len(common)} also in onnxruntime\'s, {len(differ)} differ {differ[:5]}')
print('only ours (quantized by citebench, left float by quantize_dynamic on this graph):', [n for n in names if n not in theirs])
rng = np.random.default_rng(0)
# The vocabulary: rows of the token embedding table (BERT/RoBERTa word_embeddings, ModernBERT tok_embeddings).
vocab = next(v.shape[0] for n, v in ours.items() if n.endswith(('word_embeddings.weight_quantized', 'tok_embeddings.weight_quantized')))
ids = rng.integers(5, vocab, size=(4, 32))  # 32: within every fixture's positions
mask = np.ones_like(ids)
mask[1, 20:] = 0
mask[3, 10:] = 0
sessions = [ort.InferenceSession(f, providers=['CPUExecutionProvider'])
            for f in (os.path.join(d, 'model_quantized.onnx'), ref, os.path.join(d, 'model.onnx'))]
feeds = {k: v for k, v in {'input_ids': ids, 'attention_mask': mask, 'token_type_ids': np.zeros_like(ids)}.items()
         if k in [i.name for i in sessions[0].get_inputs()]}
outs = [s.run(['last_hidden_state', 'mean_hidden_states'], feeds) for s in sessions]
for k, name in enumerate(['last_hidden_state', 'mean_hidden_states']):
    print(name, 'max |ours int8 - onnxruntime int8|:', float(np.abs(outs[0][k] - outs[1][k]).max()),
          ' max |int8 - fp32|:', float(np.abs(outs[0][k] - outs[2][k]).max()))
