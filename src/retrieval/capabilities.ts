/**
 * What a retriever offers models built on it, beside ranking: capability interfaces, asked of the retriever,
 * never of its model's kind. A sparse Profiler needs a BM25 index and the parameters it ranks with; a dense one an
 * embedding store (and the encoder that fills it, for citing articles outside the pools).
 */
import type { Retriever } from './retriever.ts';
import type { Bm25Index } from './bm25/index-format.ts';
import type { Encoder } from './dense/encoder.ts';
import type { EmbeddingStore } from './dense/store.ts';

/** A BM25 index and the parameters a retriever ranks it with. */
export interface TermIndexParams {
  index: Bm25Index;
  k1: number;
  b: number;
  accurate: boolean;
}

/** A retriever that ranks by a BM25 index (Bm25Retriever). */
interface RanksByTermIndex extends Retriever {
  readonly termIndex: TermIndexParams;
}

/** A retriever that ranks by an embedding store over the corpus (DenseRetriever), filled by `encoder` if it has one. */
export interface RanksByVectors extends Retriever {
  /** The document store (pool and candidate vectors). */
  readonly vectors: EmbeddingStore;
  /** The query store, where the model encodes queries with another prompt than documents. */
  readonly queryVectors?: EmbeddingStore;
  readonly encoder?: Encoder;
}

export function termIndexOf(r: Retriever): TermIndexParams | undefined {
  return 'termIndex' in r ? (r as RanksByTermIndex).termIndex : undefined;
}

export function vectorsOf(r: Retriever): Pick<RanksByVectors, 'vectors' | 'queryVectors' | 'encoder'> | undefined {
  if (!('vectors' in r)) return undefined;
  const v = r as RanksByVectors;
  return { vectors: v.vectors, queryVectors: v.queryVectors, encoder: v.encoder };
}
