"""Regenerate test/dense/fixtures/tokenizers/ (development only, not run by tests).

Small tokenizer folders of the families citebench reads from tokenizer.json, trained here with the `tokenizers`
and `sentencepiece` libraries on the S2ORC metadata sample's titles and abstracts (allenai/s2orc, ODC-BY 1.0; the
golden texts add the SciRepEval sample, allenai/scirepeval, ODC-BY). The real models' vocabularies are megabytes;
the pipelines are the real ones:
- bert-wordpiece: WordPiece (BertTokenizer), as e5 / bge / gte ship it;
- bert-cased-json: the same vocabulary, tokenizer.json says lowercase=false but tokenizer_config.json does not
  say do_lower_case (transformers 5 rebuilds BertTokenizer from the config: it lower-cases);
- roberta-bpe: byte-level BPE with RobertaProcessing <s> … </s> (RobertaTokenizer);
- xlmr-unigram: SentencePiece Unigram with sentencepiece's nmt_nfkc precompiled charsmap, Metaspace, <s> … </s>
  (XLMRobertaTokenizer), laid out as the hub's XLM-R tokenizer.json files are (Precompiled + Replace(" {2,}")
  normalizer, Metaspace pre-tokenizer);
- modernbert-bpe: byte-level BPE without prefix space, TemplateProcessing [CLS] … [SEP], [MASK] with lstrip
  (PreTrainedTokenizerFast), as answerdotai/ModernBERT-base ships it.
Each folder has the tokenizer.json, tokenizer_config.json and a minimal config.json (model_type) that
transformers' AutoTokenizer reads. golden.json holds, per folder, the ids AutoTokenizer (what sentence-
transformers and SciRepEval call) gives with truncation=True, max_length=N, for hand-made hard cases and real
`prompt + title + sep_token + abstract` texts; and the texts where the tokenizer.json read as-is by the
`tokenizers` library gives other ids than AutoTokenizer (transformers 5 rebuilds some tokenizer classes from
their config). With --all JSONL, every title and abstract of the shared samples is written there too, for
`node --import tsx scripts/dev/check-tokenizer-parity.ts JSONL` (the full comparison; not committed).

Needs the Python of the reference libraries (transformers 5.18, tokenizers 0.23, sentencepiece, protobuf):
  python scripts/dev/make-tokenizer-fixtures.py [--all /tmp/tokenizer-parity.jsonl]
"""
import base64
import json
import os
import shutil
import sys
import tempfile

import sentencepiece as spm
import tokenizers
import transformers
from sentencepiece import sentencepiece_model_pb2
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from transformers import AutoTokenizer

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
shared = os.path.join(root, '..', 'shared')
dst = os.path.join(root, 'test', 'dense', 'fixtures', 'tokenizers')


def read_samples():
    s2orc, scirep = [], []
    with open(os.path.join(shared, 'data', 's2orc-sample', 'metadata.jsonl'), encoding='utf-8') as f:
        for line in f:
            r = json.loads(line)
            if r.get('abstract'):
                s2orc.append({'title': r['title'] or '', 'abstract': r['abstract']})
    for name in ('fos_small.json', 'specter_small.json'):
        with open(os.path.join(shared, 'data', 'scirepeval-sample', name), encoding='utf-8') as f:
            data = json.load(f)
        for r in data:
            for part in (r, *(r.get(k) for k in ('query', 'pos', 'neg') if isinstance(r.get(k), dict))):
                if part.get('title') is not None or part.get('abstract'):
                    scirep.append({'title': part.get('title') or '', 'abstract': part.get('abstract') or ''})
    return s2orc, scirep


s2orc, scirep = read_samples()
train_text = [a['title'] + '\n' + a['abstract'] for a in s2orc]

# Hand-made cases: unicode, white space, special tokens as text, long words.
long_word = 'pneumonoultramicroscopicsilicovolcanoconiosis' * 3
HARD = [
    '', ' ', '  leading and trailing spaces  ', 'double  spaces   and\ttabs\t\tand\nnewlines\n\nhere',
    'Café naïve résumé façade Ångström Å (U+212B) Ñandú über Øresund Łódź',
    'combining: e\u0301 a\u0308 n\u0303 o\u0302\u0323 and precomposed \u00e9 \u00e4',
    'Straße İstanbul ΣΙΣΥΦΟΣ οδός ΟΔΟΣ ΣΔ modulator σ ς pΣ0K+',
    'ﬁ ligature ﬀ ½ ² µm Å ℃ ™ ① ｆｕｌｌｗｉｄｔｈ ＡＢＣ１２３ ｶﾀｶﾅ',
    '中文分词测试 混合English和中文 日本語のテキスト ひらがな カタカナ 한국어 텍스트',
    'rare CJK: \u9fef \u9ffd \u3400\u4dbf extension B: \U00020000\U0002a6d6 compat: \uf900 \U0002f800',
    'control\x00chars\x01here\x7f and \x85 nel \ufffd replacement \u200b zero\u200cwidth\u200d joiner \ufeff bom \u2060 wj',
    'odd\u00a0spaces\u3000ideographic\ttab\nnewline\r\ncrlf\u2028ls\u2029ps\u202fnnbsp\u205fmmsp\u1680ogham\u2000\u200a',
    'emoji 😀 🧬 🥰 🫠 👩\u200d🔬 ❤️ 🇭🇷 ✓ → ≤ ≥ ± × ÷ ∞ ∑ √',
    'very long word ' + long_word + ' and ' + 'b' * 101,
    'punctuation runs!!! ??? ... --- ((x)) [[y]] {z} "q" \'s\' `b` ~t~ @h #t $5 %p ^c &a *s _u +p =e |p \\b /s <a> ;c :c',
    "contractions: don't it's we're I'll they've ''quoted'' ``latex``",
    'unicode punct: «guillemets» „quotes“ ‘single’ — dash – en … ellipsis · middot ¿inverted? ¡yes! § ¶ † ‡ ※ 、。「」',
    'IL-6/STAT3 p<0.05 (n=12) 3.5±0.2 mg/kg CO2 H₂O Ca²⁺ 10^-3 α-synuclein β2-AR γδ T-cells κB NF-κB',
    'URL https://doi.org/10.1000/xyz_123?a=b&c=d e-mail a.b@c.org',
    'MiXeD CaSe WORDS BERT SciBERT ScIbErT 1234567 12.345,67',
    'Arabic العربية Hebrew עברית Hindi हिन्दी Thai ภาษาไทย Cyrillic Кириллица',
    'special tokens as text: [CLS] [SEP] [MASK] [PAD] [UNK] <s> </s> <pad> <unk> <mask> x</s>y a[SEP]b',
    'mask lstrip: a <mask> b  <mask>c [MASK] d  [MASK]e',
    '\u0130\u0307 \u1e9e \u01c5 \u0149 \ua7ab private use \ue000\uf8ff unassigned \u0378',
]
PROMPTS = ['', 'query: ', 'search_document: ', 'Represent this sentence for searching relevant passages: ']


def minimal_config(model_type, max_pos):
    return {'model_type': model_type, 'max_position_embeddings': max_pos, 'hidden_size': 8}


def write_folder(name, tok_json, tok_config, config):
    d = os.path.join(dst, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, 'tokenizer.json'), 'w', encoding='utf-8') as f:
        json.dump(tok_json, f, ensure_ascii=False, separators=(',', ':'))
    with open(os.path.join(d, 'tokenizer_config.json'), 'w', encoding='utf-8') as f:
        json.dump(tok_config, f, ensure_ascii=False, indent=2)
    with open(os.path.join(d, 'config.json'), 'w', encoding='utf-8') as f:
        json.dump(config, f, indent=2)
    return d


def bert_folders():
    t = Tokenizer(models.WordPiece(unk_token='[UNK]', max_input_chars_per_word=100))
    t.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True)
    t.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']
    t.train_from_iterator(train_text, trainers.WordPieceTrainer(vocab_size=1500, special_tokens=specials, continuing_subword_prefix='##'))
    cls, sep = t.token_to_id('[CLS]'), t.token_to_id('[SEP]')
    t.post_processor = processors.TemplateProcessing(single='[CLS]:0 $A:0 [SEP]:0', pair='[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1', special_tokens=[('[CLS]', cls), ('[SEP]', sep)])
    t.decoder = decoders.WordPiece(prefix='##')
    j = json.loads(t.to_str())
    cfg = {'tokenizer_class': 'BertTokenizer', 'do_lower_case': True, 'model_max_length': 512,
           'cls_token': '[CLS]', 'sep_token': '[SEP]', 'pad_token': '[PAD]', 'unk_token': '[UNK]', 'mask_token': '[MASK]'}
    a = write_folder('bert-wordpiece', j, cfg, minimal_config('bert', 512))
    jc = json.loads(json.dumps(j))
    jc['normalizer']['lowercase'] = False
    cfg_c = {k: v for k, v in cfg.items() if k != 'do_lower_case'}
    b = write_folder('bert-cased-json', jc, cfg_c, minimal_config('bert', 512))
    return [a, b]


def roberta_folder():
    t = Tokenizer(models.BPE(dropout=None, continuing_subword_prefix='', end_of_word_suffix='', fuse_unk=False))
    t.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=True)
    t.decoder = decoders.ByteLevel()
    specials = ['<s>', '<pad>', '</s>', '<unk>', '<mask>']
    t.train_from_iterator(train_text, trainers.BpeTrainer(vocab_size=1500, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    t.post_processor = processors.RobertaProcessing(('</s>', t.token_to_id('</s>')), ('<s>', t.token_to_id('<s>')), trim_offsets=True, add_prefix_space=False)
    j = json.loads(t.to_str())
    for a in j['added_tokens']:
        if a['content'] == '<mask>':
            a['lstrip'] = True
    cfg = {'tokenizer_class': 'RobertaTokenizer', 'add_prefix_space': False, 'trim_offsets': True, 'model_max_length': 512, 'errors': 'replace',
           'bos_token': '<s>', 'eos_token': '</s>', 'sep_token': '</s>', 'cls_token': '<s>', 'unk_token': '<unk>', 'pad_token': '<pad>',
           'mask_token': {'content': '<mask>', 'lstrip': True, 'rstrip': False, 'normalized': False, 'single_word': False, '__type': 'AddedToken'}}
    return [write_folder('roberta-bpe', j, cfg, minimal_config('roberta', 514))]


def xlmr_folder():
    work = tempfile.mkdtemp()
    with open(os.path.join(work, 'corpus.txt'), 'w', encoding='utf-8') as f:
        f.write('\n'.join(t.replace('\n', ' ') for t in train_text))
    spm.SentencePieceTrainer.train(input=os.path.join(work, 'corpus.txt'), model_prefix=os.path.join(work, 'spm'), vocab_size=1500, model_type='unigram',
                                   normalization_rule_name='nmt_nfkc', character_coverage=0.9995, num_threads=1, minloglevel=2)
    proto = sentencepiece_model_pb2.ModelProto()
    with open(os.path.join(work, 'spm.model'), 'rb') as f:
        proto.ParseFromString(f.read())
    # XLM-R's layout (transformers' XLMRobertaConverter): <s> <pad> </s> <unk>, the pieces after spm's three, <mask>.
    vocab = [('<s>', 0.0), ('<pad>', 0.0), ('</s>', 0.0), ('<unk>', 0.0)] + [(p.piece, p.score) for p in proto.pieces[3:]] + [('<mask>', 0.0)]
    t = Tokenizer(models.Unigram(vocab, unk_id=3, byte_fallback=False))
    t.normalizer = normalizers.Sequence([normalizers.Precompiled(proto.normalizer_spec.precompiled_charsmap), normalizers.Replace(Regex(' {2,}'), ' ')])
    t.pre_tokenizer = pre_tokenizers.Metaspace(replacement='▁', prepend_scheme='always', split=True)
    t.decoder = decoders.Metaspace(replacement='▁', prepend_scheme='always', split=True)
    t.add_special_tokens([tokenizers.AddedToken(s, special=True, normalized=False) for s in ['<s>', '<pad>', '</s>', '<unk>']])
    t.add_special_tokens([tokenizers.AddedToken('<mask>', special=True, normalized=False, lstrip=True)])
    t.post_processor = processors.TemplateProcessing(single='<s> $A </s>', pair='<s> $A </s> </s> $B </s>', special_tokens=[('<s>', 0), ('</s>', 2)])
    j = json.loads(t.to_str())
    cfg = {'tokenizer_class': 'XLMRobertaTokenizer', 'model_max_length': 512, 'bos_token': '<s>', 'eos_token': '</s>', 'sep_token': '</s>',
           'cls_token': '<s>', 'unk_token': '<unk>', 'pad_token': '<pad>',
           'mask_token': {'content': '<mask>', 'lstrip': True, 'rstrip': False, 'normalized': False, 'single_word': False, '__type': 'AddedToken'}}
    return [write_folder('xlmr-unigram', j, cfg, minimal_config('xlm-roberta', 514))]


def modernbert_folder():
    t = Tokenizer(models.BPE(dropout=None, unk_token=None, continuing_subword_prefix='', end_of_word_suffix='', fuse_unk=False, byte_fallback=False, ignore_merges=False))
    t.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=True)
    t.decoder = decoders.ByteLevel()
    specials = ['[UNK]', '[CLS]', '[SEP]', '[PAD]', '[MASK]']
    t.train_from_iterator(train_text, trainers.BpeTrainer(vocab_size=1500, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    t.post_processor = processors.TemplateProcessing(single='[CLS]:0 $A:0 [SEP]:0', pair='[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1',
                                                     special_tokens=[('[CLS]', t.token_to_id('[CLS]')), ('[SEP]', t.token_to_id('[SEP]'))])
    j = json.loads(t.to_str())
    for a in j['added_tokens']:
        if a['content'] == '[MASK]':
            a['lstrip'] = True
    cfg = {'tokenizer_class': 'PreTrainedTokenizerFast', 'model_max_length': 8192, 'clean_up_tokenization_spaces': True,
           'cls_token': '[CLS]', 'sep_token': '[SEP]', 'pad_token': '[PAD]', 'unk_token': '[UNK]', 'mask_token': '[MASK]',
           'model_input_names': ['input_ids', 'attention_mask']}
    return [write_folder('modernbert-bpe', j, cfg, minimal_config('modernbert', 8192))]


def texts_for(tok, articles):
    sep = tok.sep_token
    out = list(HARD)
    for i, a in enumerate(articles):
        out.append(PROMPTS[i % len(PROMPTS)] + a['title'] + sep + a['abstract'])
    return out


def golden_for(d, texts):
    auto = AutoTokenizer.from_pretrained(d)
    raw = Tokenizer.from_file(os.path.join(d, 'tokenizer.json'))
    cases, raw_differs = [], []
    for t in texts:
        for n in (512, 40):
            ids = auto(t, truncation=True, max_length=n)['input_ids']
            cases.append({'text': t, 'maxLength': n, 'ids': ids})
            raw.enable_truncation(n)
            if raw.encode(t).ids != ids and n == 512:
                raw_differs.append(t)
    return {'class': type(auto).__name__, 'sepToken': auto.sep_token, 'cases': cases, 'rawDiffers': raw_differs}


def main():
    all_out = sys.argv[sys.argv.index('--all') + 1] if '--all' in sys.argv else None
    os.makedirs(dst, exist_ok=True)
    folders = bert_folders() + roberta_folder() + xlmr_folder() + modernbert_folder()
    real = s2orc[:12] + scirep[:8]
    long = {'title': 'Long input', 'abstract': ' '.join(a['abstract'] for a in s2orc[:6])}
    golden = {
        'note': (
            'Generated by scripts/dev/make-tokenizer-fixtures.py with transformers '
            f'{transformers.__version__} (AutoTokenizer, truncation=True, max_length=N) and tokenizers {tokenizers.__version__}. '
            'Texts: hand-made cases, then prompt + title + sep_token + abstract from the S2ORC metadata sample '
            '(allenai/s2orc, ODC-BY 1.0) and the SciRepEval sample (allenai/scirepeval, ODC-BY).'
        ),
        'folders': {},
    }
    for d in folders:
        tok = AutoTokenizer.from_pretrained(d)
        golden['folders'][os.path.basename(d)] = golden_for(d, texts_for(tok, real + [long]))
    with open(os.path.join(dst, 'golden.json'), 'w', encoding='utf-8') as f:
        f.write('{\n')
        keys = list(golden)
        for i, k in enumerate(keys):
            f.write(json.dumps(k) + ': ' + json.dumps(golden[k], ensure_ascii=False, separators=(',', ':')))
            f.write(',\n' if i < len(keys) - 1 else '\n')
        f.write('}\n')
    for d in folders:
        g = golden['folders'][os.path.basename(d)]
        print(os.path.basename(d), g['class'], len(g['cases']), 'cases;', len(g['rawDiffers']), 'texts where tokenizer.json as-is differs', file=sys.stderr)
    if all_out:
        # Every title and abstract of the shared samples, and their article texts, per folder (not committed).
        texts = sorted({t for a in s2orc + scirep for t in (a['title'], a['abstract'])}) + HARD
        with open(all_out, 'w', encoding='utf-8') as f:
            for d in folders:
                auto = AutoTokenizer.from_pretrained(d)
                arts = [a['title'] + auto.sep_token + a['abstract'] for a in s2orc + scirep]
                for t in texts + arts:
                    f.write(json.dumps({'dir': d, 'text': t, 'maxLength': 512, 'ids': auto(t, truncation=True, max_length=512)['input_ids']}, ensure_ascii=False) + '\n')
        print(all_out, file=sys.stderr)


main()
