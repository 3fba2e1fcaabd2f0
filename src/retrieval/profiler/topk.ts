/**
 * Top-k of scored positions with a bounded min-heap: score descending, ties by a key descending (trec_eval's
 * docno order when the key is the store's idOrder), in O(n log k).
 */
export function topK(candidates: ArrayLike<number>, score: (i: number) => number, tie: (i: number) => number, k: number): number[] {
  const heap: number[] = [];
  // a is "worse" than b: lower score, or equal score and lower tie key.
  const worse = (a: number, b: number) => {
    const sa = score(a);
    const sb = score(b);
    return sa < sb || (sa === sb && tie(a) < tie(b));
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(heap[l], heap[m])) m = l;
      if (r < heap.length && worse(heap[r], heap[m])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  for (let n = 0; n < candidates.length; n++) {
    const c = candidates[n];
    if (heap.length < k) {
      heap.push(c);
      for (let i = heap.length - 1; i > 0; ) {
        const p = (i - 1) >> 1;
        if (!worse(heap[i], heap[p])) break;
        [heap[i], heap[p]] = [heap[p], heap[i]];
        i = p;
      }
    } else if (k > 0 && worse(heap[0], c)) {
      heap[0] = c;
      down(0);
    }
  }
  return heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
}
