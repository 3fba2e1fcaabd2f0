/** Shared by the bm25 commands: the index/store check and numeric grid options. */
import { CitebenchError } from '../../util/errors.ts';
import type { CorpusStore } from '../../corpus/store.ts';
import type { Bm25Index, IndexMeta } from '../../retrieval/bm25/index-format.ts';

/** The index must have been built from this store. */
export function checkIndexMatchesStore(meta: IndexMeta, ix: Bm25Index, store: CorpusStore, indexDir: string): void {
  if (ix.docCount !== store.size || (meta.corpus && meta.corpus.articles !== store.size)) {
    throw new CitebenchError(`${indexDir}: index has ${ix.docCount} documents but the corpus store ${store.dir} has ${store.size} articles: rebuild the index from this store`);
  }
}

/** Parse a comma-separated list of numbers for an option. */
export function numList(name: string, v: string | undefined, dflt: number[]): number[] {
  if (v === undefined) return dflt;
  const out = v.split(',').map((s) => Number(s.trim()));
  if (out.some((x) => !Number.isFinite(x)) || out.length === 0) throw new CitebenchError(`--${name} must be comma-separated numbers, got '${v}'`);
  return out;
}
