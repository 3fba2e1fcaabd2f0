"""Random-weight checkpoints at the real shapes of today's encoders for the conversion and encoding benchmark
(bench/dense/modern.ts), written into a scratch folder outside the repository (never committed: 0.6, 1.1, 1.2 and
0.6 GB). Development only; needs torch and transformers 5.18.

    python scripts/dev/make-base-shape-checkpoints.py OUTDIR [CASE ...]    (default: every case)

OUTDIR/modernbert-base/   ModernBertModel, answerdotai/ModernBERT-base's shape (hidden 768, 22 layers, 12 heads,
                          intermediate 1152, vocabulary 50368, local_attention 128, every 3rd layer global, 8192
                          positions), config.json in the hub's form, model.safetensors float32
OUTDIR/xlm-roberta-base/  XLMRobertaModel, xlm-roberta-base's shape (hidden 768, 12 layers, 12 heads, intermediate
                          3072, vocabulary 250002, 514 positions, one token type), model.safetensors float32
OUTDIR/qwen3-0.6b/        Qwen3Model, Qwen/Qwen3-Embedding-0.6B's shape (hidden 1024, 28 layers, 16 query / 8 key-value
                          heads of 128, intermediate 3072, vocabulary 151669, θ 1e6), model.safetensors bfloat16 as
                          the hub ships it; the reference is those weights computed in float32
OUTDIR/embeddinggemma-300m/  Gemma3TextModel, google/embeddinggemma-300m's shape (hidden 768, 24 layers, 3 heads of 256,
                          1 key-value head, intermediate 1152, vocabulary 262144, bidirectional, sliding_window 512
                          with every 6th layer full, θ 1e6 / 1e4, query_pre_attn_scalar 256), bfloat16
Each with expected.json / expected.bin: PyTorch's last_hidden_state and the mean of hidden_states[1:] for 4 random
id sequences of 512, 300, 77 and 16 tokens right-padded in one batch (attention mask 0 on the padding), the
references the benchmark compares the converted graph with. Weights: the models' own initialisation (seeded).
"""
import json
import os
import sys

import torch
from transformers import (Gemma3TextConfig, Gemma3TextModel, ModernBertConfig, ModernBertModel, Qwen3Config, Qwen3Model,
                          XLMRobertaConfig, XLMRobertaModel)

LENGTHS = (512, 300, 77, 16)


def write(model, d, pad, bos, eos, vocab, config_json=None, dtype=None):
    os.makedirs(d, exist_ok=True)
    (model.to(dtype) if dtype else model).save_pretrained(d)
    if config_json:
        with open(os.path.join(d, 'config.json'), 'w') as f:
            json.dump(config_json, f, indent=2)
    if config_json or dtype:
        model = type(model).from_pretrained(d, dtype=torch.float32).eval()
    g = torch.Generator().manual_seed(7)
    seqs = [[bos] + [int(x) for x in torch.randint(5, vocab, (n - 2,), generator=g)] + [eos] for n in LENGTHS]
    width = max(map(len, seqs))
    ids = torch.tensor([s + [pad] * (width - len(s)) for s in seqs])
    mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in seqs])
    with torch.no_grad():
        o = model(input_ids=ids, attention_mask=mask, output_hidden_states=True)
    last = o.last_hidden_state
    mean = torch.stack(o.hidden_states[1:]).mean(0)
    torch.cat([last.reshape(-1), mean.reshape(-1)]).numpy().astype('<f4').tofile(os.path.join(d, 'expected.bin'))
    with open(os.path.join(d, 'expected.json'), 'w') as f:
        json.dump({'input_ids': ids.tolist(), 'attention_mask': mask.tolist(), 'hidden': last.shape[-1],
                   'last': 0, 'mean': last.numel(), 'attn_implementation': model.config._attn_implementation}, f)
    print(d, sorted(os.listdir(d)), file=sys.stderr)


def main():
    out = sys.argv[1]
    cases = sys.argv[2:] or ['modernbert-base', 'xlm-roberta-base', 'qwen3-0.6b', 'embeddinggemma-300m']
    torch.manual_seed(11)
    if 'qwen3-0.6b' in cases:
        cfg = Qwen3Config(vocab_size=151669, hidden_size=1024, num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=8,
                          head_dim=128, intermediate_size=3072, max_position_embeddings=32768, rms_norm_eps=1e-6, tie_word_embeddings=True,
                          rope_parameters={'rope_type': 'default', 'rope_theta': 1e6}, pad_token_id=151643, bos_token_id=151643, eos_token_id=151643)
        m = Qwen3Model(cfg).eval()
        write(m, os.path.join(out, 'qwen3-0.6b'), 151643, 151643, 151643, 151669, dtype=torch.bfloat16)
        del m
    if 'embeddinggemma-300m' in cases:
        cfg = Gemma3TextConfig(vocab_size=262144, hidden_size=768, num_hidden_layers=24, num_attention_heads=3, num_key_value_heads=1, head_dim=256,
                               intermediate_size=1152, max_position_embeddings=2048, query_pre_attn_scalar=256, sliding_window=512,
                               use_bidirectional_attention=True, rms_norm_eps=1e-6, pad_token_id=0, eos_token_id=1, bos_token_id=2,
                               rope_parameters={'full_attention': {'rope_type': 'default', 'rope_theta': 1e6}, 'sliding_attention': {'rope_type': 'default', 'rope_theta': 10000.0}})
        m = Gemma3TextModel(cfg).eval()
        write(m, os.path.join(out, 'embeddinggemma-300m'), 0, 2, 1, 262144, dtype=torch.bfloat16)
        del m
    if 'modernbert-base' not in cases and 'xlm-roberta-base' not in cases:
        return
    hub = dict(vocab_size=50368, hidden_size=768, num_hidden_layers=22, num_attention_heads=12, intermediate_size=1152,
               max_position_embeddings=8192, local_attention=128, global_attn_every_n_layers=3, global_rope_theta=160000.0,
               local_rope_theta=10000.0, norm_eps=1e-5, norm_bias=False, attention_bias=False, mlp_bias=False,
               pad_token_id=50283, bos_token_id=50281, cls_token_id=50281, eos_token_id=50282, sep_token_id=50282)
    m = ModernBertModel(ModernBertConfig(**hub)).eval()
    if 'modernbert-base' in cases:
        write(m, os.path.join(out, 'modernbert-base'), 50283, 50281, 50282, 50368,
              {'architectures': ['ModernBertModel'], 'model_type': 'modernbert', 'hidden_activation': 'gelu', **hub})
    del m
    if 'xlm-roberta-base' not in cases:
        return
    cfg = XLMRobertaConfig(vocab_size=250002, hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
                           max_position_embeddings=514, type_vocab_size=1, pad_token_id=1, bos_token_id=0, eos_token_id=2,
                           layer_norm_eps=1e-5)
    m = XLMRobertaModel(cfg, add_pooling_layer=False).eval()
    write(m, os.path.join(out, 'xlm-roberta-base'), 1, 0, 2, 250002)


if __name__ == '__main__':
    main()
