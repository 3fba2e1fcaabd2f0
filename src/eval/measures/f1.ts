/**
 * F1_k (paper: F1@k, Nogueira et al. 2020): per query, the harmonic mean of P@k and recall@k; 0 when both are 0.
 * Not a trec_eval measure; averaged per query like the others.
 */
import { relevantInTop, type Measure } from './measure.ts';

export function f1At(k: number): Measure {
  return {
    name: `F1_${k}`,
    family: 'F1',
    cutoff: k,
    kind: 'float',
    summary: 'mean',
    compute: (v) => {
      const hits = relevantInTop(v, k);
      if (hits === 0 || v.numRel === 0) return 0;
      const p = hits / k;
      const r = hits / v.numRel;
      return (2 * p * r) / (p + r);
    },
  };
}
