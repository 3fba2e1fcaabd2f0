/** recip_rank (MRR per query): 1 / rank of the first relevant doc, 0 if none is retrieved. */
import type { Measure } from './measure.ts';

export const recipRank: Measure = {
  name: 'recip_rank',
  family: 'recip_rank',
  kind: 'float',
  summary: 'mean',
  compute: (v) => {
    for (let i = 0; i < v.numRet; i++) if (v.rels[i] >= v.relevanceLevel) return 1 / (i + 1);
    return 0;
  },
};
