"""Regenerate test/dense/fixtures/rerankers/ (development only, not run by tests).

Tiny random-weight cross-encoders (sequence-classification checkpoints) saved by transformers 5.18 and
sentence-transformers 6, and what sentence-transformers' `CrossEncoder.predict` returns for fixed (query,
candidate) text pairs, computed in float32 (`model_kwargs={"dtype": torch.float32}`; the weights are stored in
float16 to keep the files small, widened exactly), with the token ids of every pair as the CrossEncoder's
tokenizer gives them (CrossEncoder.preprocess: truncation longest first to the folder's max length). Needs a venv
with torch (CPU), transformers 5.18, sentence-transformers 6 and safetensors, and the shared data (../shared, or
$CITEBENCH_SHARED):  python scripts/dev/make-reranker-fixtures.py

Folders (tokenizers are those of test/dense/fixtures/tokenizers/, trained on the S2ORC sample):
  bert-plain/           BertForSequenceClassification (pooler + classifier), one label, a plain transformers folder
                        (no sentence-transformers files: CrossEncoder's default activation for one label, Sigmoid);
                        WordPiece with token types; model_max_length 48
  xlmr-st-identity/     XLMRobertaForSequenceClassification (classifier.dense, tanh, classifier.out_proj) saved as a
                        sentence-transformers CrossEncoder with activation_fn Identity; Unigram (sentencepiece-
                        style) tokenizer, `<s> A </s></s> B </s>`; max length 40
  modernbert-st-mean/   ModernBertForSequenceClassification, classifier_pooling mean, classifier_activation silu,
                        saved as a CrossEncoder with activation_fn Sigmoid (explicit); max length 56
  modernbert-2label-cls/ ModernBertForSequenceClassification, two labels, classifier_pooling cls, gelu; a plain folder.
                        Reference: predict(apply_softmax=True)[:, 1], P(label 1), citebench's two-label rule
  bert-3label/          config.json only of a three-label BertForSequenceClassification (the refusal's input; the test
                        completes the folder from bert-plain's files)
No folder's tokenizer.json is committed (the XLM-R one is 370 KB): each is the file of tokenizers/<name>/ named by
expected.json's "tokenizer", used as it is here and copied beside the other files by the test. Licence of the
texts: ODC-BY (SciRepEval); the weights are random.
Pairs: 3 SciRepEval queries × 12 candidates (title + " " + abstract, as citebench's rerankText; source
allenai/scirepeval training/sample_data/specter_small.json, ODC-BY; texts cut to 600 characters) and hand-made pairs
(short, equal lengths, an empty candidate, one long side only).
expected.json: {"pairs": [[query, candidate], ...], "groups": [[first, end], ...] (a query's candidates),
"cases": {name: {"tokenizer", "scores": [...], "input_ids": [[...], ...], "token_type_ids"?: [[...]], "max_length",
"activation"}}}.
Weights: matrices N(0, 0.2), biases N(0, 0.1), norm gains 1 + N(0, 0.2) (larger than initialisation's, so pairs get
well-separated scores).
"""
import json
import os
import shutil
import tempfile

import torch
from torch import nn
import transformers
from sentence_transformers import CrossEncoder
from transformers import (AutoTokenizer, BertConfig, BertForSequenceClassification, ModernBertConfig,
                          ModernBertForSequenceClassification, XLMRobertaConfig, XLMRobertaForSequenceClassification)

assert transformers.__version__.startswith('5.18'), transformers.__version__
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOK = os.path.join(ROOT, 'test', 'dense', 'fixtures', 'tokenizers')
OUT = os.path.join(ROOT, 'test', 'dense', 'fixtures', 'rerankers')
# ../shared beside the repository, or $CITEBENCH_SHARED (a git worktree elsewhere).
SHARED = os.path.join(os.environ.get('CITEBENCH_SHARED', os.path.join(ROOT, '..', 'shared')), 'data', 'scirepeval-sample', 'specter_small.json')
SEED = 4501


def randomise(model, g):
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 1 and name.endswith('weight'):
                p.copy_(1 + 0.2 * torch.randn(p.shape, generator=g))
            elif p.dim() == 1:
                p.copy_(0.1 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(0.2 * torch.randn(p.shape, generator=g))


def text(a):
    return ((a.get('title') or '') + ' ' + (a.get('abstract') or ''))[:600]


def pairs_of():
    with open(SHARED, encoding='utf-8') as f:
        data = json.load(f)
    pairs, groups = [], []
    for q in range(3):
        query = text(data[q * 7]['query'])
        cands = []
        for j in range(6):
            r = data[q * 7 + j]
            cands += [text(r['pos']), text(r['neg'])]
        groups.append([len(pairs), len(pairs) + len(cands)])
        pairs += [[query, c] for c in cands]
    pairs += [
        ['graph neural networks', 'Attention is all you need'],
        ['protein folding with deep learning', 'protein folding with deep learning'],
        ['a short query', ''],
        ['citation recommendation ' * 30, 'short candidate'],
        ['short query', 'a long candidate about retrieval ' * 30],
        ['equal length words here now', 'equal length words here now'],
    ]
    return pairs, groups


def tokenizer_for(src, max_length, d):
    tok = AutoTokenizer.from_pretrained(os.path.join(TOK, src), model_max_length=max_length)
    tok.save_pretrained(d)
    shutil.copyfile(os.path.join(TOK, src, 'tokenizer.json'), os.path.join(d, 'tokenizer.json'))


def plain(model, tok_src, max_length, d):
    model.half().save_pretrained(d)
    tokenizer_for(tok_src, max_length, d)


def st_folder(model, tok_src, max_length, activation, d):
    work = tempfile.mkdtemp()
    plain(model, tok_src, max_length, work)
    ce = CrossEncoder(work, max_length=max_length, activation_fn=activation, model_kwargs={'dtype': torch.float16})
    ce.save(d)
    shutil.copyfile(os.path.join(TOK, tok_src, 'tokenizer.json'), os.path.join(d, 'tokenizer.json'))
    shutil.rmtree(work)


TOKENIZERS = {'bert-plain': 'bert-wordpiece', 'xlmr-st-identity': 'xlmr-unigram', 'modernbert-st-mean': 'modernbert-bpe', 'modernbert-2label-cls': 'modernbert-bpe'}


def reference(d, pairs, two_label=False):
    ce = CrossEncoder(d, model_kwargs={'dtype': torch.float32})
    assert next(ce.parameters()).dtype == torch.float32
    if two_label:
        scores = ce.predict(pairs, apply_softmax=True, batch_size=8)[:, 1]
    else:
        scores = ce.predict(pairs, batch_size=8)
    # Ids as CrossEncoder.preprocess tokenises each pair (a batch of one: no padding). It passes lists to the
    # tokenizer, so an empty candidate is a pair with an empty second text (tokenizer(a, '') alone would not be).
    ids, types = [], []
    for p in pairs:
        f = ce.preprocess([p])
        ids.append(f['input_ids'][0].tolist())
        if 'token_type_ids' in f:
            types.append(f['token_type_ids'][0].tolist())
    out = {'tokenizer': TOKENIZERS[os.path.basename(d)], 'scores': [float(s) for s in scores], 'input_ids': ids,
           'max_length': ce.tokenizer.model_max_length, 'activation': type(ce.activation_fn).__name__}
    if any(any(t) for t in types):
        out['token_type_ids'] = types
    return out


def main():
    g = torch.Generator().manual_seed(SEED)
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    pairs, groups = pairs_of()
    cases = {}

    d = os.path.join(OUT, 'bert-plain')
    m = BertForSequenceClassification(BertConfig(vocab_size=1500, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                                                 intermediate_size=32, max_position_embeddings=64, num_labels=1)).eval()
    randomise(m, g)
    plain(m, 'bert-wordpiece', 48, d)
    cases['bert-plain'] = reference(d, pairs)

    d = os.path.join(OUT, 'xlmr-st-identity')
    m = XLMRobertaForSequenceClassification(XLMRobertaConfig(vocab_size=1500, hidden_size=16, num_hidden_layers=2, num_attention_heads=4,
                                                             intermediate_size=32, max_position_embeddings=66, num_labels=1,
                                                             pad_token_id=1, bos_token_id=0, eos_token_id=2)).eval()
    randomise(m, g)
    st_folder(m, 'xlmr-unigram', 40, nn.Identity(), d)
    cases['xlmr-st-identity'] = reference(d, pairs)

    d = os.path.join(OUT, 'modernbert-st-mean')
    m = ModernBertForSequenceClassification(ModernBertConfig(vocab_size=1500, hidden_size=16, num_hidden_layers=3, num_attention_heads=2,
                                                             intermediate_size=24, max_position_embeddings=128, num_labels=1,
                                                             classifier_pooling='mean', classifier_activation='silu', local_attention=8,
                                                             global_attn_every_n_layers=2, pad_token_id=3, bos_token_id=1, eos_token_id=2,
                                                             cls_token_id=1, sep_token_id=2)).eval()
    randomise(m, g)
    st_folder(m, 'modernbert-bpe', 56, nn.Sigmoid(), d)
    cases['modernbert-st-mean'] = reference(d, pairs)

    d = os.path.join(OUT, 'modernbert-2label-cls')
    m = ModernBertForSequenceClassification(ModernBertConfig(vocab_size=1500, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                                                             intermediate_size=24, max_position_embeddings=128, num_labels=2,
                                                             classifier_pooling='cls', classifier_activation='gelu', local_attention=8,
                                                             pad_token_id=3, bos_token_id=1, eos_token_id=2, cls_token_id=1, sep_token_id=2,
                                                             classifier_bias=True, norm_bias=True)).eval()
    randomise(m, g)
    plain(m, 'modernbert-bpe', 56, d)
    cases['modernbert-2label-cls'] = reference(d, pairs, two_label=True)

    work = tempfile.mkdtemp()
    BertForSequenceClassification(BertConfig(vocab_size=1500, hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                                             max_position_embeddings=64, num_labels=3)).save_pretrained(work)
    os.makedirs(os.path.join(OUT, 'bert-3label'))
    shutil.copyfile(os.path.join(work, 'config.json'), os.path.join(OUT, 'bert-3label', 'config.json'))
    shutil.rmtree(work)

    with open(os.path.join(OUT, 'expected.json'), 'w', encoding='utf-8') as f:
        json.dump({'pairs': pairs, 'groups': groups, 'cases': cases}, f, ensure_ascii=False, separators=(',', ':'))
    for name, src in TOKENIZERS.items():
        os.remove(os.path.join(OUT, name, 'tokenizer.json'))
        if os.path.exists(os.path.join(OUT, name, 'README.md')):
            os.remove(os.path.join(OUT, name, 'README.md'))
    for name, c in cases.items():
        print(name, c['activation'], c['max_length'], [round(s, 4) for s in c['scores'][:6]])


if __name__ == '__main__':
    main()
