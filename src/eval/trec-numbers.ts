/**
 * Numbers in TREC files: strict integer and decimal parsing from bytes (malformed input is an error, not 0 as
 * with C's atof/atol), and the shortest decimal text of a float32 score.
 */
import { latin1 } from './string-table.ts';

/** Optional sign and digits; undefined if malformed. */
export function parseInteger(buf: Uint8Array, s: number, e: number): number | undefined {
  let i = s;
  let neg = false;
  if (buf[i] === 45 || buf[i] === 43) {
    neg = buf[i] === 45;
    i++;
  }
  if (i >= e || e - i > 9) return undefined;
  let v = 0;
  for (; i < e; i++) {
    const c = buf[i] - 48;
    if (c < 0 || c > 9) return undefined;
    v = v * 10 + c;
  }
  return neg ? -v : v;
}

const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];
const TWO53 = 9007199254740992;

/**
 * A decimal number `[+-]digits[.digits][e[+-]digits]` (or `.5`, `5.`), correctly rounded to a double.
 * NaN for anything else ("abc", "nan", "inf", "0x1"); ±Infinity when it overflows.
 * Fast path (Clinger): an exact integer mantissa and a power of ten ≤ 22 give a correctly rounded quotient.
 */
export function parseDecimal(buf: Uint8Array, s: number, e: number): number {
  let i = s;
  let neg = false;
  if (i < e && (buf[i] === 45 || buf[i] === 43)) {
    neg = buf[i] === 45;
    i++;
  }
  const body = i;
  let mant = 0;
  let exact = true;
  let digits = 0;
  let fracDigits = 0;
  while (i < e) {
    const c = buf[i] - 48;
    if (c < 0 || c > 9) break;
    mant = mant * 10 + c;
    digits++;
    i++;
  }
  if (i < e && buf[i] === 46) {
    i++;
    while (i < e) {
      const c = buf[i] - 48;
      if (c < 0 || c > 9) break;
      mant = mant * 10 + c;
      digits++;
      fracDigits++;
      i++;
    }
  }
  if (digits === 0) return NaN;
  if (mant >= TWO53) exact = false;
  let exp = 0;
  if (i < e && (buf[i] === 101 || buf[i] === 69)) {
    i++;
    let eneg = false;
    if (i < e && (buf[i] === 45 || buf[i] === 43)) {
      eneg = buf[i] === 45;
      i++;
    }
    const start = i;
    while (i < e) {
      const c = buf[i] - 48;
      if (c < 0 || c > 9) break;
      if (exp < 100000) exp = exp * 10 + c;
      i++;
    }
    if (i === start) return NaN;
    if (eneg) exp = -exp;
  }
  if (i !== e) return NaN;
  const p = exp - fracDigits;
  let v: number;
  if (exact && p >= -22 && p <= 22) v = p < 0 ? mant / POW10[-p] : mant * POW10[p];
  else v = Number(latin1(buf, body, e));
  return neg ? -v : v;
}

/**
 * Shortest decimal text that reads back (via a double) to the same float32: the first p in 1…9 whose
 * x.toPrecision(p) does, printed as the double it reads as (String(Number(t))). Run files hold millions of scores,
 * so the usual case takes one toPrecision(9): each shorter rounding is derived from its nine digits and read back
 * with one exact operation (an integer mantissa times or over a power of ten ≤ 22 is correctly rounded, as
 * Number() reads the text); a rounding those digits cannot decide (a discarded part of exactly one half) and
 * magnitudes outside that range take toPrecision(p) itself.
 */
export function float32Text(x: number): string {
  const a = Math.abs(x);
  if (!(a >= 1e-14 && a < 1e22)) return float32TextByPrecision(x);
  const t9 = a.toPrecision(9);
  // The nine significant digits as an integer, and the decimal exponent of the first.
  let digits = 0;
  let exp = -1;
  let seenDigit = false;
  let beforePoint = true;
  let i = 0;
  for (; i < t9.length; i++) {
    const c = t9.charCodeAt(i);
    if (c === 46) {
      beforePoint = false;
    } else if (c === 101) {
      break;
    } else {
      const d = c - 48;
      if (d !== 0 || seenDigit) {
        seenDigit = true;
        digits = digits * 10 + d;
        if (beforePoint) exp++;
      } else if (!beforePoint) exp--;
    }
  }
  if (i < t9.length) exp = Number(t9.slice(i + 1));
  for (let p = 1; p <= 9; p++) {
    const q = POW10[9 - p];
    let m = Math.floor(digits / q);
    const r = digits - m * q;
    if (p < 9 && r * 2 === q) {
      const v = Number(a.toPrecision(p));
      if (Math.fround(v) === a) return String(x < 0 ? -v : v);
      continue;
    }
    if (r * 2 > q) m++;
    const k = exp - p + 1;
    const v = k >= 0 ? m * POW10[k] : m / POW10[-k];
    if (Math.fround(v) === a) return (x < 0 ? '-' : '') + decimalText(m, k, v);
  }
  return String(x);
}

/**
 * String(v) for v = the double nearest m × 10^k (m < 10^10): no shorter decimal lies within half a double's ulp
 * of v (two decimals of at most ten digits differ by far more), so its shortest text is m's digits without
 * trailing zeros, placed as Number.prototype.toString places them; outside the plain-notation range, String(v).
 */
function decimalText(m: number, k: number, v: number): string {
  while (m % 10 === 0) {
    m /= 10;
    k++;
  }
  const digits = String(m);
  const n = digits.length + k; // digits before the decimal point
  if (n > 21 || n <= -6) return String(v);
  if (k >= 0) return digits + '0'.repeat(k);
  if (n > 0) return `${digits.slice(0, n)}.${digits.slice(n)}`;
  return `0.${'0'.repeat(-n)}${digits}`;
}

/** float32Text by its definition: toPrecision(p) for p = 1…9 (the reference the fast path is tested against). */
export function float32TextByPrecision(x: number): string {
  for (let p = 1; p <= 9; p++) {
    const t = x.toPrecision(p);
    if (Math.fround(Number(t)) === x) return String(Number(t));
  }
  return String(x);
}
