/**
 * What a BM25 search reads and returns, as plain typed arrays: they are shared with worker threads, sent to
 * search processes and read field by field by the compiled kernel (kernel.ts), so they stay free of classes.
 */
import type { Bm25Index } from './index-format.ts';

/** What a scorer needs — the index's postings plus pool statistics: plain typed arrays, shareable with workers. */
export interface ScoringArrays extends Pick<Bm25Index, 'docCount' | 'offsets' | 'docs' | 'tfNorms' | 'tfBigPos' | 'tfBigVal'> {
  /** Lossy mode: normInverse of each of the 256 norm bytes (BM25Similarity's cache); null in accurate mode. */
  normCache: Float32Array | null;
  /** Accurate mode: normInverse of every document (exact length); empty in lossy mode. */
  normInv: Float32Array;
  /** Pool membership (1 = in pool); null = whole corpus. */
  member: Uint8Array | null;
  /** Tie-break key per document, higher ranks first among equal scores; null = corpus index. */
  tieKey: Uint32Array | null;
  /**
   * A pool's own index (slicePool): document i of these arrays is the corpus's document poolDocs[i]; the scorer
   * takes and returns corpus numbers. Absent or null: the arrays number documents as the corpus does.
   */
  poolDocs?: Uint32Array | null;
  /**
   * The members' tokens (the pool's sumTotalTermFreq): no pool holds more postings, so slicePool allocates its
   * slice from this instead of counting them first. Absent: counted.
   */
  poolTokens?: number;
}

/** A query ready for scoring: distinct term ids (ascending) and their weights boost·idf (float). */
export interface PreparedQuery {
  terms: Uint32Array;
  weights: Float32Array;
}

/** A search's result, best first. */
export interface TopK {
  docs: Uint32Array;
  scores: Float32Array;
}
