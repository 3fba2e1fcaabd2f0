/**
 * Gain-based trec_eval measures beyond ndcg (m_binG.c, m_G.c, m_ndcg_rel.c, m_Rndcg.c) and infAP (m_infap.c),
 * with default gains (gain = label). The ideal ranking is every qrels doc with a positive label, best first.
 * Each follows trec_eval's loop structure, since their values depend on where the ideal and actual lists end.
 */
import type { Measure } from './measure.ts';
import { NONPOOL, UNJUDGED, type JudgedRanking } from '../ranking.ts';

/** Ideal gains, descending: level L repeated levelCounts[L] times, for L ≥ 1. */
function idealGains(v: JudgedRanking): number[] {
  const out: number[] = [];
  for (let level = v.numRelLevels - 1; level >= 1; level--) for (let c = v.levelCounts[level]; c > 0; c--) out.push(level);
  return out;
}

/** Gain of a retrieved doc: its label when ≥ 0 (level 0 gains 0), else 0. */
const gainOf = (rel: number) => (rel > 0 ? rel : 0);

const float = (name: string, compute: (v: JudgedRanking) => number): Measure => ({ name, family: name, kind: 'float', summary: 'mean', compute });

/** binG: relevant retrieved docs discounted by log2(2 + non-relevant docs above them), ÷ R. */
export const binG = float('binG', (v) => {
  let relSoFar = 0;
  let sum = 0;
  for (let i = 0; i < v.numRet; i++) {
    if (v.rels[i] >= v.relevanceLevel) {
      relSoFar++;
      sum += 1 / Math.log2(3 + i - relSoFar);
    }
  }
  return relSoFar ? sum / v.numRel : 0;
});

/** G: gain discounted by log2(2 + ideal cost so far − gain so far), ÷ total ideal gain. */
export const G = float('G', (v) => {
  const ideal = idealGains(v);
  let sumResults = 0;
  let sumCost = 0;
  let g = 0;
  for (let i = 0; i < v.numRet; i++) {
    const gain = gainOf(v.rels[i]);
    sumResults += gain;
    sumCost += Math.max(i < ideal.length ? ideal[i] : 0, 1); // min cost 1 per rank
    if (gain !== 0) g += gain / Math.log2(2 + sumCost - sumResults);
  }
  let sumIdeal = 0;
  for (const x of ideal) sumIdeal += x;
  return sumIdeal > 0 ? g / sumIdeal : 0;
});

/** ndcg_rel: ndcg averaged over the relevant docs' ranks; unretrieved ones take the final ndcg. */
export const ndcgRel = float('ndcg_rel', (v) => {
  const ideal = idealGains(v);
  const L = ideal.length;
  let dcg = 0;
  let idcg = 0;
  let idealAdded = 0;
  let sum = 0;
  let relRet = 0;
  for (let i = 0; i < v.numRet; i++) {
    const gain = gainOf(v.rels[i]);
    if (gain !== 0) dcg += gain / Math.log2(i + 2);
    if (i < L) {
      idcg += ideal[i] / Math.log2(i + 2);
      idealAdded++;
    }
    if (gain > 0) {
      sum += dcg / idcg;
      relRet++;
    }
  }
  for (let i = idealAdded; i < L; i++) idcg += ideal[i] / Math.log2(i + 2);
  if (L > 0) sum += ((L - relRet) * dcg) / idcg;
  return sum > 0 ? sum / L : 0;
});

/** Rndcg: ndcg averaged over the ranks where the ideal gain level changes (and the end of the ranking). */
export const rndcg = float('Rndcg', (v) => {
  if (v.numRel === 0) return 0;
  const ideal = idealGains(v);
  const idealAt = (i: number) => (i < ideal.length ? ideal[i] : 0);
  let dcg = 0;
  let idcg = 0;
  let sum = 0;
  let changes = 0;
  let idealGain = ideal.length ? ideal[0] : 0;
  let old = idealGain;
  let i = 0;
  for (; i < v.numRet && idealGain > 0; i++) {
    const gain = gainOf(v.rels[i]);
    idealGain = idealAt(i);
    if (old !== idealGain) {
      if (idcg > 0) {
        sum += dcg / idcg;
        changes++;
      }
      old = idealGain;
    }
    if (gain !== 0) dcg += gain / Math.log2(i + 2);
    if (idealGain > 0) idcg += idealGain / Math.log2(i + 2);
  }
  if (i < v.numRet) {
    for (; i < v.numRet; i++) {
      const gain = gainOf(v.rels[i]);
      if (gain !== 0) dcg += gain / Math.log2(i + 2);
    }
    if (idcg > 0) {
      sum += dcg / idcg;
      changes++;
    }
  }
  while (idealGain > 0) {
    idealGain = idealAt(i);
    if (old !== idealGain) {
      if (idcg > 0) {
        sum += dcg / idcg;
        changes++;
      }
      old = idealGain;
    }
    if (idealGain > 0) idcg += idealGain / Math.log2(i + 2);
    i++;
  }
  return changes ? sum / changes : 0;
});

const INFAP_EPSILON = 0.00001;

/** infAP (Yilmaz & Aslam): AP estimated from a judged sample; equals AP when every retrieved pool doc is judged. */
export const infAP = float('infAP', (v) => {
  let nonrelSoFar = 0;
  let relSoFar = 0;
  let unjudgedSoFar = 0;
  let sum = 0;
  for (let j = 0; j < v.numRet; j++) {
    const rel = v.rels[j];
    if (rel === NONPOOL) continue;
    if (rel === UNJUDGED) {
      unjudgedSoFar++;
      continue;
    }
    if (rel >= 0 && rel < v.relevanceLevel) {
      nonrelSoFar++;
      continue;
    }
    relSoFar++;
    if (j === 0) sum += 1;
    else {
      sum +=
        1 / (j + 1) +
        (j / (j + 1)) * ((relSoFar - 1 + nonrelSoFar + unjudgedSoFar) / j) * ((relSoFar - 1 + INFAP_EPSILON) / (relSoFar - 1 + nonrelSoFar + 2 * INFAP_EPSILON));
    }
  }
  return v.numRel ? sum / v.numRel : sum;
});
