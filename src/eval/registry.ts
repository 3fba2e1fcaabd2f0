/**
 * Measure registry: parses trec_eval names (`map`, `P.5,10`, `ndcg_cut.10`, `recall_30`, `all_trec`, `official`)
 * and the paper's names (`MAP`, `nDCG`, `nDCG@10`, `R@30`, `P@5`, `MRR`, `F1@20`) into printed measures, and
 * orders a selection the way trec_eval prints it (its measure table order, whatever the order of -m flags).
 */
import { CitebenchError } from '../util/errors.ts';
import { DEFAULT_CUTOFFS, type Measure } from './measures/measure.ts';
import { numQ, numRel, numRelRet, numRet } from './measures/counts.ts';
import { map, mapCut } from './measures/map.ts';
import { ndcg, ndcgCut } from './measures/ndcg.ts';
import { precisionAt } from './measures/precision.ts';
import { recallAt } from './measures/recall.ts';
import { recipRank } from './measures/recip-rank.ts';
import { rprec } from './measures/rprec.ts';
import { f1At } from './measures/f1.ts';
import { SUCCESS_CUTOFFS, successAt } from './measures/success.ts';
import { relstring } from './measures/relstring.ts';
import { numNonrelJudgedRet, relativePrecisionAt, setF, setMap, setPrecision, setRecallMeasure, setRelativeP } from './measures/set.ts';
import { elevenPointAverage, iprecAtRecall, R_MULTIPLES, RECALL_POINTS, rprecMult } from './measures/interpolated.ts';
import { bpref } from './measures/bpref.ts';
import { gmBpref, gmMap } from './measures/gm-map.ts';
import { utility } from './measures/utility.ts';
import { binG, G, infAP, ndcgRel, rndcg } from './measures/gain.ts';


interface Family {
  /** Fixed measure, or a factory over cutoffs. */
  single?: Measure;
  cut?: (k: number) => Measure;
  defaultCutoffs?: readonly number[];
  /** Parameters are fractions (recall points, multiples of R), not positive integer cutoffs. */
  fractional?: boolean;
}

/** Implemented families, keyed by trec_eval name. */
const FAMILIES: Record<string, Family> = {
  num_q: { single: numQ },
  num_ret: { single: numRet },
  num_rel: { single: numRel },
  num_rel_ret: { single: numRelRet },
  map: { single: map },
  Rprec: { single: rprec },
  recip_rank: { single: recipRank },
  P: { cut: precisionAt, defaultCutoffs: DEFAULT_CUTOFFS },
  recall: { cut: recallAt, defaultCutoffs: DEFAULT_CUTOFFS },
  ndcg: { single: ndcg },
  ndcg_cut: { cut: ndcgCut, defaultCutoffs: DEFAULT_CUTOFFS },
  map_cut: { cut: mapCut, defaultCutoffs: DEFAULT_CUTOFFS },
  success: { cut: successAt, defaultCutoffs: SUCCESS_CUTOFFS },
  F1: { cut: f1At, defaultCutoffs: DEFAULT_CUTOFFS },
  relstring: { cut: (k) => relstring(k, true), defaultCutoffs: [10] },
  gm_map: { single: gmMap },
  bpref: { single: bpref },
  gm_bpref: { single: gmBpref },
  iprec_at_recall: { cut: iprecAtRecall, defaultCutoffs: RECALL_POINTS, fractional: true },
  Rprec_mult: { cut: rprecMult, defaultCutoffs: R_MULTIPLES, fractional: true },
  utility: { single: utility },
  '11pt_avg': { single: elevenPointAverage },
  relative_P: { cut: relativePrecisionAt, defaultCutoffs: DEFAULT_CUTOFFS },
  set_P: { single: setPrecision },
  set_relative_P: { single: setRelativeP },
  set_recall: { single: setRecallMeasure },
  set_map: { single: setMap },
  set_F: { single: setF },
  num_nonrel_judged_ret: { single: numNonrelJudgedRet },
  infAP: { single: infAP },
  binG: { single: binG },
  G: { single: G },
  ndcg_rel: { single: ndcgRel },
  Rndcg: { single: rndcg },
};

/**
 * trec_eval 9.0.8's measure table order (what `-m all_trec` prints), including measures citebench does not
 * implement (skipped when printing). `runid` is printed by the CLI, not computed. F1 is ours: printed last.
 */
const TREC_ORDER = [
  'runid', 'num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'map', 'gm_map', 'Rprec', 'bpref', 'recip_rank',
  'iprec_at_recall', 'P', 'relstring', 'recall', 'infAP', 'gm_bpref', 'Rprec_mult', 'utility', '11pt_avg', 'binG', 'G', 'ndcg',
  'ndcg_rel', 'Rndcg', 'ndcg_cut', 'map_cut', 'relative_P', 'success', 'set_P', 'set_relative_P', 'set_recall',
  'set_map', 'set_F', 'num_nonrel_judged_ret', 'F1',
] as const;

/** trec_eval's `official` nickname (its default measures without -m). */
const OFFICIAL = ['runid', 'num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'map', 'gm_map', 'Rprec', 'bpref', 'recip_rank', 'iprec_at_recall', 'P'];
/** trec_eval's `all_trec` nickname: every trec measure. */
const ALL_TREC = TREC_ORDER.filter((f) => f !== 'F1');

/** trec_eval families citebench does not implement (named in errors so users know why). */
const NOT_IMPLEMENTED = new Set(TREC_ORDER.filter((f) => !(f in FAMILIES) && f !== 'runid'));

/** Paper-style names (case-insensitive) → trec family. `@k` selects a cutoff. */
const PAPER: Record<string, { family: string; cutFamily?: string }> = {
  map: { family: 'map', cutFamily: 'map_cut' },
  ndcg: { family: 'ndcg', cutFamily: 'ndcg_cut' },
  r: { family: 'recall', cutFamily: 'recall' },
  recall: { family: 'recall', cutFamily: 'recall' },
  p: { family: 'P', cutFamily: 'P' },
  precision: { family: 'P', cutFamily: 'P' },
  mrr: { family: 'recip_rank' },
  f1: { family: 'F1', cutFamily: 'F1' },
  success: { family: 'success', cutFamily: 'success' },
  rprec: { family: 'Rprec' },
};

interface MeasureSelection {
  measures: Measure[];
  /** Whether trec_eval would print a `runid` line (all_trec / official). */
  runid: boolean;
}

/** Parse one measure spec into printed measures (a family without cutoff expands to its default cutoffs). */
export function parseMeasure(spec: string): Measure[] {
  return parseSpec(spec).measures;
}

function parseSpec(spec: string): MeasureSelection {
  const s = spec.trim();
  if (s === 'all_trec' || s === 'official') {
    const fams = s === 'all_trec' ? ALL_TREC : OFFICIAL;
    return { measures: fams.filter((f) => f in FAMILIES).flatMap((f) => expand(f, undefined, spec)), runid: true };
  }
  // Paper names: NAME or NAME@k.
  const at = /^([A-Za-z0-9]+)@(\d+)$/.exec(s);
  if (at) {
    const p = PAPER[at[1].toLowerCase()];
    if (!p?.cutFamily) throw unknown(spec);
    return { measures: expand(p.cutFamily, [cutoff(at[2], spec)], spec), runid: false };
  }
  // trec names: family, family.params.
  const dot = s.indexOf('.');
  if (dot > 0) {
    const fam = s.slice(0, dot);
    const params = s.slice(dot + 1);
    if (!(fam in FAMILIES)) throw unknown(spec);
    if (!FAMILIES[fam].cut) throw new CitebenchError(`measure '${spec}': ${fam} takes no parameters`);
    const ks = params.split(',').map((p) => (FAMILIES[fam].fractional ? fraction(p, spec) : cutoff(p, spec)));
    return { measures: expand(fam, ks, spec), runid: false };
  }
  if (s in FAMILIES) return { measures: expand(s, undefined, spec), runid: false };
  // Printed names: P_5, recall_30, ndcg_cut_10, success_1, F1_20.
  const printed = /^(.*)_(\d+)$/.exec(s);
  if (printed && FAMILIES[printed[1]]?.cut) return { measures: expand(printed[1], [cutoff(printed[2], spec)], spec), runid: false };
  const paper = PAPER[s.toLowerCase()];
  if (paper) return { measures: expand(paper.family, undefined, spec), runid: false };
  throw unknown(spec);
}

/** Parse several specs (repeated -m) into trec_eval print order, without duplicates. */
export function selectMeasures(specs: string[]): MeasureSelection {
  const byName = new Map<string, Measure>();
  let relstringChoice: Measure | undefined;
  let runid = false;
  for (const spec of specs) {
    const sel = parseSpec(spec);
    runid ||= sel.runid;
    for (const m of sel.measures) {
      if (m.family !== 'relstring') byName.set(m.name, m);
      // One relstring: an explicit length replaces the default (trec_eval -m all_trec -m relstring.20).
      else if (!relstringChoice || m.name !== 'relstring') relstringChoice = m;
    }
  }
  if (relstringChoice) byName.set(relstringChoice.name, relstringChoice);
  const rank = (f: string) => TREC_ORDER.indexOf(f as (typeof TREC_ORDER)[number]);
  const measures = [...byName.values()].sort((a, b) => rank(a.family) - rank(b.family) || (a.cutoff ?? 0) - (b.cutoff ?? 0));
  return { measures, runid };
}

function expand(fam: string, ks: number[] | undefined, spec: string): Measure[] {
  const f = FAMILIES[fam];
  if (f.single) return [f.single];
  if (fam === 'relstring') {
    if (ks && ks.length !== 1) throw new CitebenchError(`measure '${spec}': relstring takes one length`);
    return [ks ? relstring(ks[0], true) : relstring(10, false)];
  }
  const cuts = ks ?? f.defaultCutoffs!;
  if (new Set(cuts).size !== cuts.length) throw new CitebenchError(`measure '${spec}': duplicate cutoffs`);
  return [...cuts].sort((a, b) => a - b).map((k) => f.cut!(k));
}

function cutoff(s: string, spec: string): number {
  if (!/^\d+$/.test(s) || Number(s) < 1 || Number(s) > 2 ** 31 - 1) {
    throw new CitebenchError(`measure '${spec}': cutoff '${s}' must be a positive integer`);
  }
  return Number(s);
}

function fraction(s: string, spec: string): number {
  const x = Number(s);
  if (s.trim() === '' || !Number.isFinite(x) || x < 0) throw new CitebenchError(`measure '${spec}': parameter '${s}' must be a non-negative number`);
  return x;
}

function unknown(spec: string): CitebenchError {
  const base = spec.split(/[.@_]/)[0];
  if (NOT_IMPLEMENTED.has(base as never) || NOT_IMPLEMENTED.has(spec as never)) {
    return new CitebenchError(`measure '${spec}' is a trec_eval measure that citebench does not implement`);
  }
  return new CitebenchError(
    `unknown measure '${spec}'. trec names: ${Object.keys(FAMILIES).join(', ')}, all_trec, official ` +
      `(cutoffs as P.5,10 or P_5); paper names: MAP, nDCG, nDCG@10, R@30, P@5, MRR, F1@20`,
  );
}
