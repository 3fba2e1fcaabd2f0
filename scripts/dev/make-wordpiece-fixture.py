"""Regenerate test/dense/fixtures/wordpiece-golden.json (development only, not run by tests).

Token ids that Python `transformers` BertTokenizerFast gives for model folders WITHOUT tokenizer.json (vocab.txt and
tokenizer_config.json only), on the shared SciBERT vocabulary (../shared/models/tiny-scibert-random/vocab.txt) and a
tiny hand-made vocabulary, under several tokenizer_config.json settings; plus the tokenizer.json each folder's
tokenizer writes with save_pretrained (without the vocabulary, which the tests compare with the shared file's).
The texts are titles and abstracts from ../shared/data and hand-made hard cases.
Needs transformers (v5) and tokenizers:  python scripts/dev/make-wordpiece-fixture.py
"""
import json
import os
import sys
import tempfile

import tokenizers
import transformers
from transformers import BertTokenizerFast

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
shared = os.path.join(root, '..', 'shared')
vocab_path = os.path.join(shared, 'models', 'tiny-scibert-random', 'vocab.txt')
dst = os.path.join(root, 'test', 'dense', 'fixtures', 'wordpiece-golden.json')

# Real titles and abstracts (first records with an abstract; deterministic).
s2orc = []
with open(os.path.join(shared, 'data', 's2orc-sample', 'metadata.jsonl'), encoding='utf-8') as f:
    for line in f:
        r = json.loads(line)
        if r.get('abstract'):
            s2orc.append({'title': r['title'] or '', 'abstract': r['abstract']})
with open(os.path.join(shared, 'data', 'scirepeval-sample', 'fos_small.json'), encoding='utf-8') as f:
    scirep = [{'title': r.get('title') or '', 'abstract': r.get('abstract') or ''} for r in json.load(f)]
real = s2orc[:25] + scirep[:20]

long_word = 'pneumonoultramicroscopicsilicovolcanoconiosis' * 3  # 135 characters > 100: one [UNK]
HARD = [
    '',
    ' ',
    'Citation recommendation [SEP] We evaluate encoders.',
    'lower [sep] and [Sep] are text, [SEP][SEP] and [MASK] [CLS] [PAD] [UNK] are special',
    'x[SEP]y [MASK]z',
    'Café naïve résumé façade Ångström Å (U+212B) Ñandú über Øresund Łódź',
    'combining: e\u0301 a\u0308 n\u0303 o\u0302\u0323 and precomposed \u00e9 \u00e4',
    'Straße İstanbul ΣΙΣΥΦΟΣ οδός ΟΔΟΣ ΣΔ modulator σ ς',
    'ﬁ ligature ﬀ ½ ² µm Å ℃ ™ ① ｆｕｌｌｗｉｄｔｈ',
    '中文分词测试 混合English和中文 日本語のテキスト ひらがな カタカナ 한국어 텍스트',
    'rare CJK: \u9fef \u9ffd \u3400\u4dbf extension B: \U00020000\U0002a6d6 compat: \uf900 \u2f800',
    'control\x00chars\x01here\x7f and \x85 nel \ufffd replacement \u200b zero\u200cwidth\u200d joiner \ufeff bom \u2060 wj',
    'odd\u00a0spaces\u3000ideographic\ttab\nnewline\r\ncrlf\u2028ls\u2029ps\u202fnnbsp\u205fmmsp\u1680ogham\u2000\u200a',
    'vertical\x0btab form\x0cfeed \u180e mongolian',
    'emoji 😀 🧬 🥰 🫠 👩\u200d🔬 ❤️ 🇭🇷 ✓ → ≤ ≥ ± × ÷ ∞ ∑ √',
    'very long word ' + long_word + ' and exactly hundred ' + 'a' * 100 + ' and ' + 'b' * 101,
    'punctuation runs!!! ??? ... --- ((x)) [[y]] {z} "q" \'s\' `b` ~t~ @h #t $5 %p ^c &a *s _u +p =e |p \\b /s <a> ;c :c',
    'unicode punct: «guillemets» „quotes“ ‘single’ — dash – en … ellipsis · middot ¿inverted? ¡yes! § ¶ † ‡ ※ 、。「」',
    'IL-6/STAT3 p<0.05 (n=12) 3.5±0.2 mg/kg CO2 H₂O Ca²⁺ 10^-3 α-synuclein β2-AR γδ T-cells κB NF-κB',
    'URL https://doi.org/10.1000/xyz_123?a=b&c=d e-mail a.b@c.org',
    'MiXeD CaSe WORDS BERT SciBERT ScIbErT',
    'Tab\there and multiple     spaces   collapse',
    '\u0130\u0307 \u1e9e \u01c5 \u0149 \ua7ab',
    'private use \ue000\uf8ff and \U000f0000 surrogate-free; unassigned \u0378 \U0001fb00',
    'Arabic العربية Hebrew עברית Hindi हिन्दी Thai ภาษาไทย Cyrillic Кириллица',
    'ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖØÙÚÛÜÝÞß',
]


def folder_tokenizer(vocab_text, config):
    d = tempfile.mkdtemp()
    with open(os.path.join(d, 'vocab.txt'), 'w', encoding='utf-8', newline='') as f:
        f.write(vocab_text)
    if config is not None:
        with open(os.path.join(d, 'tokenizer_config.json'), 'w', encoding='utf-8') as f:
            json.dump(config, f)
    tok = BertTokenizerFast.from_pretrained(d)
    assert not os.path.exists(os.path.join(d, 'tokenizer.json'))
    out = tempfile.mkdtemp()
    tok.save_pretrained(out)
    with open(os.path.join(out, 'tokenizer.json'), encoding='utf-8') as f:
        saved = json.load(f)
    return tok, saved


with open(vocab_path, encoding='utf-8', newline='') as f:
    vocab_text = f.read()

# The shared folder's own tokenizer_config.json (do_lower_case true), and the settings the brief asks about.
VARIANTS = {
    'absent': None,  # no tokenizer_config.json: BertTokenizer's defaults
    'shared': json.load(open(os.path.join(shared, 'models', 'tiny-scibert-random', 'tokenizer_config.json'))),
    'cased': {'do_lower_case': False},
    'lower-keep-accents': {'do_lower_case': True, 'strip_accents': False},
    'cased-strip-accents': {'do_lower_case': False, 'strip_accents': True},
    'no-chinese': {'do_lower_case': True, 'tokenize_chinese_chars': False, 'model_max_length': 512},
    # allenai/specter's tokenizer_config.json on the hub (legacy keys the fast tokenizer ignores).
    'specter-hub': {
        'do_lower_case': True, 'unk_token': '[UNK]', 'sep_token': '[SEP]', 'pad_token': '[PAD]', 'cls_token': '[CLS]',
        'mask_token': '[MASK]', 'tokenize_chinese_chars': True, 'strip_accents': None, 'special_tokens_map_file': None,
        'name_or_path': 'allenai/scibert_scivocab_cased', 'do_basic_tokenize': True, 'never_split': None,
    },
}

texts = HARD + [t for a in real for t in (a['title'], a['abstract'])]
few = HARD + [t for a in real[:4] for t in (a['title'], a['abstract'])]
golden = {
    'note': (
        'Generated by scripts/dev/make-wordpiece-fixture.py with Python transformers '
        f'{transformers.__version__} (BertTokenizerFast) and tokenizers {tokenizers.__version__}. '
        'Texts: hand-made cases, then titles and abstracts from the S2ORC metadata sample '
        '(allenai/s2orc, ODC-BY 1.0) and the SciRepEval sample (allenai/scirepeval fos_small.json, ODC-BY).'
    ),
    'texts': texts,
    'variants': {},
}
for name, config in VARIANTS.items():
    tok, saved = folder_tokenizer(vocab_text, config)
    saved['model'].pop('vocab')
    use = texts if name in ('absent', 'shared') else few
    golden['variants'][name] = {
        'config': config,
        'tokenizer': saved,
        'texts': len(use),
        'ids': [tok(t)['input_ids'] for t in use],
    }

# What the encoder feeds the model: `title [SEP] abstract`, truncation=True, max_length=512 (final [SEP] kept).
tok, _ = folder_tokenizer(vocab_text, VARIANTS['shared'])
long_abstract = ' '.join(a['abstract'] for a in s2orc[:6])
articles = [
    {'title': real[0]['title'], 'abstract': real[0]['abstract']},
    {'title': 'A title only', 'abstract': ''},
    {'title': '', 'abstract': ''},
    {'title': 'Long input', 'abstract': long_abstract},
    {'title': 'Café [SEP] 中文', 'abstract': long_word + ' ' + long_abstract},
]
golden['articles'] = [
    {**a, 'ids': tok(f"{a['title']} [SEP] {a['abstract']}", truncation=True, max_length=512)['input_ids']}
    for a in articles
]
assert max(len(a['ids']) for a in golden['articles']) == 512

# A tiny vocabulary without [PAD] and [MASK] (appended as new ids), CRLF endings and trailing blanks on a line.
mini_vocab = '[UNK]\r\n[CLS]\r\n[SEP]  \r\nthe\r\ncat\r\n##s\r\nsat\r\n.\r\n'
mini_config = {'do_lower_case': True}
tok, saved = folder_tokenizer(mini_vocab, mini_config)
mini_texts = ['The cats sat.', 'the dog [MASK] [PAD] [SEP]', '']
golden['mini'] = {
    'vocab': mini_vocab,
    'config': mini_config,
    'tokenizer': saved,
    'texts': mini_texts,
    'ids': [tok(t)['input_ids'] for t in mini_texts],
}

with open(dst, 'w', encoding='utf-8') as f:
    f.write('{\n')
    keys = list(golden)
    for i, k in enumerate(keys):
        f.write(json.dumps(k) + ': ' + json.dumps(golden[k], ensure_ascii=False, separators=(',', ':')))
        f.write(',\n' if i < len(keys) - 1 else '\n')
    f.write('}\n')
print(dst, os.path.getsize(dst), 'bytes', file=sys.stderr)
