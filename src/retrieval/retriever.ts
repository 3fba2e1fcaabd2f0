/**
 * The one interface every retrieval model implements (BM25, dense encoders, future re-rankers).
 * Queries and candidates are articles of one corpus store, named by their dense corpus index.
 */
import type { RankedLists } from '../eval/types.ts';

export interface SearchRequest {
  /** Corpus indices of the query articles. */
  queries: Uint32Array;
  /** Sorted, distinct corpus indices of the candidate pool; undefined = the whole corpus. */
  pool?: Uint32Array;
  /** Per-query fixed candidate lists (MDCR-style scoring); when set, `pool` is ignored for ranking. */
  candidates?: Uint32Array[];
  /** Results per query (paper: 500). */
  k: number;
  /** Drop the query article from its own list when it is a candidate (default true). */
  excludeSelf?: boolean;
  /**
   * Called once per query (position in `queries`, any order) as soon as its list is final, so long searches
   * can checkpoint (see resumable.ts). Optional for retrievers: one that never calls it only loses resumption.
   */
  onResult?: (query: number, docs: Uint32Array, scores: Float32Array) => void;
  /**
   * Evaluation setting of the request (default transductive). Retrievers that use more than the pool's own texts
   * (citation profiles) honour it: under 'inductive' (Goyal et al. 2026 §3.1) they may use no article published
   * in or after a query's year; in both settings, never a query of the request.
   */
  setting?: Setting;
}

export type Setting = 'transductive' | 'inductive';

// Ranked lists live in eval/ (a lower floor) so the evaluator takes them without importing retrieval/.
export type { RankedLists } from '../eval/types.ts';

export interface Retriever {
  /** Short name used in run tags and result tables, e.g. "bm25", "specter". */
  readonly name: string;
  /**
   * Identity of everything that determines the lists this retriever returns for a request: parameters, model
   * or index content, format versions, tie-breaking. Result caches (large-scale cells) key on it, so a changed
   * setting can never reuse a stale number. Not a file path: the same settings elsewhere give the same value.
   */
  readonly fingerprint: string;
  /**
   * Whether it answers `candidates` requests: every candidate of each query's fixed list scored (MDCR, the
   * ranking phase of re-rankers). Absent or false: it only ranks pools, and MDCR leaves it out.
   */
  readonly scoresCandidates?: boolean;
  /**
   * The parameters a tuner may vary (PyTerrier's `set_parameter`) and their values now: BM25's k1 and b, a
   * Profiler's β. Absent: nothing to tune.
   */
  readonly tunable?: Readonly<Record<string, number>>;
  /** The same retriever with other values of some of its tunable parameters (a new object; this one is unchanged). */
  withParams?(params: Readonly<Record<string, number>>): Retriever;
  search(request: SearchRequest): Promise<RankedLists>;
  /**
   * What its searches since the last call cost, by stage (retrievers that compose others: the first stage,
   * fusion, re-scoring), then reset. Absent: a search is one stage, 'first stage', timed by the caller.
   */
  takeCosts?(): SearchCosts;
}

/** Seconds spent per stage ('first stage', 'fusion', 're-scoring') and the (query, candidate) pairs re-scored. */
export interface SearchCosts {
  seconds: Record<string, number>;
  pairs: number;
}

/** The stage a retriever without takeCosts is counted in. */
export const FIRST_STAGE = 'first stage';

/** Costs of a retriever's searches: its own stages, or its whole time as one stage. */
export function costsOf(r: Retriever, elapsedSeconds: number): SearchCosts {
  return r.takeCosts?.() ?? { seconds: { [FIRST_STAGE]: elapsedSeconds }, pairs: 0 };
}

/** Stage costs added up (a composed retriever's parts). */
export function addCosts(into: SearchCosts, c: SearchCosts): SearchCosts {
  for (const [k, v] of Object.entries(c.seconds)) into.seconds[k] = (into.seconds[k] ?? 0) + v;
  into.pairs += c.pairs;
  return into;
}
