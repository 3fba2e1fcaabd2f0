/** A first stage's top `depth` re-scored by configured models and/or a cross-encoder folder (retrieval/rerank.ts). */
import { RerankRetriever } from '../../retrieval/rerank.ts';
import { posInt, type Reader } from '../config-reader.ts';
import type { KindEntry } from './types.ts';
import { crossEncoderNote, orSkip, readCrossEncoder, readRef, readScorer, scorerBytes, scorerSeconds, scorers, type CrossEncoderRef, type ScorerPart } from './composed.ts';

export interface RerankModelConfig {
  kind: 'rerank';
  name: string;
  first: string;
  depth: number;
  scorer: ScorerPart[];
  crossEncoder?: CrossEncoderRef;
}

export const rerank: KindEntry<RerankModelConfig> = {
  kind: 'rerank',
  beyondPaper: true,
  about: "a first stage's top `depth` re-scored by configured models and/or a cross-encoder",
  parse(r: Reader, p: string[], name: string, earlier: string[]): RerankModelConfig {
    r.checkKeys(p, ['kind', 'first', 'depth', 'scorer', 'reranker', 'crossEncoder']);
    const first = readRef(r, p, 'first', name, earlier);
    const ce = readCrossEncoder(r, p);
    return { kind: 'rerank', name, first, depth: r.num([...p, 'depth'], 100, posInt, 'a positive integer'), scorer: readScorer(r, p, name, earlier, ce ? 'cross-encoder' : undefined, ce), ...(ce ? { crossEncoder: ce } : {}) };
  },
  describe: (c) => ` of ${c.first}`,
  build: (c, ctx) => orSkip(c.name, async () => {
    const s = await scorers(c, ctx);
    const retriever = new RerankRetriever({ tieKey: ctx.store.idOrder, name: c.name, first: s.first.retriever, scorer: s.parts, depth: c.depth });
    const summary = `${c.first} top ${c.depth} re-ranked by ${s.text}`;
    return {
      name: c.name, kind: 'rerank', weights: s.weights,
      settings: { first: c.first, depth: c.depth, scorer: c.scorer, ...(s.ce ? { reranker: s.ce.dir, rerankerForm: s.ce.retriever.scorer.describe } : {}) },
      summary, retriever, release: async () => s.ce?.retriever.release(),
    };
  }),
  cost: {
    perQuery: (c, env, pool) => env.perQuery(env.model(c.first), pool) + scorerSeconds(c, c.depth, env),
    perGroup: (c, env, pool) => ({ seconds: env.perGroup(env.model(c.first), pool).seconds, bytes: 0 }),
    modelBytes: (c, env) => env.modelBytes(env.model(c.first)) + scorerBytes(c, env),
    assumption: (c) => `Re-ranking: ${c.first}'s search plus re-scoring its top ${c.depth} per query (a configured model as a scorer: its re-scoring rate per candidate).${crossEncoderNote(c)}`,
  },
};
