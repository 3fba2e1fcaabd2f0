/** P_k: relevant docs in the top k divided by k (always k, even when fewer were retrieved). */
import { relevantInTop, type Measure } from './measure.ts';

export function precisionAt(k: number): Measure {
  return { name: `P_${k}`, family: 'P', cutoff: k, kind: 'float', summary: 'mean', compute: (v) => relevantInTop(v, k) / k };
}
