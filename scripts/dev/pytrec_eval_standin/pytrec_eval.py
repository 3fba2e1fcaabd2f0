"""A stand-in for pytrec_eval (development only), for machines where the real package cannot be installed.

Covers what MDCR's evaluate.py calls: RelevanceEvaluator(qrel, {'map', 'ndcg', 'recall'}).evaluate(run) and
compute_aggregated_measure. The measures follow trec_eval 9.0.8 (the C code pytrec_eval 0.5 links), written
from its sources independently of citebench:
  - ranking: scores read as C floats (float32), sorted descending, ties by docno descending (strcmp);
  - map: sum of precision at each relevant retrieved doc / number of relevant docs in the qrels;
  - ndcg: gain = label, discount log2(rank + 1), ideal DCG over all judged docs (labels sorted descending);
  - recall_k: relevant docs in the top k / relevant docs in the qrels (k = 5, 10, 15, 20, 30, 100, 200, 500, 1000);
  - only queries in both qrel and run are evaluated, in qid order (strcmp), as trec_eval walks them.
compute_aggregated_measure is pytrec_eval's own: np.mean of the values (np.sum for num_*).
"""
import math

import numpy as np

__version__ = 'stand-in'

RECALL_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


def _key(s):
    return s.encode('utf-8')


class RelevanceEvaluator:
    def __init__(self, query_relevance, measures):
        self.qrel = query_relevance
        self.measures = set(measures)

    def evaluate(self, scores):
        out = {}
        for qid in sorted(set(self.qrel) & set(scores), key=_key):
            judged = self.qrel[qid]
            run = scores[qid]
            ranked = sorted(run, key=lambda d: (-float(np.float32(run[d])), [-b for b in _key(d)] + [1]))
            rel = [1 if judged.get(d, 0) >= 1 else 0 for d in ranked]
            num_rel = sum(1 for v in judged.values() if v >= 1)
            res = {}
            if 'map' in self.measures:
                hits, total = 0, 0.0
                for i, r in enumerate(rel):
                    if r:
                        hits += 1
                        total += hits / (i + 1)
                res['map'] = total / num_rel if num_rel else 0.0
            if 'ndcg' in self.measures:
                dcg = 0.0
                for i, d in enumerate(ranked):
                    g = judged.get(d, 0)
                    if g > 0:
                        dcg += g / math.log2(i + 2)
                ideal = sorted((g for g in judged.values() if g > 0), reverse=True)
                idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
                res['ndcg'] = dcg / idcg if idcg > 0 else 0.0
            if 'recall' in self.measures:
                for k in RECALL_CUTOFFS:
                    res[f'recall_{k}'] = sum(rel[:k]) / num_rel if num_rel else 0.0
            out[qid] = res
        return out


def compute_aggregated_measure(measure, values):
    if measure.startswith('num_'):
        return np.sum(values)
    if measure.startswith('gm_'):
        return np.exp(np.sum(values) / len(values))
    return np.mean(values)
