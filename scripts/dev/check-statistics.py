"""Reference values of citebench's statistics (development only): scipy and statsmodels on a small fixture.

The fixture (test/fixtures/statistics/: qrels, six runs of graded strength over 60 queries, a slices file of
query labels) is generated here from numpy's seed 46 — synthetic data of this repository, no licence of anyone
else's. Per run and query, AP and P@10 are computed here (trec_eval's definitions; the scores have no ties), then:
scipy.stats.ttest_rel, t.interval, d_z, t.ppf; statsmodels multipletests (holm, bonferroni, fdr_bh) over the
five runs against the baseline and over fixed p-value lists with ties; scipy.stats.bootstrap (percentile); a
straightforward randomised Tukey HSD (numpy's own generator); per-slice n, mean and t-interval. They are written
to test/fixtures/statistics/expected.json, which test/eval/statistics.test.ts compares with citebench.

Run with a venv that has numpy, scipy and statsmodels:  python scripts/dev/check-statistics.py [--make-fixture]
(--make-fixture rewrites the qrels, runs and slices first; without it they are read as committed).
"""
import json
import os
import sys

import numpy as np
from scipy import stats
from statsmodels.stats.multitest import multipletests

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
fx = os.path.join(root, 'test', 'fixtures', 'statistics')
N_QUERIES, POOL, DEPTH = 60, 30, 10
STRENGTHS = [0.4, 0.55, 0.7, 0.9, 1.2, 1.6]  # run0 (baseline) … run5: graded strength of the relevance signal
TRIALS = 10000


def make_fixture():
    rng = np.random.default_rng(46)
    qids = [f'q{i:02d}' for i in range(1, N_QUERIES + 1)]
    rel = {}
    with open(os.path.join(fx, 'qrels.txt'), 'w') as f:
        for q in qids:
            k = int(rng.integers(2, 8))
            rel[q] = set(int(x) for x in rng.choice(POOL, size=k, replace=False))
            for d in sorted(rel[q]):
                f.write(f'{q} 0 d{d} 1\n')
    # Per query a "difficulty" shared by every run, so the runs' values are correlated as real runs' are.
    hard = {q: float(rng.normal(0, 0.6)) for q in qids}
    for r, s in enumerate(STRENGTHS):
        with open(os.path.join(fx, f'run{r}.txt'), 'w') as f:
            for q in qids:
                score = [(s + hard[q]) * (d in rel[q]) + float(rng.normal(0, 1)) for d in range(POOL)]
                top = sorted(range(POOL), key=lambda d: -score[d])[:DEPTH]
                for rank, d in enumerate(top, 1):
                    f.write(f'{q} Q0 d{d} {rank} {score[d]:.6f} run{r}\n')
    labels = ['cs', 'bio', 'phys']
    with open(os.path.join(fx, 'slices.tsv'), 'w') as f:
        for i, q in enumerate(qids):
            f.write(f'{q}\t{labels[int(rng.integers(0, 3))]}\n')


def read_qrels():
    rel = {}
    for line in open(os.path.join(fx, 'qrels.txt')):
        q, _, d, r = line.split()
        rel.setdefault(q, set())
        if int(r) > 0:
            rel[q].add(d)
    return rel


def read_run(r):
    run = {}
    for line in open(os.path.join(fx, f'run{r}.txt')):
        q, _, d, _, score, _ = line.split()
        run.setdefault(q, []).append((float(score), d))
    return {q: [d for _, d in sorted(v, key=lambda x: (-x[0], tuple(-ord(c) for c in x[1])))] for q, v in run.items()}


def measures(rel, ranked):
    hits, ap = 0, 0.0
    for i, d in enumerate(ranked, 1):
        if d in rel:
            hits += 1
            ap += hits / i
    return {'map': ap / len(rel), 'P_10': sum(d in rel for d in ranked[:10]) / 10}


def t_interval(x):
    x = np.asarray(x, dtype=float)
    n = len(x)
    if n < 2:
        return None
    lo, hi = stats.t.interval(0.95, n - 1, loc=x.mean(), scale=x.std(ddof=1) / np.sqrt(n))
    return [float(lo), float(hi)]


def tukey(cols, trials, seed):
    """Straightforward randomised Tukey HSD: permute each query's row, largest difference of column means; (count + 1) / (B + 1)."""
    x = np.array(cols, dtype=float).T  # queries × systems
    n, m = x.shape
    rng = np.random.default_rng(seed)
    obs = x.mean(axis=0)
    ranges = np.empty(trials)
    for b in range(trials):
        perm = rng.permuted(x, axis=1)
        means = perm.mean(axis=0)
        ranges[b] = means.max() - means.min()
    p = np.ones((m, m))
    for i in range(m):
        for j in range(i + 1, m):
            d = abs(obs[i] - obs[j]) * (1 - 1e-12)
            p[i, j] = p[j, i] = ((ranges >= d).sum() + 1) / (trials + 1)
    return p


def main():
    if '--make-fixture' in sys.argv:
        make_fixture()
    rel = read_qrels()
    qids = sorted(rel)
    runs = [read_run(r) for r in range(len(STRENGTHS))]
    names = [f'run{r}' for r in range(len(STRENGTHS))]
    labels = dict(line.rstrip('\n').split('\t') for line in open(os.path.join(fx, 'slices.tsv')) if line.strip())
    out = {'trials': TRIALS, 'perQuery': {}, 'means': [], 'comparisons': [], 'allPairs': [], 'slices': [], 'tPpf': [], 'multipletests': []}
    for meas, key in [('map', 'map'), ('P.10', 'P_10')]:  # named as given to citebench eval -m
        # -c: every qrels query, 0 where a run has no line for it.
        vals = [np.array([measures(rel[q], run.get(q, []))[key] for q in qids]) for run in runs]
        out['perQuery'][meas] = {names[k]: dict(zip(qids, map(float, v))) for k, v in enumerate(vals)}
        for k, v in enumerate(vals):
            out['means'].append({'measure': meas, 'run': names[k], 'queries': len(v), 'mean': float(v.mean()), 'ci95': t_interval(v)})
        rows = []
        for k in range(1, len(vals)):
            d = vals[k] - vals[0]
            boot = stats.bootstrap((d,), np.mean, n_resamples=TRIALS, method='percentile', confidence_level=0.95, random_state=np.random.default_rng(k))
            rows.append({
                'measure': meas, 'run': names[k], 'baseline': names[0], 'queries': len(d), 'meanDiff': float(d.mean()),
                'ci95': t_interval(d), 'bootstrapCi95': [float(boot.confidence_interval.low), float(boot.confidence_interval.high)],
                'effectSize': float(d.mean() / d.std(ddof=1)), 'pT': float(stats.ttest_rel(vals[k], vals[0]).pvalue),
            })
        p = [r['pT'] for r in rows]
        for method, key in (('holm', 'holm'), ('bonferroni', 'bonferroni'), ('fdr_bh', 'bh')):
            adj = multipletests(p, method=method)[1]
            for r, a in zip(rows, adj):
                r.setdefault('pAdjusted', {})[key] = float(a)
        out['comparisons'] += rows
        pt = tukey(vals, TRIALS, 7)
        for i in range(len(vals)):
            for j in range(i + 1, len(vals)):
                out['allPairs'].append({'measure': meas, 'a': names[i], 'b': names[j], 'meanDiff': float(vals[i].mean() - vals[j].mean()), 'pTukey': float(pt[i, j])})
        for sl in sorted(set(labels.values())):
            idx = [i for i, q in enumerate(qids) if labels.get(q) == sl]
            for k, v in enumerate(vals):
                row = {'measure': meas, 'slice': sl, 'run': names[k], 'queries': len(idx), 'mean': float(v[idx].mean()), 'ci95': t_interval(v[idx])}
                if k > 0:
                    d = v[idx] - vals[0][idx]
                    row.update({'baseline': names[0], 'pairedQueries': len(idx), 'meanDiff': float(d.mean()), 'diffCi95': t_interval(d)})
                out['slices'].append(row)
    for q in [0.975, 0.995, 0.9, 0.6, 0.025, 0.999999]:
        for df in [1, 2, 3, 5, 9, 19, 59, 199, 3799, 100000]:
            out['tPpf'].append({'q': q, 'df': df, 'x': float(stats.t.ppf(q, df))})
    lists = [[0.01, 0.04, 0.03, 0.005, 0.2], [0.05, 0.05, 0.01, 0.5, 0.5, 0.001], [0.9, 0.8, 0.7], [1e-8, 0.3, 0.02, 0.02, 0.049, 0.6, 0.011]]
    for p in lists:
        out['multipletests'].append({'p': p, **{key: [float(x) for x in multipletests(p, method=m)[1]] for m, key in (('holm', 'holm'), ('bonferroni', 'bonferroni'), ('fdr_bh', 'bh'))}})
    with open(os.path.join(fx, 'expected.json'), 'w') as f:
        json.dump(out, f, indent=1)
        f.write('\n')
    print(f'wrote {os.path.join("test", "fixtures", "statistics", "expected.json")}')


main()
