/**
 * x ** y and ln x for x > 0, correctly rounded (glibc's pow, which ranx's gmnz uses through numba, is; V8's Math.pow is not:
 * Math.pow(2, 1.5) is one ulp below 2 ** 1.5 in C). Computed in double-double arithmetic (≈ 100 bits) as
 * exp(y · ln x) and rounded once. Scores after `max` normalisation of negative runs reach 1e9, where one ulp is
 * 5e-7, so the last bit matters for a comparison at 1e-9.
 */

type DD = [number, number];

function twoSum(a: number, b: number): DD {
  const s = a + b;
  const v = s - a;
  return [s, (a - (s - v)) + (b - v)];
}

function split(a: number): DD {
  const c = 134217729 * a; // 2^27 + 1
  const hi = c - (c - a);
  return [hi, a - hi];
}

function twoProd(a: number, b: number): DD {
  const p = a * b;
  const [ah, al] = split(a);
  const [bh, bl] = split(b);
  return [p, ((ah * bh - p) + ah * bl + al * bh) + al * bl];
}

function add(a: DD, b: DD): DD {
  const [s, e] = twoSum(a[0], b[0]);
  const [t, f] = twoSum(a[1], b[1]);
  const [s2, e2] = twoSum(s, e + t);
  return twoSum(s2, e2 + f);
}

function mul(a: DD, b: DD): DD {
  const [p, e] = twoProd(a[0], b[0]);
  return twoSum(p, e + (a[0] * b[1] + a[1] * b[0]));
}

function div(a: DD, b: DD): DD {
  const q1 = a[0] / b[0];
  const r = add(a, mul(b, [-q1, 0]));
  const q2 = r[0] / b[0];
  const r2 = add(r, mul(b, [-q2, 0]));
  return add(twoSum(q1, q2), [r2[0] / b[0], 0]);
}

const LN2: DD = [0.6931471805599453, 2.3190468138462996e-17];

/** ln x in double-double: e·ln 2 + 2 atanh((m − 1)/(m + 1)), m in [√½, √2). */
function ln(x: number): DD {
  let e = Math.floor(Math.log2(x));
  let m = x / 2 ** e;
  if (m > Math.SQRT2) {
    m /= 2;
    e++;
  }
  const s = div(add([m, 0], [-1, 0]), add([m, 0], [1, 0]));
  const s2 = mul(s, s);
  let term = s;
  let sum: DD = s;
  for (let k = 3; k < 200; k += 2) {
    term = mul(term, s2);
    const t = div(term, [k, 0]);
    sum = add(sum, t);
    if (Math.abs(t[0]) < 1e-36) break;
  }
  return add(mul(LN2, [e, 0]), mul([2, 0], sum));
}

/** e^t in double-double: 2^k · (e^(r/256))^256, the small exponential by its Taylor series. */
function exp(t: DD): DD {
  const k = Math.round(t[0] / LN2[0]);
  const r = add(t, mul(LN2, [-k, 0]));
  const x: DD = [r[0] / 256, r[1] / 256];
  let term: DD = [1, 0];
  let sum: DD = [1, 0];
  for (let i = 1; i < 40; i++) {
    term = div(mul(term, x), [i, 0]);
    sum = add(sum, term);
    if (Math.abs(term[0]) < 1e-36) break;
  }
  for (let i = 0; i < 8; i++) sum = mul(sum, sum);
  return [sum[0] * 2 ** k, sum[1] * 2 ** k];
}

/** x ** y, correctly rounded, for finite x > 0 and finite y. */
export function powRounded(x: number, y: number): number {
  if (x === 1 || y === 0) return 1;
  if (y === 1) return x;
  if (Number.isInteger(x) && Number.isInteger(y) && y > 0 && y < 64) {
    // An integer power below 2^53 is exact (the correctly rounded result itself).
    let p = 1;
    for (let i = 0; i < y && p <= 2 ** 53; i++) p *= x;
    if (p <= 2 ** 53) return p;
  }
  const r = exp(mul(ln(x), [y, 0]));
  return r[0] + r[1];
}

/** ln x, correctly rounded, for finite x > 0 (glibc's log is; V8's Math.log(3) is one ulp off). */
export function logRounded(x: number): number {
  if (x === 1) return 0;
  const r = ln(x);
  return r[0] + r[1];
}
