/**
 * Per-unit costs shared by several kinds' dry-run estimates, measured on the 2-core development machine
 * (docs/benchmarks.md). Each kind's own rates live in its entry; the corpus, index and MDCR stages' in plan.ts.
 */
export const UNIT = {
  /** Encoding a BERT-base model, per article (8.25 articles/s). */
  encodePerArticle: 1 / 8.25,
  /** Exact dense search, per query × pool article × dimension (≈150 GFLOP/s with 2 flops each). */
  densePerQueryDocDim: 2 / 150e9,
  /** What a loaded BERT-base model and a batch hold (measured while encoding). */
  bertBytes: 1.9e9,
  dim: 768,
  /** Bytes per BM25 posting-bearing article (index in memory). */
  indexBytesPerArticle: 900,
  /**
   * bm25Index: pools — a pool's own index, built by 2 processes reading the pool's texts from the store: seconds
   * (fixed + per pool article) and the run's peak bytes per pool article, fitted to the pools-mode run of
   * configs/openalex.yaml on 3.5 M stored articles (docs/benchmarks.md, "BM25 over each pool's own index").
   */
  poolIndex: { fixedSeconds: 0, perArticle: 78e-6, bytesPerArticle: 2000 },
  /**
   * BM25 search child processes (2 cores, threads 2), each with its own copy of the index, where the copies fit
   * (parallel.ts); they persist across a run's pool groups, so each also holds the pool sliced out of its copy
   * (under half of it): 1.5 copies each at most.
   */
  searchProcesses: 2,
  searchProcessCopies: 1.5,
  /**
   * BM25 re-scoring of a navigation or re-ranking candidate (and collecting the citations): navigation cost
   * BM25's top k_d plus 7.1 s per 200 queries of 1,000 candidates at a 2 M pool, measured quietly twice
   * (the 200 k figure, 50 ms per query, was taken under load); it does not grow with the pool.
   */
  rescorePerCandidate: 3.56e-5,
  /** A cross-encoder pair: one BERT-base forward, costed as one article encoded (not measured: no trained cross-encoder here). */
  crossEncoderPerPair: 1 / 8.25,
  /** Outbound citations per stored article (navigation's CSR, 4 bytes each): 27.3 in the synthetic corpus; S2ORC ~14 (230 M / 16 M). */
  citationsPerArticle: { synthetic: 27.3, store: 14.4 },
};

/** Exact dense scoring of `candidates` articles for one query. */
export const denseSeconds = (candidates: number): number => candidates * UNIT.dim * UNIT.densePerQueryDocDim;
