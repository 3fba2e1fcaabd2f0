"""spaCy peer of citebench's sentence splitter: splits abstracts the way ASPIRE's preprocessing does.

ASPIRE (allenai/aspire src/pre_process/pre_proc_*.py) loads scispaCy's `en_core_sci_sm`, adds spaCy's rule-based
`sentencizer`, and calls the pipeline with tok2vec, tagger, attribute_ruler, lemmatizer, parser and ner all
DISABLED: its sentences come from scispaCy's tokenizer plus the sentencizer, not from the trained parser.
`en_core_sci_sm` builds its tokenizer with scispacy.custom_tokenizer.combined_rule_tokenizer, so this peer uses
that function on a blank English pipeline (no trained weights needed) and the same sentencizer.

usage: python bench/dense/sentence_peer.py ABSTRACTS.jsonl > SENTENCES.jsonl
  input: one JSON string (an abstract) per line, as written by `sentence-counts.ts --abstracts-out`
  output: one JSON array of sentences (stripped) per line
needs: spacy 3.x and scispaCy's source importable as `scispacy` (custom_tokenizer.py + consts.py suffice).
"""
import json
import sys

import spacy
from scispacy.custom_tokenizer import combined_rule_tokenizer

nlp = spacy.blank('en')
nlp.tokenizer = combined_rule_tokenizer(nlp)
nlp.add_pipe('sentencizer')
print(f'spacy {spacy.__version__}', file=sys.stderr)
with open(sys.argv[1], encoding='utf-8') as f:
    for line in f:
        doc = nlp(json.loads(line))
        sents = [s.text.strip() for s in doc.sents]
        print(json.dumps([s for s in sents if s], ensure_ascii=False))
