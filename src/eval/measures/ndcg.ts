/**
 * ndcg and ndcg_cut_k (trec_eval m_ndcg.c / m_ndcg_cut.c): gain = the label itself (not 2^rel − 1), discount
 * log2(rank + 1); the ideal DCG comes from ALL judged docs in qrels (retrieved or not), best labels first.
 * Neither depends on -l. No positive label ⇒ 0.
 */
import type { Measure } from './measure.ts';
import type { JudgedRanking } from '../ranking.ts';

/** DCG of the ranking over its top `depth` docs. */
function dcg(v: JudgedRanking, depth: number): number {
  const n = Math.min(depth, v.numRet);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const gain = v.rels[i];
    if (gain > 0) sum += gain / Math.log2(i + 2);
  }
  return sum;
}

/** Ideal DCG over the top `depth` positions: labels from the highest level down to 1. */
function idealDcg(v: JudgedRanking, depth: number): number {
  let sum = 0;
  let i = 0;
  for (let level = v.numRelLevels - 1; level >= 1; level--) {
    for (let c = v.levelCounts[level]; c > 0; c--) {
      if (i >= depth) return sum;
      sum += level / Math.log2(i + 2);
      i++;
    }
  }
  return sum;
}

export const ndcg: Measure = {
  name: 'ndcg',
  family: 'ndcg',
  kind: 'float',
  summary: 'mean',
  compute: (v) => {
    const ideal = idealDcg(v, Infinity);
    return ideal > 0 ? dcg(v, Infinity) / ideal : 0;
  },
};

export function ndcgCut(k: number): Measure {
  return {
    name: `ndcg_cut_${k}`,
    family: 'ndcg_cut',
    cutoff: k,
    kind: 'float',
    summary: 'mean',
    compute: (v) => {
      const ideal = idealDcg(v, k);
      return ideal > 0 ? dcg(v, k) / ideal : 0;
    },
  };
}
