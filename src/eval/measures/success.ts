/** success_k: 1 if a relevant doc is in the top k, else 0 (trec_eval default cutoffs 1, 5, 10). */
import { relevantInTop, type Measure } from './measure.ts';

export const SUCCESS_CUTOFFS = [1, 5, 10] as const;

export function successAt(k: number): Measure {
  return { name: `success_${k}`, family: 'success', cutoff: k, kind: 'float', summary: 'mean', compute: (v) => (relevantInTop(v, k) > 0 ? 1 : 0) };
}
