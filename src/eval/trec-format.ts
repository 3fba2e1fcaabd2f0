/**
 * trec_eval's text output: `printf("%-22s\t%s\t%6.4f\n")` for float measures, `%ld` for counts.
 * C's printf rounds the exact binary value half-to-even (0.03125 → 0.0312); JS toFixed rounds such exact ties up,
 * so ties are fixed here.
 */
import type { EvalResult } from './evaluate.ts';

/** C `%6.4f`. */
export function formatFixed4(x: number): string {
  let s = x.toFixed(4);
  // An exact tie at the 5th decimal needs x·10⁴ = n + ½ exactly, i.e. x = k/32 with k odd.
  const k = x * 32;
  if (Number.isInteger(k) && k % 2 !== 0 && Math.abs(x) < 2 ** 40) {
    const n = (Math.abs(k) * 625 - 1) / 2; // floor(|x|·10⁴)
    const even = n % 2 === 0 ? n : n + 1;
    s = (x < 0 ? '-' : '') + Math.floor(even / 10000) + '.' + String(even % 10000).padStart(4, '0');
  }
  return s.length < 6 ? s.padStart(6) : s;
}

/** C `%ld` of `(long) value`. */
function formatLong(x: number): string {
  return String(Math.trunc(x));
}

function formatLine(name: string, qid: string, value: string): string {
  return `${name.padEnd(22)}\t${qid}\t${value}\n`;
}

interface TrecEvalPrintOptions {
  /** -q: per-query lines (queries in the given order) before the `all` lines. */
  perQuery?: boolean;
  /** Query positions in print order (trec_eval: qid strcmp order). */
  queryOrder: Uint32Array;
  qid: (q: number) => string;
  /** Print `runid  all  TAG` first among the `all` lines (trec_eval does for all_trec / official). */
  runId?: string;
}

/** The whole trec_eval output for an evaluation result. */
export function formatTrecEval(r: EvalResult, o: TrecEvalPrintOptions): string {
  const out: string[] = [];
  if (o.perQuery) {
    for (const q of o.queryOrder) {
      if (!r.evaluated[q]) continue;
      const qid = o.qid(q);
      for (let m = 0; m < r.measures.length; m++) {
        const meas = r.measures[m];
        if (meas.printPerQuery === false) continue; // num_q, gm_map: summary only
        const v = r.perQuery[m][q];
        const text = meas.kind === 'string' ? `'${r.perQueryText[m]![q]}'` : meas.kind === 'long' ? formatLong(v) : formatFixed4(v);
        out.push(formatLine(meas.name, qid, text));
      }
    }
  }
  if (o.runId !== undefined) out.push(formatLine('runid', 'all', o.runId));
  for (let m = 0; m < r.measures.length; m++) {
    const meas = r.measures[m];
    if (meas.summary === 'none') continue;
    const v = r.summary[m];
    out.push(formatLine(meas.name, 'all', meas.kind === 'long' ? formatLong(v) : formatFixed4(v)));
  }
  return out.join('');
}
