/**
 * A retriever that fuses other retrievers' lists (index.ts): each input searched to `depth` — or, for fixed
 * candidate lists (MDCR), each input scoring the candidates — and the lists fused per query as ranx.fuse fuses
 * them. The output is ranked as every list the evaluator sees (scorer.ts rankLists): the fused score as float32
 * descending, ties by the tie key, cut at the request's k. The `citebench fuse` command keeps ranx's own order and
 * doubles instead (files.ts); the fused scores are the same.
 */
import { addCosts, costsOf, type RankedLists, type Retriever, type SearchCosts, type SearchRequest } from '../retriever.ts';
import { rankLists } from '../scorer.ts';
import { arrayDigest } from '../../util/identity.ts';
import { CitebenchError } from '../../util/errors.ts';
import { fuseQuery, prepareQuery, METHOD_PARAMS, paramsProblem, type FusionParams, type FusionSpec } from './index.ts';

export interface FusionInput {
  /** Its name in the config (the tunable weight `weight.<name>`). */
  name: string;
  retriever: Retriever;
}

export interface FusionOptions {
  name: string;
  inputs: FusionInput[];
  spec: FusionSpec;
  /** Each input's results per query that are fused (ignored for candidate lists: all of them are). */
  depth: number;
  tieKey?: Uint32Array;
}

/** The tunable name of an input's weight (wsum, wmnz). */
export const weightParam = (input: string): string => `weight.${input}`;

export class FusionRetriever implements Retriever {
  readonly name: string;
  readonly scoresCandidates: boolean;
  private fingerprint_: string | undefined;

  constructor(private readonly opts: FusionOptions) {
    this.name = opts.name;
    if (opts.inputs.length < 2) throw new CitebenchError(`fusion ${opts.name}: give at least two inputs`);
    if (!(Number.isInteger(opts.depth) && opts.depth >= 1)) throw new CitebenchError(`fusion ${opts.name}: depth must be a positive integer, got ${opts.depth}`);
    const p = paramsProblem(opts.spec.method, opts.spec.params, opts.inputs.length);
    if (p) throw new CitebenchError(`fusion ${opts.name}: ${p.param}: ${p.problem}`);
    this.scoresCandidates = opts.inputs.every((i) => i.retriever.scoresCandidates === true);
  }

  get fingerprint(): string {
    this.fingerprint_ ??= JSON.stringify({
      retriever: 'fusion', version: 1, method: this.opts.spec.method, norm: this.opts.spec.norm, params: this.opts.spec.params,
      depth: this.opts.depth, inputs: this.opts.inputs.map((i) => i.retriever.fingerprint), tieKey: this.opts.tieKey ? arrayDigest(this.opts.tieKey) : null,
    });
    return this.fingerprint_;
  }

  /** The method's parameters (rrf's k, gmnz's gamma, …; wsum's and wmnz's weights as `weight.<input>`). */
  get tunable(): Readonly<Record<string, number>> {
    const { method, params } = this.opts.spec;
    const out: Record<string, number> = {};
    for (const key of Object.keys(METHOD_PARAMS[method]) as (keyof FusionParams)[]) {
      if (key === 'weights') this.opts.inputs.forEach((inp, i) => { out[weightParam(inp.name)] = params.weights![i]; });
      else out[key] = (params[key] as number | undefined) ?? (METHOD_PARAMS[method][key] as number);
    }
    return out;
  }

  withParams(p: Readonly<Record<string, number>>): FusionRetriever {
    const params: FusionParams = { ...this.opts.spec.params };
    if (params.weights) params.weights = this.opts.inputs.map((inp, i) => p[weightParam(inp.name)] ?? params.weights![i]);
    for (const key of ['k', 'gamma', 'sigma', 'phi'] as const) if (p[key] !== undefined) params[key] = p[key];
    return new FusionRetriever({ ...this.opts, spec: { ...this.opts.spec, params } });
  }

  private costs: SearchCosts = { seconds: {}, pairs: 0 };

  /** The inputs' searches (their own stages: first stage, re-scoring) and the fusion, apart. */
  takeCosts(): SearchCosts {
    const c = this.costs;
    this.costs = { seconds: {}, pairs: 0 };
    return c;
  }

  async search(req: SearchRequest): Promise<RankedLists> {
    const excludeSelf = req.excludeSelf ?? true;
    let lists: RankedLists[];
    const input = async (r: Retriever, k: number) => {
      const t0 = performance.now();
      const got = await r.search({ ...req, k, excludeSelf, onResult: undefined });
      addCosts(this.costs, costsOf(r, (performance.now() - t0) / 1000));
      return got;
    };
    if (req.candidates) {
      if (req.candidates.length !== req.queries.length) throw new CitebenchError(`candidates: ${req.candidates.length} lists for ${req.queries.length} queries`);
      const k = Math.max(1, ...req.candidates.map((c) => c.length));
      lists = [];
      for (const i of this.opts.inputs) lists.push(await input(i.retriever, k));
    } else {
      lists = [];
      for (const i of this.opts.inputs) lists.push(await input(i.retriever, this.opts.depth));
    }
    const t0 = performance.now();
    const docs: Uint32Array[] = [];
    const scores: Float64Array[] = [];
    for (let q = 0; q < req.queries.length; q++) {
      const { query, keys } = prepareQuery(lists.map((l) => ({ keys: l.docs.subarray(l.offsets[q], l.offsets[q + 1]), scores: l.scores.subarray(l.offsets[q], l.offsets[q + 1]) })));
      const fused = fuseQuery(query, this.opts.spec);
      docs.push(Uint32Array.from(keys));
      scores.push(fused.scores);
    }
    const out = rankLists(docs, scores, req.k, this.opts.tieKey);
    addCosts(this.costs, { seconds: { fusion: (performance.now() - t0) / 1000 }, pairs: 0 });
    if (req.onResult) for (let q = 0; q < req.queries.length; q++) req.onResult(q, out.docs.subarray(out.offsets[q], out.offsets[q + 1]), out.scores.subarray(out.offsets[q], out.offsets[q + 1]));
    return out;
  }
}
