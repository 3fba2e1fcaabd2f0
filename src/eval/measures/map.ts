/** map: average precision; the denominator is num_rel from qrels, so unretrieved relevant docs count. */
import type { Measure } from './measure.ts';
import type { JudgedRanking } from '../ranking.ts';

function averagePrecision(v: JudgedRanking, depth: number): number {
  const n = Math.min(depth, v.numRet);
  let relSoFar = 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    if (v.rels[i] >= v.relevanceLevel) {
      relSoFar++;
      sum += relSoFar / (i + 1);
    }
  }
  return relSoFar ? sum / v.numRel : 0;
}

export const map: Measure = {
  name: 'map',
  family: 'map',
  kind: 'float',
  summary: 'mean',
  compute: (v) => averagePrecision(v, Infinity),
};

/** map_cut_k: average precision over the top k, still divided by num_rel. */
export function mapCut(k: number): Measure {
  return { name: `map_cut_${k}`, family: 'map_cut', cutoff: k, kind: 'float', summary: 'mean', compute: (v) => averagePrecision(v, k) };
}
