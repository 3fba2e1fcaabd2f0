/** Binary search in an ascending Uint32Array (pools, id lists): the position of x, or -1. */
export function sortedFind(a: Uint32Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo < a.length && a[lo] === x ? lo : -1;
}
