/**
 * Set-based measures over the whole retrieved set (trec_eval m_set_*.c, m_rel_P.c, m_num_nonrel_judged_ret.c):
 * set_P = rel_ret/ret, set_recall = rel_ret/R, set_relative_P = rel_ret/min(ret, R), set_map = set_P·set_recall,
 * set_F = 2·P·R/(P+R), relative_P_k = rel in top k / min(k, R), num_nonrel_judged_ret = judged non-relevant retrieved.
 */
import { DEFAULT_CUTOFFS, relevantInTop, type Measure } from './measure.ts';
import type { JudgedRanking } from '../ranking.ts';

const setP = (v: JudgedRanking) => (v.numRet ? v.numRelRet / v.numRet : 0);
const setRecall = (v: JudgedRanking) => (v.numRel ? v.numRelRet / v.numRel : 0);
const float = (name: string, compute: (v: JudgedRanking) => number): Measure => ({ name, family: name, kind: 'float', summary: 'mean', compute });

export const setPrecision = float('set_P', setP);
export const setRelativeP = float('set_relative_P', (v) => (v.numRet && v.numRel ? v.numRelRet / Math.min(v.numRet, v.numRel) : 0));
export const setRecallMeasure = float('set_recall', setRecall);
export const setMap = float('set_map', (v) => setP(v) * setRecall(v));
export const setF = float('set_F', (v) => {
  if (!v.numRelRet) return 0;
  const p = setP(v);
  const r = setRecall(v);
  return (2 * p * r) / (p + r);
});

export const numNonrelJudgedRet: Measure = {
  name: 'num_nonrel_judged_ret',
  family: 'num_nonrel_judged_ret',
  kind: 'long',
  summary: 'sum',
  compute: (v) => {
    let c = 0;
    for (let i = 0; i < v.numRet; i++) if (v.rels[i] >= 0 && v.rels[i] < v.relevanceLevel) c++;
    return c;
  },
};

export function relativePrecisionAt(k: number): Measure {
  return {
    name: `relative_P_${k}`,
    family: 'relative_P',
    cutoff: k,
    kind: 'float',
    summary: 'mean',
    compute: (v) => (v.numRel ? relevantInTop(v, k) / Math.min(k, v.numRel) : 0),
  };
}
