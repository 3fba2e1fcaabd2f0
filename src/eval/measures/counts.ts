/** num_q, num_ret, num_rel, num_rel_ret: integer counts, summed (not averaged) in the "all" line. */
import type { Measure } from './measure.ts';

export const numQ: Measure = { name: 'num_q', family: 'num_q', kind: 'long', summary: 'num_q', printPerQuery: false, compute: () => 1 };
export const numRet: Measure = { name: 'num_ret', family: 'num_ret', kind: 'long', summary: 'sum', compute: (v) => v.numRet };
export const numRel: Measure = { name: 'num_rel', family: 'num_rel', kind: 'long', summary: 'num_rel', compute: (v) => v.numRel };
export const numRelRet: Measure = {
  name: 'num_rel_ret',
  family: 'num_rel_ret',
  kind: 'long',
  summary: 'sum',
  compute: (v) => v.numRelRet,
};
