"""Regenerate test/dense/fixtures/decoder-graph/ (development only, not run by tests).

Tiny random-weight decoder-style checkpoints saved the way transformers saves them, and the hidden states PyTorch
transformers 5.18 computes for fixed token ids with its default attention (sdpa), float32: each sequence alone,
all of them right-padded in one batch, and all of them left-padded in one batch (as Qwen3-Embedding's tokenizer
pads). Needs torch and transformers 5.18 (safetensors):  python scripts/dev/make-decoder-graph-fixtures.py

Cases (each folder config.json + weights, vocabulary 300, no tokenizer):
  qwen3-f32/                 Qwen3Model keys, float32, hidden 32, 3 layers, 4 query / 2 key-value heads, head_dim 16
                             (≠ hidden / heads, as in Qwen3-Embedding), q/k norm, θ 1e6 in transformers 5's
                             rope_parameters
  qwen3-clm-bf16-sharded/    Qwen3ForCausalLM keys (`model.` prefix, tied lm_head), bfloat16, sharded safetensors with
                             model.safetensors.index.json, config.json in transformers 4's form (rope_theta), sliding
                             window 4 on layers ≥ 1 (use_sliding_window, max_window_layers)
  qwen2-f16/                 Qwen2Model keys: q/k/v biases, no q/k norm, float16 weights
  llama-bias-linear/         LlamaModel keys: attention_bias and mlp_bias, head_dim 12, 3 query / 1 key-value heads,
                             linear rotary scaling (factor 2) in 4.x rope_scaling form
  mistral-window/            MistralModel keys: no biases, sliding_window 5 (every layer)
  gemma3-bidirectional/      Gemma3TextModel keys: use_bidirectional_attention (EmbeddingGemma), layer_types with sliding
                             and full layers, sliding_window 6 (|i − j| ≤ 3), separate θ (4.x rope_theta and
                             rope_local_base_freq), hidden 48, 3 heads, query_pre_attn_scalar 12, embeddings × √hidden, zero-centred norms
  gemma3-causal-f32/         Gemma3TextModel keys, causal (a plain Gemma 3 text model), sliding_window 4, 5.x
                             rope_parameters per layer type with linear scaling on the full layers
  qwen2-head-dim/            Qwen2Model keys (float16) with head_dim 16 (≠ hidden / heads = 8: Qwen2Attention reads it), and
                             use_sliding_window true with "sliding_window": null and no layer_types (4.x form):
                             no layer slides
  mistral-default-window/    MistralModel keys (float16), config.json without sliding_window: MistralConfig's default 4096,
                             every layer
The reference is always the saved weights computed in float32. Sequences of 5, 9, 3, 14, 7 and 18 tokens.
expected.json: {"cases": [{"name", "hidden", "layers", "single": [{"input_ids", "last_hidden_state"}], "right": {...},
"left": {"input_ids", "attention_mask", "last_hidden_state"}}]}: float32 element offsets into expected.bin of
transformers' last_hidden_state (alone, left-padded) and of its hidden_states[0..N] (right-padded: embeddings, each
layer's output; the last is last_hidden_state, after the final norm). Padding positions of a batch hold whatever transformers computes there; the tests compare real tokens only.
Weights: matrices and embeddings N(0, 0.2), biases N(0, 0.1), norm gains 1 + N(0, 0.2) (Gemma's zero-centred gains
N(0, 0.2)).
"""
import json
import os
import shutil

import torch
from fixture_blocks import Blocks
import transformers
from transformers import (Gemma3TextConfig, Gemma3TextModel, LlamaConfig, LlamaModel, MistralConfig, MistralModel,
                          Qwen2Config, Qwen2Model, Qwen3Config, Qwen3ForCausalLM, Qwen3Model)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, 'test', 'dense', 'fixtures', 'decoder-graph')
SEED = 4013
LENGTHS = (5, 9, 3, 14, 7, 18)
PAD = 0


def randomise(model, g, zero_centred=False):
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 1 and name.endswith('weight'):
                p.copy_((0 if zero_centred else 1) + 0.2 * torch.randn(p.shape, generator=g))
            elif p.dim() == 1:
                p.copy_(0.1 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(0.2 * torch.randn(p.shape, generator=g))


def states(model, ids, mask, blocks, last_only=False):
    with torch.no_grad():
        o = model(input_ids=torch.tensor(ids), attention_mask=torch.tensor(mask), output_hidden_states=True)
    hs = o.hidden_states
    assert len(hs) == model.config.num_hidden_layers + 1, len(hs)
    assert torch.equal(hs[-1], o.last_hidden_state)
    m = torch.tensor(mask).bool()
    assert not any(torch.isnan(s[m]).any() for s in hs)
    return blocks.add(hs[-1]) if last_only else [blocks.add(s) for s in hs]


def case(name, cls, d, blocks, g):
    model = cls.from_pretrained(d, dtype=torch.float32).eval()
    assert model.config._attn_implementation == 'sdpa', model.config._attn_implementation
    seqs = [[int(x) for x in torch.randint(1, 300, (n,), generator=g)] for n in LENGTHS]
    width = max(map(len, seqs))
    right = {'input_ids': [s + [PAD] * (width - len(s)) for s in seqs], 'attention_mask': [[1] * len(s) + [0] * (width - len(s)) for s in seqs]}
    left = {'input_ids': [[PAD] * (width - len(s)) + s for s in seqs], 'attention_mask': [[0] * (width - len(s)) + [1] * len(s) for s in seqs]}
    right['hidden_states'] = states(model, right['input_ids'], right['attention_mask'], blocks)
    left['last_hidden_state'] = states(model, left['input_ids'], left['attention_mask'], blocks, last_only=True)
    return {
        'name': name, 'hidden': model.config.hidden_size, 'layers': model.config.num_hidden_layers,
        'single': [{'input_ids': s, 'last_hidden_state': states(model, [s], [[1] * len(s)], blocks, last_only=True)} for s in seqs],
        'right': right, 'left': left,
    }


def save(model, d, dtype=None, **kw):
    if dtype is not None:
        model = model.to(dtype)
    model.save_pretrained(d, **kw)


def rewrite_config(d, drop=(), **extra):
    p = os.path.join(d, 'config.json')
    c = json.load(open(p))
    for k in drop:
        c.pop(k, None)
    c.update(extra)
    json.dump(c, open(p, 'w'), indent=2)
    return c


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    g = torch.Generator().manual_seed(SEED)
    torch.manual_seed(SEED)
    blocks, cases = Blocks(), []
    base = dict(vocab_size=300, hidden_size=32, intermediate_size=48, max_position_embeddings=64, rms_norm_eps=1e-6,
                pad_token_id=PAD, bos_token_id=1, eos_token_id=2)

    # Qwen3, bare model, float32, transformers 5's config.json.
    cfg = Qwen3Config(**base, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                      rope_parameters={'rope_type': 'default', 'rope_theta': 1e6})
    m = Qwen3Model(cfg).eval()
    randomise(m, g)
    d = os.path.join(OUT, 'qwen3-f32')
    save(m, d)
    assert 'rope_parameters' in json.load(open(os.path.join(d, 'config.json')))
    cases.append(case('qwen3-f32', Qwen3Model, d, blocks, g))

    # Qwen3, ForCausalLM keys, bfloat16, sharded, transformers 4's config form, sliding window on layers >= 1.
    cfg = Qwen3Config(**base, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=1, head_dim=8,
                      use_sliding_window=True, sliding_window=4, max_window_layers=1, tie_word_embeddings=True,
                      rope_parameters={'rope_type': 'default', 'rope_theta': 50000.0})
    m = Qwen3ForCausalLM(cfg).eval()
    randomise(m, g)
    d = os.path.join(OUT, 'qwen3-clm-bf16-sharded')
    save(m, d, torch.bfloat16, max_shard_size='20KB')
    assert os.path.exists(os.path.join(d, 'model.safetensors.index.json'))
    rewrite_config(d, drop=('rope_parameters', 'layer_types'), rope_theta=50000.0, rope_scaling=None)
    loaded = Qwen3Model.from_pretrained(d).config
    assert loaded.layer_types == ['full_attention', 'sliding_attention', 'sliding_attention'], loaded.layer_types
    assert loaded.rope_parameters['rope_theta'] == 50000.0
    cases.append(case('qwen3-clm-bf16-sharded', Qwen3Model, d, blocks, g))

    # Qwen2: q/k/v biases, float16.
    cfg = Qwen2Config(**base, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                      rope_parameters={'rope_type': 'default', 'rope_theta': 10000.0})
    m = Qwen2Model(cfg).eval()
    randomise(m, g)
    d = os.path.join(OUT, 'qwen2-f16')
    save(m, d, torch.float16)
    cases.append(case('qwen2-f16', Qwen2Model, d, blocks, g))

    # Llama: attention and MLP biases, head_dim 12, linear rotary scaling given in 4.x form.
    cfg = LlamaConfig(**{**base, 'hidden_size': 36}, num_hidden_layers=2, num_attention_heads=3, num_key_value_heads=1,
                      head_dim=12, attention_bias=True, mlp_bias=True,
                      rope_parameters={'rope_type': 'linear', 'factor': 2.0, 'rope_theta': 20000.0})
    m = LlamaModel(cfg).eval()
    randomise(m, g)
    d = os.path.join(OUT, 'llama-bias-linear')
    save(m, d)
    rewrite_config(d, drop=('rope_parameters',), rope_theta=20000.0, rope_scaling={'type': 'linear', 'factor': 2.0})
    assert LlamaModel.from_pretrained(d).config.rope_parameters['factor'] == 2.0
    cases.append(case('llama-bias-linear', LlamaModel, d, blocks, g))

    # Mistral: sliding window 5 on every layer.
    cfg = MistralConfig(**base, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, sliding_window=5,
                        rope_parameters={'rope_type': 'default', 'rope_theta': 10000.0})
    m = MistralModel(cfg).eval()
    randomise(m, g)
    d = os.path.join(OUT, 'mistral-window')
    save(m, d)
    cases.append(case('mistral-window', MistralModel, d, blocks, g))

    # Gemma 3 text, bidirectional (EmbeddingGemma), 4.x config form.
    cfg = Gemma3TextConfig(**{**base, 'hidden_size': 48}, num_hidden_layers=4, num_attention_heads=3, num_key_value_heads=1, head_dim=16,
                           query_pre_attn_scalar=12, sliding_window=6, use_bidirectional_attention=True,
                           layer_types=['sliding_attention', 'full_attention', 'sliding_attention', 'full_attention'],
                           rope_parameters={'full_attention': {'rope_type': 'default', 'rope_theta': 100000.0},
                                            'sliding_attention': {'rope_type': 'default', 'rope_theta': 3000.0}})
    m = Gemma3TextModel(cfg).eval()
    randomise(m, g, zero_centred=True)
    d = os.path.join(OUT, 'gemma3-bidirectional')
    save(m, d, torch.bfloat16)
    saved = rewrite_config(d, drop=('rope_parameters',), rope_theta=100000.0, rope_local_base_freq=3000.0, rope_scaling=None)
    assert saved['sliding_window'] == 6, saved['sliding_window']
    loaded = Gemma3TextModel.from_pretrained(d).config
    assert loaded.sliding_window == 4 and loaded.rope_parameters['sliding_attention']['rope_theta'] == 3000.0, loaded
    cases.append(case('gemma3-bidirectional', Gemma3TextModel, d, blocks, g))

    # Gemma 3 text, causal, 5.x rope_parameters with linear scaling on the full layers.
    cfg = Gemma3TextConfig(**base, num_hidden_layers=3, num_attention_heads=2, num_key_value_heads=2, head_dim=16,
                           query_pre_attn_scalar=16, sliding_window=4, use_bidirectional_attention=False,
                           layer_types=['sliding_attention', 'sliding_attention', 'full_attention'],
                           rope_parameters={'full_attention': {'rope_type': 'linear', 'factor': 4.0, 'rope_theta': 1e6},
                                            'sliding_attention': {'rope_type': 'default', 'rope_theta': 10000.0}})
    m = Gemma3TextModel(cfg).eval()
    randomise(m, g, zero_centred=True)
    d = os.path.join(OUT, 'gemma3-causal-f32')
    save(m, d)
    cases.append(case('gemma3-causal-f32', Gemma3TextModel, d, blocks, g))

    # Qwen2 with its own head_dim, and a sliding window switched on but null (no window: no layer slides).
    cfg = Qwen2Config(**base, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                      use_sliding_window=True, sliding_window=None, max_window_layers=0,
                      rope_parameters={'rope_type': 'default', 'rope_theta': 10000.0})
    m = Qwen2Model(cfg).eval()
    randomise(m, g)
    assert tuple(m.layers[0].self_attn.q_proj.weight.shape) == (64, 32)
    d = os.path.join(OUT, 'qwen2-head-dim')
    save(m, d, torch.float16)
    saved = rewrite_config(d, drop=('layer_types',))
    assert saved['sliding_window'] is None and saved['use_sliding_window'] is True and saved['head_dim'] == 16, saved
    loaded = Qwen2Model.from_pretrained(d).config
    assert loaded.layer_types == ['full_attention', 'full_attention'] and loaded.sliding_window is None, loaded
    cases.append(case('qwen2-head-dim', Qwen2Model, d, blocks, g))

    # Mistral whose config.json names no sliding_window: the configuration class's 4096, on every layer.
    cfg = MistralConfig(**base, num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=2,
                        rope_parameters={'rope_type': 'default', 'rope_theta': 10000.0})
    m = MistralModel(cfg).eval()
    randomise(m, g)
    d = os.path.join(OUT, 'mistral-default-window')
    save(m, d, torch.float16)
    saved = rewrite_config(d, drop=('sliding_window',))
    assert 'sliding_window' not in saved
    assert MistralModel.from_pretrained(d).config.sliding_window == 4096
    cases.append(case('mistral-default-window', MistralModel, d, blocks, g))

    blocks.write(os.path.join(OUT, 'expected.bin'))
    with open(os.path.join(OUT, 'expected.json'), 'w') as f:
        json.dump({'versions': {'transformers': transformers.__version__, 'torch': torch.__version__}, 'attn_implementation': 'sdpa', 'cases': cases}, f)
        f.write('\n')
    for c in cases:
        print(c['name'], sorted(os.listdir(os.path.join(OUT, c['name']))))
    total = sum(os.path.getsize(os.path.join(dp, fn)) for dp, _, fs in os.walk(OUT) for fn in fs)
    print(f'{OUT}: {total / 1e3:.0f} kB')


if __name__ == '__main__':
    main()
