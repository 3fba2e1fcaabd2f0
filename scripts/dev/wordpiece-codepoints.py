"""Python's BERT normalizer + pre-tokenizer on every Unicode code point (development only, not run by tests).

Writes one line per code point (surrogates excepted): the code point, then the pre-tokens (joined by U+001F) that
the `tokenizers` library's BertNormalizer + BertPreTokenizer give for "a<c>b" and "a<c>", lower-cased
(strip_accents unset) and cased. scripts/dev/wordpiece-codepoints.ts compares transformers.js with it.
Needs tokenizers:  python scripts/dev/wordpiece-codepoints.py SCRATCH/codepoints.tsv   (about 30 s, 40 MB)
"""
import sys

from tokenizers import normalizers, pre_tokenizers

configs = [
    normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True),
    normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=False, lowercase=False),
]
pre = pre_tokenizers.BertPreTokenizer()


def esc(s):
    return s.replace('\\', '\\\\').replace('\n', '\\n').replace('\t', '\\t')


with open(sys.argv[1], 'w', encoding='utf-8', newline='\n') as out:
    for cp in range(0x110000):
        if 0xD800 <= cp < 0xE000:
            continue
        c = chr(cp)
        row = [
            esc('\x1f'.join(t for t, _ in pre.pre_tokenize_str(n.normalize_str(text))))
            for n in configs
            for text in ('a' + c + 'b', 'a' + c)
        ]
        out.write('%d\t%s\n' % (cp, '\t'.join(row)))
