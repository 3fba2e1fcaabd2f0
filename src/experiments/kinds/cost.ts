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
  /**
   * Encoders with a measured rate (kinds/dense.ts encodeProfile, registry.ts encodeRate): an article's tokens
   * (SciRepEval's fos_small sample: 239 on average with BERT's special tokens), and memory: the process and a
   * batch besides the weights, and the weights' copies a session holds (Qwen3-Embedding-0.6B in float32: 4.43 GB
   * peak for 2.38 GB of weights; docs/benchmarks.md).
   */
  articleTokens: 239,
  encodeFixedBytes: 0.8e9,
  encodeWeightCopies: 1.5,
  dim: 768,
  /** Bytes per BM25 posting-bearing article (index in memory). */
  indexBytesPerArticle: 900,
  /**
   * bm25Index: pools, fitted to the run of configs/openalex.yaml on 3,531,746 stored articles (docs/benchmarks.md,
   * "BM25 over each pool's own index"; every build and cell of it within 15 %):
   * - a pool's own index, built by 2 processes reading the pool's texts from the store: 3.91 s + 58.8 µs per pool
   *   article (least squares over its 83 builds, 69 k … 2 M articles);
   * - its search on 2 threads: 1.52 ms per query + 6.40 ns per query and pool article, and 0.59 s per pool group
   *   (sampling the pool and qrels, writing the run and cell);
   * - memory: the run's peak (4.76 GB at the 2 M pools, 1.95 GB at the 200 k ones) less what it holds per stored
   *   article — the store's columns and text offsets (80 B) and the builders' text offsets (2 × 16 B) — and the
   *   outbound citation CSR the cells load: 1,561 B per pool article (index, chunks while it is built, search
   *   arrays) over 0.95 GB fixed (the process, the builders' runtimes). Its MDCR stage peaked at 3.14 GB: the
   *   store's columns and both citation CSRs (as plan.ts prices them), its text offsets (16 B per article), the
   *   index of the 131,301 papers of the data file, and 2.09 GB besides (the run lists read back and the files
   *   written, which grow with the queries; 2.62 GB in all when the same stage ran again with its scores cached).
   */
  poolIndex: {
    fittedAt: 3531746, fixedSeconds: 3.91, perArticle: 5.878e-5, perQuery: 1.518e-3, perQueryIndexed: 6.401e-9, perGroup: 0.59,
    bytesPerArticle: 1561, fixedBytes: 0.952e9, storeBytesPerArticle: 112, textOffsetBytes: 16, mdcrFixedBytes: 2.09e9,
  },
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
  /**
   * Outbound citations per stored article (navigation's CSR, 4 bytes each): 27.3 in the synthetic corpus; S2ORC ~14
   * (230 M / 16 M); an OpenAlex store not built yet, the synthetic OpenAlex profile's 20.3 (71.6 M citations between
   * 3.53 M kept articles at 20 M works: an assumption about the real snapshot, as its kept share is).
   */
  citationsPerArticle: { synthetic: 27.3, store: 14.4, openalex: 20.3 },
};

/** Exact dense scoring of `candidates` articles for one query. */
export const denseSeconds = (candidates: number): number => candidates * UNIT.dim * UNIT.densePerQueryDocDim;
