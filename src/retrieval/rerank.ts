/**
 * Re-ranking: a first stage's top `depth` papers (BM25, navigation output, any retriever) re-scored by a dense
 * model's similarity, a cross-encoder (rerank/cross-encoder.ts) or a weighted sum of scorers — Nogueira et al.
 * 2020's ranking phase without navigation. The output holds the re-ranked `depth` papers (cut at the request's k).
 */
import { addCosts, costsOf, type RankedLists, type Retriever, type SearchCosts, type SearchRequest } from './retriever.ts';
import { rankGiven, rankLists, scoreCandidates, scorerFingerprint, splitLists, type WeightedScorer } from './scorer.ts';
import { CitebenchError } from '../util/errors.ts';
import { arrayDigest } from '../util/identity.ts';

export interface RerankOptions {
  name: string;
  first: Retriever;
  scorer: WeightedScorer[];
  /** First-stage papers re-scored per query. */
  depth: number;
  tieKey?: Uint32Array;
}

export class RerankRetriever implements Retriever {
  readonly name: string;
  private fingerprint_: string | undefined;

  constructor(private readonly opts: RerankOptions) {
    this.name = opts.name;
    if (!(Number.isInteger(opts.depth) && opts.depth >= 1)) throw new CitebenchError(`rerank ${opts.name}: depth must be a positive integer, got ${opts.depth}`);
  }

  get fingerprint(): string {
    this.fingerprint_ ??= JSON.stringify({
      retriever: 'rerank', version: 2, first: this.opts.first.fingerprint, scorer: scorerFingerprint(this.opts.scorer), depth: this.opts.depth,
      tieKey: this.opts.tieKey ? arrayDigest(this.opts.tieKey) : null,
    });
    return this.fingerprint_;
  }

  /** Fixed candidate lists are the lists to re-rank: every candidate is re-scored (MDCR). */
  readonly scoresCandidates = true;

  private costs: SearchCosts = { seconds: {}, pairs: 0 };

  takeCosts(): SearchCosts {
    const c = this.costs;
    this.costs = { seconds: {}, pairs: 0 };
    return c;
  }

  /** The scorers' time is re-scoring, whatever they are; pairs counted per scorer part. */
  private async rescore<T>(pairs: number, f: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    const out = await f();
    for (const s of this.opts.scorer) s.retriever.takeCosts?.();
    addCosts(this.costs, { seconds: { 're-scoring': (performance.now() - t0) / 1000 }, pairs: pairs * this.opts.scorer.length });
    return out;
  }

  async search(req: SearchRequest): Promise<RankedLists> {
    if (req.candidates) return this.rescore(req.candidates.reduce((s, c) => s + c.length, 0), () => rankGiven(this.opts.scorer, req, this.opts.tieKey));
    const excludeSelf = req.excludeSelf ?? true;
    const t0 = performance.now();
    const first = await this.opts.first.search({ ...req, k: this.opts.depth, onResult: undefined, excludeSelf });
    addCosts(this.costs, costsOf(this.opts.first, (performance.now() - t0) / 1000));
    const lists = splitLists(first);
    const scores = await this.rescore(first.docs.length, () => scoreCandidates(this.opts.scorer, req.queries, lists, req.pool, req.setting));
    const out = rankLists(lists, scores, req.k, this.opts.tieKey);
    if (req.onResult) for (let q = 0; q < req.queries.length; q++) req.onResult(q, out.docs.subarray(out.offsets[q], out.offsets[q + 1]), out.scores.subarray(out.offsets[q], out.offsets[q + 1]));
    return out;
  }
}
