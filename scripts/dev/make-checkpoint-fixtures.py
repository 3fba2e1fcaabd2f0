"""Random-weight BERT checkpoints in every format citebench reads, with PyTorch's outputs (development only).

    python scripts/dev/make-checkpoint-fixtures.py              # rewrites test/dense/fixtures/checkpoints/
    python scripts/dev/make-checkpoint-fixtures.py --base DIR   # BERT-base shape into DIR (benchmarks; not committed)

Needs torch, transformers and safetensors. Not run by the tests; the tests read what it wrote.

What it writes (fixture mode, vocabulary 31,090 = SciBERT's real vocab.txt, hidden 16, 2 layers, 2 heads,
intermediate 32, 512 positions, seed 20221):
  vocab.txt, tokenizer_config.json   one copy at the root, shared by every case (uncased, as SciBERT)
  <case>/config.json                 the BertConfig
  <case>/model.safetensors | pytorch_model.bin   one checkpoint file per case
  <case>/manifest.json               every stored tensor: dtype, shape, sha256 of its values as little-endian
                                     float32 in C order, their exact sum (math.fsum) and a few sampled values;
                                     which names share storage (tied weights)
  expected-f32.json / .bin           PyTorch outputs for the float32 weights (cases whose name has f32)
  expected-f16.json / .bin           PyTorch outputs for the float16 weights (cases whose name has f16)

Cases (format x dtype x key layout, every value at least once):
  safetensors-f32-bertmodel, safetensors-f16-pretraining, zip-f32-pretraining, zip-f16-bertmodel,
  legacy-f32-pretraining, legacy-f16-bertmodel.
  - zip = torch.save default (PyTorch >= 1.6); legacy = torch.save(..., _use_new_zipfile_serialization=False).
  - bertmodel keys: `embeddings.word_embeddings.weight`, ... (BertModel.state_dict()).
  - pretraining keys as SciBERT ships them: `bert.` prefix, `cls.predictions.*`, `cls.seq_relationship.*`;
    in the .bin files `cls.predictions.decoder.weight` shares storage with `bert.embeddings.word_embeddings.weight`
    (and `cls.predictions.decoder.bias` with `cls.predictions.bias`), as torch.save writes tied parameters.
    safetensors cannot share storage, so the safetensors case drops the two tied aliases, as the hub's
    conversions do. The legacy pretraining case also carries the int64 buffer `bert.embeddings.position_ids`
    [1, 512] that checkpoints from transformers 3.x-4.30 contain.
  zip-views, legacy-views (fixture mode only): tiny non-BERT state_dicts of strided views (a transposed matrix,
  a slice at a storage offset sharing its parent's storage, a bfloat16 and an int64 tensor), as torch.save keeps them;
  zip-views is pickled with protocol 4 (FRAME, STACK_GLOBAL, MEMOIZE), every other case with torch's default 2.
  All BERT cases hold the same weights: the f16 ones are the float32 weights rounded to float16.
  torch names legacy storages by memory address, so legacy files differ byte-wise between runs (values do not).

Expected outputs. Texts: 8 records of the S2ORC sample (../shared/data/s2orc-sample/metadata.jsonl, ODC-BY 1.0),
title + abstract, chosen for variety: Korean, Portuguese, German, Greek letters, very short, and one of 739
tokens that truncation cuts at 512. Tokenised with BertTokenizerFast(vocab=vocab.txt, do_lower_case=True) as
`tokenizer(title + " [SEP] " + abstract, truncation=True, max_length=512)`, which yields citebench's input
`[CLS] title [SEP] abstract [SEP]` (the literal "[SEP]" is the special token). token_type_ids are all 0.
Model: BertModel in eval mode, float32 compute. For the f16 weights the reference is the float16 weights upcast
to float32 and computed in float32 (what a float32 graph built from an fp16 checkpoint computes).
  - last_hidden_state: [tokens, hidden] per text.
  - mean_hidden_states: the mean of the encoder layers' outputs, hidden_states[1:] (2 here, 12 for BERT-base;
    the embedding output hidden_states[0] is NOT included), per token: exactly the `mean_hidden_states` output
    of ../shared/models/*/onnx/model.onnx (Concat of each layer's final LayerNorm output, ReduceMean axis 0).
  - each computed twice: every text alone (no padding) and all 8 texts in one batch right-padded to the longest
    with attention_mask 0 on the padding; the batch values are stored for the real tokens only.
expected-*.json: {"hidden": H, "texts": [{"paper_id", "input_ids", "single": {"last", "mean"}, "batch": {...}}]}
where each of last/mean is the float32 element offset of a [len(input_ids), H] block in expected-*.bin
(little-endian float32).

--base DIR writes the same six cases (and expected outputs) at the BERT-base shape (hidden 768, 12 layers,
12 heads, intermediate 3072): about 2 GB, ~5 minutes on 2 cores.
"""
import argparse
import hashlib
import json
import math
import os
import shutil
import sys

import numpy as np
import torch
from safetensors.torch import save_file
from transformers import BertConfig, BertForPreTraining, BertModel, BertTokenizerFast

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.path.join(ROOT, '..', 'shared')
VOCAB = os.path.join(SHARED, 'models', 'tiny-scibert-random', 'vocab.txt')
METADATA = os.path.join(SHARED, 'data', 's2orc-sample', 'metadata.jsonl')
SEED = 20221
# Korean, plain, Portuguese, German, 739 tokens (truncated), 49 tokens, Greek letters, 38 tokens.
PAPER_IDS = ['77493472', '77491955', '77494170', '77495155', '77497951', '94551461', '94551733', '94554072']
CASES = [
    ('safetensors-f32-bertmodel', 'safetensors', torch.float32, 'bertmodel'),
    ('safetensors-f16-pretraining', 'safetensors', torch.float16, 'pretraining'),
    ('zip-f32-pretraining', 'zip', torch.float32, 'pretraining'),
    ('zip-f16-bertmodel', 'zip', torch.float16, 'bertmodel'),
    ('legacy-f32-pretraining', 'legacy', torch.float32, 'pretraining'),
    ('legacy-f16-bertmodel', 'legacy', torch.float16, 'bertmodel'),
]


def config(base: bool) -> BertConfig:
    shape = dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072) if base else \
        dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32)
    return BertConfig(vocab_size=31090, max_position_embeddings=512, type_vocab_size=2, layer_norm_eps=1e-12,
                      hidden_act='gelu', pad_token_id=0, **shape)


def randomise(model: torch.nn.Module, base: bool) -> None:
    """Non-trivial weights: N(0, s) for every matrix, bias and embedding, LayerNorm gains N(1, t) and biases N(0, t),
    so hidden states vary from token to token. BERT-base uses BERT's own initializer_range 0.02: at 0.05 its 12
    layers collapse every token onto nearly the same vector (token-to-token spread 1e-4 of the values)."""
    s, t = (0.02, 0.1) if base else (0.5, 0.5)
    g = torch.Generator().manual_seed(SEED)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if 'LayerNorm.weight' in name:
                p.copy_(1 + t * torch.randn(p.shape, generator=g))
            elif 'LayerNorm.bias' in name:
                p.copy_(t * torch.randn(p.shape, generator=g))
            else:
                p.copy_(s * torch.randn(p.shape, generator=g))


def texts() -> list[tuple[str, str]]:
    records = {}
    with open(METADATA, encoding='utf-8') as f:
        for line in f:
            r = json.loads(line)
            if r['paper_id'] in PAPER_IDS:
                records[r['paper_id']] = r['title'] + ' [SEP] ' + r['abstract']
    return [(p, records[p]) for p in PAPER_IDS]


def manifest(sd: dict[str, torch.Tensor]) -> dict:
    out: dict = {'tensors': {}, 'tied': []}
    by_ptr: dict[int, list[str]] = {}
    for name, t in sd.items():
        v = t.detach().to(torch.float32).contiguous().numpy().astype('<f4')
        flat = v.reshape(-1)
        n = flat.size
        picks = sorted({0, n - 1, n // 2, (n * 7) // 13, (n * 11) // 17}) if n else []
        out['tensors'][name] = {
            'dtype': {torch.float32: 'F32', torch.float16: 'F16', torch.bfloat16: 'BF16', torch.int64: 'I64'}[t.dtype],
            'shape': list(t.shape),
            'sha256': hashlib.sha256(flat.tobytes()).hexdigest(),
            'sum': math.fsum(float(x) for x in flat),
            'samples': [[i, float(flat[i])] for i in picks],
        }
        by_ptr.setdefault(t.untyped_storage().data_ptr(), []).append(name)
    out['tied'] = [names for names in by_ptr.values() if len(names) > 1]
    return out


def state_dict(weights: BertForPreTraining, dtype: torch.dtype, layout: str, fmt: str, case: str) -> dict:
    model = weights.to(dtype)
    if layout == 'bertmodel':
        sd = model.bert.state_dict()
    else:
        sd = model.state_dict()  # tied: decoder.weight is word_embeddings.weight, decoder.bias is predictions.bias
        if fmt == 'safetensors':
            del sd['cls.predictions.decoder.weight'], sd['cls.predictions.decoder.bias']
        if case.startswith('legacy'):
            sd['bert.embeddings.position_ids'] = torch.arange(512, dtype=torch.int64).unsqueeze(0)
    return sd


def write_case(out: str, case: str, fmt: str, sd: dict, protocol: int = 2) -> None:
    os.makedirs(os.path.join(out, case), exist_ok=True)
    if fmt == 'safetensors':
        save_file({k: v.contiguous() for k, v in sd.items()}, os.path.join(out, case, 'model.safetensors'), metadata={'format': 'pt'})
    elif fmt == 'zip':
        torch.save(sd, os.path.join(out, case, 'pytorch_model.bin'), pickle_protocol=protocol)
    else:
        torch.save(sd, os.path.join(out, case, 'pytorch_model.bin'), _use_new_zipfile_serialization=False)
    # The tests compare what citebench reads with what torch itself loads back from the file.
    if fmt == 'safetensors':
        from safetensors.torch import load_file
        back = load_file(os.path.join(out, case, 'model.safetensors'))
    else:
        # torch's weights_only loader has no FRAME opcode; the protocol-4 file is our own, so the full loader is safe.
        back = torch.load(os.path.join(out, case, 'pytorch_model.bin'), weights_only=protocol == 2)
    assert list(back) == list(sd) or fmt == 'safetensors', case
    for k in sd:
        assert torch.equal(back[k], sd[k]), (case, k)
    with open(os.path.join(out, case, 'manifest.json'), 'w') as f:
        json.dump(manifest(back if fmt != 'safetensors' else {k: back[k] for k in sd}), f)
        f.write('\n')


def expected(cfg: BertConfig, weights32: BertForPreTraining, dtype: torch.dtype, tok, items, out: str, tag: str) -> None:
    bert = BertModel(cfg, add_pooling_layer=True)
    sd = {k: v.to(dtype).to(torch.float32) for k, v in weights32.bert.state_dict().items()}
    bert.load_state_dict(sd)
    bert.eval()
    blocks: list[np.ndarray] = []
    offset = 0

    def put(a: np.ndarray) -> int:
        nonlocal offset
        blocks.append(a.astype('<f4').reshape(-1))
        at = offset
        offset += a.size
        return at

    encs = [tok(text, truncation=True, max_length=512) for _, text in items]
    rows = []
    with torch.no_grad():
        for (pid, _), enc in zip(items, encs):
            ids = torch.tensor([enc['input_ids']])
            o = bert(input_ids=ids, attention_mask=torch.ones_like(ids), token_type_ids=torch.zeros_like(ids), output_hidden_states=True)
            mean = torch.stack(o.hidden_states[1:]).mean(0)
            rows.append({'paper_id': pid, 'input_ids': enc['input_ids'],
                         'single': {'last': put(o.last_hidden_state[0].numpy()), 'mean': put(mean[0].numpy())}})
        width = max(len(e['input_ids']) for e in encs)
        ids = torch.tensor([e['input_ids'] + [0] * (width - len(e['input_ids'])) for e in encs])
        mask = torch.tensor([[1] * len(e['input_ids']) + [0] * (width - len(e['input_ids'])) for e in encs])
        o = bert(input_ids=ids, attention_mask=mask, token_type_ids=torch.zeros_like(ids), output_hidden_states=True)
        mean = torch.stack(o.hidden_states[1:]).mean(0)
        for i, e in enumerate(encs):
            n = len(e['input_ids'])
            rows[i]['batch'] = {'last': put(o.last_hidden_state[i, :n].numpy()), 'mean': put(mean[i, :n].numpy())}
    with open(os.path.join(out, f'expected-{tag}.bin'), 'wb') as f:
        f.write(np.concatenate(blocks).tobytes())
    with open(os.path.join(out, f'expected-{tag}.json'), 'w') as f:
        json.dump({'hidden': cfg.hidden_size, 'layers': cfg.num_hidden_layers,
                   'weights': f'{tag} checkpoint weights upcast to float32, computed in float32, eval mode',
                   'texts': rows}, f)
        f.write('\n')


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--base', metavar='OUTDIR', help='write BERT-base-shape checkpoints into OUTDIR instead of the fixtures')
    args = ap.parse_args()
    base = args.base is not None
    out = args.base if base else os.path.join(ROOT, 'test', 'dense', 'fixtures', 'checkpoints')
    if not base and os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(SEED)
    cfg = config(base)
    weights = BertForPreTraining(cfg)
    randomise(weights, base)
    weights.eval()
    assert weights.cls.predictions.decoder.weight is weights.bert.embeddings.word_embeddings.weight, 'decoder not tied'

    shutil.copyfile(VOCAB, os.path.join(out, 'vocab.txt'))
    with open(os.path.join(out, 'tokenizer_config.json'), 'w') as f:
        json.dump({'tokenizer_class': 'BertTokenizer', 'do_lower_case': True, 'model_max_length': 512}, f, indent=2)
        f.write('\n')
    tok = BertTokenizerFast(vocab=VOCAB, do_lower_case=True)  # transformers 5 ignores vocab_file=
    assert tok.convert_tokens_to_ids('the') != tok.unk_token_id, 'vocabulary not loaded'
    items = texts()

    import copy
    for case, fmt, dtype, layout in CASES:
        sd = state_dict(copy.deepcopy(weights), dtype, layout, fmt, case)
        write_case(out, case, fmt, sd)
        cfg.to_json_file(os.path.join(out, case, 'config.json'))
        print(case, file=sys.stderr)
    if not base:
        g = torch.Generator().manual_seed(SEED)
        parent = torch.randn(5, 6, generator=g)
        views = {'transposed': parent.t(), 'slice': parent[1:4, 2:5], 'parent': parent,
                 'bf16': torch.randn(3, 2, generator=g).to(torch.bfloat16), 'ids': torch.arange(7, dtype=torch.int64).view(1, 7)}
        write_case(out, 'zip-views', 'zip', views, protocol=4)
        write_case(out, 'legacy-views', 'legacy', views)
    expected(cfg, weights, torch.float32, tok, items, out, 'f32')
    expected(cfg, weights, torch.float16, tok, items, out, 'f16')
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs)
    print(f'{out}: {total / 1e6:.1f} MB', file=sys.stderr)


if __name__ == '__main__':
    main()
