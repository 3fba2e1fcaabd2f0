"""Regenerate test/dense/fixtures/fp16/tiny-scibert-random-model_fp16.onnx (development only, not run by tests).

A float16 export of ../shared/models/tiny-scibert-random/onnx/model.onnx, made the way users make one for GPUs
without re-exporting: onnxruntime's converter (float16 weights, compute and outputs; inputs stay int64).
Needs the Python packages onnx and onnxruntime:  python scripts/dev/make-fp16-fixture.py
"""
import os
import sys

import onnx
from onnxruntime.transformers.float16 import convert_float_to_float16

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
src = os.path.join(root, '..', 'shared', 'models', 'tiny-scibert-random', 'onnx', 'model.onnx')
dst = os.path.join(root, 'test', 'dense', 'fixtures', 'fp16', 'tiny-scibert-random-model_fp16.onnx')
model = convert_float_to_float16(onnx.load(src), keep_io_types=False)
onnx.save(model, dst)
print(dst, [(o.name, onnx.TensorProto.DataType.Name(o.type.tensor_type.elem_type)) for o in model.graph.output], file=sys.stderr)
