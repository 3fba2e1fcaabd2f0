/**
 * Re-scoring fixed candidate lists, shared by navigation (Nogueira et al. 2020 §3, the ranking phase) and
 * re-ranking: each query's candidates are scored by one retriever, or by a weighted sum of several (BM25 against
 * the query, a dense model's similarity, a cross-encoder's logit), through the retrievers' `candidates` mode.
 * The final order is what trec_eval will see: the float32 score descending, ties by the tie key descending.
 */
import type { RankedLists, Retriever, SearchRequest, Setting } from './retriever.ts';
import { CitebenchError } from '../util/errors.ts';

export interface WeightedScorer {
  retriever: Retriever;
  weight: number;
}

/** Identity of a scorer for fingerprints: each part's weight and its retriever's fingerprint. */
export function scorerFingerprint(scorers: WeightedScorer[]): { weight: number; model: string }[] {
  return scorers.map((s) => ({ weight: s.weight, model: s.retriever.fingerprint }));
}

/**
 * Per query, the score of each candidate (aligned with `lists[q]`): Σ weight · score. A candidate a retriever
 * does not return (none of the built-in ones drops any) gets that retriever's lowest score for the query.
 * `pool` is the request's pool: retrievers with corpus statistics (BM25's N, df, avgdl) take them from it, so a
 * candidate scores as it did in a first stage over the same pool — a pool is searched as if indexed alone, and
 * under the inductive setting it holds no article of the query year.
 */
export async function scoreCandidates(scorers: WeightedScorer[], queries: Uint32Array, lists: Uint32Array[], pool: Uint32Array | undefined, setting?: Setting): Promise<Float64Array[]> {
  const out = lists.map((l) => new Float64Array(l.length));
  const k = Math.max(1, ...lists.map((l) => l.length));
  for (const s of scorers) {
    const r = await s.retriever.search({ queries, pool, candidates: lists, k, excludeSelf: false, setting });
    lists.forEach((list, q) => {
      const got = new Map<number, number>();
      let low = Infinity;
      for (let p = r.offsets[q]; p < r.offsets[q + 1]; p++) {
        got.set(r.docs[p], r.scores[p]);
        low = Math.min(low, r.scores[p]);
      }
      if (!Number.isFinite(low)) low = 0;
      for (let i = 0; i < list.length; i++) out[q][i] += s.weight * (got.get(list[i]) ?? low);
    });
  }
  return out;
}

/** Rank each list by its scores (as float32, trec_eval's precision), ties by tieKey descending, top k. */
export function rankLists(lists: Uint32Array[], scores: Float64Array[], k: number, tieKey?: Uint32Array): RankedLists {
  const offsets = new Uint32Array(lists.length + 1);
  const docs: number[] = [];
  const outScores: number[] = [];
  lists.forEach((list, q) => {
    const s32 = Float32Array.from(scores[q]);
    const order = Array.from(list.keys()).sort((a, b) => s32[b] - s32[a] || (tieKey ? tieKey[list[b]] - tieKey[list[a]] : list[b] - list[a]));
    for (const i of order.slice(0, k)) {
      docs.push(list[i]);
      outScores.push(s32[i]);
    }
    offsets[q + 1] = docs.length;
  });
  return { offsets, docs: Uint32Array.from(docs), scores: Float32Array.from(outScores) };
}

/** Per-query lists of a RankedLists, the first `k` of each. */
export function splitLists(r: RankedLists, k = Infinity): Uint32Array[] {
  return Array.from({ length: r.offsets.length - 1 }, (_, q) => r.docs.slice(r.offsets[q], Math.min(r.offsets[q + 1], r.offsets[q] + k)));
}

/**
 * A `candidates` request answered by a ranking phase alone: each query's given list (itself left out where
 * excludeSelf) scored by the weighted scorers under the request's pool statistics and ranked, cut at k.
 */
export async function rankGiven(scorers: WeightedScorer[], req: SearchRequest, tieKey?: Uint32Array): Promise<RankedLists> {
  if (req.candidates!.length !== req.queries.length) throw new CitebenchError(`candidates: ${req.candidates!.length} lists for ${req.queries.length} queries`);
  const excludeSelf = req.excludeSelf ?? true;
  const lists = req.candidates!.map((c, q) => (excludeSelf ? c.filter((x) => x !== req.queries[q]) : c));
  const scores = await scoreCandidates(scorers, req.queries, lists, req.pool, req.setting);
  return rankLists(lists, scores, req.k, tieKey);
}
