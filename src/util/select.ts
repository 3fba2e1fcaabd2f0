/**
 * The m-th largest value (1-based) of a[0..n) (default: the whole array), by quickselect; permutes a (pass a
 * scratch copy).
 */
export function kthLargest(a: Float32Array | Float64Array, m: number, n = a.length): number {
  let lo = 0;
  let hi = n - 1;
  const target = m - 1; // index in descending order
  while (lo < hi) {
    const pivot = a[(lo + hi) >>> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] > pivot) i++;
      while (a[j] < pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return a[target];
  }
  return a[target];
}
