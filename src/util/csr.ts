/**
 * Compressed sparse rows (CSR) of a directed graph over dense indices 0..n-1: `offsets` (n + 1) and `targets`, row i
 * holding targets[offsets[i]..offsets[i+1]). Built from edge lists in memory or replayed from a file, and reversed.
 */
/** Edge list → CSR with each row's targets sorted and deduplicated. */
export function buildCsr(n: number, src: Uint32Array, dst: Uint32Array): { offsets: Uint32Array; targets: Uint32Array } {
  const counts = new Uint32Array(n + 1);
  for (let e = 0; e < src.length; e++) counts[src[e] + 1]++;
  return fillCsr(n, counts, src.length, (put) => {
    for (let e = 0; e < src.length; e++) put(src[e], dst[e]);
  });
}

/** ES2024's resizable ArrayBuffer (Node 20 has it; the ES2022 lib does not declare it). */
type ResizableArrayBufferCtor = new (bytes: number, opts: { maxByteLength: number }) => ArrayBuffer & { resize(bytes: number): void };
/** V8 refuses a larger maxByteLength ("Invalid array buffer max length"). */
const RESIZABLE_MAX_BYTES = 2 ** 32;

/**
 * CSR from counted edges, without an edge list in memory: `counts[i + 1]` holds the number of edges of row i
 * (the array becomes the offsets: it is returned as `offsets`), `total` their sum, and `replay` emits every
 * edge (source, target), e.g. from a file. Rows come out sorted and deduplicated; the result equals buildCsr's
 * on the same edges in the same order. Memory: the counts and 4 bytes per edge, nothing more — rows are filled
 * from their ends (no second cursor array), deduplicated in place, and the targets' buffer is shrunk to the
 * distinct edges (a resizable ArrayBuffer returns the rest to the system) instead of copied.
 */
export function fillCsr(
  n: number,
  counts: Uint32Array,
  total: number,
  replay: (put: (source: number, target: number) => void) => void,
  resizableMaxBytes = RESIZABLE_MAX_BYTES,
): { offsets: Uint32Array; targets: Uint32Array } {
  for (let i = 0; i < n; i++) counts[i + 1] += counts[i];
  if (counts[n] !== total) throw new Error(`fillCsr: row counts sum to ${counts[n]}, not ${total}`);
  // A resizable ArrayBuffer can hold at most 4 GiB (V8): past that (1.34 G entries at 21 M default-profile
  // records) the targets stay a view of a fixed buffer, and the slack is freed with the input CSR it belongs to.
  const resizable = total * 4 <= resizableMaxBytes;
  const buffer = resizable
    ? new (ArrayBuffer as unknown as ResizableArrayBufferCtor)(total * 4, { maxByteLength: total * 4 })
    : new ArrayBuffer(total * 4);
  const raw = new Uint32Array(buffer);
  // counts[s + 1] is row s's end; each edge is placed just below it, so afterwards counts[s + 1] is row s's start.
  replay((s, d) => {
    raw[--counts[s + 1]] = d;
  });
  // Row i spans [counts[i + 1], counts[i + 2]) (the last row ends at total); counts[i + 1] is read before it is
  // overwritten with the row's deduplicated end, so the counts become the offsets in place.
  const offsets = counts;
  let w = 0;
  for (let i = 0; i < n; i++) {
    const start = counts[i + 1];
    const end = i + 1 < n ? counts[i + 2] : total;
    const row = raw.subarray(start, end).sort();
    let prev = -1;
    for (let k = 0; k < row.length; k++) {
      if (row[k] !== prev) raw[w++] = prev = row[k];
    }
    offsets[i + 1] = w;
  }
  offsets[0] = 0;
  if (resizable) (buffer as ArrayBuffer & { resize(bytes: number): void }).resize(w * 4);
  return { offsets, targets: new Uint32Array(buffer, 0, w) };
}

/** The reverse graph of a CSR (rows of the result are sorted because sources are visited in order). */
export function transposeCsr(n: number, offsets: Uint32Array, targets: Uint32Array): { offsets: Uint32Array; targets: Uint32Array } {
  const off = new Uint32Array(n + 1);
  for (let e = 0; e < targets.length; e++) off[targets[e] + 1]++;
  for (let i = 0; i < n; i++) off[i + 1] += off[i];
  const fill = off.slice(0, n);
  const out = new Uint32Array(targets.length);
  for (let s = 0; s < n; s++) for (let e = offsets[s]; e < offsets[s + 1]; e++) out[fill[targets[e]]++] = s;
  return { offsets: off, targets: out };
}
