"""Would a rigorous int8 pre-filter make exact search faster? Counts, for the exact200k benchmark data, how many
candidates per query an int8 (VNNI) Gemm leaves to re-score when the result must stay exact.

Each vector x is quantised per row (scale max|x|/127, round to nearest): x = x~ + r. For a query q and a pool vector
p, |q.p - q~.p~| <= |q|.|r_p| + |r_q|.|p~| =: B (Cauchy-Schwarz; per pair). A certificate only knows lower bounds:
at least k pool vectors score >= t := the k-th largest (approx - B), so exactly the vectors with approx + B >= t
must be re-scored. "oracle" is the smaller count if the true k-th score were known in advance.
usage: python bench/dense/int8_prefilter_estimate.py [stride]   (every stride-th query; default 19 = 200 queries)"""
import json, os, sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, '..', 'out', 'dense')
d, k = 768, 500
stride = int(sys.argv[1]) if len(sys.argv) > 1 else 19
P = np.fromfile(os.path.join(out, 'pool200k.f32'), dtype=np.float32).reshape(-1, d).astype(np.float64)
Q = np.fromfile(os.path.join(out, 'queries3800.f32'), dtype=np.float32).reshape(-1, d)[::stride].astype(np.float64)

def quantise(X):
    s = np.abs(X).max(1, keepdims=True) / 127
    deq = np.round(X / s) * s
    return deq, np.linalg.norm(X - deq, axis=1)

Pd, p_err = quantise(P)
Qd, q_err = quantise(Q)
p_norm, q_norm = np.linalg.norm(Pd, axis=1), np.linalg.norm(Q, axis=1)
half_sq = (P ** 2).sum(1) / 2
for distance in ['ip', 'l2']:
    counts, oracle = [], []
    for lo in range(0, len(Q), 50):
        sl = slice(lo, lo + 50)
        exact, approx = Q[sl] @ P.T, Qd[sl] @ Pd.T
        if distance == 'l2':  # rank by q.p - |p|^2/2 (same order as -|q-p|^2)
            exact -= half_sq
            approx -= half_sq
        B = q_norm[sl, None] * p_err[None, :] + q_err[sl, None] * p_norm[None, :]
        assert (np.abs(exact - approx) <= B * (1 + 1e-9)).all()
        t = -np.partition(-(approx - B), k - 1, axis=1)[:, k - 1]
        counts += list(((approx + B) >= t[:, None]).sum(1))
        kth = -np.partition(-exact, k - 1, axis=1)[:, k - 1]
        oracle += list(((approx + B) >= kth[:, None]).sum(1))
    line = json.dumps({
        'what': 'int8 pre-filter: candidates to re-score per query (k = %d)' % k, 'distance': distance, 'queries': len(Q),
        'pool': len(P), 'mean': round(float(np.mean(counts))), 'p99': round(float(np.percentile(counts, 99))),
        'max': int(np.max(counts)), 'oracleMean': round(float(np.mean(oracle))),
        'relativeQuantisationError': round(float(np.mean(q_err / q_norm)), 5),
    })
    print(line)
    open(os.path.join(out, 'results.jsonl'), 'a').write(line + '\n')
