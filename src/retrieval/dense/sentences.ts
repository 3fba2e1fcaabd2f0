/**
 * Sentence splitting for ASPIRE's per-sentence vectors. ASPIRE's preprocessing ran scispaCy's `en_core_sci_sm`
 * tokenizer and spaCy's rule-based `sentencizer` (parser disabled; docs/dense.md). That is not available in
 * Node, so this is a deterministic rule splitter. A sentence ends at `.`, `!` or `?`, optionally followed by
 * closing quotes/brackets, when
 *  - whitespace follows, then possibly separator tokens without letters or digits (S2ORC's ":::" between
 *    abstract paragraphs; they stay with the ending sentence, as with spaCy), then an upper-case letter, a
 *    digit, an opening bracket/quote or "©" — unless the period ends a known abbreviation (e.g., i.e., et al.,
 *    Fig., ...), a single upper-case letter (an initial: "A. Smith"), letters with inner periods ("U.S.", "L.L.",
 *    "i.v.") or a single lower-case letter before a number ("p. 5"); or
 *  - no whitespace, only for a period between a lower-case word and a capitalised word ("workers.The first"),
 *    which spaCy's tokenizer also splits.
 * The word before a period is the whole whitespace-delimited token, so "N2O.", "3s.", "°C." and "μm." end
 * sentences (they are not initials).
 */

const ABBREVIATIONS = new Set(
  [
    'e.g', 'i.e', 'al', 'etc', 'v', 'fig', 'figs', 'eq', 'eqs', 'ref', 'refs', 'vs', 'cf', 'approx', 'resp', 'no', 'nos',
    'vol', 'pp', 'dr', 'mr', 'mrs', 'ms', 'prof', 'sp', 'spp', 'var', 'ca', 'st', 'viz', 'sect', 'sec', 'tab',
    'inc', 'ltd', 'co', 'corp', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec',
  ],
);

const END = String.raw`([.!?])(["'”’)\]]*)`;
// Separator tokens: punctuation-only tokens other than opening brackets/quotes (a "©" or "§" starts a sentence).
const SEPARATORS = String.raw`((?:\s+(?:(?![(\[{"'“‘«])\p{P})+(?=\s))*)`;
const NEXT = String.raw`(?=[\p{Lu}\p{N}(\[{"'“‘©])`;
const BOUNDARY = new RegExp(`${END}${SEPARATORS}\\s+${NEXT}|(?<=\\p{Ll}{2})(\\.)(?=\\p{Lu}\\p{Ll})`, 'gu');

/** Does the period at `at` (preceded by `before`) end an abbreviation rather than a sentence? */
function abbreviation(before: string, text: string, at: number): boolean {
  const token = (/\S*$/.exec(before)?.[0] ?? '').replace(/^[(\["'“‘]+/, '');
  const lower = token.toLowerCase();
  // Known abbreviations as written ("Fig", "fig"), not shouted ("NO." is nitric oxide, "DR." an acronym).
  if (ABBREVIATIONS.has(lower) && token !== token.toUpperCase()) return true;
  if (/^\p{Lu}$/u.test(token)) return true; // initial
  if (/^(?:\p{L}\.)+\p{L}$/u.test(token)) return true; // U.S, L.L, i.v, e.g
  if (/^\p{Ll}$/u.test(token) && /^[.]\s+\p{N}/u.test(text.slice(at, at + 3))) return true; // "p. 5"
  return false;
}

/** Split text into trimmed, non-empty sentences, in order. Whitespace-only text gives []. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  BOUNDARY.lastIndex = 0;
  for (let m = BOUNDARY.exec(text); m; m = BOUNDARY.exec(text)) {
    if (m[4] !== undefined) {
      // no-space boundary "word.Next"
      const s = text.slice(start, m.index + 1).trim();
      if (s) out.push(s);
      start = m.index + 1;
      continue;
    }
    if (m[1] === '.' && abbreviation(text.slice(start, m.index), text, m.index)) continue;
    const end = m.index + m[1].length + m[2].length + m[3].length;
    const s = text.slice(start, end).trim();
    if (s) out.push(s);
    start = m.index + m[0].length;
  }
  const last = text.slice(start).trim();
  if (last) out.push(last);
  return out;
}
