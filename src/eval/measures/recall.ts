/** recall_k: relevant docs in the top k divided by num_rel (0 when the query has no relevant docs). */
import { relevantInTop, type Measure } from './measure.ts';

export function recallAt(k: number): Measure {
  return {
    name: `recall_${k}`,
    family: 'recall',
    cutoff: k,
    kind: 'float',
    summary: 'mean',
    compute: (v) => (v.numRel ? relevantInTop(v, k) / v.numRel : 0),
  };
}
