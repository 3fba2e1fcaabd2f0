"""End-to-end check of `citebench rerank` against the reference libraries (development only, not run by tests).

What a reviewer's held-out check does, on shapes, seeds and texts other than the committed fixtures': a corpus
store of the 1,000 real S2ORC records in ../shared (`citebench corpus build`), BM25's top 20 for its 2019 articles
with an abstract (`citebench bm25 index` / `bm25 search`), then five reranker folders made here with transformers
5.18 and sentence-transformers 6 — BERT (WordPiece, token types; a plain folder: CrossEncoder's Sigmoid), XLM-R
(Unigram; a CrossEncoder folder, Tanh), ModernBERT (BPE, mean pooling; a CrossEncoder folder, Identity), a Qwen3
causal-LM CrossEncoder with a chat template (LogitScore), and a bare bfloat16 Qwen3ForCausalLM folder named
`qwen3-reranker-0.6b` under a models folder (the registry name, the card's recipe) — and for each, `citebench
rerank --depth 20` against CrossEncoder.predict / the card's code computed in float32: every pair's score within
1e-4 and each query's order the same (where the reference's scores differ by more than 1e-4). Also: a
three-label classifier is refused in one line.

Needs a venv with torch, transformers 5.18, sentence-transformers 6, tokenizers, and the repository installed:
  python scripts/dev/check-rerank-end-to-end.py WORKDIR
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys

import torch
from sentence_transformers import CrossEncoder
from torch import nn
from transformers import (AutoTokenizer, BertConfig, BertForSequenceClassification, ModernBertConfig, ModernBertForSequenceClassification,
                          Qwen3Config, Qwen3ForCausalLM, XLMRobertaConfig, XLMRobertaForSequenceClassification)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.environ.get('CITEBENCH_SHARED', os.path.join(ROOT, '..', 'shared'))
TOK = os.path.join(ROOT, 'test', 'dense', 'fixtures', 'tokenizers')
WORK = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else 'rerank-check')
os.makedirs(WORK, exist_ok=True)
CLI = ['node', '--import', 'tsx', os.path.join(ROOT, 'src', 'cli.ts')]


def cli(*args, ok=True):
    p = subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=ROOT)
    if ok and p.returncode:
        sys.exit(f'citebench {" ".join(args)} failed:\n{p.stderr}')
    return p


def spec(name):
    s = importlib.util.spec_from_file_location(name, os.path.join(ROOT, 'scripts', 'dev', f'{name}.py'))
    m = importlib.util.module_from_spec(s)
    s.loader.exec_module(m)
    return m


def randomise(model, seed, scale=0.25):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 1 and name.endswith('weight'):
                p.copy_(1 + 0.15 * torch.randn(p.shape, generator=g))
            elif p.dim() == 1:
                p.copy_(0.05 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(scale * torch.randn(p.shape, generator=g))
    return model


# 1. Store, BM25 top 20, the pairs' texts exactly as the store holds them.
store, run = os.path.join(WORK, 'store'), os.path.join(WORK, 'bm25.trec')
if not os.path.exists(os.path.join(store, 'meta.json')):
    cli('corpus', 'build', '--input', os.path.join(SHARED, 'data', 's2orc-sample', 'metadata.jsonl'), '--out', store, '--no-prefilter', '--threads', '1')
recs = [json.loads(l) for l in open(os.path.join(SHARED, 'data', 's2orc-sample', 'metadata.jsonl'), encoding='utf-8') if l.strip()]
queries = [r['paper_id'] for r in recs if r.get('year') == 2019 and r.get('abstract')][:7]
with open(os.path.join(WORK, 'queries.txt'), 'w') as f:
    f.write('\n'.join(queries) + '\n')
cli('bm25', 'index', '--corpus', store, '--out', os.path.join(WORK, 'index'))
cli('bm25', 'search', '--index', os.path.join(WORK, 'index'), '--corpus', store, '--queries', os.path.join(WORK, 'queries.txt'), '--out', run, '--k', '20', '--threads', '1')
dump = subprocess.run(['node', '--import', 'tsx', '-e', f'''
import {{ CorpusStore }} from {json.dumps(os.path.join(ROOT, 'src', 'corpus', 'store.ts'))};
const s = CorpusStore.open({json.dumps(store)});
const out = {{}};
for (let i = 0; i < s.size; i++) {{ const t = s.text(i); out[s.id(i)] = t.title + ' ' + t.abstract; }}
process.stdout.write(JSON.stringify(out));
'''], capture_output=True, text=True, cwd=ROOT)
texts = json.loads(dump.stdout)
top = {}
for line in open(run):
    q, _, d, rank, s, _ = line.split()
    top.setdefault(q, []).append(d)
pairs = [(q, d) for q in top for d in top[q]]
text_pairs = [[texts[q], texts[d]] for q, d in pairs]
print(f'{len(top)} queries, {len(pairs)} pairs', file=sys.stderr)


# 2. The folders and their reference scores.
def tokenizer_for(src, max_length, d):
    tok = AutoTokenizer.from_pretrained(os.path.join(TOK, src), model_max_length=max_length)
    tok.save_pretrained(d)
    shutil.copyfile(os.path.join(TOK, src, 'tokenizer.json'), os.path.join(d, 'tokenizer.json'))


def ce_folder(model, tok_src, max_length, d, activation=None):
    raw = d + '-raw'
    shutil.rmtree(raw, ignore_errors=True)
    shutil.rmtree(d, ignore_errors=True)
    model.to(torch.bfloat16).save_pretrained(raw) if activation is None else model.half().save_pretrained(raw)
    tokenizer_for(tok_src, max_length, raw)
    if activation is None:
        os.rename(raw, d)
        return
    CrossEncoder(raw, max_length=max_length, activation_fn=activation, model_kwargs={'dtype': torch.float16}).save(d)
    shutil.copyfile(os.path.join(TOK, tok_src, 'tokenizer.json'), os.path.join(d, 'tokenizer.json'))
    shutil.rmtree(raw)


def predict(d):
    return CrossEncoder(d, model_kwargs={'dtype': torch.float32}).predict(text_pairs, batch_size=8).tolist()


cases = {}
d = os.path.join(WORK, 'bert')
ce_folder(randomise(BertForSequenceClassification(BertConfig(vocab_size=1500, hidden_size=24, num_hidden_layers=3, num_attention_heads=3, intermediate_size=40,
                                                              max_position_embeddings=96, num_labels=1)).eval(), 711), 'bert-wordpiece', 72, d)
cases['bert'] = (d, predict(d), [])
d = os.path.join(WORK, 'xlmr')
ce_folder(randomise(XLMRobertaForSequenceClassification(XLMRobertaConfig(vocab_size=1500, hidden_size=20, num_hidden_layers=2, num_attention_heads=5, intermediate_size=36,
                                                                      max_position_embeddings=90, num_labels=1, pad_token_id=1, bos_token_id=0, eos_token_id=2)).eval(), 712),
          'xlmr-unigram', 60, d, nn.Tanh())
cases['xlmr'] = (d, predict(d), [])
d = os.path.join(WORK, 'modernbert')
ce_folder(randomise(ModernBertForSequenceClassification(ModernBertConfig(vocab_size=1500, hidden_size=32, num_hidden_layers=4, num_attention_heads=4, intermediate_size=40,
                                                                       max_position_embeddings=256, num_labels=1, classifier_pooling='mean', classifier_activation='gelu',
                                                                       local_attention=16, global_attn_every_n_layers=3, pad_token_id=3, bos_token_id=1, eos_token_id=2,
                                                                       cls_token_id=1, sep_token_id=2)).eval(), 713), 'modernbert-bpe', 100, d, nn.Identity())
cases['modernbert'] = (d, predict(d), [])

llm = spec('make-llm-reranker-fixtures')
tok = llm.tokenizer_folder()


def qwen3(tied, seed):
    cfg = Qwen3Config(vocab_size=len(tok), hidden_size=48, intermediate_size=64, num_hidden_layers=3, num_attention_heads=6, num_key_value_heads=2, head_dim=8,
                      max_position_embeddings=1024, pad_token_id=tok.pad_token_id, eos_token_id=tok.convert_tokens_to_ids('<|im_end|>'), tie_word_embeddings=tied,
                      rope_parameters={'rope_type': 'default', 'rope_theta': 1e5}, architectures=['Qwen3ForCausalLM'])
    return randomise(Qwen3ForCausalLM(cfg).eval(), seed, 0.3)


d = os.path.join(WORK, 'qwen3-ce')
raw = d + '-raw'
shutil.rmtree(raw, ignore_errors=True)
shutil.rmtree(d, ignore_errors=True)
qwen3(False, 714).to(torch.bfloat16).save_pretrained(raw)
tok.chat_template = llm.CHAT_TEMPLATE.replace('Judge whether the Document', 'Decide whether the Document')
tok.save_pretrained(raw)
tok.chat_template = None
ce = CrossEncoder(raw, device='cpu')
ce.max_length = 160
ce.save(d)
llm.strip_local(d)
shutil.rmtree(raw)
cases['qwen3-ce'] = (d, predict(d), [])

models = os.path.join(WORK, 'models')
d = os.path.join(models, 'qwen3-reranker-0.6b')
shutil.rmtree(d, ignore_errors=True)
qwen3(True, 715).to(torch.bfloat16).save_pretrained(d)
tok.save_pretrained(d)
llm.strip_local(d)
INSTR = 'Given a scientific article, find the articles it cites'
card = llm.card_scores(d, text_pairs, INSTR, 180)['scores']
cases['qwen3-reranker-0.6b'] = ('qwen3-reranker-0.6b', card, ['--models-dir', models, '--instruction', INSTR, '--max-length', '180'])

# 3. citebench rerank against each.
bad = 0
for name, (model, ref, extra) in cases.items():
    out = os.path.join(WORK, f'{name}.trec')
    p = cli('rerank', '--model', model, '--corpus', store, '--run', run, '--depth', '20', '--out', out, '--batch', '5', '--threads', '1', *extra, ok=False)
    if p.returncode:
        print(f'{name}: FAILED {p.stderr.strip()[-400:]}')
        bad += 1
        continue
    got = {}
    order = {}
    for line in open(out):
        q, _, dd, rank, s, _ = line.split()
        got[(q, dd)] = float(s)
        order.setdefault(q, []).append(dd)
    refd = dict(zip(pairs, ref))
    worst = max(abs(got[k] - refd[k]) for k in pairs)
    misordered = sum(1 for q in order for a, b in zip(order[q], order[q][1:]) if refd[(q, a)] < refd[(q, b)] - 1e-4)
    ok = worst <= 1e-4 and misordered == 0 and len(got) == len(pairs)
    bad += not ok
    print(f'{name:22s} pairs {len(got)}/{len(pairs)} max|Δ| {worst:.2e} misordered {misordered} {"OK" if ok else "BAD"}')

# 4. A three-label classifier: refused in one line.
d = os.path.join(WORK, 'three')
shutil.rmtree(d, ignore_errors=True)
BertForSequenceClassification(BertConfig(vocab_size=1500, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=16, num_labels=3)).save_pretrained(d)
tokenizer_for('bert-wordpiece', 64, d)
p = cli('rerank', '--model', d, '--corpus', store, '--run', run, '--depth', '20', '--out', os.path.join(WORK, 'three.trec'), ok=False)
lines = p.stderr.strip().splitlines()
one = p.returncode != 0 and len(lines) == 1 and 'config.json' in lines[0]
bad += not one
print(f'three labels: exit {p.returncode}, {lines} {"OK" if one else "BAD"}')
print('ALL OK' if not bad else f'{bad} BAD')
sys.exit(1 if bad else 0)
