/**
 * Citation-graph navigation (Nogueira et al. 2020 §3) around any first-stage retriever. Iteration t = 0 takes
 * the first stage's top k_d^0 papers D_0; every iteration collects C_t, the papers cited by D_t, limited to k_c^t
 * by dropping the citations of the lowest-ranked papers of D_t first, keeps only candidates of the pool (never
 * the query, nor a paper already in D_t), and ranks D_t ∪ C_t with the scorer; D_{t+1} is the top k_d^{t+1} of
 * that ranking. The output is the last iteration's ranking (at most k_d + k_c papers), cut at the request's k.
 *
 * Within one paper of D_t its citations are taken in the stored order of the corpus store's out-lists (ascending
 * corpus index of the merged outbound/inbound citation lists, not bibliography order), so a k_c cut inside a
 * paper keeps its lowest-indexed references. The paper's ranking phase is a trained SciBERT cross-encoder; here
 * the scorer is configurable (BM25 against the query, a dense similarity, a cross-encoder folder, or a weighted
 * sum) and scores with the request's pool statistics, as the first stage does. Navigation needs no setting of
 * its own: the pool already holds only what the setting allows, and D_t ∪ C_t ⊆ pool.
 */
import type { RankedLists, Retriever, SearchRequest } from './retriever.ts';
import { rankGiven, rankLists, scoreCandidates, scorerFingerprint, splitLists, type WeightedScorer } from './scorer.ts';
import { CitebenchError } from '../util/errors.ts';
import { arrayDigest } from '../util/identity.ts';

/** Outbound citations as CSR over corpus indices (CorpusStore satisfies it). */
export interface OutboundGraph {
  readonly size: number;
  readonly outOffsets: Uint32Array;
  readonly outTargets: Uint32Array;
}

export interface NavigationOptions {
  name: string;
  first: Retriever;
  scorer: WeightedScorer[];
  /** k_d per iteration (length T). Paper, T = 1: 300. */
  kd: number[];
  /** k_c per iteration (length T). Paper, T = 1: 700. */
  kc: number[];
  graph: OutboundGraph;
  /** Tie order of equal scores (higher first): the corpus store's idOrder = trec_eval's. */
  tieKey?: Uint32Array;
}

/** The paper's tuned values (§5.2, Open Research dev set, k_d + k_c = 1000) for T = 1, 2, 3. */
export const PAPER_KD = [300, 700, 900];
export const PAPER_KC = [700, 300, 100];

export class NavigationRetriever implements Retriever {
  readonly name: string;
  private fingerprint_: string | undefined;

  constructor(private readonly opts: NavigationOptions) {
    this.name = opts.name;
    if (opts.kd.length === 0 || opts.kd.length !== opts.kc.length) throw new CitebenchError(`navigation ${opts.name}: kd and kc need one value per iteration (T = ${opts.kd.length}, ${opts.kc.length})`);
    if (opts.scorer.length === 0) throw new CitebenchError(`navigation ${opts.name}: no scorer`);
  }

  get fingerprint(): string {
    this.fingerprint_ ??= JSON.stringify({
      retriever: 'navigation', version: 2, first: this.opts.first.fingerprint, scorer: scorerFingerprint(this.opts.scorer),
      kd: this.opts.kd, kc: this.opts.kc, T: this.opts.kd.length,
      graph: arrayDigest(this.opts.graph.outOffsets, this.opts.graph.outTargets),
      tieKey: this.opts.tieKey ? arrayDigest(this.opts.tieKey) : null,
    });
    return this.fingerprint_;
  }

  /** Fixed candidate lists have nothing to navigate to: the ranking phase scores them (MDCR). */
  readonly scoresCandidates = true;

  async search(req: SearchRequest): Promise<RankedLists> {
    if (req.candidates) return rankGiven(this.opts.scorer, req, this.opts.tieKey);
    const { graph, kd, kc } = this.opts;
    const member = new Uint8Array(graph.size);
    if (req.pool) for (const d of req.pool) member[d] = 1;
    else member.fill(1);
    const excludeSelf = req.excludeSelf ?? true;
    const first = await this.opts.first.search({ queries: req.queries, pool: req.pool, k: kd[0], excludeSelf, setting: req.setting });
    let D = splitLists(first, kd[0]);
    let ranked: RankedLists = first;
    for (let t = 0; t < kd.length; t++) {
      if (t > 0) D = splitLists(ranked, kd[t]);
      const U = D.map((d, q) => {
        const c = navigate(graph, d, kc[t], member, excludeSelf ? req.queries[q] : -1);
        const u = new Uint32Array(d.length + c.length);
        u.set(d);
        u.set(c, d.length);
        return u;
      });
      const scores = await scoreCandidates(this.opts.scorer, req.queries, U, req.pool, req.setting);
      ranked = rankLists(U, scores, t === kd.length - 1 ? req.k : Infinity, this.opts.tieKey);
    }
    if (req.onResult) for (let q = 0; q < req.queries.length; q++) req.onResult(q, ranked.docs.subarray(ranked.offsets[q], ranked.offsets[q + 1]), ranked.scores.subarray(ranked.offsets[q], ranked.offsets[q + 1]));
    return ranked;
  }
}

/**
 * C_t of one query: the pool papers cited by `D` (rank order, each paper's out-list in stored order), not in
 * `D`, not `self`, each once, the first `kc` of them — i.e. the citations of the lowest-ranked papers are the
 * ones dropped.
 */
export function navigate(graph: OutboundGraph, D: Uint32Array, kc: number, member: Uint8Array, self: number): Uint32Array {
  const out: number[] = [];
  if (kc <= 0) return new Uint32Array(0);
  const seen = new Set<number>(D);
  for (const d of D) {
    for (let e = graph.outOffsets[d]; e < graph.outOffsets[d + 1]; e++) {
      const c = graph.outTargets[e];
      if (!member[c] || c === self || seen.has(c)) continue;
      seen.add(c);
      out.push(c);
      if (out.length === kc) return Uint32Array.from(out);
    }
  }
  return Uint32Array.from(out);
}
