"""Regenerate test/dense/fixtures/adapters/ (development only, not run by tests).

Tiny random-weight base encoders with bottleneck adapters saved by the adapters library itself
(adapter-hub/adapters, `model.save_adapter`), and what the library's own forward computes with each adapter active.

Setting up the Python for it (the adapters library is not in the local wheel store and needs transformers 4.57.6):
    python3.11 -m venv VENV
    VENV/bin/pip install torch numpy safetensors packaging pyyaml regex tqdm filelock requests fsspec huggingface-hub
    VENV/bin/pip install --no-deps tokenizers==0.22.2 transformers==4.57.6
  (pip index: --index-url file:///opt/pypi/simple --extra-index-url file:///opt/pypi-more/simple --find-links /opt/wheels
  on the development machines; any index with these versions elsewhere.) Two shims, because huggingface-hub 1.x is
  the only one there:
    - VENV/lib/python3.11/site-packages/sitecustomize.py adds `huggingface_hub.HfFolder`, a class whose static
      `get_token()` returns None (hub 1.0 removed it; the library imports it);
    - VENV/lib/python3.11/site-packages/transformers/dependency_versions_check.py replaced by a module whose
      `dep_version_check(pkg, hint=None)` does nothing (transformers 4.57.6 pins huggingface-hub < 1.0).
  The library from its source (git archive of adapter-hub/adapters: setup.py setup.cfg pyproject.toml src, plus an
  empty README.md) in a scratch folder outside this repository: `VENV/bin/pip install --no-deps --no-build-isolation .`
  Checked with adapters 1.2.0 (commit 88f18ebd6), transformers 4.57.6, torch 2.13 (CPU).
    VENV/bin/python scripts/dev/make-adapter-fixtures.py

What it writes (each file well under 1 MB):
  bert-base/             BertModel (SPECTER2-shaped: BERT, no token types used), vocab 300, hidden 32, 2 layers, 4 heads,
                         intermediate 64, config.json + model.safetensors
  specter2-bin/          its seq_bn ("pfeiffer", SPECTER2's) adapter '[PRX]', reduction factor 4, saved by
                         BertAdapterModel.save_adapter: adapter_config.json + pytorch_adapter.bin (keys `bert.encoder…`)
  specter2-safetensors/  the same adapter saved with use_safetensors=True: adapter.safetensors
  double-seq-bn/         a double_seq_bn ("houlsby") adapter: after attention and after the feed-forward, swish
  seq-bn-options/        seq_bn with ln_before, ln_after (residual after it), residual_before_ln "post_add",
                         scaling 0.5, non_linearity gelu, reduction_factor {"0": 2, "default": 4}, leave_out [1]
  double-seq-bn-options/ double_seq_bn with residual_before_ln false, original_ln_after false, ln_after with
                         adapter_residual_before_ln (residual before it), scaling "learned", non_linearity tanh
  seq-bn-channel/        seq_bn with original_ln_before false, scaling "channel", non_linearity gelu_new, reduction 16
  roberta-base/ + roberta-seq-bn/   a RobertaModel (pad 1, one token type) and a seq_bn adapter saved by
                         RobertaAdapterModel (keys `roberta.encoder…`), sigmoid
  expected.json / expected.bin      for every (base, adapter) pair and each base alone: token id sequences (alone and
                         right-padded in one batch with attention mask 0), and every hidden state
                         the library returns (hidden_states[0..N]; hidden_states[N] is last_hidden_state) as float32
                         blocks of expected.bin; `offsets` index them.
Weights are random (seeded): every adapter parameter N(0, 0.3) (LayerNorm gains 1 + N(0, 0.2), learned scalings
1 + N(0, 0.5)), so an adapter moves the hidden states by far more than the
tolerance; the base models' weights likewise. The library's forward is taken
after loading each saved adapter back from its folder with `load_adapter` into a fresh base model (the round trip
a user makes), and checked equal to the in-memory model that saved it.
"""
import json
import os
import shutil

import torch
from fixture_blocks import Blocks
import adapters
from adapters import BertAdapterModel, RobertaAdapterModel
from transformers import BertConfig, BertModel, RobertaConfig, RobertaModel

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, 'test', 'dense', 'fixtures', 'adapters')
SEED = 3401

BASES = {
    'bert-base': (BertConfig, BertModel, BertAdapterModel, dict(vocab_size=300, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                                               intermediate_size=64, max_position_embeddings=64, pad_token_id=0)),
    'roberta-base': (RobertaConfig, RobertaModel, RobertaAdapterModel, dict(vocab_size=300, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                                                          intermediate_size=64, max_position_embeddings=66, type_vocab_size=1,
                                                                          pad_token_id=1, bos_token_id=0, eos_token_id=2)),
}
ADAPTERS = {
    'specter2-bin': ('bert-base', '[PRX]', 'seq_bn', dict(reduction_factor=4), False, 'adapter-model'),
    'specter2-safetensors': ('bert-base', '[PRX]', 'seq_bn', dict(reduction_factor=4), True, 'adapter-model'),
    'double-seq-bn': ('bert-base', 'houlsby', 'double_seq_bn', dict(reduction_factor=8), False, 'adapter-model'),
    'seq-bn-options': ('bert-base', 'opts', 'seq_bn', dict(ln_before=True, ln_after=True, residual_before_ln='post_add',
                                                             scaling=0.5, non_linearity='gelu', reduction_factor={'0': 2, 'default': 4}, leave_out=[1]),
                       False, 'adapter-model'),
    'double-seq-bn-options': ('bert-base', 'dopts', 'double_seq_bn', dict(residual_before_ln=False, original_ln_after=False, ln_after=True,
                                                                          adapter_residual_before_ln=True,
                                                                          scaling='learned', non_linearity='tanh', reduction_factor=8), True, 'adapter-model'),
    # Saved from a plain BertModel given adapters (adapters.init): keys without the `bert.` prefix.
    'seq-bn-channel': ('bert-base', 'chan', 'seq_bn', dict(original_ln_before=False, scaling='channel', non_linearity='gelu_new', reduction_factor=16),
                       False, 'init'),
    'roberta-seq-bn': ('roberta-base', 'rob', 'seq_bn', dict(non_linearity='sigmoid', reduction_factor=4), False, 'adapter-model'),
}


def randomise(module: torch.nn.Module, g: torch.Generator, only=None) -> None:
    with torch.no_grad():
        for name, p in module.named_parameters():
            if only is not None and only not in name:
                continue
            if name.endswith('weight') and p.dim() == 1:  # LayerNorm gains
                p.copy_(1 + 0.2 * torch.randn(p.shape, generator=g))
            elif 'scaling' in name:
                p.copy_(1 + 0.5 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(0.3 * torch.randn(p.shape, generator=g))


def sequences(cfg: dict, g: torch.Generator):
    bos, eos = (2, 3) if cfg.get('bos_token_id') is None else (cfg['bos_token_id'], cfg['eos_token_id'])
    seqs = [[bos] + torch.randint(5, cfg['vocab_size'], (n - 2,), generator=g).tolist() + [eos] for n in (5, 9, 3, 12, 7)]
    width = max(len(s) for s in seqs)
    pad = cfg['pad_token_id']
    # No fully padded row here: transformers 4.57.6 (which the library needs) attends uniformly over a row whose
    # mask is all zeros, 5.18 gives it attention output 0 (sdpa's safe softmax); citebench's graph follows 5.18
    # (test/dense/bert-graph.test.ts checks that row), and no text is ever encoded as all padding.
    batch_ids = [s + [pad] * (width - len(s)) for s in seqs]
    batch_mask = [[1] * len(s) + [0] * (width - len(s)) for s in seqs]
    return seqs, batch_ids, batch_mask



def run(model, ids, mask, blocks: Blocks) -> dict:
    with torch.no_grad():
        o = model(input_ids=torch.tensor(ids), attention_mask=torch.tensor(mask), output_hidden_states=True)
    states = o.hidden_states
    assert torch.equal(states[-1], o.last_hidden_state)
    return {'hidden_states': [blocks.add(s) for s in states]}


def main() -> None:
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    g = torch.Generator().manual_seed(SEED)
    blocks = Blocks()
    cases = []
    inputs = {}
    for base, (Cfg, Model, _, kw) in BASES.items():
        torch.manual_seed(SEED)
        m = Model(Cfg(**kw), add_pooling_layer=False).eval()
        randomise(m, g)
        m.save_pretrained(os.path.join(OUT, base))
        inputs[base] = sequences(kw, g)
    for name, (base, adapter_name, preset, overrides, safetensors, how) in ADAPTERS.items():
        Cfg, Model, AdapterModel, kw = BASES[base]
        if how == 'adapter-model':
            model = AdapterModel.from_pretrained(os.path.join(OUT, base)).eval()
        else:
            model = Model.from_pretrained(os.path.join(OUT, base), add_pooling_layer=False).eval()
            adapters.init(model)
        config = adapters.AdapterConfig.load(preset, **overrides)
        model.add_adapter(adapter_name, config=config)
        # One seed per adapter: the two SPECTER2-shaped folders hold the same weights, in the two file formats.
        seed = SEED + sum(map(ord, name.replace('-safetensors', '-bin')))
        randomise(model, torch.Generator().manual_seed(seed), only=f'adapters.{adapter_name}.')
        model.set_active_adapters(adapter_name)
        d = os.path.join(OUT, name)
        model.save_adapter(d, adapter_name, use_safetensors=safetensors)
        # The library's forward after loading the saved folder into a fresh base model, as a user would.
        fresh = Model.from_pretrained(os.path.join(OUT, base), add_pooling_layer=False).eval()
        adapters.init(fresh)
        loaded = fresh.load_adapter(d, set_active=True, use_safetensors=safetensors)
        assert loaded == adapter_name, loaded
        seqs, b_ids, b_mask = inputs[base]
        for ids in seqs + [None]:
            x, mk = ([ids], [[1] * len(ids)]) if ids else (b_ids, b_mask)
            with torch.no_grad():
                a = fresh(input_ids=torch.tensor(x), attention_mask=torch.tensor(mk)).last_hidden_state
                b = model(input_ids=torch.tensor(x), attention_mask=torch.tensor(mk)).last_hidden_state
            assert torch.allclose(a, b, atol=1e-6), name
        cases.append({'name': name, 'base': base, 'adapter': name, 'attn_implementation': fresh.config._attn_implementation,
                      'single': [run(fresh, [s], [[1] * len(s)], blocks) for s in seqs], 'batch': run(fresh, b_ids, b_mask, blocks)})
        print(name, sorted(os.listdir(d)))
    for base, (Cfg, Model, _, kw) in BASES.items():
        m = Model.from_pretrained(os.path.join(OUT, base), add_pooling_layer=False).eval()
        seqs, b_ids, b_mask = inputs[base]
        cases.append({'name': base, 'base': base, 'adapter': None, 'attn_implementation': m.config._attn_implementation,
                      'single': [run(m, [s], [[1] * len(s)], blocks) for s in seqs], 'batch': run(m, b_ids, b_mask, blocks)})
    blocks.write(os.path.join(OUT, 'expected.bin'))
    with open(os.path.join(OUT, 'expected.json'), 'w') as f:
        json.dump({'versions': {'adapters': adapters.__version__, 'transformers': __import__('transformers').__version__, 'torch': torch.__version__},
                   'hidden': 32,
                   'inputs': {b: {'single': s, 'batch': {'input_ids': i, 'attention_mask': m}} for b, (s, i, m) in inputs.items()},
                   'cases': cases}, f)
        f.write('\n')
    total = sum(os.path.getsize(os.path.join(dp, fn)) for dp, _, fs in os.walk(OUT) for fn in fs)
    print(f'{OUT}: {total / 1e3:.0f} kB')


if __name__ == '__main__':
    main()
