"""Golden values for citebench's fusion (src/retrieval/fusion/) from ranx, the reference.

Writes test/fixtures/fusion/ranx-fuse.json: three small random TREC runs (positive scores, cosines, negative
distances; tied scores; documents missing from some runs) and, for every method x normalisation pair citebench
supports, ranx.fuse's fused list per query (docno order and scores). ranx lists a query's union of documents in
Python set order (string-hash dependent) in borda normalisation, bordafuse's unranked documents and condorcet, so
each pair is run under three PYTHONHASHSEED values: a query's scores (or its order) count as ranx's only where all
three agree, and the fixture says which.

Run with a venv that has ranx's requirements (numba, numpy, pandas, scipy, orjson, lz4, cbor2, rich, tabulate,
seaborn, requests) and ranx's source on PYTHONPATH (github.com/AmenRa/ranx; `ir_datasets` is imported only by
Qrels.from_ir_datasets and may be a stub module):

    PYTHONPATH=<ranx checkout> python scripts/dev/make-fusion-fixtures.py

The fixture's runs are generated here (random, seed 45); ranx is MIT-licensed and none of its code is copied.
"""
import json
import os
import subprocess
import sys
import tempfile

METHODS = ["rrf", "sum", "mnz", "max", "min", "med", "anz", "gmnz", "wsum", "wmnz", "isr", "log_isr", "logn_isr",
           "rbc", "bordafuse", "condorcet"]
NORMS = ["none", "min-max", "max", "sum", "zmuv", "rank", "borda"]
PARAMS = {"rrf": {"k": 60}, "gmnz": {"gamma": 1.5}, "wsum": {"weights": [0.5, 0.3, 0.2]},
          "wmnz": {"weights": [0.5, 0.3, 0.2]}, "logn_isr": {"sigma": 0.01}, "rbc": {"phi": 0.8}}
SEEDS = ["0", "1", "2"]


def make_runs():
    import numpy as np
    rng = np.random.default_rng(45)
    kinds = [("positive", lambda m: rng.uniform(1, 30, m)), ("cosine", lambda m: rng.uniform(-1, 1, m)),
             ("negative-distance", lambda m: -rng.uniform(0.2, 3, m))]
    runs = []
    for name, draw in kinds:
        lines = []
        for q, pool, size in (("q1", 34, (19, 23)), ("q2", 12, (5, 9))):
            docs = rng.choice(pool, size=int(rng.integers(*size)), replace=False)
            scores = draw(len(docs))
            # Ties: a few scores repeated within the list.
            for i in range(0, len(scores) - 1, 4):
                scores[i + 1] = scores[i]
            for d, s in zip(docs, scores):
                lines.append(f"{q} Q0 d{int(d):02d} 0 {float(s)!r} {name}")
        runs.append({"name": name, "trec": "\n".join(lines) + "\n"})
    return runs


def ranx_results(paths):
    from ranx import Run, fuse
    runs = [Run.from_file(p, kind="trec") for p in paths]
    out = {}
    for method in METHODS:
        for norm in NORMS:
            fused = fuse(runs, norm=None if norm == "none" else norm, method=method, params=PARAMS.get(method, {}))
            if not fused.sorted:  # as Run.save does; fuse has sorted all but condorcet
                fused.sort()
            out[f"{method}/{norm}"] = {q: [[d, s] for d, s in fused.run[q].items()] for q in fused.run.keys()}
    return out


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--ranx":
        json.dump(ranx_results(sys.argv[2:]), sys.stdout)
        return
    runs = make_runs()
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, r in enumerate(runs):
            paths.append(os.path.join(tmp, f"run{i}.trec"))
            with open(paths[-1], "w") as f:
                f.write(r["trec"])
        per_seed = [json.loads(subprocess.run([sys.executable, __file__, "--ranx", *paths], check=True, capture_output=True,
                                              env={**os.environ, "PYTHONHASHSEED": s}, text=True).stdout) for s in SEEDS]
    pairs = {}
    for key, first in per_seed[0].items():
        pairs[key] = {}
        for q, lst in first.items():
            others = [r[key][q] for r in per_seed[1:]]
            same_order = all(o == lst for o in others)
            same_scores = all(dict(map(tuple, o)) == dict(map(tuple, lst)) for o in others)
            pairs[key][q] = {"docs": [d for d, _ in lst], "scores": [s for _, s in lst],
                             "scoresStable": same_scores, "orderStable": same_order}
    fixture = {"source": "scripts/dev/make-fusion-fixtures.py (ranx.fuse from ranx's source; runs random, seed 45)",
               "params": PARAMS, "runs": runs, "pairs": pairs}
    out = os.path.join(os.path.dirname(__file__), "..", "..", "test", "fixtures", "fusion", "ranx-fuse.json")
    with open(out, "w") as f:
        json.dump(fixture, f, separators=(",", ":"))
        f.write("\n")
    unstable = sorted(f"{k} {q}" for k, v in pairs.items() for q, x in v.items() if not x["orderStable"])
    print(f"{out}: {len(pairs)} pairs; order hash-dependent in {len(unstable)}: {', '.join(unstable)}")


if __name__ == "__main__":
    main()
