/**
 * The store's article order and the citation join's key: each paper id maps to a number.
 *
 * An id made of an optional ASCII letter and 1–13 digits — S2ORC's and Semantic Scholar's decimal paper ids,
 * OpenAlex's `W…` work ids — is a "fast" id, and its key is a safe integer that orders such ids exactly as a
 * byte-wise comparison of their UTF-8 bytes does: the letter's code (0 without one) times 2^45, plus the digits read
 * as a 13-place number in base 11 (digit d counts d + 1, an empty place 0, so "1" < "10" < "2" as in byte order).
 * Every other id has the key SLOW_KEY, above every fast key: it sorts after all fast ids, byte-wise among
 * themselves. Fast keys are equal exactly when the ids are equal, so they also join citations to articles.
 */
export const SLOW_KEY = Number.MAX_SAFE_INTEGER;

const DIGIT_PLACES = 13;
const LETTER_UNIT = 2 ** 45; // > 11^13: the digits never reach the letter's bits
const POW11 = Array.from({ length: DIGIT_PLACES }, (_, k) => 11 ** (DIGIT_PLACES - 1 - k));

/** The key of `id` (SLOW_KEY when it is not a fast id). */
export function idKey(id: string): number {
  const n = id.length;
  if (n === 0) return SLOW_KEY;
  let start = 0;
  let key = 0;
  const c0 = id.charCodeAt(0);
  if ((c0 >= 65 && c0 <= 90) || (c0 >= 97 && c0 <= 122)) {
    key = c0 * LETTER_UNIT;
    start = 1;
  }
  const digits = n - start;
  if (digits < 1 || digits > DIGIT_PLACES) return SLOW_KEY;
  for (let k = 0; k < digits; k++) {
    const d = id.charCodeAt(start + k) - 48;
    if (d < 0 || d > 9) return SLOW_KEY;
    key += (d + 1) * POW11[k];
  }
  return key;
}

/** The id a fast key stands for (examples in messages). */
export function idOfKey(key: number): string {
  const letter = Math.floor(key / LETTER_UNIT);
  let rest = key - letter * LETTER_UNIT;
  let s = letter ? String.fromCharCode(letter) : '';
  for (let k = 0; k < DIGIT_PLACES; k++) {
    const d = Math.floor(rest / POW11[k]);
    if (d === 0) break;
    s += String.fromCharCode(47 + d);
    rest -= d * POW11[k];
  }
  return s;
}

/** Byte-wise comparison of two UTF-8 byte strings (negative, 0, positive), the order trec_eval gives docnos. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}
