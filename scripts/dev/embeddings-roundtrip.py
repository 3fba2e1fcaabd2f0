"""Embeddings in and out, checked by NumPy itself (development only; numpy and safetensors, no torch).

    python scripts/dev/embeddings-roundtrip.py [SCRATCH_DIR]

In a scratch folder: a small synthetic corpus store (citebench synth + corpus build); random float32 vectors for
its shards' paper ids written by NumPy as .npy (format versions 1.0, 2.0, 3.0), float16 .npy, SciRepEval's JSONL
(json.dumps of tolist(), as its EmbeddingsGenerator writes) and safetensors (safetensors.numpy.save_file); each
imported with `citebench embeddings import` and written back with `citebench embeddings export`; then numpy.load
reads every export and compares it, row by row through the ids files, with the vectors it wrote (float16 widened).
Ids of articles the prefilter dropped are in the files and must come back missing, not wrong.
"""
import gzip
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from safetensors.numpy import save_file

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
d = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix='cb-emb-roundtrip-')
os.makedirs(d, exist_ok=True)


def cli(*args):
    r = subprocess.run(['node', '--import', 'tsx', os.path.join(ROOT, 'src', 'cli.ts'), *args], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f'citebench {" ".join(args)} failed:\n{r.stderr}')
    return r.stdout


cli('synth', '--articles', '1500', '--seed', '11', '--out', os.path.join(d, 'shards'))
cli('corpus', 'build', '--input', os.path.join(d, 'shards'), '--out', os.path.join(d, 'store'))
ids = [json.loads(l)['paper_id'] for f in sorted(glob.glob(os.path.join(d, 'shards', '*.jsonl.gz'))) for l in gzip.open(f, 'rt')]
X = np.random.default_rng(0).standard_normal((len(ids), 24)).astype('<f4')
X[::5] *= 1e-20  # tiny values: exact digits matter


def write_ids(stem):
    with open(os.path.join(d, stem + '.ids.txt'), 'w') as f:
        f.write('\n'.join(ids) + '\n')


files = {}
for v in [(1, 0), (2, 0), (3, 0)]:
    stem = f'v{v[0]}'
    with open(os.path.join(d, stem + '.npy'), 'wb') as f:
        np.lib.format.write_array(f, X, version=v)
    write_ids(stem)
    files[stem + '.npy'] = X
np.save(os.path.join(d, 'half.npy'), X.astype('<f2'))
write_ids('half')
files['half.npy'] = X.astype('<f2').astype('<f4')
with open(os.path.join(d, 'sre.jsonl'), 'w') as f:
    for i, x in zip(ids, X):
        f.write(json.dumps({'doc_id': i, 'embedding': x.tolist()}) + '\n')
files['sre.jsonl'] = X
save_file({'embeddings': X}, os.path.join(d, 'st.safetensors'))
write_ids('st')
files['st.safetensors'] = X

row = {p: k for k, p in enumerate(ids)}
for name, want in files.items():
    emb = os.path.join(d, 'emb-' + name)
    print(cli('embeddings', 'import', os.path.join(d, name), '--corpus', os.path.join(d, 'store'), '--out', emb).strip())
    out = os.path.join(d, 'back-' + name.replace('.', '-') + '.npy')
    cli('embeddings', 'export', emb, '--corpus', os.path.join(d, 'store'), '--out', out)
    Y = np.load(out)
    back_ids = open(out[:-4] + '.ids.txt').read().split('\n')[:-1]
    assert Y.dtype == np.dtype('<f4') and Y.flags['C_CONTIGUOUS'] and Y.shape == (len(back_ids), X.shape[1]), (Y.dtype, Y.shape)
    same = np.array_equal(Y, want[[row[p] for p in back_ids]])
    print(f'{name}: numpy reads {Y.shape} float32, {len(ids) - len(back_ids)} dropped ids absent, rows equal the written vectors: {same}')
    assert same, name
print('all formats round-trip exactly')
