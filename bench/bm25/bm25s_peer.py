"""Peer for `npm run bench:bm25`: Python bm25s (method "lucene", k1 0.9, b 0.4) on the same texts and queries.

usage: python3 bench/bm25/bm25s_peer.py TEXTS.jsonl QUERIES.txt K THREADS OUT.json
TEXTS.jsonl: one JSON string per line (title + " " + abstract, exactly what citebench indexes);
QUERIES.txt: 0-based line numbers of the query documents. Timings cover tokenisation (bm25s' own tokenizer,
English stop words, PyStemmer English stemmer) + indexing, and query tokenisation + top-K retrieval.
"""
import json
import resource
import sys
import time

import bm25s
import Stemmer

texts_path, queries_path, k, threads, out_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
with open(texts_path, encoding="utf-8") as f:
    texts = [json.loads(line) for line in f]
with open(queries_path) as f:
    qidx = [int(x) for x in f if x.strip()]
rss_loaded = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

stemmer = Stemmer.Stemmer("english")
t0 = time.perf_counter()
corpus_tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
retriever = bm25s.BM25(method="lucene", k1=0.9, b=0.4)
retriever.index(corpus_tokens, show_progress=False)
t1 = time.perf_counter()
del corpus_tokens
query_tokens = bm25s.tokenize([texts[i] for i in qidx], stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False)
# Query terms unknown to the index are dropped (bm25s raises on unknown tokens otherwise).
vocab = retriever.vocab_dict
query_tokens = [[t for t in q if t in vocab] or [next(iter(vocab))] for q in query_tokens]
t2 = time.perf_counter()
docs, scores = retriever.retrieve(query_tokens, k=k, n_threads=threads, show_progress=False)
t3 = time.perf_counter()
result = {
    "peer": f"bm25s {bm25s.__version__} (method lucene, k1 0.9, b 0.4, PyStemmer english, stopwords en)",
    "docs": len(texts),
    "queries": len(qidx),
    "k": k,
    "threads": threads,
    "index_s": t1 - t0,
    "query_s": t3 - t1,
    "queries_per_s": len(qidx) / (t3 - t1),
    "end_to_end_s": t3 - t0,
    "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "rss_after_loading_texts_mib": rss_loaded / 1024,
    "first_query_top3": [int(x) for x in docs[0][:3]],
}
with open(out_path, "w") as f:
    json.dump(result, f, indent=2)
print(json.dumps(result))
