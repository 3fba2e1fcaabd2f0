/** Top-K selection over Gemm score blocks in JS: a bounded min-heap per row (quickselect: util/select.ts). */

/**
 * The K largest of S[off, off+n) into a min-heap at outG/outPos[o, o+K) (positions offset by `base`);
 * returns the smallest kept value. Requires K ≤ n.
 */
export function heapSelect(S: Float32Array, off: number, n: number, K: number, outPos: Int32Array, outG: Float32Array, o: number, base: number): number {
  for (let j = 0; j < K; j++) {
    // sift up
    let c = j;
    const v = S[off + j];
    while (c > 0) {
      const p = (c - 1) >> 1;
      if (outG[o + p] <= v) break;
      outG[o + c] = outG[o + p];
      outPos[o + c] = outPos[o + p];
      c = p;
    }
    outG[o + c] = v;
    outPos[o + c] = base + j;
  }
  let thr = outG[o];
  for (let j = K; j < n; j++) {
    const v = S[off + j];
    if (v <= thr) continue;
    // replace the root, sift down
    let c = 0;
    for (;;) {
      const l = 2 * c + 1;
      if (l >= K) break;
      const r = l + 1;
      const m = r < K && outG[o + r] < outG[o + l] ? r : l;
      if (outG[o + m] >= v) break;
      outG[o + c] = outG[o + m];
      outPos[o + c] = outPos[o + m];
      c = m;
    }
    outG[o + c] = v;
    outPos[o + c] = base + j;
    thr = outG[o];
  }
  return thr;
}
