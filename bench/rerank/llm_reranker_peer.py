"""Peer of bench/rerank/llm-reranker.ts (development only).

  python bench/rerank/llm_reranker_peer.py make DIR
      a bare Qwen3ForCausalLM at Qwen/Qwen3-Reranker-0.6B's shape (hidden 1024, 28 layers, 16 query / 8 key-value
      heads of 128, intermediate 3072, vocabulary 151669, θ 1e6, tied embeddings), random weights (the model's own
      seeded initialisation), saved in bfloat16 as the hub ships it, with the small Qwen2 tokenizer of
      test/dense/fixtures/llm-rerankers/qwen3-reranker-bare (every pair is cut to the benchmark's max length, so
      the tokens per pair are the real model's).
  python bench/rerank/llm_reranker_peer.py score DIR PAIRS.json MAX_LENGTH INSTRUCTION ROUNDS THREADS
      the Qwen3-Reranker card's code in float32 on those pairs (one batch, left padding): a warm-up round, then
      ROUNDS timed rounds; prints JSON {seconds: [...], scores: [...]}.
Needs torch and transformers 5.18.
"""
import json
import os
import shutil
import sys
import time

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, Qwen3Config, Qwen3ForCausalLM

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKENIZER = os.path.join(root, 'test', 'dense', 'fixtures', 'llm-rerankers', 'qwen3-reranker-bare')


def make(out):
    torch.manual_seed(45)
    tok = AutoTokenizer.from_pretrained(TOKENIZER)
    cfg = Qwen3Config(vocab_size=151669, hidden_size=1024, intermediate_size=3072, num_hidden_layers=28, num_attention_heads=16,
                      num_key_value_heads=8, head_dim=128, max_position_embeddings=40960, tie_word_embeddings=True,
                      rope_parameters={'rope_type': 'default', 'rope_theta': 1e6}, architectures=['Qwen3ForCausalLM'],
                      pad_token_id=tok.pad_token_id, eos_token_id=tok.convert_tokens_to_ids('<|im_end|>'))
    model = Qwen3ForCausalLM(cfg).eval().to(torch.bfloat16)
    shutil.rmtree(out, ignore_errors=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)


def score(path, pairs_file, max_length, instruction, rounds, threads):
    torch.set_num_threads(threads)
    pairs = json.load(open(pairs_file, encoding='utf-8'))
    tokenizer = AutoTokenizer.from_pretrained(path, padding_side='left')
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
    no, yes = tokenizer.convert_tokens_to_ids('no'), tokenizer.convert_tokens_to_ids('yes')
    prefix = "<|im_start|>system\nJudge whether the Document meets the requirements based on the Query and the Instruct provided. Note that the answer can only be \"yes\" or \"no\".<|im_end|>\n<|im_start|>user\n"
    suffix = "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
    p_ids = tokenizer.encode(prefix, add_special_tokens=False)
    s_ids = tokenizer.encode(suffix, add_special_tokens=False)
    texts = ["<Instruct>: {instruction}\n<Query>: {query}\n<Document>: {doc}".format(instruction=instruction, query=q, doc=d) for q, d in pairs]

    @torch.no_grad()
    def run():
        inputs = tokenizer(texts, padding=False, truncation='longest_first', return_attention_mask=False, max_length=max_length - len(p_ids) - len(s_ids))
        for i, ele in enumerate(inputs['input_ids']):
            inputs['input_ids'][i] = p_ids + ele + s_ids
        inputs = tokenizer.pad(inputs, padding=True, return_tensors='pt', max_length=max_length)
        logits = model(**inputs).logits[:, -1, :]
        s = torch.nn.functional.log_softmax(torch.stack([logits[:, no], logits[:, yes]], dim=1), dim=1)
        return s[:, 1].exp().tolist(), int(inputs['input_ids'].numel())

    run()
    seconds = []
    for _ in range(rounds):
        t = time.perf_counter()
        scores, tokens = run()
        seconds.append(time.perf_counter() - t)
    print(json.dumps({'seconds': seconds, 'scores': scores, 'tokens': tokens}))


if __name__ == '__main__':
    if sys.argv[1] == 'make':
        make(sys.argv[2])
    else:
        score(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], int(sys.argv[6]), int(sys.argv[7]))
