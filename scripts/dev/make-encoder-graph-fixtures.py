"""Regenerate test/dense/fixtures/encoder-graph/ (development only, not run by tests).

Tiny random-weight RoBERTa, XLM-RoBERTa and ModernBERT checkpoints saved the way transformers saves them, and every
hidden state PyTorch transformers 5.18 computes for fixed token ids with its default attention (sdpa), float32:
each sequence alone and all of them right-padded in one batch (attention mask 0 on the padding, one row all
padding). Needs torch and transformers 5.18 (tokenizers 0.23, safetensors):  python scripts/dev/make-encoder-graph-fixtures.py

Cases (each folder config.json + one weights file, well under 1 MB; vocabulary 300, no tokenizer):
  roberta-zip-f32/             RobertaModel keys, pytorch_model.bin (torch.save zip), float32; hidden 32, 2 layers,
                               4 heads, intermediate 64, 40 positions, one token type, pad_token_id 1
  xlm-roberta-mlm-f16/         XLMRobertaForMaskedLM keys (`roberta.` prefix, LM head), model.safetensors, float16;
                               hidden 32, 3 layers, 2 heads; the reference is the float16 weights computed in float32
  modernbert-f32/              ModernBertModel keys, model.safetensors, float32, config.json as transformers 5.18 writes
                               it (layer_types, rope_parameters); hidden 32, 3 layers, 4 heads (head size 8),
                               intermediate 48, local_attention 4 (a token sees those ≤ 2 away on sliding layers),
                               global_attn_every_n_layers 2 (layers 0 and 2 global), no biases
  modernbert-mlm-bias-bf16/    ModernBertForMaskedLM keys (`model.` prefix, head, decoder), model.safetensors,
                               bfloat16, norm_bias / attention_bias / mlp_bias true, local_attention 6, 4 layers,
                               every 3rd layer global, θ 80000 / 5000; config.json rewritten as the hub's ModernBERT
                               configs are (global_attn_every_n_layers, global_rope_theta, local_rope_theta, no
                               layer_types / rope_parameters), and the reference computed from that file as loaded
Sequences of 5, 9, 3, 14, 7 and 18 tokens (longer than every local window), random ids that are not the pad id.
expected.json: {"cases": [{"name", "hidden", "layers", "single": [{"input_ids", "hidden_states"}], "batch":
{"input_ids", "attention_mask", "hidden_states"}}]}, each hidden_states a list of float32 element offsets into
expected.bin (little-endian) of hidden_states[0..N] as transformers returns them (N = layers; hidden_states[N] is
last_hidden_state, for ModernBERT after final_norm).
Weights: every matrix and embedding N(0, 0.2), biases N(0, 0.1), norm gains 1 + N(0, 0.2) (initialisation's
defaults would make attention nearly uniform and hide a wrong window or rotary angle).
"""
import json
import os
import shutil

import torch
from fixture_blocks import Blocks
import transformers
from transformers import (ModernBertConfig, ModernBertForMaskedLM, ModernBertModel, RobertaConfig, RobertaModel,
                          XLMRobertaConfig, XLMRobertaForMaskedLM, XLMRobertaModel)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, 'test', 'dense', 'fixtures', 'encoder-graph')
SEED = 3402
LENGTHS = (5, 9, 3, 14, 7, 18)


def randomise(model: torch.nn.Module, g: torch.Generator) -> None:
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 1 and name.endswith('weight'):
                p.copy_(1 + 0.2 * torch.randn(p.shape, generator=g))
            elif p.dim() == 1:
                p.copy_(0.1 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(0.2 * torch.randn(p.shape, generator=g))



def states(model, ids, mask, blocks):
    with torch.no_grad():
        o = model(input_ids=torch.tensor(ids), attention_mask=torch.tensor(mask), output_hidden_states=True)
    assert torch.equal(o.hidden_states[-1], o.last_hidden_state)
    assert not any(torch.isnan(s).any() for s in o.hidden_states)
    return [blocks.add(s) for s in o.hidden_states]


def case(name, reference_cls, d, vocab, pad, bos, eos, blocks, g):
    model = reference_cls.from_pretrained(d, dtype=torch.float32).eval()
    assert model.config._attn_implementation == 'sdpa', model.config._attn_implementation
    seqs = [[bos] + [int(x) for x in torch.randint(3, vocab, (n - 2,), generator=g) if True] + [eos] for n in LENGTHS]
    seqs = [[x if x != pad else pad + 3 for x in s] for s in seqs]
    width = max(map(len, seqs))
    b_ids = [s + [pad] * (width - len(s)) for s in seqs] + [[pad] * width]
    b_mask = [[1] * len(s) + [0] * (width - len(s)) for s in seqs] + [[0] * width]
    return {
        'name': name, 'hidden': model.config.hidden_size, 'layers': model.config.num_hidden_layers,
        'single': [{'input_ids': s, 'hidden_states': states(model, [s], [[1] * len(s)], blocks)} for s in seqs],
        'batch': {'input_ids': b_ids, 'attention_mask': b_mask, 'hidden_states': states(model, b_ids, b_mask, blocks)},
    }


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    g = torch.Generator().manual_seed(SEED)
    torch.manual_seed(SEED)
    blocks, cases = Blocks(), []

    # RoBERTa, pytorch_model.bin (zip), float32.
    cfg = RobertaConfig(vocab_size=300, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                        max_position_embeddings=40, type_vocab_size=1, pad_token_id=1, bos_token_id=0, eos_token_id=2)
    m = RobertaModel(cfg, add_pooling_layer=False).eval()
    randomise(m, g)
    d = os.path.join(OUT, 'roberta-zip-f32')
    os.makedirs(d)
    cfg.to_json_file(os.path.join(d, 'config.json'))
    torch.save(m.state_dict(), os.path.join(d, 'pytorch_model.bin'))
    cases.append(case('roberta-zip-f32', RobertaModel, d, 300, 1, 0, 2, blocks, g))

    # XLM-RoBERTa, ForMaskedLM keys, float16 safetensors.
    cfg = XLMRobertaConfig(vocab_size=300, hidden_size=32, num_hidden_layers=3, num_attention_heads=2, intermediate_size=64,
                           max_position_embeddings=40, type_vocab_size=1, pad_token_id=1, bos_token_id=0, eos_token_id=2)
    m = XLMRobertaForMaskedLM(cfg).eval()
    randomise(m, g)
    d = os.path.join(OUT, 'xlm-roberta-mlm-f16')
    m.to(torch.float16).save_pretrained(d)
    cases.append(case('xlm-roberta-mlm-f16', XLMRobertaModel, d, 300, 1, 0, 2, blocks, g))

    # ModernBERT, bare model, float32, transformers 5.18's config.json.
    cfg = ModernBertConfig(vocab_size=300, hidden_size=32, num_hidden_layers=3, num_attention_heads=4, intermediate_size=48,
                           max_position_embeddings=64, local_attention=4, global_attn_every_n_layers=2,
                           pad_token_id=0, bos_token_id=1, cls_token_id=1, eos_token_id=2, sep_token_id=2)
    m = ModernBertModel(cfg).eval()
    randomise(m, g)
    d = os.path.join(OUT, 'modernbert-f32')
    m.save_pretrained(d)
    saved = json.load(open(os.path.join(d, 'config.json')))
    assert saved['layer_types'] == ['full_attention', 'sliding_attention', 'full_attention'], saved['layer_types']
    cases.append(case('modernbert-f32', ModernBertModel, d, 300, 0, 1, 2, blocks, g))

    # ModernBERT, ForMaskedLM keys, bfloat16, biases, hub-style config.json.
    hub = dict(vocab_size=300, hidden_size=32, num_hidden_layers=4, num_attention_heads=4, intermediate_size=40,
               max_position_embeddings=64, local_attention=6, global_attn_every_n_layers=3, global_rope_theta=80000.0,
               local_rope_theta=5000.0, norm_bias=True, attention_bias=True, mlp_bias=True, norm_eps=1e-5,
               pad_token_id=0, bos_token_id=1, cls_token_id=1, eos_token_id=2, sep_token_id=2)
    cfg = ModernBertConfig(**hub)
    m = ModernBertForMaskedLM(cfg).eval()
    randomise(m, g)
    d = os.path.join(OUT, 'modernbert-mlm-bias-bf16')
    m.to(torch.bfloat16).save_pretrained(d)
    with open(os.path.join(d, 'config.json'), 'w') as f:
        json.dump({'architectures': ['ModernBertForMaskedLM'], 'model_type': 'modernbert', 'hidden_activation': 'gelu', **hub}, f, indent=2)
    loaded = ModernBertModel.from_pretrained(d).config
    assert loaded.layer_types == ['full_attention', 'sliding_attention', 'sliding_attention', 'full_attention'], loaded.layer_types
    assert loaded.rope_parameters['full_attention']['rope_theta'] == 80000.0 and loaded.rope_parameters['sliding_attention']['rope_theta'] == 5000.0
    cases.append(case('modernbert-mlm-bias-bf16', ModernBertModel, d, 300, 0, 1, 2, blocks, g))

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
