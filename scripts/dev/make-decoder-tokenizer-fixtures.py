"""Regenerate test/dense/fixtures/decoder-tokenizers/ (development only, not run by tests).

Small tokenizer folders of today's decoder embedders, trained here with the `tokenizers` library on the titles and
abstracts of the S2ORC metadata sample (allenai/s2orc, ODC-BY 1.0) and the SciRepEval sample (allenai/scirepeval,
ODC-BY), then loaded by transformers' AutoTokenizer and written back with `save_pretrained`, so that each folder is
what transformers itself writes. The real vocabularies are megabytes; the pipelines are the real ones:
- qwen3-embedding: byte-level BPE with Qwen's Split regex + ByteLevel(use_regex false), NFC, <|endoftext|>
  <|im_start|> <|im_end|> after the vocabulary, and Qwen3-Embedding's post-processor `$A <|endoftext|>`
  (Qwen2Tokenizer, model_type qwen3, padding_side left);
- qwen2-bytelevel: the same vocabulary with the ByteLevel post-processor Qwen2's own tokenizer.json carries (adds
  nothing; model_type qwen2, tokenizer_class Qwen2TokenizerFast as gte-Qwen2 names it);
- gemma-embedding: BPE with byte_fallback over <0x00>…<0xFF>, pieces with "▁" for spaces, <pad> <eos> <bos> <unk>
  <mask> <start_of_turn> <end_of_turn>, post-processor `<bos> $A <eos>` as EmbeddingGemma's (GemmaTokenizer,
  model_type gemma3_text);
- llama-hub: the same kind of vocabulary with <unk> <s> </s>, tokenizer.json as Llama-2 / Mistral ship it
  (Prepend("▁") + Replace(" ", "▁") normalizer, no pre-tokenizer) and `<s> $A </s>` (LlamaTokenizer, model_type
  llama: transformers 5 rebuilds it with Metaspace(prepend_scheme first) and no normalizer), written as the hub
  has it, not by save_pretrained (which would write the rebuilt pipeline);
- mistral-hub: that tokenizer.json with model_type mistral and tokenizer_class LlamaTokenizer, as
  intfloat/e5-mistral-7b-instruct ships it: AutoTokenizer picks TokenizersBackend, which runs the file as it is;
- llama3-bpe: byte-level BPE with Llama 3's Split regex (digits in threes), ignore_merges, and the post-processor
  Sequence[ByteLevel, TemplateProcessing `<|begin_of_text|> $A`] (PreTrainedTokenizerFast, run as it is).
golden.json holds, per folder, what AutoTokenizer gives (class, padding_side, special tokens) and its ids for
hand-made adversarial strings (add_special_tokens false, and truncation=True with max_length 512, 16, 3, 2, 1), and,
for real texts of ../shared (the test reads them there), ids keyed by the SHA-256 of the text (no text copied):
the body (add_special_tokens false) and truncation to 64; and "variants": settings of the rebuild (added tokens'
flags, named special tokens, legacy, add_prefix_space) applied to a copy of a folder, with AutoTokenizer's ids.

With --fuzz FILE it also writes, for every folder, AutoTokenizer's ids of 3,000 random strings (pieces of the
kinds above, random code points of every plane, special tokens) and of every title, abstract and article text of
the shared samples, at max_length 512 and 8, for `node --import tsx scripts/dev/check-tokenizer-parity.ts FILE`
(not committed).

Needs the Python of the reference libraries (transformers 5.18, tokenizers 0.23):
  python scripts/dev/make-decoder-tokenizer-fixtures.py [--fuzz FILE.jsonl]
"""
import hashlib
import json
import os
import shutil
import sys
import tempfile

import tokenizers
import transformers
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from transformers import AutoTokenizer

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
shared = os.path.join(root, '..', 'shared')
dst = os.path.join(root, 'test', 'dense', 'fixtures', 'decoder-tokenizers')

# transformers 5.18 models/qwen2/tokenization_qwen2.py PRETOKENIZE_REGEX
LLAMA3_REGEX = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
QWEN_REGEX = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""


def read_json_any(path):
    with open(path, encoding='utf-8') as f:
        if path.endswith('.jsonl'):
            return [json.loads(line) for line in f if line.strip()]
        return json.load(f)


def training_texts():
    out = []
    for r in read_json_any(os.path.join(shared, 'data', 's2orc-sample', 'metadata.jsonl')):
        out += [r.get('title') or '', r.get('abstract') or '']
    for name in ('fos_small.json', 'specter_small.json', 'search_small.jsonl'):
        for r in read_json_any(os.path.join(shared, 'data', 'scirepeval-sample', name)):
            for part in (r, *(r.get(k) for k in ('query', 'pos', 'neg') if isinstance(r.get(k), dict)), *(r.get('candidates') or [])):
                out += [part.get('title') or '', part.get('abstract') or '']
            if isinstance(r.get('query'), str):
                out.append(r['query'])
    return [t for t in out if t]


def real_texts():
    """The texts test/dense/decoder-tokenizers.test.ts rebuilds from ../shared (same rule, same order)."""
    s2orc = [r for r in read_json_any(os.path.join(shared, 'data', 's2orc-sample', 'metadata.jsonl')) if r.get('abstract')]
    fos = read_json_any(os.path.join(shared, 'data', 'scirepeval-sample', 'fos_small.json'))
    search = read_json_any(os.path.join(shared, 'data', 'scirepeval-sample', 'search_small.jsonl'))
    # title + ' ' + abstract: the article text of a tokenizer without sep_token (docs/dense.md).
    texts = [(r['title'] or '') + ' ' + r['abstract'] for r in s2orc[:10]]
    texts += [(r['title'] or '') + ' ' + (r['abstract'] or '') for r in fos[:5]]
    texts += [r['query'] for r in search[:5]]
    return texts


ADVERSARIAL = [
    '', ' ', 'a', 'hello world', '  leading and trailing spaces  ', '          ten spaces', 'x' + ' ' * 17 + 'y',
    'tabs\tand\t\ttabs\t', 'newlines\n\n\nand\r\ncrlf\r\n\r\nand \n \n mixed', '\n\n\n\n\n\n', ' \n', '\r\n',
    "'s 'LL 'Re I'm they'VE it's don't 'd 'ſ 'K", "he said 'll' and 'S'",
    '1234567890123 3.14159 1,000,000 ٣٤٥ १२३ ²³ ⅷ 2024-11-29',
    'Café naïve résumé façade Ångström Ñandú über Øresund Łódź çà',
    'combining: e\u0301 a\u0308 n\u0303 o\u0302\u0323 Å vs A\u030a precomposed \u00e9 \u212b (angstrom sign) \u1e9b\u0323',
    '中文分词测试 混合English和中文 日本語のテキスト ひらがな カタカナ 한국어 텍스트 \U00020000\U0002a6d6',
    'Arabic العربية مرحبا بالعالم Hebrew עברית Devanagari हिन्दी नमस्ते क्षत्रिय Thai ภาษาไทย',
    'emoji 😀 🧬 🥰 🫠 👩\u200d🔬 👨\u200d👩\u200d👧\u200d👦 🏳️\u200d🌈 ❤️ 🇭🇷 👍🏽 ✓ → ≤ ≥ ± × ∞',
    'control\x00NUL\x01\x02\x7f \x85nel \x1b[0m \x0b\x0c',
    'bom\ufeffinside \ufeff zero\u200bwidth\u200c\u200d\u2060 nbsp\u00a0ideo\u3000 ls\u2028ps\u2029 \u202f\u205f',
    'unpaired-looking: \ufffd \uffff \U0010fffd private \ue000\uf8ff unassigned \u0378',
    'special tokens in text: <|endoftext|> <|im_start|>user\nhi<|im_end|> <bos> <eos> <pad> <unk> <s> </s> <mask> x<|endoftext|>y a<bos>b',
    'nearly special: <|endoftext| <bos < s> </ s> <|im_end|>> <<bos>>',
    'punctuation runs!!! ??? ... --- ((x)) [[y]] {z} "q" `b` ~t~ @h #t $5 %p ^c &a *s _u +p =e |p \\b /s ;c :c',
    'IL-6/STAT3 p<0.05 (n=12) 3.5±0.2 mg/kg CO2 H₂O Ca²⁺ 10^-3 α-synuclein β2-AR NF-κB',
    'URL https://doi.org/10.1000/xyz_123?a=b&c=d e-mail a.b@c.org',
    'MiXeD CaSe WORDS ScIbErT ΣΙΣΥΦΟΣ Straße İstanbul ﬁ ligature ｆｕｌｌｗｉｄｔｈ',
    '▁already▁has▁metaspace ▁ ▁▁ x▁y',
    'very long word ' + 'pneumonoultramicroscopicsilicovolcanoconiosis' * 4 + ' ' + 'b' * 120,
]
MAX_LENGTHS = [512, 16, 3, 2, 1]


def write_raw(name, tok_json, tok_config, config):
    d = os.path.join(tempfile.mkdtemp(), name)
    os.makedirs(d)
    with open(os.path.join(d, 'tokenizer.json'), 'w', encoding='utf-8') as f:
        json.dump(tok_json, f, ensure_ascii=False)
    with open(os.path.join(d, 'tokenizer_config.json'), 'w', encoding='utf-8') as f:
        json.dump(tok_config, f, ensure_ascii=False, indent=2)
    with open(os.path.join(d, 'config.json'), 'w', encoding='utf-8') as f:
        json.dump(config, f, indent=2)
    return d


def as_hub(name, tok_json, tok_config, config, expect_class):
    d = os.path.join(dst, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, 'tokenizer.json'), 'w', encoding='utf-8') as f:
        json.dump(tok_json, f, ensure_ascii=False, separators=(',', ':'))
    with open(os.path.join(d, 'tokenizer_config.json'), 'w', encoding='utf-8') as f:
        json.dump(tok_config, f, ensure_ascii=False, indent=2)
    with open(os.path.join(d, 'config.json'), 'w', encoding='utf-8') as f:
        json.dump(config, f, indent=2)
    assert type(AutoTokenizer.from_pretrained(d)).__name__ == expect_class, name
    return d


def saved(name, raw_dir, expect_class):
    """AutoTokenizer over the raw folder, written back by save_pretrained (what transformers writes), plus config.json."""
    tok = AutoTokenizer.from_pretrained(raw_dir)
    assert type(tok).__name__ == expect_class, (name, type(tok).__name__)
    d = os.path.join(dst, name)
    shutil.rmtree(d, ignore_errors=True)
    tok.save_pretrained(d)
    shutil.copy(os.path.join(raw_dir, 'config.json'), os.path.join(d, 'config.json'))
    # Compact tokenizer.json (save_pretrained indents it); the content is unchanged.
    p = os.path.join(d, 'tokenizer.json')
    with open(p, encoding='utf-8') as f:
        j = json.load(f)
    with open(p, 'w', encoding='utf-8') as f:
        json.dump(j, f, ensure_ascii=False, separators=(',', ':'))
    # Machine-local keys transformers writes into tokenizer_config.json.
    p = os.path.join(d, 'tokenizer_config.json')
    with open(p, encoding='utf-8') as f:
        cfg = json.load(f)
    for k in ('is_local', 'local_files_only', 'name_or_path'):
        cfg.pop(k, None)
    with open(p, 'w', encoding='utf-8') as f:
        json.dump(cfg, f, ensure_ascii=False, indent=2)
    return d


def qwen_folders(texts):
    t = Tokenizer(models.BPE(dropout=None, unk_token=None, continuing_subword_prefix='', end_of_word_suffix='', fuse_unk=False, byte_fallback=False))
    t.normalizer = normalizers.NFC()
    t.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN_REGEX), behavior='isolated', invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False),
    ])
    t.decoder = decoders.ByteLevel()
    t.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=1800, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    # Qwen's special tokens come after the BPE vocabulary.
    t.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in ('<|endoftext|>', '<|im_start|>', '<|im_end|>')])
    eot = t.token_to_id('<|endoftext|>')
    base = {'tokenizer_class': 'Qwen2Tokenizer', 'bos_token': None, 'eos_token': '<|im_end|>', 'pad_token': '<|endoftext|>',
            'unk_token': None, 'model_max_length': 32768, 'padding_side': 'left', 'errors': 'replace', 'split_special_tokens': False,
            'add_prefix_space': False, 'clean_up_tokenization_spaces': False}
    # Qwen3-Embedding: its tokenizer.json appends <|endoftext|> to every text (last-token pooling reads it).
    t.post_processor = processors.TemplateProcessing(single='$A:0 <|endoftext|>:0', pair='$A:0 <|endoftext|>:0 $B:1 <|endoftext|>:1',
                                                     special_tokens=[('<|endoftext|>', eot)])
    j3 = json.loads(t.to_str())
    a = saved('qwen3-embedding', write_raw('qwen3-embedding', j3, base, {'model_type': 'qwen3', 'max_position_embeddings': 32768}), 'Qwen2Tokenizer')
    # Qwen2's own tokenizer.json: a ByteLevel post-processor, which adds nothing.
    t.post_processor = processors.ByteLevel(trim_offsets=False)
    j2 = json.loads(t.to_str())
    cfg2 = {**base, 'tokenizer_class': 'Qwen2TokenizerFast', 'eos_token': '<|endoftext|>', 'padding_side': 'right'}
    b = saved('qwen2-bytelevel', write_raw('qwen2-bytelevel', j2, cfg2, {'model_type': 'qwen2', 'max_position_embeddings': 32768}), 'Qwen2Tokenizer')
    return [a, b]


BYTES = ['<0x%02X>' % b for b in range(256)]


def sentencepiece_like_bpe(texts, specials, vocab_size):
    """A SentencePiece-style BPE (pieces with ▁ for the space before a word) with the byte tokens, as tokenizer.json
    holds Gemma's and Llama's: specials, then <0x00>…<0xFF>, then the pieces; merges over the pieces only."""
    t = Tokenizer(models.BPE(dropout=None))
    t.pre_tokenizer = pre_tokenizers.Metaspace(replacement='▁', prepend_scheme='always', split=True)
    t.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=vocab_size, show_progress=False))
    j = json.loads(t.to_str())
    pieces = sorted(j['model']['vocab'].items(), key=lambda kv: kv[1])
    vocab = {}
    for s in specials + BYTES:
        vocab[s] = len(vocab)
    for p, _ in pieces:
        if p not in vocab:
            vocab[p] = len(vocab)
    return vocab, j['model']['merges']


def gemma_folder(texts):
    specials = ['<pad>', '<eos>', '<bos>', '<unk>', '<mask>', '[multimodal]', '<start_of_turn>', '<end_of_turn>']
    vocab, merges = sentencepiece_like_bpe(texts, specials, 1300)
    t = Tokenizer(models.BPE(vocab=vocab, merges=[tuple(m) if isinstance(m, list) else tuple(m.split(' ')) for m in merges],
                             dropout=None, unk_token='<unk>', fuse_unk=True, byte_fallback=True))
    t.normalizer = normalizers.Replace(' ', '▁')
    t.pre_tokenizer = pre_tokenizers.Split(' ', behavior='merged_with_previous', invert=False)
    t.decoder = decoders.Sequence([decoders.Replace('▁', ' '), decoders.ByteFallback(), decoders.Fuse()])
    t.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in specials])
    t.post_processor = processors.TemplateProcessing(single='<bos>:0 $A:0 <eos>:0', pair='<bos>:0 $A:0 <eos>:0 <bos>:1 $B:1 <eos>:1',
                                                     special_tokens=[('<bos>', vocab['<bos>']), ('<eos>', vocab['<eos>'])])
    j = json.loads(t.to_str())
    cfg = {'tokenizer_class': 'GemmaTokenizer', 'bos_token': '<bos>', 'eos_token': '<eos>', 'pad_token': '<pad>', 'unk_token': '<unk>',
           'mask_token': '<mask>', 'add_bos_token': True, 'add_eos_token': True, 'model_max_length': 2048, 'padding_side': 'right',
           'spaces_between_special_tokens': False, 'clean_up_tokenization_spaces': False}
    return [saved('gemma-embedding', write_raw('gemma-embedding', j, cfg, {'model_type': 'gemma3_text', 'max_position_embeddings': 2048}), 'GemmaTokenizer')]


def llama_folders(texts):
    specials = ['<unk>', '<s>', '</s>']
    vocab, merges = sentencepiece_like_bpe(texts, specials, 1300)
    t = Tokenizer(models.BPE(vocab=vocab, merges=[tuple(m) if isinstance(m, list) else tuple(m.split(' ')) for m in merges],
                             dropout=None, unk_token='<unk>', fuse_unk=True, byte_fallback=True))
    t.normalizer = normalizers.Sequence([normalizers.Prepend('▁'), normalizers.Replace(' ', '▁')])
    t.decoder = decoders.Sequence([decoders.Replace('▁', ' '), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(' ', 1, 0)])
    t.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in specials])
    t.post_processor = processors.TemplateProcessing(single='<s>:0 $A:0 </s>:0', pair='<s>:0 $A:0 </s>:0 <s>:1 $B:1 </s>:1',
                                                     special_tokens=[('<s>', vocab['<s>']), ('</s>', vocab['</s>'])])
    j = json.loads(t.to_str())
    cfg = {'tokenizer_class': 'LlamaTokenizer', 'bos_token': '<s>', 'eos_token': '</s>', 'unk_token': '<unk>', 'pad_token': None,
           'add_bos_token': True, 'add_eos_token': True, 'legacy': False, 'model_max_length': 4096, 'padding_side': 'right',
           'clean_up_tokenization_spaces': False}
    # As the hub has them (save_pretrained would write the rebuilt pipeline and drop what is to be tested here).
    a = as_hub('llama-hub', j, cfg, {'model_type': 'llama', 'max_position_embeddings': 4096}, 'LlamaTokenizer')
    cfg_m = {**cfg, 'legacy': True, 'pad_token': '</s>'}
    b = as_hub('mistral-hub', j, cfg_m, {'model_type': 'mistral', 'max_position_embeddings': 32768}, 'TokenizersBackend')
    return [a, b]


def llama3_folder(texts):
    t = Tokenizer(models.BPE(dropout=None, fuse_unk=False, byte_fallback=False, ignore_merges=True))
    t.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(LLAMA3_REGEX), behavior='isolated', invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=False),
    ])
    t.decoder = decoders.ByteLevel()
    t.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=1200, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    t.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in ('<|begin_of_text|>', '<|end_of_text|>', '<|eot_id|>')])
    bot = t.token_to_id('<|begin_of_text|>')
    t.post_processor = processors.Sequence([
        processors.ByteLevel(add_prefix_space=True, trim_offsets=False, use_regex=True),
        processors.TemplateProcessing(single='<|begin_of_text|>:0 $A:0', pair='<|begin_of_text|>:0 $A:0 <|begin_of_text|>:1 $B:1',
                                      special_tokens=[('<|begin_of_text|>', bot)]),
    ])
    j = json.loads(t.to_str())
    cfg = {'tokenizer_class': 'PreTrainedTokenizerFast', 'bos_token': '<|begin_of_text|>', 'eos_token': '<|end_of_text|>',
           'model_max_length': 131072, 'clean_up_tokenization_spaces': True, 'model_input_names': ['input_ids', 'attention_mask']}
    return [as_hub('llama3-bpe', j, cfg, {'model_type': 'llama', 'max_position_embeddings': 131072}, 'TokenizersBackend')]


def ids(tok, text, **kw):
    return tok(text, **kw)['input_ids']


def golden_for(d, real):
    tok = AutoTokenizer.from_pretrained(d)
    cases = []
    for t in ADVERSARIAL:
        c = {'text': t, 'body': ids(tok, t, add_special_tokens=False), 'withSpecial': ids(tok, t)}
        c['truncated'] = {str(n): ids(tok, t, truncation=True, max_length=n) for n in MAX_LENGTHS}
        cases.append(c)
    # Texts where the `tokenizers` library running tokenizer.json as it is gives other ids (the rebuild matters).
    raw = Tokenizer.from_file(os.path.join(d, 'tokenizer.json'))
    raw_differs = [i for i, t in enumerate(ADVERSARIAL) if raw.encode(t).ids != cases[i]['withSpecial']]
    real_ids = {}
    for t in real:
        real_ids[hashlib.sha256(t.encode('utf-8')).hexdigest()] = {'body': ids(tok, t, add_special_tokens=False), 't64': ids(tok, t, truncation=True, max_length=64)}
    return {
        'class': type(tok).__name__, 'paddingSide': tok.padding_side, 'sepToken': tok.sep_token,
        'prefixSuffix': ids(tok, ''), 'paddingSideDefault': padding_side_without_config_key(d), 'rawDiffers': raw_differs, 'cases': cases, 'real': real_ids,
    }


def padding_side_without_config_key(d):
    """What AutoTokenizer pads on when tokenizer_config.json does not say padding_side (the class's default)."""
    work = os.path.join(tempfile.mkdtemp(), os.path.basename(d))
    shutil.copytree(d, work)
    p = os.path.join(work, 'tokenizer_config.json')
    with open(p, encoding='utf-8') as f:
        cfg = json.load(f)
    cfg.pop('padding_side', None)
    with open(p, 'w', encoding='utf-8') as f:
        json.dump(cfg, f)
    return AutoTokenizer.from_pretrained(work).padding_side


def added(content, tid, lstrip=False, rstrip=False, normalized=False, special=True):
    return {'content': content, 'lstrip': lstrip, 'rstrip': rstrip, 'normalized': normalized, 'single_word': False, 'special': special}


# Settings of the rebuild that the folders above do not exercise: edits applied to a copy of a folder (keys merged into
# tokenizer_config.json; flags set on tokenizer.json's added tokens; keys merged into tokenizer.json), and
# AutoTokenizer's ids (no special tokens; and of 'a b' with them).
VARIANT_TEXTS = ['a <|im_end|> b', 'a <|im_start|> b', 'x<|endoftext|>y', 'a <eos> b', 'a <start_of_turn> b', 'a </s> b', 'x</s>y',
                 ' lead', 'hello world', '  two  spaces', '<s>hi']
VARIANTS = [
    # Qwen2Tokenizer re-adds its named special tokens (eos <|im_end|>) plain; other added tokens keep their flags.
    ('qwen3-added-tokens-decoder', 'qwen3-embedding', {'added_tokens_decoder': {
        '1800': added('<|endoftext|>', 1800), '1801': added('<|im_start|>', 1801, lstrip=True, rstrip=True),
        '1802': added('<|im_end|>', 1802, lstrip=True, rstrip=True)}}, {}, {}),
    ('qwen3-eos-dict', 'qwen3-embedding', {'eos_token': {**added('<|im_end|>', 0, lstrip=True, rstrip=True), '__type': 'AddedToken'}}, {}, {}),
    # GemmaTokenizer and LlamaTokenizer keep the flags of the file's added tokens, named or not.
    ('gemma-added-flags', 'gemma-embedding', {}, {'<eos>': {'lstrip': True, 'rstrip': True}, '<start_of_turn>': {'lstrip': True, 'rstrip': True}}, {}),
    ('llama-added-flags', 'llama-hub', {}, {'</s>': {'lstrip': True, 'rstrip': True}}, {}),
    # LlamaTokenizer's Metaspace: prepend_scheme always with legacy true, never with add_prefix_space false.
    ('llama-legacy', 'llama-hub', {'legacy': True}, {}, {}),
    ('llama-no-prefix-space', 'llama-hub', {'add_prefix_space': False}, {}, {}),
    # No post-processor in the file: nothing is added, whatever add_bos_token / add_eos_token say.
    ('gemma-no-post-processor', 'gemma-embedding', {'add_bos_token': True, 'add_eos_token': True}, {}, {'post_processor': None}),
]


def variant_golden():
    out = []
    for name, src, cfg_edit, added_edit, json_edit in VARIANTS:
        d = os.path.join(tempfile.mkdtemp(), name)
        shutil.copytree(os.path.join(dst, src), d)
        p = os.path.join(d, 'tokenizer_config.json')
        with open(p, encoding='utf-8') as f:
            cfg = json.load(f)
        cfg.update(cfg_edit)
        with open(p, 'w', encoding='utf-8') as f:
            json.dump(cfg, f)
        p = os.path.join(d, 'tokenizer.json')
        with open(p, encoding='utf-8') as f:
            j = json.load(f)
        for t in j['added_tokens']:
            t.update(added_edit.get(t['content'], {}))
        j.update(json_edit)
        with open(p, 'w', encoding='utf-8') as f:
            json.dump(j, f, ensure_ascii=False)
        tok = AutoTokenizer.from_pretrained(d)
        out.append({'name': name, 'folder': src, 'config': cfg_edit, 'addedTokens': added_edit, 'tokenizerJson': json_edit, 'class': type(tok).__name__,
                    'texts': VARIANT_TEXTS, 'ids': [ids(tok, t, add_special_tokens=False) for t in VARIANT_TEXTS], 'withSpecial': ids(tok, 'a b')})
    return out


FUZZ_PIECES = [
    'the', 'The', 'THE', ' ', '  ', '   ', '\t', '\n', '\r\n', '\r', '\n\n', ' \n ', "'s", "'S", "'ll", "'LL", "'ſ", "'K", "'", "''",
    '0', '12', '123', '1234', '12345678901', '٣', '१२', '²', '½', 'Ⅻ', '.', ',', '!!', '?', '...', '-', '—', '(', ')', '[', '"', '`',
    'é', 'e\u0301', 'A\u030a', '\u212b', 'ñ', 'ß', 'İ', 'Σ', 'ς', 'ﬁ', 'ｆ', '中', '文字', 'の', 'カ', '한', '\u1100\u1161', 'ع', 'ربية',
    'ह', 'िन्', '\u0e20\u0e32', '😀', '👩\u200d🔬', '❤\ufe0f', '🇭🇷', '👍🏽', '\u200b', '\u200c', '\u200d', '\ufeff', '\u00a0', '\u3000',
    '\u2028', '\x00', '\x01', '\x1b', '\x7f', '\x85', '\ufffd', '\U00020000', '\ue000', '▁', '▁▁', '<|endoftext|>', '<|im_start|>',
    '<|im_end|>', '<bos>', '<eos>', '<s>', '</s>', '<unk>', '<pad>', '<mask>', '<|begin_of_text|>', '<0x41>', 'word', 'ing', 'tion',
]


def fuzz_texts(n, seed=20261129):
    import random
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 14)):
            if rng.random() < 0.15:
                while True:
                    cp = rng.choice([rng.randint(0, 0x7f), rng.randint(0x80, 0xffff), rng.randint(0x10000, 0x10ffff)])
                    if not 0xd800 <= cp <= 0xdfff:
                        break
                parts.append(chr(cp))
            else:
                parts.append(rng.choice(FUZZ_PIECES))
        out.append(''.join(parts))
    return out


def write_fuzz(path, folders):
    texts = fuzz_texts(3000) + ADVERSARIAL + [t for t in training_texts()]
    s2orc = [r for r in read_json_any(os.path.join(shared, 'data', 's2orc-sample', 'metadata.jsonl')) if r.get('abstract')]
    texts += [(r['title'] or '') + ' ' + r['abstract'] for r in s2orc]
    with open(path, 'w', encoding='utf-8') as f:
        for d in folders:
            tok = AutoTokenizer.from_pretrained(d)
            for t in texts:
                for n in (512, 8):
                    f.write(json.dumps({'dir': d, 'text': t, 'maxLength': n, 'ids': ids(tok, t, truncation=True, max_length=n)}, ensure_ascii=False) + '\n')
    print(path, len(texts), 'texts per folder', file=sys.stderr)


def main():
    texts = training_texts()
    os.makedirs(dst, exist_ok=True)
    folders = qwen_folders(texts) + gemma_folder(texts) + llama_folders(texts) + llama3_folder(texts)
    real = real_texts()
    golden = {
        'note': (
            'Generated by scripts/dev/make-decoder-tokenizer-fixtures.py with transformers '
            f'{transformers.__version__} (AutoTokenizer) and tokenizers {tokenizers.__version__}. Vocabularies trained on the '
            'S2ORC metadata sample (allenai/s2orc, ODC-BY 1.0) and the SciRepEval sample (allenai/scirepeval, ODC-BY); '
            '"real" holds ids of texts read from ../shared, keyed by the SHA-256 of the UTF-8 text.'
        ),
        'realCount': len(real),
        'folders': {},
    }
    for d in folders:
        golden['folders'][os.path.basename(d)] = golden_for(d, real)
    golden['variants'] = variant_golden()
    with open(os.path.join(dst, 'golden.json'), 'w', encoding='utf-8') as f:
        f.write('{\n')
        f.write('"note": ' + json.dumps(golden['note']) + ',\n"realCount": ' + json.dumps(golden['realCount']) + ',\n"folders": {\n')
        names = list(golden['folders'])
        for i, k in enumerate(names):
            f.write(json.dumps(k) + ': ' + json.dumps(golden['folders'][k], ensure_ascii=False, separators=(',', ':')))
            f.write(',\n' if i < len(names) - 1 else '\n')
        f.write('},\n"variants": [\n')
        for i, v in enumerate(golden['variants']):
            f.write(json.dumps(v, ensure_ascii=False, separators=(',', ':')) + (',\n' if i < len(golden['variants']) - 1 else '\n'))
        f.write(']\n}\n')
    if '--fuzz' in sys.argv:
        write_fuzz(sys.argv[sys.argv.index('--fuzz') + 1], folders)
    for d in folders:
        g = golden['folders'][os.path.basename(d)]
        print(os.path.basename(d), g['class'], g['paddingSide'], g['paddingSideDefault'], 'specials', g['prefixSuffix'], 'raw differs', g['rawDiffers'], sorted(os.listdir(d)), file=sys.stderr)


main()
