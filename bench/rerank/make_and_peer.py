"""Python side of bench/rerank/cross-encoder.ts (development benchmark, not a test).
  make DIR SHAPE      a random-weight cross-encoder folder at SHAPE (minilm-l6: BERT hidden 384, 6 layers, 12 heads,
                      intermediate 1536; xlmr-base: XLM-R hidden 768, 12 layers, 12 heads, 3072) saved by
                      transformers 5.18 with the test fixtures' tokenizer (bert-wordpiece / xlmr-unigram), max 512
  ort MODEL.onnx BATCHES.json THREADS ROUNDS
                      Python onnxruntime on the same graph and the same padded batches citebench ran (one warm-up
                      round, then ROUNDS timed); prints {"seconds": [...], "maxdiff": …} against citebench's logits
  serve MODEL.onnx BATCHES.json THREADS
                      the same, one batch at a time: after a warm-up round it reads batch indices on stdin and
                      answers each with {"s": seconds, "maxdiff": …}, so the two sides can alternate batch by batch
  st DIR PAIRS.json THREADS ROUNDS
                      sentence-transformers CrossEncoder.predict (PyTorch CPU, float32, batch 16) on the same pairs
Needs a venv with torch (CPU), transformers 5.18, sentence-transformers 6, onnxruntime."""
import json
import os
import shutil
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOK = os.path.join(ROOT, 'test', 'dense', 'fixtures', 'tokenizers')


def make(d, shape):
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification, XLMRobertaConfig, XLMRobertaForSequenceClassification
    torch.manual_seed(0)
    if shape == 'minilm-l6':
        m = BertForSequenceClassification(BertConfig(vocab_size=1500, hidden_size=384, num_hidden_layers=6, num_attention_heads=12, intermediate_size=1536, num_labels=1))
        src = 'bert-wordpiece'
    else:
        m = XLMRobertaForSequenceClassification(XLMRobertaConfig(vocab_size=1500, hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
                                                                 max_position_embeddings=514, num_labels=1, pad_token_id=1, bos_token_id=0, eos_token_id=2))
        src = 'xlmr-unigram'
    m.eval().save_pretrained(d)
    AutoTokenizer.from_pretrained(os.path.join(TOK, src), model_max_length=512).save_pretrained(d)
    shutil.copyfile(os.path.join(TOK, src, 'tokenizer.json'), os.path.join(d, 'tokenizer.json'))


def ort_peer(model, batches_file, threads, rounds):
    import onnxruntime as ort
    spec = json.load(open(batches_file))
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(model, so, providers=['CPUExecutionProvider'])
    names = [i.name for i in sess.get_inputs()]

    def run(b):
        width = len(b['ids'][0])
        ids = np.full((len(b['ids']), width), spec['pad'], dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for r, (t, y) in enumerate(zip(b['ids'], b['types'])):
            ids[r, :len(t)] = t
            mask[r, :len(t)] = 1
            types[r, :len(y)] = y
        feeds = {'input_ids': ids, 'attention_mask': mask}
        if 'token_type_ids' in names:
            feeds['token_type_ids'] = types
        return sess.run(['logits'], feeds)[0][:, 0]

    out = [run(b) for b in spec['batches']]
    secs = []
    for _ in range(rounds):
        t = time.perf_counter()
        out = [run(b) for b in spec['batches']]
        secs.append(time.perf_counter() - t)
    mine = np.concatenate(out)
    theirs = np.concatenate([np.array(b['logits'], dtype=np.float32) for b in spec['batches']])
    print(json.dumps({'seconds': secs, 'maxdiff': float(np.abs(mine - theirs).max())}))


def serve(model, batches_file, threads):
    import onnxruntime as ort
    spec = json.load(open(batches_file))
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(model, so, providers=['CPUExecutionProvider'])
    names = [i.name for i in sess.get_inputs()]
    feeds = []
    for b in spec['batches']:
        width = max(len(t) for t in b['ids'])
        ids = np.full((len(b['ids']), width), spec['pad'], dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for r, (t, y) in enumerate(zip(b['ids'], b['types'])):
            ids[r, :len(t)] = t
            mask[r, :len(t)] = 1
            types[r, :len(y)] = y
        f = {'input_ids': ids, 'attention_mask': mask}
        if 'token_type_ids' in names:
            f['token_type_ids'] = types
        feeds.append(f)
    for f in feeds:
        sess.run(['logits'], f)
    print('ready', flush=True)
    for line in sys.stdin:
        i = int(line)
        t = time.perf_counter()
        out = sess.run(['logits'], feeds[i])[0][:, 0]
        dt = time.perf_counter() - t
        diff = float(np.abs(out - np.array(spec['batches'][i]['logits'], dtype=np.float32)).max())
        print(json.dumps({'s': dt, 'maxdiff': diff}), flush=True)


def st_peer(d, pairs_file, threads, rounds):
    import torch
    from sentence_transformers import CrossEncoder
    torch.set_num_threads(threads)
    pairs = json.load(open(pairs_file))
    ce = CrossEncoder(d, model_kwargs={'dtype': torch.float32}, activation_fn=torch.nn.Identity())
    ce.predict(pairs[:16], batch_size=16)
    secs = []
    for _ in range(rounds):
        t = time.perf_counter()
        s = ce.predict(pairs, batch_size=16)
        secs.append(time.perf_counter() - t)
    print(json.dumps({'seconds': secs, 'scores': [float(x) for x in s]}))


if __name__ == '__main__':
    cmd = sys.argv[1]
    if cmd == 'make':
        make(sys.argv[2], sys.argv[3])
    elif cmd == 'serve':
        serve(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif cmd == 'ort':
        ort_peer(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        st_peer(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
