/**
 * The order ranx gives a run: `Run.sort` is numba's `np.argsort(-scores)` with its default kind, quicksort
 * (numba/misc/quicksort.py: median-of-three partitions, an insertion sort under 16 elements; not stable). Tied
 * scores keep whatever order that algorithm leaves, so matching ranx's ranks means running the same algorithm on
 * the same input order. This is a line-for-line port over float64 keys.
 */

const SMALL_QUICKSORT = 15;

// Scratch reused across calls (one thread): the negated scores and the partition stack.
let keys = new Float64Array(1024);
const stack = new Int32Array(256);


/**
 * Indices 0…n−1 of `scores` in ranx's order: descending score, ties as numba's quicksort of −score leaves them
 * (the input order is the dict's insertion order in ranx).
 */
export function ranxOrder(scores: ArrayLike<number>, n = scores.length): Int32Array {
  const R = new Int32Array(n);
  for (let i = 0; i < n; i++) R[i] = i;
  // Strictly descending (a retriever's list, a sorted run without ties): any sort leaves it as it is.
  let sorted = true;
  for (let i = 1; i < n && sorted; i++) sorted = scores[i - 1] > scores[i];
  if (sorted || n < 2) return R;
  // A[j] is the key of R[j], moved with it (numba compares A[R[j]]; the same comparisons, no indirection).
  if (keys.length < n) keys = new Float64Array(Math.max(n, 2 * keys.length));
  const A = keys;
  // numba's lt for floats puts NaN after every number: as +Infinity here, so every comparison is a plain <.
  for (let i = 0; i < n; i++) {
    const x = scores[i];
    A[i] = x === x ? -x : Infinity;
  }
  // The stack holds the larger parts only, so it never grows past log2(n) entries.
  let top = 0;
  stack[top++] = 0;
  stack[top++] = n - 1;
  while (top > 0) {
    let high = stack[--top];
    let low = stack[--top];
    while (high - low >= SMALL_QUICKSORT) {
      const i = partition(A, R, low, high);
      // The larger part waits on the stack; the loop goes on with the smaller one.
      if (high - i > i - low) {
        if (high > i) {
          stack[top++] = i + 1;
          stack[top++] = high;
        }
        high = i - 1;
      } else {
        if (i > low) {
          stack[top++] = low;
          stack[top++] = i - 1;
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
    const v = A[i];
    let j = i;
    while (j > low && v < A[j - 1]) {
      R[j] = R[j - 1];
      A[j] = A[j - 1];
      j--;
    }
    R[j] = k;
    A[j] = v;
  }
}

function swap(A: Float64Array, R: Int32Array, a: number, b: number): void {
  const t = R[a];
  R[a] = R[b];
  R[b] = t;
  const u = A[a];
  A[a] = A[b];
  A[b] = u;
}

function partition(A: Float64Array, R: Int32Array, low: number, high: number): number {
  const mid = (low + high) >> 1;
  if (A[mid] < A[low]) swap(A, R, low, mid);
  if (A[high] < A[mid]) swap(A, R, high, mid);
  if (A[mid] < A[low]) swap(A, R, low, mid);
  const pivot = A[mid];
  swap(A, R, high, mid);
  let i = low;
  let j = high - 1;
  for (;;) {
    while (i < high && A[i] < pivot) i++;
    while (j >= low && pivot < A[j]) j--;
    if (i >= j) break;
    swap(A, R, i, j);
    i++;
    j--;
  }
  swap(A, R, i, high);
  return i;
}
