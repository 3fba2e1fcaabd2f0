/** Nogueira et al. 2020 §3: a first stage, then T iterations of citation navigation and ranking (retrieval/navigation.ts). */
import { NavigationRetriever } from '../../retrieval/navigation.ts';
import { posInt, type Reader } from '../config-reader.ts';
import type { KindEntry } from './types.ts';
import { crossEncoderNote, orSkip, readCrossEncoder, readRef, readScorer, scorerBytes, scorerSeconds, scorers, type CrossEncoderRef, type ScorerPart } from './composed.ts';

export interface NavigationModelConfig {
  kind: 'navigation';
  name: string;
  /** A model configured above: the keyword (or any) first stage. */
  first: string;
  /** k_d and k_c per iteration (length T). */
  kd: number[];
  kc: number[];
  /** Ranking phase: Σ weight · score of these models (default: the first stage's own scores). */
  scorer: ScorerPart[];
  crossEncoder?: CrossEncoderRef;
}

const PAPER_KD = [300, 700, 900];
const PAPER_KC = [700, 300, 100];

export const navigation: KindEntry<NavigationModelConfig> = {
  kind: 'navigation',
  beyondPaper: true,
  about: 'a first stage, then T iterations of citation-graph navigation and ranking (Nogueira et al. 2020 §3)',
  parse(r: Reader, p: string[], name: string, earlier: string[]): NavigationModelConfig {
    r.checkKeys(p, ['kind', 'first', 'kd', 'kc', 'T', 'scorer', 'reranker', 'crossEncoder']);
    const depthList = (key: string, T: number, paper: number[]): number[] => {
      const at = [...p, key];
      if (!r.has(at)) {
        if (T > paper.length) r.fail(at, `give ${key} for each of the ${T} iterations (the paper's values stop at T = ${paper.length})`);
        return paper.slice(0, T);
      }
      const ok = (n: number) => Number.isInteger(n) && n >= 0;
      const v = Array.isArray(r.raw(at)) ? r.list(at, (q) => r.num(q, undefined, ok, 'an integer ≥ 0')) : Array(T).fill(r.num(at, undefined, ok, 'an integer ≥ 0 (or one per iteration)'));
      if (v.length !== T) r.fail(at, `has ${v.length} values for T = ${T} iterations`);
      return v;
    };
    const first = readRef(r, p, 'first', name, earlier);
    const listed = ['kd', 'kc'].map((k) => r.raw([...p, k])).find(Array.isArray) as unknown[] | undefined;
    const T = r.num([...p, 'T'], listed ? listed.length : 1, posInt, 'a positive integer (iterations)');
    const kd = depthList('kd', T, PAPER_KD);
    if (kd.some((n) => n < 1)) r.fail([...p, 'kd'], 'k_d must be ≥ 1 in every iteration');
    const ce = readCrossEncoder(r, p);
    return { kind: 'navigation', name, first, kd, kc: depthList('kc', T, PAPER_KC), scorer: readScorer(r, p, name, earlier, ce ? 'cross-encoder' : first, ce), ...(ce ? { crossEncoder: ce } : {}) };
  },
  offTask: (_c, on) => `navigates the citation graph, which ${on.what} does not have`,
  describe: (c) => ` of ${c.first}`,
  build: (c, ctx) => orSkip(c.name, async () => {
    const s = await scorers(c, ctx);
    const retriever = new NavigationRetriever({ tieKey: ctx.store.idOrder, name: c.name, first: s.first.retriever, scorer: s.parts, kd: c.kd, kc: c.kc, graph: ctx.store });
    const summary = `${c.first} + navigation, T ${c.kd.length}, k_d ${c.kd.join('/')}, k_c ${c.kc.join('/')}, ranked by ${s.text}`;
    return {
      name: c.name, kind: 'navigation', weights: s.weights,
      settings: { first: c.first, kd: c.kd, kc: c.kc, T: c.kd.length, scorer: c.scorer, ...(s.ce ? { reranker: s.ce.dir, rerankerForm: s.ce.retriever.scorer.describe } : {}) },
      summary, retriever, release: async () => s.ce?.retriever.release(),
    };
  }),
  cost: {
    perQuery: (c, env, pool) => env.perQuery(env.model(c.first), pool) + c.kd.reduce((t, kd, i) => t + scorerSeconds(c, kd + c.kc[i], env), 0),
    // It samples, slices and searches the pool with its first stage: that one's per-group part.
    perGroup: (c, env, pool) => ({ seconds: env.perGroup(env.model(c.first), pool).seconds, bytes: 0 }),
    modelBytes: (c, env) => env.modelBytes(env.model(c.first)) + scorerBytes(c, env), // the citation graph: counted with every model's cells (plan.ts)
    assumption: (c) => `Navigation: ${c.first}'s search plus re-scoring ≤ k_d + k_c candidates per iteration, +36 µs per candidate (measured at a 2 M pool: 35 ms per query of 1,000 candidates), assumed the same at every pool size and iteration; memory adds the outbound citation graph (4 bytes per citation).${crossEncoderNote(c)}`,
  },
};

