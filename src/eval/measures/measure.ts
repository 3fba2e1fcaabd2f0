import type { JudgedRanking } from '../ranking.ts';

/**
 * One printed measure (e.g. `P_5`). How its "all" line is formed:
 *  - 'mean': mean of per-query values over the evaluated queries (or over all qrels queries with -c),
 *  - 'sum': sum of per-query values (num_ret, num_rel_ret),
 *  - 'num_q': number of queries averaged over,
 *  - 'num_rel': sum, except with -c: every label > 0 in the whole qrels (trec_eval's m_num_rel.c).
 */
export interface Measure {
  /** Name exactly as trec_eval prints it: `map`, `P_5`, `recall_30`, `ndcg_cut_10`. */
  readonly name: string;
  /** Family (trec_eval measure name without parameters): `map`, `P`, `recall`, `ndcg_cut`. */
  readonly family: string;
  /** Cutoff for cutoff families. */
  readonly cutoff?: number;
  /** 'long' values print as integers (`%ld`), 'float' as `%6.4f`, 'string' as `'text'` (per query only). */
  readonly kind: 'float' | 'long' | 'string';
  /** 'none': no summary line (relstring); 'gm': exp of the mean per-query value (gm_map). */
  readonly summary: 'mean' | 'sum' | 'num_q' | 'num_rel' | 'none' | 'gm';
  /** false: printed in the summary only (num_q, gm_map). Default true. */
  readonly printPerQuery?: boolean;
  /** Per-query value from the ranked, judged view. */
  compute(v: JudgedRanking): number;
  /** Per-query text, for kind 'string'. */
  text?(v: JudgedRanking): string;
}

/** trec_eval's default cutoffs for P, recall, ndcg_cut, map_cut. */
export const DEFAULT_CUTOFFS = [5, 10, 15, 20, 30, 100, 200, 500, 1000] as const;

/** Relevant docs among the top k (k may exceed numRet). */
export function relevantInTop(v: JudgedRanking, k: number): number {
  const n = Math.min(k, v.numRet);
  let c = 0;
  for (let i = 0; i < n; i++) if (v.rels[i] >= v.relevanceLevel) c++;
  return c;
}
