"""Build test/fixtures/beir-search/ (development only): a small BEIR-layout task from real Semantic Scholar data.

    python scripts/dev/make-beir-fixture.py ../shared/data/scirepeval-sample/search_small.jsonl test/fixtures/beir-search

Source: allenai/scirepeval `training/sample_data/search_small.jsonl` (ODC-BY 1.0): search queries, each with 10
candidate papers (title, abstract) and a graded click label 0/1/2. The first QUERIES queries (and every later
one with a label 2) become
queries.jsonl ({_id: the session id, text}), the union of their candidates corpus.jsonl ({_id: corpus_id, title,
text: the abstract, "" when it has none}), and every candidate's label qrels/test.tsv (0 = judged not relevant,
kept as BEIR keeps it). Deterministic: the same input gives the same bytes.
"""
import json
import os
import sys

QUERIES = 30
src, out = sys.argv[1:3]
allrows = [json.loads(line) for line in open(src, encoding='utf-8')]
# The first QUERIES queries, and every later one with a label 2 (so graded gains are exercised).
rows = allrows[:QUERIES] + [r for r in allrows[QUERIES:] if any(c['score'] >= 2 for c in r['candidates'])]
os.makedirs(os.path.join(out, 'qrels'), exist_ok=True)
seen = set()
dump = lambda o: json.dumps(o, ensure_ascii=False) + '\n'
with open(os.path.join(out, 'corpus.jsonl'), 'w', encoding='utf-8', newline='\n') as corpus, \
        open(os.path.join(out, 'queries.jsonl'), 'w', encoding='utf-8', newline='\n') as queries, \
        open(os.path.join(out, 'qrels', 'test.tsv'), 'w', encoding='utf-8', newline='\n') as qrels:
    qrels.write('query-id\tcorpus-id\tscore\n')
    qids = set()
    for r in rows:
        qid = str(r['session_id'])
        assert qid not in qids, qid
        qids.add(qid)
        queries.write(dump({'_id': qid, 'text': r['query']}))
        for c in r['candidates']:
            did = str(c['corpus_id'])
            if did not in seen:
                seen.add(did)
                corpus.write(dump({'_id': did, 'title': c['title'] or '', 'text': c['abstract'] or ''}))
            qrels.write(f"{qid}\t{did}\t{int(c['score'])}\n")
print(f'{len(rows)} queries, {len(seen)} documents')
