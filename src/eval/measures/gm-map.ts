/**
 * gm_map (trec_eval m_gm_map.c): geometric mean of average precision, each AP floored at 1e-5. The per-query value
 * kept is log(max(AP, 1e-5)); the summary is exp(mean of logs). trec_eval prints it only in the summary.
 */
import type { Measure } from './measure.ts';
import { map } from './map.ts';
import { bpref } from './bpref.ts';

export const MIN_GEO_MEAN = 0.00001;

export const gmMap: Measure = {
  name: 'gm_map',
  family: 'gm_map',
  kind: 'float',
  summary: 'gm',
  printPerQuery: false,
  compute: (v) => Math.log(Math.max(map.compute(v), MIN_GEO_MEAN)),
};

/** gm_bpref (trec_eval m_gm_bpref.c): geometric mean of bpref, floored at 1e-5; summary only. */
export const gmBpref: Measure = {
  name: 'gm_bpref',
  family: 'gm_bpref',
  kind: 'float',
  summary: 'gm',
  printPerQuery: false,
  compute: (v) => Math.log(Math.max(bpref.compute(v), MIN_GEO_MEAN)),
};
