/**
 * bpref (trec_eval m_bpref.c): over judged retrieved docs only, each relevant doc scores
 * 1 − min(nonrelevant above it, R) / min(judged nonrelevant, R); summed and divided by R.
 */
import type { Measure } from './measure.ts';
import { NONPOOL, UNJUDGED } from '../ranking.ts';

export const bpref: Measure = {
  name: 'bpref',
  family: 'bpref',
  kind: 'float',
  summary: 'mean',
  compute: (v) => {
    let numNonrel = 0;
    for (let l = 0; l < v.relevanceLevel && l < v.numRelLevels; l++) numNonrel += v.levelCounts[l];
    let nonrelSoFar = 0;
    let sum = 0;
    for (let i = 0; i < v.numRet; i++) {
      const rel = v.rels[i];
      if (rel === NONPOOL || rel === UNJUDGED) continue;
      if (rel >= 0 && rel < v.relevanceLevel) nonrelSoFar++;
      else sum += nonrelSoFar > 0 ? 1 - Math.min(nonrelSoFar, v.numRel) / Math.min(numNonrel, v.numRel) : 1;
    }
    return v.numRel ? sum / v.numRel : sum;
  },
};
