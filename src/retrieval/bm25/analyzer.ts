/**
 * Anserini's default English analyzer = Lucene 8.7 EnglishAnalyzer: StandardTokenizer → EnglishPossessiveFilter
 * → LowerCaseFilter → StopFilter (33 words) → PorterStemFilter.
 * Queries are analysed by the same chain, then looked up in the index's vocabulary (queryTermIds).
 */
import { tokenize } from './tokenizer.ts';
import { PorterStemmer } from './porter.ts';

/** Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET. */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  ('a an and are as at be but by for if in into is it no not of on or such that the their then there these ' +
    'they this to was will with').split(' '),
);

/** Java's Character.toLowerCase per code point (simple case mapping, no context, no locale). */
export function javaLowerCase(s: string): string {
  let ascii = true;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 128) { ascii = false; break; }
  if (ascii) return s.toLowerCase();
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0x130) { out += 'i'; continue; } // İ: JS gives the full mapping "i̇", Java the simple one
    const lower = ch.toLowerCase();
    // Only single-code-point results are simple mappings; keep the character otherwise.
    out += [...lower].length === 1 ? lower : ch;
  }
  return out;
}

/** EnglishPossessiveFilter: strip a trailing 's / ’s / ＇s (either case of s). */
export function stripPossessive(tok: string): string {
  const n = tok.length;
  if (n >= 2) {
    const q = tok.charCodeAt(n - 2);
    const s = tok.charCodeAt(n - 1);
    if ((q === 0x27 || q === 0x2019 || q === 0xff07) && (s === 0x73 || s === 0x53)) return tok.slice(0, n - 2);
  }
  return tok;
}

/**
 * The analysed terms of texts. Keeps a cache from raw token to term (or null for a stop word), because in a
 * corpus the same surface forms recur millions of times; the cache is cleared when it grows past `maxCache`.
 */
export class EnglishAnalyzer {
  private readonly stemmer = new PorterStemmer();
  private cache = new Map<string, string | null>();
  constructor(private readonly maxCache = 2_000_000) {}

  /** The term for one raw token, or null when it is a stop word (or empties out). */
  term(raw: string): string | null {
    let t = this.cache.get(raw);
    if (t !== undefined) return t;
    const lower = javaLowerCase(stripPossessive(raw));
    t = lower.length === 0 || ENGLISH_STOP_WORDS.has(lower) ? null : this.stemmer.stem(lower);
    if (this.maxCache > 0) {
      if (this.cache.size >= this.maxCache) this.cache = new Map();
      this.cache.set(raw, t);
    }
    return t;
  }

  /** Calls `emit(term)` for each analysed term of `text`, in order. */
  forEachTerm(text: string, emit: (term: string) => void): void {
    tokenize(text, (s, e) => {
      const t = this.term(text.slice(s, e));
      if (t !== null) emit(t);
    });
  }

  analyze(text: string): string[] {
    const out: string[] = [];
    this.forEachTerm(text, (t) => out.push(t));
    return out;
  }
}

/** The text BM25 indexes and queries with for an article: title and abstract, as the paper concatenates them. */
export function articleText(a: { title: string; abstract: string }): string {
  return a.abstract ? `${a.title} ${a.abstract}` : a.title;
}

/** Analyse a query text into term ids of the index vocabulary (unknown terms dropped). */
export function queryTermIds(analyzer: EnglishAnalyzer, vocab: Map<string, number>, text: string): number[] {
  const ids: number[] = [];
  analyzer.forEachTerm(text, (t) => {
    const id = vocab.get(t);
    if (id !== undefined) ids.push(id);
  });
  return ids;
}
