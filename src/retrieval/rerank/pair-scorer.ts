/**
 * The second stage's one contract: a reranker scores (query article, candidate article) pairs. Every reranker
 * form — a cross-encoder's sequence-classification head (BERT, RoBERTa/XLM-R, ModernBERT), a sentence-transformers
 * CrossEncoder folder, a causal LM's yes/no logits (a LogitScore CrossEncoder folder, the Qwen3-Reranker recipe) —
 * is a PairScorer; PairScorerRetriever makes any of them a Retriever over fixed candidate lists (the rerank kind's
 * scorer, MDCR's candidate lists, `citebench rerank`).
 */
import type { ArticleText, TextSource } from '../../corpus/article.ts';
import type { RankedLists, Retriever, SearchRequest } from '../retriever.ts';
import { CitebenchError } from '../../util/errors.ts';

/** An article's text for a reranker, for the query article and the candidate alike: title, a space, abstract. */
export function rerankText(t: ArticleText): string {
  return `${t.title} ${t.abstract}`;
}

export interface PairScorer {
  /** Registry name or folder base name. */
  readonly name: string;
  /** Identity of everything that determines a pair's score: weights, tokenizer, template, instruction, max length, activation. */
  readonly fingerprint: string;
  /**
   * The folder form and what it computes, one line for logs and reports (e.g. "sequence classification (XLM-R),
   * Sigmoid", "causal LM: P(yes) of the Qwen3-Reranker recipe").
   */
  readonly describe: string;
  /**
   * Relevance scores of (query, candidate) text pairs, in input order, at full double precision of what the
   * model computed (float32 logits, the activation in double).
   */
  scoreTexts(pairs: readonly (readonly [query: string, candidate: string])[]): Promise<Float64Array>;
  release(): Promise<void>;
}

export interface PairScorerRetrieverOptions {
  name: string;
  texts: TextSource;
}

/**
 * A PairScorer as a Retriever over fixed candidate lists: each query's candidates re-scored and sorted by score
 * descending (ties by corpus index descending, as the scorer's other users break them). It only re-scores: ranking
 * a whole pool with it would cost a forward pass per article.
 */
export class PairScorerRetriever implements Retriever {
  readonly name: string;
  readonly scoresCandidates = true;
  private fingerprint_: string | undefined;

  constructor(readonly scorer: PairScorer, private readonly opts: PairScorerRetrieverOptions) {
    this.name = opts.name;
  }

  get fingerprint(): string {
    this.fingerprint_ ??= JSON.stringify({ retriever: 'pair-scorer', version: 1, scorer: this.scorer.fingerprint, text: 'title abstract' });
    return this.fingerprint_;
  }

  /** Scores of (query, candidate) corpus-index pairs, in input order. */
  async scorePairs(pairs: readonly (readonly [number, number])[]): Promise<Float64Array> {
    const text = new Map<number, string>();
    const of = (i: number) => {
      let t = text.get(i);
      if (t === undefined) text.set(i, (t = rerankText(this.opts.texts.text(i))));
      return t;
    };
    return this.scorer.scoreTexts(pairs.map(([q, c]) => [of(q), of(c)] as const));
  }

  async search(req: SearchRequest): Promise<RankedLists> {
    if (!req.candidates) throw new CitebenchError(`${this.name}: a reranker re-scores candidate lists (use it as the scorer of a rerank model, citebench rerank or MDCR)`);
    const excludeSelf = req.excludeSelf ?? true;
    const lists = req.candidates.map((c, q) => (excludeSelf ? c.filter((x) => x !== req.queries[q]) : c));
    const pairs: [number, number][] = [];
    lists.forEach((c, q) => c.forEach((x) => pairs.push([req.queries[q], x])));
    const s = await this.scorePairs(pairs);
    const offsets = new Uint32Array(lists.length + 1);
    const docs: number[] = [];
    const scores: number[] = [];
    let p = 0;
    lists.forEach((c, q) => {
      const idx = Array.from(c.keys()).sort((x, y) => s[p + y] - s[p + x] || c[y] - c[x]).slice(0, req.k);
      for (const i of idx) {
        docs.push(c[i]);
        scores.push(s[p + i]);
      }
      p += c.length;
      offsets[q + 1] = docs.length;
    });
    return { offsets, docs: Uint32Array.from(docs), scores: Float32Array.from(scores) };
  }

  release(): Promise<void> {
    return this.scorer.release();
  }
}
