/**
 * A small pool searched as an index of its own: the index's postings of member documents only, in the same
 * order, with the members numbered 0…P−1 in corpus order (poolDocs maps them back), so every score, sum order
 * and tie is the one the whole-index sweep gives. A query then reads its terms' postings in the pool and sweeps
 * P accumulators instead of the corpus's — at S2ORC's 16 M articles a 200 k pool's queries cost what they cost
 * in a 200 k-article index — for one pass over the postings per pool.
 */
import { TF_BIG } from './index-format.ts';
import { CitebenchError } from '../../util/errors.ts';
import type { ScoringArrays } from './scoring-arrays.ts';

/** Pools holding less than this fraction of the index are searched over their own postings (slicePool). */
export const SLICE_BELOW = 0.5;

type Postings = Pick<ScoringArrays, 'offsets' | 'docs' | 'tfNorms' | 'tfBigPos' | 'tfBigVal'> & { poolDocs: Uint32Array };
/** Each pool's postings, kept while its membership array lives. */
const slices = new WeakMap<Uint8Array, Postings>();

/**
 * The pool's own postings if a search has sliced them already (PoolStats.df then counts a term's postings in
 * the pool once, from them), else undefined.
 */
export function cachedSlice(member: Uint8Array): Postings | undefined {
  return slices.get(member);
}

/**
 * The arrays of a pool under SLICE_BELOW of the index, renumbered as an index of its own (`member` becomes null,
 * `poolDocs` maps back). Large pools and whole-corpus searches are returned as they are; so are searches of
 * fixed candidates (the caller does not slice them: they may name documents outside the pool).
 */
export function slicePool(a: ScoringArrays): ScoringArrays {
  const m = a.member;
  if (m === null) return a;
  let size = 0;
  for (let d = 0; d < a.docCount; d++) size += m[d];
  if (size >= SLICE_BELOW * a.docCount) return a;
  let sl = slices.get(m);
  if (!sl) {
    sl = slicePostings(a, m, size);
    slices.set(m, sl);
  }
  const { poolDocs } = sl;
  // Per-document columns in the pool's numbering (the tie key may differ between searches of one pool).
  const local = <T extends Float32Array | Uint32Array>(col: T, C: { new (b: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number }): T => {
    const out = new C(new SharedArrayBuffer(C.BYTES_PER_ELEMENT * poolDocs.length));
    for (let i = 0; i < poolDocs.length; i++) out[i] = col[poolDocs[i]];
    return out;
  };
  return {
    ...a, ...sl,
    docCount: poolDocs.length,
    member: null,
    normInv: a.normInv.length ? local(a.normInv, Float32Array) : a.normInv,
    // Members are numbered in corpus order, so "no key" (the corpus index breaks ties) stays "no key".
    tieKey: a.tieKey && local(a.tieKey, Uint32Array),
  };
}

function slicePostings(a: ScoringArrays, m: Uint8Array, size: number): Postings {
  const { offsets, docs, tfNorms, tfBigPos, tfBigVal, docCount } = a;
  // Membership as a bitmap: 2 MB at 16 M documents stays in cache beside the streamed postings, where a byte
  // per document (16 MB) made each posting's test a cache miss (21 → 5 ns per posting, measured).
  const bits = new Int32Array((docCount + 31) >>> 5);
  const poolDocs = new Uint32Array(new SharedArrayBuffer(4 * size));
  const localOf = new Uint32Array(docCount); // read at members only
  for (let d = 0, i = 0; d < docCount; d++) {
    if (m[d] === 0) continue;
    bits[d >>> 5] |= 1 << (d & 31);
    poolDocs[i] = d;
    localOf[d] = i++;
  }
  let cap = a.poolTokens;
  if (cap === undefined) {
    cap = 0;
    for (let p = 0; p < docs.length; p++) {
      const d = docs[p];
      cap += (bits[d >>> 5] >>> (d & 31)) & 1;
    }
  }
  // Pages of the buffers past the postings written are never touched, so never resident.
  const docsBuf = new SharedArrayBuffer(4 * cap);
  const tfBuf = new SharedArrayBuffer(2 * cap);
  const sDocs = new Uint32Array(docsBuf);
  const sTf = new Uint16Array(tfBuf);
  const V = offsets.length - 1;
  const sOffsets = new Float64Array(new SharedArrayBuffer(8 * (V + 1)));
  const bigPos: number[] = [];
  const bigVal: number[] = [];
  let big = 0; // tfBigPos is ascending, as the postings are walked
  let at = 0;
  for (let t = 0; t < V; t++) {
    const end = offsets[t + 1];
    for (let p = offsets[t]; p < end; p++) {
      const d = docs[p];
      if (((bits[d >>> 5] >>> (d & 31)) & 1) === 0) continue;
      const code = tfNorms[p];
      if ((code >> 8) === TF_BIG) {
        while (tfBigPos[big] < p) big++;
        bigPos.push(at);
        bigVal.push(tfBigVal[big]);
      }
      sDocs[at] = localOf[d];
      sTf[at++] = code;
    }
    sOffsets[t + 1] = at;
  }
  // (Writes past a typed array's end are dropped silently: a count beyond the tokens is a damaged index.)
  if (at > cap) throw new CitebenchError(`bm25 index: a pool's ${at} postings exceed its ${cap} tokens (damaged index files): rebuild the index`);
  const sBigPos = new Float64Array(new SharedArrayBuffer(8 * bigPos.length));
  sBigPos.set(bigPos);
  const sBigVal = new Uint32Array(new SharedArrayBuffer(4 * bigVal.length));
  sBigVal.set(bigVal);
  return { offsets: sOffsets, docs: new Uint32Array(docsBuf, 0, at), tfNorms: new Uint16Array(tfBuf, 0, at), tfBigPos: sBigPos, tfBigVal: sBigVal, poolDocs };
}

/** Position of corpus document `d` among a pool's sorted documents (its number in the slice), or -1 when it is not a member. */
export function slicePosition(poolDocs: Uint32Array, d: number): number {
  let lo = 0;
  let hi = poolDocs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (poolDocs[mid] === d) return mid;
    if (poolDocs[mid] < d) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
