/** utility (trec_eval m_utility.c, default coefficients 1, −1, 0, 0): relevant retrieved − non-relevant retrieved. */
import type { Measure } from './measure.ts';

export const utility: Measure = {
  name: 'utility',
  family: 'utility',
  kind: 'float',
  summary: 'mean',
  compute: (v) => v.numRelRet - (v.numRet - v.numRelRet),
};
