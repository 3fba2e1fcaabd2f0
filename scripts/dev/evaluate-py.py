"""Run MDCR's official evaluate.py (zoranmedic/mdcr) as it is, for goldens and by-hand checks (development only).

    python scripts/dev/evaluate-py.py PATH/TO/evaluate.py --benchmark_file B.json --scores_file S.json

evaluate.py imports pytrec_eval. A real pytrec_eval (pip install pytrec_eval) is used when importable; otherwise
the stand-in in pytrec_eval_standin/ (trec_eval 9.0.8's map, ndcg and recall_5 written out in Python, with
pytrec_eval's own compute_aggregated_measure), and a line on stderr says which one ran.
"""
import os
import runpy
import sys

if len(sys.argv) < 2:
    sys.exit(__doc__)
script = os.path.abspath(sys.argv[1])
try:
    import pytrec_eval  # noqa: F401
    print('evaluate-py: real pytrec_eval', getattr(pytrec_eval, '__version__', ''), file=sys.stderr)
except ImportError:
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'pytrec_eval_standin'))
    import pytrec_eval  # noqa: F401
    print('evaluate-py: pytrec_eval not installed; using the stand-in (scripts/dev/pytrec_eval_standin)', file=sys.stderr)
sys.argv = [script] + sys.argv[2:]
runpy.run_path(script, run_name='__main__')
