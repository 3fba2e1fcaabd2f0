/** Fusion's names (ranx's) and one query's input: each run's ranked list over the union of the runs' documents. */

export const FUSION_METHODS = ['rrf', 'sum', 'mnz', 'max', 'min', 'med', 'anz', 'gmnz', 'wsum', 'wmnz', 'isr', 'log_isr', 'logn_isr', 'rbc', 'bordafuse', 'condorcet'] as const;
export type FusionMethod = (typeof FUSION_METHODS)[number];

export const FUSION_NORMS = ['none', 'min-max', 'max', 'sum', 'zmuv', 'rank', 'borda'] as const;
export type FusionNorm = (typeof FUSION_NORMS)[number];

export interface FusionParams {
  /** rrf: 1 / (k + rank); ranx's default 60. */
  k?: number;
  /** wsum, wmnz: one weight per run, in the runs' order. */
  weights?: number[];
  /** gmnz: sum × hits^gamma. */
  gamma?: number;
  /** logn_isr: Σ 1/rank² × log(hits + sigma), sigma in [0, 1]; ranx's default 0.01. */
  sigma?: number;
  /** rbc: Σ (1 − phi) phi^(rank−1), phi in [0, 1). */
  phi?: number;
}

export interface FusionSpec {
  method: FusionMethod;
  norm: FusionNorm;
  params: FusionParams;
}

/**
 * One query's runs. Documents are numbered 0…n−1 in order of first appearance (run 0's list, then the documents
 * run 1 adds, …): the insertion order of ranx's fused dict, which its final sort breaks ties by. Per run, `ids`
 * are its documents best first (ranx's order: ranxOrder of the run's scores in its input order) and `scores`
 * theirs (float64).
 */
export interface QueryRuns {
  n: number;
  ids: Int32Array[];
  scores: Float64Array[];
}
