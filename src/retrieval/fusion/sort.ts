/**
 * The order ranx gives a run: `Run.sort` is numba's `np.argsort(-scores)` with its default kind, quicksort
 * (numba/misc/quicksort.py: median-of-three partitions, an insertion sort under 16 elements; not stable). Tied
 * scores keep whatever order that algorithm leaves, so matching ranx's ranks means running the same algorithm on
 * the same input order. This is a line-for-line port over float64 keys.
 */

const SMALL_QUICKSORT = 15;

/** numba's lt for floats: a < b, with NaN after every number. */
function lt(a: number, b: number): boolean {
  return a < b || (b !== b && a === a);
}

/**
 * Indices 0…n−1 of `scores` in ranx's order: descending score, ties as numba's quicksort of −score leaves them
 * (the input order is the dict's insertion order in ranx).
 */
export function ranxOrder(scores: ArrayLike<number>, n = scores.length): Int32Array {
  const A = new Float64Array(n);
  for (let i = 0; i < n; i++) A[i] = -scores[i];
  const R = new Int32Array(n);
  for (let i = 0; i < n; i++) R[i] = i;
  if (n < 2) return R;
  const stackLo: number[] = [0];
  const stackHi: number[] = [n - 1];
  while (stackLo.length > 0) {
    let low = stackLo.pop()!;
    let high = stackHi.pop()!;
    while (high - low >= SMALL_QUICKSORT) {
      const i = partition(A, R, low, high);
      // The larger part waits on the stack; the loop goes on with the smaller one.
      if (high - i > i - low) {
        if (high > i) {
          stackLo.push(i + 1);
          stackHi.push(high);
        }
        high = i - 1;
      } else {
        if (i > low) {
          stackLo.push(low);
          stackHi.push(i - 1);
        }
        low = i + 1;
      }
    }
    insertionSort(A, R, low, high);
  }
  return R;
}

function insertionSort(A: Float64Array, R: Int32Array, low: number, high: number): void {
  if (high <= low) return;
  for (let i = low + 1; i <= high; i++) {
    const k = R[i];
    const v = A[k];
    let j = i;
    while (j > low && lt(v, A[R[j - 1]])) {
      R[j] = R[j - 1];
      j--;
    }
    R[j] = k;
  }
}

function swap(R: Int32Array, a: number, b: number): void {
  const t = R[a];
  R[a] = R[b];
  R[b] = t;
}

function partition(A: Float64Array, R: Int32Array, low: number, high: number): number {
  const mid = (low + high) >> 1;
  if (lt(A[R[mid]], A[R[low]])) swap(R, low, mid);
  if (lt(A[R[high]], A[R[mid]])) swap(R, high, mid);
  if (lt(A[R[mid]], A[R[low]])) swap(R, low, mid);
  const pivot = A[R[mid]];
  swap(R, high, mid);
  let i = low;
  let j = high - 1;
  for (;;) {
    while (i < high && lt(A[R[i]], pivot)) i++;
    while (j >= low && lt(pivot, A[R[j]])) j--;
    if (i >= j) break;
    swap(R, i, j);
    i++;
    j--;
  }
  swap(R, i, high);
  return i;
}
