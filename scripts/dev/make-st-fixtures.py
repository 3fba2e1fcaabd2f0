"""Regenerate test/dense/fixtures/st/ (development only, not run by tests).

Tiny random-weight sentence-transformers folders made and saved by sentence-transformers itself (6.x, with
transformers 5.18 and torch), and what the library computes with them on a small corpus:
- mean-normalize-prompts/: BERT (2 layers, hidden 16) → Pooling(pooling_mode "mean") → Normalize, prompts
  {"query": "query: ", "document": "passage: "}, similarity cosine (the default), max_seq_length 48;
- cls-legacy-dot/: the same weights with the Transformer module in 0_Transformer/, the legacy Pooling config
  (pooling_mode_cls_token true, the other booleans false), no Normalize, similarity_fn_name "dot".
- roberta-mean/: RoBERTa (BPE, test/dense/fixtures/tokenizers/roberta-bpe) → Pooling mean, cosine;
- modernbert-window-prompts/: ModernBERT (tokenizers/modernbert-bpe) with a local attention window of 8 tokens on
  sequences up to 64 (so the sliding window decides the vectors), a global layer every 2nd → Pooling mean →
  Normalize, prompts {"query": "search_query: ", "document": "search_document: "};
- variants (golden.json "variants"): the config files (tokenizer_config.json included) of further folders on the same weights — pooling max,
  lasttoken, weightedmean, mean_sqrt_len_tokens and cls+mean, include_prompt false, do_lower_case, euclidean
  and manhattan similarity — written by the library's own save(); a test lays each one over a copy of
  mean-normalize-prompts/.
corpus.jsonl holds the articles (records of the S2ORC metadata sample, allenai/s2orc, ODC-BY 1.0). For each
folder golden.json holds the vectors of encode_query(queries) and encode_document(articles), where a text is
title + tokenizer.sep_token + abstract, and each query's top 10 articles (the query itself left out, as citebench
does by default) with their scores from model.similarity.
The tokenizer is test/dense/fixtures/tokenizers/bert-wordpiece (scripts/dev/make-tokenizer-fixtures.py).

  python scripts/dev/make-st-fixtures.py
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
from sentence_transformers.base.modules import Normalize, Transformer
from sentence_transformers.sentence_transformer.modules import Pooling
from transformers import AutoTokenizer, BertConfig, BertModel, ModernBertConfig, ModernBertModel, RobertaConfig, RobertaModel

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
shared = os.path.join(root, '..', 'shared')
fixtures = os.path.join(root, 'test', 'dense', 'fixtures')
dst = os.path.join(fixtures, 'st')
tok_dir = os.path.join(fixtures, 'tokenizers', 'bert-wordpiece')
K = 10

torch.manual_seed(34)


def corpus():
    out = []
    with open(os.path.join(shared, 'data', 's2orc-sample', 'metadata.jsonl'), encoding='utf-8') as f:
        for line in f:
            r = json.loads(line)
            if r.get('abstract') and r.get('title'):
                out.append(r)
            if len(out) == 40:
                break
    return out


def transformer_folder():
    d = tempfile.mkdtemp()
    tok = AutoTokenizer.from_pretrained(tok_dir)
    cfg = BertConfig(vocab_size=len(tok.get_vocab()), hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                     max_position_embeddings=128, initializer_range=0.3)
    model = BertModel(cfg, add_pooling_layer=False)
    model.eval()
    model.save_pretrained(d)
    tok.save_pretrained(d)
    return d


def other_folder(kind):
    """A tiny random RoBERTa or ModernBERT with its tokenizer fixture, saved as transformers saves it."""
    d = tempfile.mkdtemp()
    tok = AutoTokenizer.from_pretrained(os.path.join(fixtures, 'tokenizers', f'{kind}-bpe'))
    common = dict(vocab_size=len(tok.get_vocab()), hidden_size=16, num_attention_heads=2, intermediate_size=32, initializer_range=0.3)
    if kind == 'roberta':
        model = RobertaModel(RobertaConfig(**common, num_hidden_layers=2, max_position_embeddings=130, pad_token_id=tok.pad_token_id,
                                           bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id), add_pooling_layer=False)
    else:
        model = ModernBertModel(ModernBertConfig(**common, num_hidden_layers=3, max_position_embeddings=128, local_attention=8,
                                                 global_attn_every_n_layers=2, pad_token_id=tok.pad_token_id, cls_token_id=tok.cls_token_id,
                                                 sep_token_id=tok.sep_token_id, bos_token_id=tok.cls_token_id, eos_token_id=tok.sep_token_id))
    model.eval()
    model.save_pretrained(d)
    tok.save_pretrained(d)
    return d


def save(modules, path, **kw):
    st = SentenceTransformer(modules=modules, device='cpu', **kw)
    shutil.rmtree(path, ignore_errors=True)
    st.save(path)
    return SentenceTransformer(path, device='cpu')  # what a user loads


def results(st, records, queries):
    sep = st.tokenizer.sep_token
    texts = [r['title'] + sep + r['abstract'] for r in records]
    with torch.no_grad():
        q = st.encode_query([texts[i] for i in queries], convert_to_tensor=True, batch_size=8)
        d = st.encode_document(texts, convert_to_tensor=True, batch_size=8)
        sim = st.similarity(q, d)
    top = []
    for qi, i in enumerate(queries):
        row = sim[qi].clone()
        row[i] = float('-inf')  # citebench leaves the query out of its own list
        order = sorted(range(len(records)), key=lambda j: -float(row[j]))[:K]
        scores = [float(row[j]) for j in order]
        # Scores of neighbouring ranks must differ by more than the test's tolerance, or the ranking is a coin flip.
        gap = min(abs(a - b) for a, b in zip(scores, scores[1:]))
        top.append({'query': records[i]['paper_id'], 'docs': [records[j]['paper_id'] for j in order], 'scores': scores, 'minGap': gap})
    return {
        'prompts': st.prompts, 'similarity': st.similarity_fn_name,
        'queryVectors': q.tolist(), 'documentVectors': d.tolist(), 'top': top,
    }


def folder_files(path):
    """The small config files of a saved folder (not weights, not the tokenizer's vocabulary). tokenizer_config.json
    is one: sentence-transformers 6 saves max_seq_length there as model_max_length."""
    out = {}
    for dirpath, _, names in os.walk(path):
        for n in names:
            rel = os.path.relpath(os.path.join(dirpath, n), path)
            if n.endswith('.json') and n not in ('tokenizer.json', 'config.json') or rel.endswith('Pooling/config.json'):
                out[rel] = open(os.path.join(dirpath, n), encoding='utf-8').read()
    return out


def main():
    records = corpus()
    os.makedirs(dst, exist_ok=True)
    with open(os.path.join(dst, 'corpus.jsonl'), 'w', encoding='utf-8') as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + '\n')
    queries = [0, 3, 7, 11, 19, 26, 33, 39]
    with open(os.path.join(dst, 'queries.txt'), 'w') as f:
        f.write(''.join(records[i]['paper_id'] + '\n' for i in queries))
    base = transformer_folder()
    golden = {
        'note': (
            f'Generated by scripts/dev/make-st-fixtures.py with sentence-transformers {sentence_transformers.__version__}, '
            f'transformers {transformers.__version__}, torch {torch.__version__}; random weights (seed 34): nothing they rank means anything.'
        ),
        'k': K, 'queries': [records[i]['paper_id'] for i in queries], 'folders': {}, 'variants': {},
    }

    def transformer(max_len=48, lower=False):
        return Transformer(base, max_seq_length=max_len, do_lower_case=lower)

    a = os.path.join(dst, 'mean-normalize-prompts')
    st = save([transformer(), Pooling(16, 'mean'), Normalize()], a, prompts={'query': 'query: ', 'document': 'passage: '})
    golden['folders']['mean-normalize-prompts'] = results(st, records, queries)

    b = os.path.join(dst, 'cls-legacy-dot')
    st = save([transformer(max_len=128), Pooling(16, 'cls')], b, similarity_fn_name='dot')
    # The Transformer module in a subfolder and the legacy Pooling booleans, as older folders on the hub have them.
    sub = os.path.join(b, '0_Transformer')
    os.makedirs(sub)
    for n in os.listdir(b):
        if n not in ('modules.json', 'config_sentence_transformers.json', '1_Pooling', '0_Transformer', 'README.md'):
            shutil.move(os.path.join(b, n), sub)
    mods = json.load(open(os.path.join(b, 'modules.json')))
    mods[0]['path'] = '0_Transformer'
    mods[0]['type'] = 'sentence_transformers.models.Transformer'
    mods[1]['type'] = 'sentence_transformers.models.Pooling'
    json.dump(mods, open(os.path.join(b, 'modules.json'), 'w'), indent=2)
    legacy = {'word_embedding_dimension': 16, 'pooling_mode_cls_token': True, 'pooling_mode_mean_tokens': False, 'pooling_mode_max_tokens': False,
              'pooling_mode_mean_sqrt_len_tokens': False, 'pooling_mode_weightedmean_tokens': False, 'pooling_mode_lasttoken': False, 'include_prompt': True}
    json.dump(legacy, open(os.path.join(b, '1_Pooling', 'config.json'), 'w'), indent=2)
    os.remove(os.path.join(b, 'README.md')) if os.path.exists(os.path.join(b, 'README.md')) else None
    golden['folders']['cls-legacy-dot'] = results(SentenceTransformer(b, device='cpu'), records, queries)
    if os.path.exists(os.path.join(a, 'README.md')):
        os.remove(os.path.join(a, 'README.md'))

    variants = {
        'max-euclidean': ([transformer(), Pooling(16, 'max')], {'similarity_fn_name': 'euclidean'}),
        'lasttoken-manhattan': ([transformer(), Pooling(16, 'lasttoken'), Normalize()], {'similarity_fn_name': 'manhattan'}),
        'weightedmean-exclude-prompt': ([transformer(), Pooling(16, 'weightedmean', include_prompt=False)], {'prompts': {'query': 'query: ', 'document': 'passage: '}}),
        'cls-exclude-prompt': ([transformer(), Pooling(16, 'cls', include_prompt=False), Normalize()], {'prompts': {'query': 'search query: ', 'document': ''}}),
        'sqrt-len-lowercase': ([transformer(max_len=32, lower=True), Pooling(16, 'mean_sqrt_len_tokens')], {'similarity_fn_name': 'dot'}),
        'cls-mean-concat': ([transformer(), Pooling(16, ('cls', 'mean')), Normalize()], {'prompts': {'query': 'query: '}}),
    }
    for name, (mods, kw) in variants.items():
        path = tempfile.mkdtemp()
        st = save(mods, path, **kw)
        golden['variants'][name] = {'files': folder_files(path), **results(st, records, queries)}
    # Made after everything above, so the folders and variants above keep their random weights (seed 34).
    c = os.path.join(dst, 'roberta-mean')
    st = save([Transformer(other_folder('roberta'), max_seq_length=64), Pooling(16, 'mean')], c)
    golden['folders']['roberta-mean'] = results(st, records, queries)
    d = os.path.join(dst, 'modernbert-window-prompts')
    st = save([Transformer(other_folder('modernbert'), max_seq_length=64), Pooling(16, 'mean'), Normalize()], d,
              prompts={'query': 'search_query: ', 'document': 'search_document: '})
    golden['folders']['modernbert-window-prompts'] = results(st, records, queries)
    for path in (c, d):
        if os.path.exists(os.path.join(path, 'README.md')):
            os.remove(os.path.join(path, 'README.md'))

    for v in golden['variants'].values():
        v.pop('queryVectors')
        v.pop('documentVectors')
    gaps = [t['minGap'] for g in [*golden['folders'].values(), *golden['variants'].values()] for t in g['top']]
    print('smallest score gap between neighbouring ranks:', min(gaps), file=sys.stderr)
    with open(os.path.join(dst, 'golden.json'), 'w', encoding='utf-8') as f:
        json.dump(golden, f, ensure_ascii=False, indent=1)
    print(dst, file=sys.stderr)


main()
