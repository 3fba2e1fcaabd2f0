/**
 * Interpolated precision measures (trec_eval 9.0.8 m_iprec_at_recall.c, m_11pt_avg.c, m_Rprec_mult.c):
 * interpolated precision at rank X = max precision at any rank ≥ X. Recall points and R multiples become doc
 * counts as (long)(x·R + 0.9), the 9.0.8 rule (trec_eval 10 rounds instead).
 */
import type { Measure } from './measure.ts';
import type { JudgedRanking } from '../ranking.ts';

export const RECALL_POINTS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1] as const;
export const R_MULTIPLES = [0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.6, 1.8, 2] as const;

/** Interpolated precision at each recall point (fractions of R), as trec_eval computes them. */
function iprecAt(v: JudgedRanking, points: readonly number[]): number[] {
  const out = points.map(() => 0);
  const cutoffs = points.map((p) => Math.trunc(p * v.numRel + 0.9));
  let cut = points.length - 1;
  while (cut >= 0 && cutoffs[cut] > v.numRelRet) cut--;
  let intPrecis = v.numRet ? v.numRelRet / v.numRet : 0;
  let relSoFar = v.numRelRet;
  for (let i = v.numRet; i > 0 && relSoFar > 0; i--) {
    const precis = relSoFar / i;
    if (intPrecis < precis) intPrecis = precis;
    if (v.rels[i - 1] >= v.relevanceLevel) {
      while (cut >= 0 && relSoFar === cutoffs[cut]) out[cut--] = intPrecis;
      relSoFar--;
    }
  }
  while (cut >= 0) out[cut--] = intPrecis;
  return out;
}

export function iprecAtRecall(point: number): Measure {
  return {
    name: `iprec_at_recall_${point.toFixed(2)}`,
    family: 'iprec_at_recall',
    cutoff: point,
    kind: 'float',
    summary: 'mean',
    compute: (v) => iprecAt(v, [point])[0],
  };
}

export const elevenPointAverage: Measure = {
  name: '11pt_avg',
  family: '11pt_avg',
  kind: 'float',
  summary: 'mean',
  compute: (v) => {
    const values = iprecAt(v, RECALL_POINTS);
    let sum = 0;
    for (const x of values) sum += x;
    return sum / values.length;
  },
};

/** Rprec_mult_x: precision after x·R docs (docs past the end of the ranking count as non-relevant). */
export function rprecMult(x: number): Measure {
  return {
    name: `Rprec_mult_${x.toFixed(2)}`,
    family: 'Rprec_mult',
    cutoff: x,
    kind: 'float',
    summary: 'mean',
    compute: (v) => {
      const cutoff = Math.trunc(x * v.numRel + 0.9);
      if (cutoff > v.numRet) return cutoff ? v.numRelRet / cutoff : 0;
      // Walk back from the end as trec_eval does: once no relevant doc is left above, the value stays 0.
      let relSoFar = v.numRelRet;
      for (let i = v.numRet; i > 0 && relSoFar > 0; i--) {
        if (i === cutoff) return relSoFar / i;
        if (v.rels[i - 1] >= v.relevanceLevel) relSoFar--;
      }
      return 0;
    },
  };
}
