"""A Qwen3-Embedding-4B-shaped checkpoint (36 layers, hidden 2560, 32 query / 8 key-value heads of 128,
intermediate 9728, vocabulary 151665), written as the hub ships it — bfloat16, sharded safetensors with
model.safetensors.index.json — for the conversion benchmark's memory figure (bench/dense/convert-large.ts), into a
scratch folder outside the repository (never committed: 8 GB). Development only; needs numpy.

    python scripts/dev/make-large-shape-checkpoint.py OUTDIR

The values are a repeated block of N(0, 0.02) numbers (norm gains 1): what a conversion reads and writes does not
depend on them, and 4 B random draws would take minutes. Written directly in the safetensors format (a header
length, a JSON header, the raw little-endian bytes), no torch model is built (it would need 16 GB in float32).
"""
import json
import os
import struct
import sys

import numpy as np

SHAPE = dict(vocab_size=151665, hidden_size=2560, num_hidden_layers=36, num_attention_heads=32, num_key_value_heads=8,
             head_dim=128, intermediate_size=9728)
SHARD_BYTES = 4_000_000_000


def tensors():
    c = SHAPE
    h, d, q, kv, i = c['hidden_size'], c['head_dim'], c['num_attention_heads'], c['num_key_value_heads'], c['intermediate_size']
    yield 'embed_tokens.weight', (c['vocab_size'], h), False
    for l in range(c['num_hidden_layers']):
        p = f'layers.{l}.'
        yield p + 'input_layernorm.weight', (h,), True
        yield p + 'self_attn.q_proj.weight', (q * d, h), False
        yield p + 'self_attn.k_proj.weight', (kv * d, h), False
        yield p + 'self_attn.v_proj.weight', (kv * d, h), False
        yield p + 'self_attn.o_proj.weight', (h, q * d), False
        yield p + 'self_attn.q_norm.weight', (d,), True
        yield p + 'self_attn.k_norm.weight', (d,), True
        yield p + 'post_attention_layernorm.weight', (h,), True
        yield p + 'mlp.gate_proj.weight', (i, h), False
        yield p + 'mlp.up_proj.weight', (i, h), False
        yield p + 'mlp.down_proj.weight', (h, i), False
    yield 'norm.weight', (h,), True


def bf16(values: np.ndarray) -> bytes:
    """float32 → bfloat16 bits by round-to-nearest-even on the upper half."""
    u = values.astype('<f4').view('<u4')
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype('<u2').tobytes()


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    block = bf16(np.random.default_rng(1).normal(0, 0.02, 1 << 20).astype(np.float32))
    ones = bf16(np.ones(1 << 14, dtype=np.float32))
    shards, cur, size = [], [], 0
    for name, shape, gain in tensors():
        n = int(np.prod(shape)) * 2
        if cur and size + n > SHARD_BYTES:
            shards.append(cur)
            cur, size = [], 0
        cur.append((name, shape, gain))
        size += n
    shards.append(cur)
    weight_map = {}
    for k, shard in enumerate(shards):
        fname = f'model-{k + 1:05d}-of-{len(shards):05d}.safetensors'
        header, offset = {}, 0
        for name, shape, _ in shard:
            n = int(np.prod(shape)) * 2
            header[name] = {'dtype': 'BF16', 'shape': list(shape), 'data_offsets': [offset, offset + n]}
            offset += n
            weight_map[name] = fname
        head = json.dumps(header, separators=(',', ':')).encode()
        head += b' ' * (-len(head) % 8)
        with open(os.path.join(out, fname), 'wb') as f:
            f.write(struct.pack('<Q', len(head)) + head)
            for name, shape, gain in shard:
                n = int(np.prod(shape)) * 2
                src = ones if gain else block
                while n > 0:
                    piece = src[:min(n, len(src))]
                    f.write(piece)
                    n -= len(piece)
        print(fname, len(shard), 'tensors', file=sys.stderr)
    json.dump({'metadata': {'total_size': sum(int(np.prod(s)) * 2 for _, s, _ in tensors())}, 'weight_map': weight_map},
              open(os.path.join(out, 'model.safetensors.index.json'), 'w'), indent=2)
    json.dump({'architectures': ['Qwen3Model'], 'model_type': 'qwen3', **SHAPE, 'max_position_embeddings': 40960, 'rms_norm_eps': 1e-6,
               'rope_theta': 1000000, 'tie_word_embeddings': True, 'torch_dtype': 'bfloat16', 'hidden_act': 'silu',
               'attention_bias': False, 'use_sliding_window': False}, open(os.path.join(out, 'config.json'), 'w'), indent=2)


if __name__ == '__main__':
    main()
