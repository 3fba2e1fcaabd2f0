"""Regenerate test/dense/fixtures/decoder-st/ (development only, not run by tests).

Tiny random-weight sentence-transformers folders of today's decoder embedders, made and saved by
sentence-transformers 6 with transformers 5.18, and what the library computes with them in float32 on the articles
of test/dense/fixtures/st/corpus.jsonl (S2ORC metadata sample records, allenai/s2orc, ODC-BY 1.0):
- qwen3-lasttoken-left/: a Qwen3-Embedding-shaped folder — Qwen3Model (2 layers, hidden 32, 4 query / 2 key-value
  heads, head_dim 16, θ 1e6) in bfloat16 → Pooling lasttoken → Normalize, the Qwen3-style tokenizer of
  test/dense/fixtures/decoder-tokenizers/qwen3-embedding (appends <|endoftext|>, pads on the left), an instruction
  prompt for queries only, cosine;
- qwen3-right-dot-truncate/: the same weights with the tokenizer padding on the right, similarity dot and
  truncate_dim 16 in config_sentence_transformers.json (the first 16 of 32 dimensions, after Normalize);
- gemma-dense-prompts/: an EmbeddingGemma-shaped folder — Gemma3TextModel with bidirectional attention (4 layers,
  sliding and full, sliding_window 8, hidden 48, 3 heads of 16, 1 key-value head) in bfloat16 → Pooling mean →
  Dense 48 → 96 → Dense 96 → 48 (no bias, Identity) → Normalize, the Gemma-style tokenizer (<bos> … <eos>),
  prompts for both roles as EmbeddingGemma's card publishes them, cosine.
The text of an article is title + sep_token + abstract, with a single space where the tokenizer has no sep_token
(these have none). golden.json: per folder the encode_query / encode_document vectors (batch_size 8, so batches mix
lengths and carry padding) and each query's top 10 (the query left out) with model.similarity's scores. Vectors
are computed with model_kwargs dtype float32: the bfloat16 checkpoint's values computed in float32, what citebench
computes (sentence-transformers' default would compute in bfloat16, ~1e-2 off).

  python scripts/dev/make-decoder-st-fixtures.py
"""
import json
import os
import shutil
import sys
import tempfile

import sentence_transformers
import torch
import transformers
from sentence_transformers import SentenceTransformer
from sentence_transformers.base.modules import Dense, Normalize, Transformer
from sentence_transformers.sentence_transformer.modules import Pooling
from transformers import AutoTokenizer, Gemma3TextConfig, Gemma3TextModel, Qwen3Config, Qwen3Model

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
fixtures = os.path.join(root, 'test', 'dense', 'fixtures')
dst = os.path.join(fixtures, 'decoder-st')
K = 10
QUERY_INSTRUCTION = 'Instruct: Given the title and abstract of a scientific paper, retrieve the papers it cites\nQuery:'


def randomise(model, g, zero_centred=False, scale=0.1):
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 1 and name.endswith('weight'):
                p.copy_((0 if zero_centred else 1) + 0.2 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(scale * torch.randn(p.shape, generator=g))


def transformer_folder(kind, g):
    d = tempfile.mkdtemp()
    tok = AutoTokenizer.from_pretrained(os.path.join(fixtures, 'decoder-tokenizers', 'qwen3-embedding' if kind == 'qwen3' else 'gemma-embedding'))
    if kind == 'qwen3':
        cfg = Qwen3Config(vocab_size=len(tok), hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
                          num_key_value_heads=2, head_dim=16, max_position_embeddings=256, pad_token_id=tok.pad_token_id,
                          eos_token_id=tok.pad_token_id, rope_parameters={'rope_type': 'default', 'rope_theta': 1e6})
        model = Qwen3Model(cfg).eval()
        randomise(model, g)
    else:
        cfg = Gemma3TextConfig(vocab_size=len(tok), hidden_size=48, intermediate_size=64, num_hidden_layers=4, num_attention_heads=3,
                               num_key_value_heads=1, head_dim=16, query_pre_attn_scalar=16, max_position_embeddings=256,
                               sliding_window=8, use_bidirectional_attention=True, pad_token_id=tok.pad_token_id,
                               bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
                               layer_types=['sliding_attention', 'full_attention', 'sliding_attention', 'full_attention'])
        model = Gemma3TextModel(cfg).eval()
        randomise(model, g, zero_centred=True)
    model.to(torch.bfloat16).save_pretrained(d)
    tok.save_pretrained(d)
    return d


def save(modules, path, **kw):
    st = SentenceTransformer(modules=modules, device='cpu', **kw)
    shutil.rmtree(path, ignore_errors=True)
    st.save(path)
    readme = os.path.join(path, 'README.md')
    if os.path.exists(readme):
        os.remove(readme)
    # What a user loads, computing in float32 (the library's default keeps the checkpoint's bfloat16).
    return SentenceTransformer(path, device='cpu', model_kwargs={'dtype': torch.float32})


def results(st, records, queries):
    sep = st.tokenizer.sep_token or ' '
    texts = [r['title'] + sep + r['abstract'] for r in records]
    assert next(st.parameters()).dtype == torch.float32
    with torch.no_grad():
        q = st.encode_query([texts[i] for i in queries], convert_to_tensor=True, batch_size=8)
        d = st.encode_document(texts, convert_to_tensor=True, batch_size=8)
        sim = st.similarity(q, d)
    top = []
    for qi, i in enumerate(queries):
        row = sim[qi].clone()
        row[i] = float('-inf')
        order = sorted(range(len(records)), key=lambda j: -float(row[j]))[:K]
        scores = [float(row[j]) for j in order]
        gap = min(abs(a - b) for a, b in zip(scores, scores[1:]))
        top.append({'query': records[i]['paper_id'], 'docs': [records[j]['paper_id'] for j in order], 'scores': scores, 'minGap': gap})
    return {'prompts': st.prompts, 'similarity': st.similarity_fn_name, 'truncateDim': st.truncate_dim,
            'paddingSide': st.tokenizer.padding_side, 'queryVectors': q.tolist(), 'documentVectors': d.tolist(), 'top': top}


def main():
    records = [json.loads(l) for l in open(os.path.join(fixtures, 'st', 'corpus.jsonl'), encoding='utf-8') if l.strip()]
    queries = [records.index(next(r for r in records if r['paper_id'] == q.strip())) for q in open(os.path.join(fixtures, 'st', 'queries.txt')) if q.strip()]
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    g = torch.Generator().manual_seed(2026)
    golden = {
        'note': (f'Generated by scripts/dev/make-decoder-st-fixtures.py with sentence-transformers {sentence_transformers.__version__}, '
                 f'transformers {transformers.__version__}, torch {torch.__version__}; random weights: nothing they rank means anything.'),
        'k': K, 'queries': [records[i]['paper_id'] for i in queries], 'folders': {},
    }
    qwen = transformer_folder('qwen3', g)
    a = os.path.join(dst, 'qwen3-lasttoken-left')
    st = save([Transformer(qwen, max_seq_length=200), Pooling(32, 'lasttoken'), Normalize()], a, prompts={'query': QUERY_INSTRUCTION, 'document': ''})
    assert st.tokenizer.padding_side == 'left'
    golden['folders']['qwen3-lasttoken-left'] = results(st, records, queries)

    b = os.path.join(dst, 'qwen3-right-dot-truncate')
    t = Transformer(qwen, max_seq_length=200)
    t.tokenizer.padding_side = 'right'
    st = save([t, Pooling(32, 'lasttoken'), Normalize()], b, prompts={'query': QUERY_INSTRUCTION, 'document': ''}, similarity_fn_name='dot', truncate_dim=16)
    assert st.truncate_dim == 16 and st.tokenizer.padding_side == 'right', (st.truncate_dim, st.tokenizer.padding_side)
    golden['folders']['qwen3-right-dot-truncate'] = results(st, records, queries)

    gemma = transformer_folder('gemma', g)
    c = os.path.join(dst, 'gemma-dense-prompts')
    torch.manual_seed(7)
    dense1 = Dense(48, 96, bias=False, activation_function=torch.nn.Identity())
    dense2 = Dense(96, 48, bias=False, activation_function=torch.nn.Identity())
    st = save([Transformer(gemma, max_seq_length=200), Pooling(48, 'mean'), dense1, dense2, Normalize()], c,
              prompts={'query': 'task: search result | query: ', 'document': 'title: none | text: '})
    golden['folders']['gemma-dense-prompts'] = results(st, records, queries)

    gaps = [t['minGap'] for f in golden['folders'].values() for t in f['top']]
    print('smallest score gap between neighbouring ranks:', min(gaps), file=sys.stderr)
    with open(os.path.join(dst, 'golden.json'), 'w', encoding='utf-8') as f:
        json.dump(golden, f, ensure_ascii=False)
    for name in golden['folders']:
        print(name, sorted(os.listdir(os.path.join(dst, name))), file=sys.stderr)
    total = sum(os.path.getsize(os.path.join(dp, fn)) for dp, _, fs in os.walk(dst) for fn in fs)
    print(f'{dst}: {total / 1e3:.0f} kB', file=sys.stderr)


main()
