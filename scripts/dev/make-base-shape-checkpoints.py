"""Random-weight ModernBERT-base-shape and XLM-RoBERTa-base-shape checkpoints for the conversion and encoding
benchmark (bench/dense/modern.ts), written into a scratch folder outside the repository (never committed: 0.6 and
1.1 GB). Development only; needs torch and transformers 5.18.

    python scripts/dev/make-base-shape-checkpoints.py OUTDIR

OUTDIR/modernbert-base/   ModernBertModel, answerdotai/ModernBERT-base's shape (hidden 768, 22 layers, 12 heads,
                          intermediate 1152, vocabulary 50368, local_attention 128, every 3rd layer global, 8192
                          positions), config.json in the hub's form, model.safetensors float32
OUTDIR/xlm-roberta-base/  XLMRobertaModel, xlm-roberta-base's shape (hidden 768, 12 layers, 12 heads, intermediate
                          3072, vocabulary 250002, 514 positions, one token type), model.safetensors float32
Each with expected.json / expected.bin: PyTorch's last_hidden_state and the mean of hidden_states[1:] for 4 random
id sequences of 512, 300, 77 and 16 tokens right-padded in one batch (attention mask 0 on the padding), the
references the benchmark compares the converted graph with. Weights: the models' own initialisation (seeded).
"""
import json
import os
import sys

import torch
from transformers import ModernBertConfig, ModernBertModel, XLMRobertaConfig, XLMRobertaModel

LENGTHS = (512, 300, 77, 16)


def write(model, d, pad, bos, eos, vocab, config_json=None):
    os.makedirs(d, exist_ok=True)
    model.save_pretrained(d)
    if config_json:
        with open(os.path.join(d, 'config.json'), 'w') as f:
            json.dump(config_json, f, indent=2)
        model = type(model).from_pretrained(d).eval()
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
    torch.manual_seed(11)
    hub = dict(vocab_size=50368, hidden_size=768, num_hidden_layers=22, num_attention_heads=12, intermediate_size=1152,
               max_position_embeddings=8192, local_attention=128, global_attn_every_n_layers=3, global_rope_theta=160000.0,
               local_rope_theta=10000.0, norm_eps=1e-5, norm_bias=False, attention_bias=False, mlp_bias=False,
               pad_token_id=50283, bos_token_id=50281, cls_token_id=50281, eos_token_id=50282, sep_token_id=50282)
    m = ModernBertModel(ModernBertConfig(**hub)).eval()
    write(m, os.path.join(out, 'modernbert-base'), 50283, 50281, 50282, 50368,
          {'architectures': ['ModernBertModel'], 'model_type': 'modernbert', 'hidden_activation': 'gelu', **hub})
    del m
    cfg = XLMRobertaConfig(vocab_size=250002, hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
                           max_position_embeddings=514, type_vocab_size=1, pad_token_id=1, bos_token_id=0, eos_token_id=2,
                           layer_norm_eps=1e-5)
    m = XLMRobertaModel(cfg, add_pooling_layer=False).eval()
    write(m, os.path.join(out, 'xlm-roberta-base'), 1, 0, 2, 250002)


if __name__ == '__main__':
    main()
