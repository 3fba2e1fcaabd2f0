/** One S2ORC article as citebench uses it: the metadata fields the paper's protocol needs, nothing more. */
export interface Article {
  id: string;
  title: string;
  /** Empty string when S2ORC has null. */
  abstract: string;
  /** undefined when S2ORC has null. */
  year: number | undefined;
  /** Bitmask over FIELDS (see fields.ts). */
  fields: number;
  outbound: string[];
  inbound: string[];
  /**
   * The source's own count of works citing this one (OpenAlex `cited_by_count`): what the prefilter's record scope
   * counts as inbound citations when the record lists no citers. Absent: the distinct ids of `inbound`.
   */
  citedBy?: number;
  /**
   * Which of several records with the same id is kept: the lowest rank (OpenAlex: the latest `updated_date`), then
   * the first in file and line order. Absent: 0.
   */
  rank?: number;
  /**
   * Set on the record of a work an option leaves out (OpenAlex: its type, paratext, retracted): it carries only
   * its id and rank, so that the newest record of the work decides whether the work is in, before any filter.
   */
  excluded?: Exclusion;
}

/** Why a work is left out by option: its type (not among the kept types), or a flag. */
export type Exclusion = { reason: 'type'; type: string } | { reason: 'paratext' | 'retracted' };

/** The text every retriever sees for an article: title and abstract, as the paper concatenates them. */
export interface ArticleText {
  title: string;
  abstract: string;
}

/**
 * Read access to article texts by dense corpus index 0..size-1. CorpusStore implements it; tests may use
 * small in-memory implementations.
 */
export interface TextSource {
  readonly size: number;
  text(index: number): ArticleText;
  /** Sequential scan, in index order, of [from, to) — far faster than random text() calls on disk stores. */
  texts(from?: number, to?: number): Iterable<ArticleText & { index: number }>;
}

export class InMemoryTexts implements TextSource {
  constructor(private readonly items: ArticleText[]) {}
  get size() {
    return this.items.length;
  }
  text(i: number) {
    return this.items[i];
  }
  *texts(from = 0, to = this.items.length) {
    for (let i = from; i < to; i++) yield { index: i, ...this.items[i] };
  }
}

/**
 * The texts of some documents of another source, renumbered 0…n−1 in the order given (a BM25 pool index is
 * built from its pool's texts through this): dense stretches through the source's sequential scan, sparse ones
 * document by document.
 */
export class SubsetTexts implements TextSource {
  constructor(
    private readonly source: TextSource,
    /** Source indices of the documents, in the view's order. */
    readonly docs: Uint32Array,
  ) {}
  get size() {
    return this.docs.length;
  }
  text(i: number) {
    return this.source.text(this.docs[i]);
  }
  *texts(from = 0, to = this.docs.length) {
    const docs = this.docs;
    if (to <= from) return;
    const span = docs[to - 1] - docs[from] + 1;
    // Dense stretches (at least 1 document in 8) are read by the source's sequential scan, skipping the others;
    // sparse ones, document by document.
    if (span <= 8 * (to - from) && sorted(docs, from, to)) {
      let i = from;
      for (const t of this.source.texts(docs[from], docs[to - 1] + 1)) {
        if (t.index !== docs[i]) continue;
        yield { index: i, title: t.title, abstract: t.abstract };
        i++;
      }
      return;
    }
    for (let i = from; i < to; i++) yield { index: i, ...this.source.text(docs[i]) };
  }
}

function sorted(a: Uint32Array, from: number, to: number): boolean {
  for (let i = from + 1; i < to; i++) if (a[i] <= a[i - 1]) return false;
  return true;
}
