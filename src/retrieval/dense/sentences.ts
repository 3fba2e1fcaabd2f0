/**
 * Sentence splitting for ASPIRE's per-sentence vectors. ASPIRE itself split abstracts with spaCy/scispaCy;
 * that is not available in Node, so this is a deterministic rule splitter: a sentence ends at `.`, `!` or `?`
 * (optionally followed by closing quotes/brackets) followed by whitespace and then an upper-case letter, a
 * digit or an opening bracket/quote — unless the word before the period is a common abbreviation
 * (e.g., i.e., et al., Fig., ...) or a single letter (initials, "p. 5").
 */

const ABBREVIATIONS = new Set(
  [
    'e.g', 'i.e', 'al', 'etc', 'fig', 'figs', 'eq', 'eqs', 'ref', 'refs', 'vs', 'cf', 'approx', 'resp', 'no', 'nos',
    'vol', 'pp', 'dr', 'mr', 'mrs', 'ms', 'prof', 'sp', 'spp', 'var', 'ca', 'st', 'viz', 'sect', 'sec', 'tab',
    'inc', 'ltd', 'co', 'corp', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec',
  ],
);

const BOUNDARY = /([.!?])(["'”’)\]]*)\s+(?=[A-Z0-9(\["'“‘])/g;

/** Split text into trimmed, non-empty sentences, in order. Whitespace-only text gives []. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  BOUNDARY.lastIndex = 0;
  for (let m = BOUNDARY.exec(text); m; m = BOUNDARY.exec(text)) {
    if (m[1] === '.') {
      // The word that ends with this period (letters and inner periods, e.g. "e.g" or "al").
      const before = text.slice(start, m.index);
      const word = /([A-Za-z][A-Za-z.]*)$/.exec(before)?.[1] ?? '';
      if (word.length === 1 || ABBREVIATIONS.has(word.toLowerCase())) continue;
    }
    const end = m.index + m[1].length + m[2].length;
    const s = text.slice(start, end).trim();
    if (s) out.push(s);
    start = m.index + m[0].length;
  }
  const last = text.slice(start).trim();
  if (last) out.push(last);
  return out;
}
