/**
 * relstring: the judgements of the top N docs as text, one char per doc (trec_eval m_relstring.c, as 9.0.8
 * prints it): the label 0–9, '>' above 9, '-' not in qrels, '.' judged pool but unjudged (negative label).
 * Printed per query only; default N = 10 printed as `relstring`, `relstring.N` as `relstring_N`.
 */
import type { Measure } from './measure.ts';
import { NONPOOL, UNJUDGED } from '../ranking.ts';

export function relstring(n: number, explicit: boolean): Measure {
  return {
    name: explicit ? `relstring_${n}` : 'relstring',
    family: 'relstring',
    cutoff: n,
    kind: 'string',
    summary: 'none',
    compute: () => 0,
    text: (v) => {
      let s = '';
      const len = Math.min(n, v.numRet);
      for (let i = 0; i < len; i++) {
        const rel = v.rels[i];
        s += rel > 9 ? '>' : rel >= 0 ? String(rel) : rel === NONPOOL ? '-' : rel === UNJUDGED ? '.' : '<';
      }
      return s;
    },
  };
}
