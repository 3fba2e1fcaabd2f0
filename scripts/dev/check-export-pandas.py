"""Read `citebench export`'s files with pandas and polars and compare every value with results.json (development only).

    citebench export RESULTS --format parquet --out A && citebench export RESULTS --format csv --out B
    python scripts/dev/check-export-pandas.py RESULTS A B      # pip install pandas pyarrow polars

The expected rows are built here from results.json and the cell files it names, independently of citebench's
code. Each Parquet file is read by pandas (pyarrow) and by polars, each CSV file by pandas (float_precision=
'round_trip': pandas' default CSV float parser may be one ulp off) and by polars; every table must hold exactly
the expected rows, values equal as doubles, and Parquet columns must have their documented types.
"""
import json
import math
import os
import sys

import numpy as np
import pandas as pd
import polars as pl

results, pq_dir, csv_dir = sys.argv[1:4]
r = json.load(open(os.path.join(results, 'results.json'), encoding='utf-8'))
weights = {m['name']: m['weights'] for m in r['models']}


def group(c):
    prefix = f"cells/{c['model']}/"
    f = c['file']
    return f[len(prefix):-len('.json')] if f.startswith(prefix) else f


def key(c):
    return [c['model'], weights.get(c['model']), c['protocol'], c['split'], c.get('setting', 'transductive'), c['field'], c.get('task'), c['poolSize'], c['repeat'], group(c)]


KEY = ['model', 'weights', 'protocol', 'split', 'setting', 'field', 'task', 'pool_size', 'repeat', 'group']
expected = {
    'cells': (KEY + ['pool_members', 'queries', 'empty_lists', 'measure', 'value', 'cell_file', 'run_file', 'qrels_file'],
              [key(c) + [c['poolMembers'], c['queries'], c['emptyLists'], m, v, c['file'], c['files']['run'], c['files']['qrels']]
               for c in r['cells'] for m, v in c['means'].items()]),
    'per_query': (KEY + ['query_id', 'measure', 'value'], []),
    # one row per grid point and parameter (results.json's kind-neutral tuning record)
    'tuning': (['model', 'measure', 'queries', 'pool_size', 'point', 'param', 'value', 'score', 'chosen'],
               [[t['model'], t['measure'], t['queries'], t['poolSize'], i + 1, p, v, g['score'], g['params'] == t['chosen']]
                for t in r['tuning'] for i, g in enumerate(t['grid']) for p, v in g['params'].items()]),
    'mdcr_fields': (['model', 'candidates', 'field', 'queries', 'measure', 'value'], []),
    'mdcr_types': (['model', 'candidates', 'queries', 'measure', 'value'], []),
    'models': (['model', 'kind', 'weights', 'settings'], [[m['name'], m['kind'], m['weights'], json.dumps(m['settings'], separators=(',', ':'), ensure_ascii=False)] for m in r['models']]),
}
for c in r['cells']:
    rec = json.load(open(os.path.join(results, c['file']), encoding='utf-8'))
    for m, vals in rec['perQuery'].items():
        expected['per_query'][1].extend(key(c) + [q, m, vals[i]] for i, q in enumerate(rec['queryIds']))
for model, e in (r.get('mdcr') or {}).get('results', {}).items():
    for cand, s in [('all', e['all'])] + list(e['types'].items()):
        for f in s['fields']:
            expected['mdcr_fields'][1].extend([model, cand, f['field'], f['queries'], m, v] for m, v in f['values'].items())
        n = sum(f['queries'] for f in s['fields'])
        expected['mdcr_types'][1].extend([model, cand, n, m, v] for m, v in s['avg'].items())

INT32 = {'pool_size', 'repeat', 'pool_members', 'queries', 'empty_lists', 'point'}
DOUBLE = {'value', 'score'}


def same(a, b):
    if b is None:
        return a is None or (isinstance(a, float) and math.isnan(a))
    if isinstance(b, bool):
        return isinstance(a, (bool, np.bool_)) and bool(a) == b
    if isinstance(b, (int, float)):
        return float(a) == float(b)
    return str(a) == b


def check(label, cols, rows, names, want_rows):
    assert cols == names, f'{label}: columns {cols}, want {names}'
    assert len(rows) == len(want_rows), f'{label}: {len(rows)} rows, want {len(want_rows)}'
    for i, (got, want) in enumerate(zip(rows, want_rows)):
        for n, a, b in zip(names, got, want):
            assert same(a, b), f'{label} row {i} column {n}: {a!r}, want {b!r}'


failures = 0
for table, (names, want) in expected.items():
    pq = os.path.join(pq_dir, f'{table}.parquet')
    csv = os.path.join(csv_dir, f'{table}.csv')
    dfs = {
        'pandas parquet': pd.read_parquet(pq),
        'polars parquet': pl.read_parquet(pq),
        'pandas csv': pd.read_csv(csv, float_precision='round_trip', keep_default_na=False, na_values=['']),
        'polars csv': pl.read_csv(csv, infer_schema_length=None),
    }
    for label, df in dfs.items():
        try:
            if isinstance(df, pl.DataFrame):
                if label == 'polars parquet':
                    for n, dt in df.schema.items():
                        want_dt = pl.Int32 if n in INT32 else pl.Float64 if n in DOUBLE else pl.Boolean if n == 'chosen' else pl.String
                        assert dt == want_dt, f'column {n}: {dt}, want {want_dt}'
                rows = [list(x) for x in df.iter_rows()]
                cols = df.columns
            else:
                if label == 'pandas parquet':
                    for n, dt in df.dtypes.items():
                        ok = str(dt) == 'int32' if n in INT32 else str(dt) == 'float64' if n in DOUBLE else str(dt) == 'bool' if n == 'chosen' else str(dt) in ('object', 'str', 'string')
                        assert ok, f'column {n}: {dt}'
                rows = [[None if (isinstance(v, float) and math.isnan(v)) or v is pd.NA else v for v in x] for x in df.itertuples(index=False, name=None)]
                cols = list(df.columns)
            check(f'{table} ({label})', cols, rows, names, want)
        except AssertionError as e:
            failures += 1
            print(f'FAIL {e}')
    print(f'{table}: {len(want)} rows, read by pandas and polars from Parquet and CSV')
print('all exports equal results.json' if not failures else f'{failures} failures')
sys.exit(1 if failures else 0)
