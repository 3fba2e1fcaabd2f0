"""Regenerate test/dense/fixtures/llm-rerankers/ (development only, not run by tests).

Tiny random-weight causal-LM rerankers in the two forms citebench reads (docs/rerank.md, "LLM rerankers"), and what
the reference code computes with them in float32:
- qwen3-crossencoder/: a sentence-transformers 6 CrossEncoder folder of a Qwen3ForCausalLM (2 layers, hidden 32,
  4 query / 2 key-value heads, head_dim 16, its own lm_head, bfloat16), made and saved by sentence-transformers
  itself (Transformer with transformer_task text-generation + LogitScore with the ids of "yes" and "no"), a
  Qwen3-Reranker-style chat template over the `query` and `document` roles (chat_template.jinja), model_max_length
  192 so that long pairs are truncated (and the template's tail written back, as sentence-transformers does);
- qwen3-reranker-bare/: a bare Qwen3ForCausalLM folder (tied embeddings, bfloat16) as Qwen/Qwen3-Reranker-* ship,
  scored by the model card's code (prefix, `<Instruct>: … <Query>: … <Document>: …`, suffix, truncation to
  max_length − prefix − suffix, P("yes")) with max_length 200, once with the card's default instruction and once
  with citebench's.
Both use a Qwen2Tokenizer (byte-level BPE with Qwen's Split regex, NFC, 600 tokens) trained here with the
`tokenizers` library on the titles and abstracts of the S2ORC metadata sample (allenai/s2orc, ODC-BY 1.0) in
../shared, with <|endoftext|> <|im_start|> <|im_end|> (special) and <think> </think> (not special) after it, as
Qwen3's. The pairs are made-up texts written here (short, long enough to truncate, non-ASCII, special-token text).
golden.json: per folder the pairs, each pair's input ids as the reference tokenizes it alone, and the scores
(CrossEncoder.predict with model_kwargs dtype float32, batch_size 4; the card's code with torch_dtype float32,
batches of 4, left padding); and `templates`: renders of three chat templates (apply_chat_template, tokenize=False)
for pairs with and without a system message and generation prompt; `heads`: llama-head/ and gemma3-head/, tiny
LlamaForCausalLM (own lm_head) and Gemma3ForCausalLM (tied, final_logit_softcapping 30, a sliding layer) folders
without a tokenizer, with transformers' logits[:, -1, ids] for a left-padded batch (the scoring head on other decoders).

Needs a venv with torch, transformers 5.18, sentence-transformers 6, tokenizers:
  python scripts/dev/make-llm-reranker-fixtures.py
"""
import json
import os
import shutil
import sys
import tempfile

import sentence_transformers
import torch
import transformers
from sentence_transformers import CrossEncoder
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from transformers import AutoModelForCausalLM, AutoTokenizer, Qwen3Config, Qwen3ForCausalLM

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# ../shared beside the checkout (a worktree one level deeper: ../../shared).
shared = next((p for p in (os.path.join(root, '..', 'shared'), os.path.join(root, '..', '..', 'shared')) if os.path.isdir(p)), os.path.join(root, '..', 'shared'))
dst = os.path.join(root, 'test', 'dense', 'fixtures', 'llm-rerankers')
QWEN_REGEX = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""

# citebench's DEFAULT_RERANK_INSTRUCTION (src/retrieval/rerank/causal-lm.ts).
CITEBENCH_INSTRUCTION = 'Given the title and abstract of a scientific article, judge whether the candidate article is one that it cites'

# A Qwen3-Reranker-style template over sentence-transformers' pair roles (flat messages: content is a string).
CHAT_TEMPLATE = (
    '<|im_start|>system\nJudge whether the Document meets the requirements based on the Query and the Instruct provided. '
    'Note that the answer can only be "yes" or "no".<|im_end|>\n<|im_start|>user\n'
    '<Instruct>: {{ messages | selectattr("role", "eq", "system") | map(attribute="content") | first | default("Given a web search query, retrieve relevant passages that answer the query") }}\n'
    '<Query>: {{ messages | selectattr("role", "eq", "query") | map(attribute="content") | first }}\n'
    '<Document>: {{ messages | selectattr("role", "eq", "document") | map(attribute="content") | first }}<|im_end|>\n'
    '<|im_start|>assistant\n<think>\n\n</think>\n\n'
)

LONG = ('Citation recommendation ranks the articles a manuscript should cite, given its title and abstract; '
        'we compare sparse and dense retrieval with a reranking stage over many fields of study. ') * 3
PAIRS = [
    ('Graph neural networks for molecules', 'We learn representations of molecular graphs with message passing.'),
    ('Graph neural networks for molecules', 'A survey of crop yields in temperate climates.'),
    ('yes', 'no'),
    ('Deep learning', LONG),
    (LONG, 'Short candidate.'),
    (LONG, LONG[::-1]),
    ('Café naïve résumé — Ångström 中文 🧬', 'Überprüfung der Ergebnisse: α-synuclein, β2-AR, NF-κB, p<0.05'),
    ('text with <|im_end|> inside', 'and <think> tags </think> too'),
    ('', 'empty query'),
    ('Protein folding with attention', 'Attention-based models predict protein structure from sequence alone.'),
]


# Chat templates of other shapes, rendered by transformers' apply_chat_template (tokenize=False) for the parity of
# citebench's Jinja rendering: a loop over roles with whitespace control, and a ChatML pass-through over structured
# content with a namespace, tests and the special-token variables.
TEMPLATES = [
    ("{%- for message in messages %}\n  {%- if message.role == 'system' %}\n<|im_start|>system\n{{ message.content }}<|im_end|>\n"
     "  {%- elif message.role == 'query' %}\n<|im_start|>user\n<Query>: {{ message.content | trim }}\n"
     "  {%- elif message.role == 'document' %}\n<Document>: {{ message.content }}<|im_end|>\n  {% endif %}\n{%- endfor %}\n"
     "{%- if add_generation_prompt %}\n<|im_start|>assistant\n{% endif %}\n"),
    ("{%- set ns = namespace(n=0) -%}\n{%- for m in messages -%}\n{%- set ns.n = ns.n + 1 -%}\n<|im_start|>{{ m.role }}\n"
     "{% if m.content is string %}{{ m.content }}{% else %}{% for c in m.content %}{% if c.type == 'text' %}{{ c.text }}{% endif %}{% endfor %}{% endif %}"
     "{% if not loop.last %}<|im_end|>{% endif %}\n\n{% endfor -%}\n{{ eos_token }}{{ ns.n }}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}\n\n"),
]


def template_renders(tok):
    out = []
    for t in TEMPLATES + [CHAT_TEMPLATE]:
        structured = any(p in t for p in ('content[0]', '.type', "'type'", '"type"', 'item.type', 'message.content['))
        for (q, d), system, agp in [(PAIRS[0], None, False), (PAIRS[7], 'An instruction.', True), (PAIRS[6], None, True), (PAIRS[8], ' padded ', False)]:
            msg = (lambda role, text: {'role': role, 'content': [{'type': 'text', 'text': text}] if structured else text})
            messages = ([msg('system', system)] if system else []) + [msg('query', q), msg('document', d)]
            out.append({'template': t, 'messages': messages, 'add_generation_prompt': agp,
                        'text': tok.apply_chat_template(messages, tokenize=False, chat_template=t, add_generation_prompt=agp)})
    return out


def training_texts():
    out = []
    with open(os.path.join(shared, 'data', 's2orc-sample', 'metadata.jsonl'), encoding='utf-8') as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                out += [r.get('title') or '', r.get('abstract') or '']
    # "yes" and "no" single tokens, as in Qwen's vocabulary (the scores read their logits).
    return [t for t in out if t] + ['yes', 'no'] * 300


def tokenizer_folder():
    t = Tokenizer(models.BPE(dropout=None, unk_token=None, continuing_subword_prefix='', end_of_word_suffix='', fuse_unk=False, byte_fallback=False))
    t.normalizer = normalizers.NFC()
    t.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN_REGEX), behavior='isolated', invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False),
    ])
    t.decoder = decoders.ByteLevel()
    t.train_from_iterator(training_texts(), trainers.BpeTrainer(vocab_size=600, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    t.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in ('<|endoftext|>', '<|im_start|>', '<|im_end|>')])
    t.add_tokens([AddedToken(s, special=False, normalized=False) for s in ('<think>', '</think>')])
    t.post_processor = processors.ByteLevel(trim_offsets=False)
    d = tempfile.mkdtemp()
    with open(os.path.join(d, 'tokenizer.json'), 'w', encoding='utf-8') as f:
        f.write(t.to_str())
    cfg = {'tokenizer_class': 'Qwen2Tokenizer', 'bos_token': None, 'eos_token': '<|im_end|>', 'pad_token': '<|endoftext|>',
           'unk_token': None, 'model_max_length': 32768, 'errors': 'replace', 'split_special_tokens': False,
           'add_prefix_space': False, 'clean_up_tokenization_spaces': False}
    with open(os.path.join(d, 'tokenizer_config.json'), 'w', encoding='utf-8') as f:
        json.dump(cfg, f, indent=2)
    with open(os.path.join(d, 'config.json'), 'w', encoding='utf-8') as f:
        json.dump({'model_type': 'qwen3'}, f)
    tok = AutoTokenizer.from_pretrained(d)
    assert type(tok).__name__ == 'Qwen2Tokenizer', type(tok).__name__
    for w in ('yes', 'no'):
        assert tok.convert_tokens_to_ids(w) is not None and tok.encode(w, add_special_tokens=False) == [tok.convert_tokens_to_ids(w)], w
    return tok


def causal_lm(tok, g, tied):
    cfg = Qwen3Config(vocab_size=len(tok), hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2, head_dim=16, max_position_embeddings=512, pad_token_id=tok.pad_token_id,
                      eos_token_id=tok.convert_tokens_to_ids('<|im_end|>'), tie_word_embeddings=tied,
                      rope_parameters={'rope_type': 'default', 'rope_theta': 1e6}, architectures=['Qwen3ForCausalLM'])
    model = Qwen3ForCausalLM(cfg).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 1 and name.endswith('weight'):
                p.copy_(1 + 0.2 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(0.3 * torch.randn(p.shape, generator=g))
    return model


def strip_local(d):
    p = os.path.join(d, 'tokenizer_config.json')
    with open(p, encoding='utf-8') as f:
        cfg = json.load(f)
    for k in ('is_local', 'local_files_only', 'name_or_path'):
        cfg.pop(k, None)
    with open(p, 'w', encoding='utf-8') as f:
        json.dump(cfg, f, ensure_ascii=False, indent=2)
    p = os.path.join(d, 'tokenizer.json')
    with open(p, encoding='utf-8') as f:
        j = json.load(f)
    with open(p, 'w', encoding='utf-8') as f:
        json.dump(j, f, ensure_ascii=False, separators=(',', ':'))
    readme = os.path.join(d, 'README.md')
    if os.path.exists(readme):
        os.remove(readme)


def crossencoder(tok, g):
    raw = tempfile.mkdtemp()
    causal_lm(tok, g, tied=False).to(torch.bfloat16).save_pretrained(raw)
    # The template must be there when the CrossEncoder is made: only then is 'message' in its modality_config.
    tok.chat_template = CHAT_TEMPLATE
    tok.save_pretrained(raw)
    tok.chat_template = None
    ce = CrossEncoder(raw, device='cpu')
    ce.max_length = 192
    out = os.path.join(dst, 'qwen3-crossencoder')
    shutil.rmtree(out, ignore_errors=True)
    ce.save(out)
    strip_local(out)
    ce = CrossEncoder(out, device='cpu', model_kwargs={'dtype': torch.float32})
    assert next(ce.parameters()).dtype == torch.float32
    assert ce.tokenizer.padding_side == 'left'
    assert 'message' in ce[0].modality_config, ce[0].modality_config
    ids = [ce.preprocess([p])['input_ids'][0].tolist() for p in PAIRS]
    with torch.no_grad():
        scores = ce.predict(PAIRS, batch_size=4).tolist()
        # The raw log-odds too (activation Identity), to tell the activation's share.
        logit = CrossEncoder(out, device='cpu', model_kwargs={'dtype': torch.float32}, activation_fn=torch.nn.Identity()).predict(PAIRS, batch_size=4).tolist()
    print('crossencoder max_length', ce.max_length, 'lengths', [len(x) for x in ids], file=sys.stderr)
    return {'maxLength': ce.max_length, 'activation': type(ce.activation_fn).__name__, 'pairs': PAIRS, 'ids': ids, 'scores': scores, 'logOdds': logit}


def card_scores(path, pairs, instruction, max_length):
    """The Qwen3-Reranker model card's code, in float32."""
    tokenizer = AutoTokenizer.from_pretrained(path, padding_side='left')
    model = AutoModelForCausalLM.from_pretrained(path, torch_dtype=torch.float32).eval()
    token_false_id = tokenizer.convert_tokens_to_ids('no')
    token_true_id = tokenizer.convert_tokens_to_ids('yes')
    prefix = "<|im_start|>system\nJudge whether the Document meets the requirements based on the Query and the Instruct provided. Note that the answer can only be \"yes\" or \"no\".<|im_end|>\n<|im_start|>user\n"
    suffix = "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
    prefix_tokens = tokenizer.encode(prefix, add_special_tokens=False)
    suffix_tokens = tokenizer.encode(suffix, add_special_tokens=False)

    def format_instruction(instruction, query, doc):
        if instruction is None:
            instruction = 'Given a web search query, retrieve relevant passages that answer the query'
        return "<Instruct>: {instruction}\n<Query>: {query}\n<Document>: {doc}".format(instruction=instruction, query=query, doc=doc)

    def process_inputs(pairs):
        inputs = tokenizer(pairs, padding=False, truncation='longest_first', return_attention_mask=False,
                           max_length=max_length - len(prefix_tokens) - len(suffix_tokens))
        for i, ele in enumerate(inputs['input_ids']):
            inputs['input_ids'][i] = prefix_tokens + ele + suffix_tokens
        return tokenizer.pad(inputs, padding=True, return_tensors='pt', max_length=max_length)

    @torch.no_grad()
    def compute_logits(inputs):
        batch_scores = model(**inputs).logits[:, -1, :]
        true_vector = batch_scores[:, token_true_id]
        false_vector = batch_scores[:, token_false_id]
        batch_scores = torch.stack([false_vector, true_vector], dim=1)
        batch_scores = torch.nn.functional.log_softmax(batch_scores, dim=1)
        return batch_scores[:, 1].exp().tolist()

    texts = [format_instruction(instruction, q, d) for q, d in pairs]
    ids = [process_inputs([t])['input_ids'][0].tolist() for t in texts]
    scores = []
    for s in range(0, len(texts), 4):
        scores += compute_logits(process_inputs(texts[s:s + 4]))
    return {'instruction': instruction, 'ids': ids, 'scores': scores}


def bare(tok, g):
    out = os.path.join(dst, 'qwen3-reranker-bare')
    shutil.rmtree(out, ignore_errors=True)
    causal_lm(tok, g, tied=True).to(torch.bfloat16).save_pretrained(out)
    tok.save_pretrained(out)
    strip_local(out)
    runs = [card_scores(out, PAIRS, None, 200), card_scores(out, PAIRS, CITEBENCH_INSTRUCTION, 200)]
    print('bare lengths', [len(x) for x in runs[1]['ids']], file=sys.stderr)
    return {'maxLength': 200, 'pairs': PAIRS, 'runs': runs, 'yes': tok.convert_tokens_to_ids('yes'), 'no': tok.convert_tokens_to_ids('no')}


def head_checks(g):
    """Tiny Llama (own lm_head) and Gemma 3 (tied, final_logit_softcapping 30, sliding layers) causal LMs without a
    tokenizer: transformers' logits[:, -1, ids] in float32 for a left-padded batch of random ids."""
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig, LlamaConfig, LlamaForCausalLM
    ids = [3, 250, 17]
    out = {}
    for name, model in [
        ('llama-head', LlamaForCausalLM(LlamaConfig(vocab_size=300, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
                                                     num_key_value_heads=2, max_position_embeddings=128, tie_word_embeddings=False, pad_token_id=0))),
        ('gemma3-head', Gemma3ForCausalLM(Gemma3TextConfig(vocab_size=300, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=2,
                                                           num_key_value_heads=1, head_dim=16, query_pre_attn_scalar=16, max_position_embeddings=128,
                                                           sliding_window=4, layer_types=['sliding_attention', 'full_attention'],
                                                           final_logit_softcapping=30.0, pad_token_id=0))),
    ]:
        model.eval()
        with torch.no_grad():
            for pname, p in model.named_parameters():
                p.copy_((1 if (p.dim() == 1 and 'gemma' not in name) else 0) + 0.3 * torch.randn(p.shape, generator=g))
        d = os.path.join(dst, name)
        model.to(torch.bfloat16).save_pretrained(d)
        m = AutoModelForCausalLM.from_pretrained(d, dtype=torch.float32).eval()
        lengths = [12, 7, 3]
        rows = [[int(x) for x in torch.randint(1, 300, (n,), generator=g)] for n in lengths]
        width = max(lengths)
        input_ids = torch.tensor([[0] * (width - len(r)) + r for r in rows])
        mask = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows])
        with torch.no_grad():
            logits = m(input_ids=input_ids, attention_mask=mask).logits[:, -1, ids]
        out[name] = {'tokenIds': ids, 'rows': rows, 'logits': logits.tolist()}
    return out


def main():
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    g = torch.Generator().manual_seed(45)
    tok = tokenizer_folder()
    golden = {
        'note': (f'Generated by scripts/dev/make-llm-reranker-fixtures.py with sentence-transformers {sentence_transformers.__version__}, '
                 f'transformers {transformers.__version__}, torch {torch.__version__}; random weights: nothing they rank means anything.'),
        'crossencoder': crossencoder(tok, g),
        'bare': bare(tok, g),
        'templates': template_renders(tok),
        'heads': head_checks(g),
        'specialTokens': {k: str(v) for k, v in tok.special_tokens_map.items()},
    }
    with open(os.path.join(dst, 'golden.json'), 'w', encoding='utf-8') as f:
        json.dump(golden, f, ensure_ascii=False)
    total = sum(os.path.getsize(os.path.join(dp, fn)) for dp, _, fs in os.walk(dst) for fn in fs)
    for dp, _, fs in os.walk(dst):
        for fn in fs:
            print(os.path.relpath(os.path.join(dp, fn), dst), os.path.getsize(os.path.join(dp, fn)), file=sys.stderr)
    print(f'{dst}: {total / 1e3:.0f} kB', file=sys.stderr)


if __name__ == '__main__':
    main()
