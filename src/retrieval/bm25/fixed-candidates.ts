/**
 * Ranking fixed candidates (MDCR): exactly the documents a query names, each ranked — score 0 when no term
 * matches it — under the pool's statistics. Each is looked up in its query terms' postings (binary search: a
 * term's postings are in document order), its term scores summed in query-term order in a double as the sweep
 * sums them, and offered to the heap in document order as the sweep offers them, so scores and ties are the
 * sweep's. A query costs its terms × candidates × log(postings) instead of its terms' postings: 65 candidates in
 * a 16 M-article index.
 */
import { postingTf } from './index-format.ts';
import { termScore } from './pool-stats.ts';
import { CitebenchError } from '../../util/errors.ts';
import type { TopKHeap } from './top-k-heap.ts';
import type { PreparedQuery, ScoringArrays, TopK } from './scoring-arrays.ts';

/** The top k of `candidates` (corpus numbers; repeats count once) for a query; `exclude` is never returned (or -1). */
export function rankCandidates(a: ScoringArrays, heap: TopKHeap, q: PreparedQuery, k: number, exclude: number, candidates: Uint32Array): TopK {
  const { offsets, docs, tfNorms, normInv, docCount } = a;
  const cache = a.normCache;
  const sorted = Uint32Array.from(candidates).sort();
  heap.reset(k);
  for (let i = 0; i < sorted.length; i++) {
    const d = sorted[i];
    if (d >= docCount) throw new CitebenchError(`candidates: document ${d} is outside the index`);
    if (i > 0 && sorted[i - 1] === d) continue; // repeated candidate
    let sum = 0;
    for (let qi = 0; qi < q.terms.length; qi++) {
      const t = q.terms[qi];
      let lo = offsets[t];
      let hi = offsets[t + 1] - 1;
      while (lo <= hi) {
        const mid = Math.floor((lo + hi) / 2);
        const x = docs[mid];
        if (x < d) lo = mid + 1;
        else if (x > d) hi = mid - 1;
        else {
          sum += termScore(q.weights[qi], postingTf(a, mid), cache === null ? normInv[d] : cache[tfNorms[mid] & 255]);
          break;
        }
      }
    }
    if (d !== exclude) heap.offer(Math.fround(sum), d);
  }
  return heap.drain();
}
