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

/** `a` sorted ascending without repeats. */
export function sortedUnique(a: ArrayLike<number>): Uint32Array {
  const s = Uint32Array.from(a).sort();
  let n = 0;
  for (let i = 0; i < s.length; i++) if (i === 0 || s[i] !== s[i - 1]) s[n++] = s[i];
  return s.slice(0, n);
}

/** The union of two sorted, distinct index arrays, sorted and distinct. */
export function mergeSorted(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length || j < b.length) {
    const x = j >= b.length || (i < a.length && a[i] <= b[j]) ? a[i++] : b[j++];
    if (n === 0 || out[n - 1] !== x) out[n++] = x;
  }
  return out.slice(0, n);
}
