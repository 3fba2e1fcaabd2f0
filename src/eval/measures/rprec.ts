/** Rprec: precision after R = num_rel docs (relevant in the top min(R, numRet), divided by R). */
import { relevantInTop, type Measure } from './measure.ts';

export const rprec: Measure = {
  name: 'Rprec',
  family: 'Rprec',
  kind: 'float',
  summary: 'mean',
  compute: (v) => (v.numRel && v.numRet ? relevantInTop(v, v.numRel) / v.numRel : 0),
};
