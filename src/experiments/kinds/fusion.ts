/**
 * Fusion of models configured above (retrieval/fusion/): ranx's methods and normalisations over their lists —
 * each searched to `depth`, or each scoring MDCR's candidate lists — with the method's parameter (rrf's k,
 * gmnz's gamma, logn_isr's sigma, rbc's phi, wsum's and wmnz's weights as `weight.<input>`) fixed or tuned on the
 * validation split by the one tuner (tune.ts).
 */
import { FUSION_METHODS, FUSION_NORMS, METHOD_PARAMS, paramsProblem, type FusionMethod, type FusionNorm, type FusionParams } from '../../retrieval/fusion/index.ts';
import { FusionRetriever, weightParam } from '../../retrieval/fusion/retriever.ts';
import { posInt, readTune, type Reader, type TunableParam } from '../config-reader.ts';
import type { KindEntry } from './types.ts';
import { combineWeights, need, orSkip } from './composed.ts';

export interface FusionModelConfig {
  kind: 'fusion';
  name: string;
  inputs: string[];
  method: FusionMethod;
  norm: FusionNorm;
  params: FusionParams;
  depth: number;
  tune?: { grid: Record<string, number[]>; measure: string };
}

/** Each method parameter's check and default grid (a `tune:` that names none of them tunes them all on these). */
const PARAM_SPECS: Record<'k' | 'gamma' | 'sigma' | 'phi' | 'weight', TunableParam> = {
  k: { grid: [10, 20, 60, 100], check: (n) => n >= 0, what: 'a number ≥ 0' },
  gamma: { grid: [0.5, 1, 1.5, 2], check: Number.isFinite, what: 'a number' },
  sigma: { grid: [0.001, 0.01, 0.1], check: (n) => n >= 0 && n <= 1, what: 'a number in [0, 1]' },
  phi: { grid: [0.5, 0.7, 0.8, 0.9, 0.95], check: (n) => n >= 0 && n < 1, what: 'a number in [0, 1)' },
  weight: { grid: [0.2, 0.5, 0.8], check: Number.isFinite, what: 'a number' },
};

/** The tunable parameters of a method over these inputs, in the tuner's grid order. */
function tunableOf(method: FusionMethod, inputs: string[]): Record<string, TunableParam> {
  const out: Record<string, TunableParam> = {};
  for (const key of Object.keys(METHOD_PARAMS[method]) as (keyof FusionParams)[]) {
    if (key === 'weights') for (const i of inputs) out[weightParam(i)] = PARAM_SPECS.weight;
    else out[key] = PARAM_SPECS[key];
  }
  return out;
}

const paramText = (c: Pick<FusionModelConfig, 'method' | 'params'>): string => Object.entries(c.params)
  .map(([k, v]) => `${k} ${Array.isArray(v) ? v.join('/') : v}`).join(', ');

export const fusion: KindEntry<FusionModelConfig> = {
  kind: 'fusion',
  beyondPaper: true,
  about: "models configured above fused as ranx fuses runs (rrf, sum, mnz, wsum, …; min-max, zmuv, borda, … normalisation)",
  parse(r: Reader, p: string[], name: string, earlier: string[]): FusionModelConfig {
    r.checkKeys(p, ['kind', 'inputs', 'method', 'norm', 'k', 'weights', 'gamma', 'sigma', 'phi', 'depth', 'tune']);
    const inputs = r.list([...p, 'inputs'], (q) => {
      const v = r.str(q);
      if (v === undefined || !earlier.includes(v)) r.fail(q, `'${v}' is not a model configured above ${name} (have: ${earlier.join(', ') || 'none'})`);
      return v!;
    });
    if (inputs.length < 2) r.fail([...p, 'inputs'], 'name at least two models configured above');
    if (new Set(inputs).size !== inputs.length) r.fail([...p, 'inputs'], 'names a model twice');
    const method = r.str([...p, 'method']) as FusionMethod | undefined;
    if (method === undefined || !FUSION_METHODS.includes(method)) r.fail([...p, 'method'], `${method === undefined ? 'is required' : `unknown method '${method}'`}: one of ${FUSION_METHODS.join(', ')}`);
    const norm = (r.str([...p, 'norm']) ?? 'min-max') as FusionNorm;
    if (!FUSION_NORMS.includes(norm)) r.fail([...p, 'norm'], `unknown normalisation '${norm}': one of ${FUSION_NORMS.join(', ')}`);
    const num = (key: string) => (r.has([...p, key]) ? r.num([...p, key], undefined, Number.isFinite, 'a number') : undefined);
    const tune = readTune(r, p, tunableOf(method!, inputs));
    if (tune && Object.keys(tune.grid).length === 0) r.fail([...p, 'tune'], `${method} has no parameter to tune`);
    const weights = r.has([...p, 'weights']) ? r.list([...p, 'weights'], (q) => r.num(q, undefined, Number.isFinite, 'a weight (number)')) : undefined;
    const params: FusionParams = {
      ...(num('k') !== undefined ? { k: num('k') } : {}), ...(num('gamma') !== undefined ? { gamma: num('gamma') } : {}),
      ...(num('sigma') !== undefined ? { sigma: num('sigma') } : {}), ...(num('phi') !== undefined ? { phi: num('phi') } : {}),
      // Tuned weights need no starting values.
      ...(weights ? { weights } : tune && 'weights' in METHOD_PARAMS[method!] ? { weights: inputs.map(() => 1) } : {}),
    };
    // A parameter the tuner sets needs no value of its own either.
    if (tune) for (const key of ['gamma', 'phi'] as const) if (key in tune.grid && params[key] === undefined) params[key] = tune.grid[key][0];
    const problem = paramsProblem(method!, params, inputs.length);
    if (problem) r.fail([...p, problem.param], problem.problem);
    return { kind: 'fusion', name, inputs, method: method!, norm, params, depth: r.num([...p, 'depth'], 1000, posInt, 'a positive integer'), ...(tune ? { tune } : {}) };
  },
  tuning: (c) => c.tune && { grid: c.tune.grid, measure: c.tune.measure },
  describe: (c) => ` (${c.method}${c.tune ? ', tuned' : c.params && Object.keys(c.params).length ? ` ${paramText(c)}` : ''}, norm ${c.norm}) of ${c.inputs.join(' + ')}`,
  build: (c, ctx, params) => orSkip(c.name, async () => {
    const ready = c.inputs.map((i) => need(ctx, i, `inputs: ${i}`));
    let retriever = new FusionRetriever({
      name: c.name, inputs: ready.map((m) => ({ name: m.name, retriever: m.retriever })), spec: { method: c.method, norm: c.norm, params: c.params },
      depth: c.depth, tieKey: ctx.store.idOrder,
    });
    if (params) retriever = retriever.withParams(params);
    const tuned = retriever.tunable;
    return {
      name: c.name, kind: 'fusion', weights: combineWeights(ready.map((m) => m.weights)),
      settings: { inputs: c.inputs, method: c.method, norm: c.norm, ...tuned, depth: c.depth, ...(params ? { tuned: true } : {}) },
      summary: `${c.method} of ${c.inputs.join(' + ')} (norm ${c.norm}${Object.keys(tuned).length ? `, ${Object.entries(tuned).map(([k, v]) => `${k} ${v}`).join(', ')}` : ''}${params ? ', tuned' : ''}), top ${c.depth} of each`,
      retriever, release: async () => {},
    };
  }),
  cost: {
    // The inputs search again inside the fusion; fusing costs 0.1 µs of CPU per input document (3 × 1,000 per query
    // fused in 0.25 ms: docs/benchmarks.md, "Fusion").
    perQuery: (c, env, pool) => c.inputs.reduce((t, i) => t + env.perQuery(env.model(i), pool), 0) + c.inputs.length * c.depth * 1e-7,
    perGroup: (c, env, pool) => ({ seconds: c.inputs.reduce((t, i) => t + env.perGroup(env.model(i), pool).seconds, 0), bytes: 0 }),
    modelBytes: (c, env) => c.inputs.reduce((b, i) => b + env.modelBytes(env.model(i)), 0),
    assumption: (c) => `Fusion: each of ${c.inputs.join(', ')} searched to ${c.depth} again, then fused (measured rate).`,
  },
};
