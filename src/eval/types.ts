/**
 * In-memory evaluation inputs: qrels and runs as CSR over query positions, documents as integer ids.
 * Query q's entries are [offsets[q], offsets[q+1]). Qrels and run share the query positions and doc ids.
 */

/** Relevance judgements: label per (query, doc). Negative labels mean "judged pool, unjudged" (trec_eval). */
export interface QrelsCsr {
  offsets: Uint32Array;
  docs: Uint32Array;
  labels: Int32Array;
}

/** A run: retrieved docs with scores (higher = better). Ranks are derived from scores, never given. */
export interface RunCsr {
  offsets: Uint32Array;
  docs: Uint32Array;
  scores: Float32Array | Float64Array;
}

/**
 * Ranked lists for all queries in CSR form: query q's results are docs[offsets[q]..offsets[q+1]],
 * best first, with their scores (higher = better; dense L2 models report negative distance).
 * What a Retriever returns; defined here, below retrieval, so the evaluator can take it directly.
 */
export interface RankedLists {
  offsets: Uint32Array;
  docs: Uint32Array;
  scores: Float32Array;
}

/**
 * Tie-breaking order of documents, standing in for trec_eval's byte-wise docno comparison:
 * either a rank per doc id (docOrder[a] < docOrder[b] ⇔ docno(a) < docno(b)) or a comparator with strcmp's sign.
 * Equal scores are ranked by docno DESCENDING.
 */
export type DocOrder = Uint32Array | ((a: number, b: number) => number);

export interface EvalOptions {
  /** trec_eval -l: labels ≥ this are relevant (map, P, recall, recip_rank, Rprec, counts). Default 1. */
  relevanceLevel?: number;
  /** trec_eval -M: keep only the top n ranked docs per query. Default: all. */
  maxDocsPerQuery?: number;
  /**
   * Missing-query policy. 'skip' (trec_eval default): only queries present in both qrels and run are
   * evaluated and averaged. 'zero' (trec_eval -c): means divide by the number of qrels queries, so a
   * qrels query missing from the run scores 0.
   */
  missing?: 'skip' | 'zero';
  /** false (default) = trec_eval 9.0.8: scores rounded to float32 before ranking; true = trec_eval 10 doubles. */
  trecEval10?: boolean;
}
