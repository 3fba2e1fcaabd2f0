"""faiss-cpu peer of bench/dense/search.ts exact200k: IndexFlatL2 over the same 200 k × 768 float32 file,
the same 3,800 queries, k = 500, 2 threads; compares the result ids with citebench's.
usage: python bench/dense/search_peer.py"""
import json, os, resource, time
import numpy as np
import faiss

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, '..', 'out', 'dense')
d, k = 768, 500
pool = np.fromfile(os.path.join(out, 'pool200k.f32'), dtype=np.float32).reshape(-1, d)
q = np.fromfile(os.path.join(out, 'queries3800.f32'), dtype=np.float32).reshape(-1, d)
faiss.omp_set_num_threads(2)
def report(name, ids_file, s, t_add, I):
    ours = np.fromfile(os.path.join(out, ids_file), dtype=np.uint32).reshape(-1, k)
    line = json.dumps({
        'what': 'faiss-cpu %s %s, 2 threads' % (faiss.__version__, name), 'queries': q.shape[0], 'pool': pool.shape[0],
        'seconds': s, 'addSeconds': t_add, 'idsEqualPositionwise': float((ours == I).mean()),
        'setOverlap': float(np.mean([len(set(a) & set(b)) / k for a, b in zip(ours, I)])),
        'peakRssMiB': round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    })
    print(line)
    open(os.path.join(out, 'results.jsonl'), 'a').write(line + '\n')

for name, make, suffix in [('IndexFlatL2', faiss.IndexFlatL2, ''), ('IndexFlatIP', faiss.IndexFlatIP, '-ip')]:
    t0 = time.perf_counter()
    index = make(d)
    index.add(pool)
    t_add = time.perf_counter() - t0
    t0 = time.perf_counter()
    D, I = index.search(q, k)
    s = time.perf_counter() - t0
    report(name, 'ours200k%s.ids' % suffix, s, t_add, I)
    if os.path.exists(os.path.join(out, 'ours200k-f32%s.ids' % suffix)):
        report('%s (vs citebench --scores float32)' % name, 'ours200k-f32%s.ids' % suffix, s, t_add, I)
    del index
