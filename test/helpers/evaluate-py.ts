/**
 * MDCR's evaluate.py (zoranmedic/mdcr) transliterated for tests, written from its source and trec_eval's rules,
 * not from citebench's evaluator: its fixed FIELDS and NEG_TYPES loops (a later key overwrites a candidate's
 * label, so `true` wins), trec_eval 9.0.8 map / ndcg / recall_5 (float32 scores, ties by candidate id
 * descending), np.mean (numpy's pairwise sum), np.round(100·mean, 4), AVG of the rounded values.
 * A field or key it would look up and not find throws, as evaluate.py's KeyError does.
 */
export const EVALUATE_PY_FIELDS = [
  'Art', 'Biology', 'Business', 'Chemistry', 'Computer Science', 'Economics', 'Engineering', 'Environmental Science',
  'Geography', 'Geology', 'History', 'Materials Science', 'Mathematics', 'Medicine', 'Philosophy', 'Physics',
  'Political Science', 'Psychology', 'Sociology',
];
export const EVALUATE_PY_NEG_TYPES = ['bm25', 'graph', 'most_cited', 'random', 'scincl', 'specter', 'true'];

type Metrics = { map: number; ndcg: number; recall_5: number };
type Bench = Record<string, Record<string, Record<string, string[]>>>;

export function evaluatePy(bench: Bench, scores: Record<string, number>): { fields: Record<string, Metrics>; avg: Metrics } {
  const fields: Record<string, Metrics> = {};
  for (const f of EVALUATE_PY_FIELDS) {
    if (!(f in bench)) throw new Error(`KeyError: '${f}'`);
    const qrel = new Map<string, Map<string, number>>();
    for (const qid of Object.keys(bench[f])) {
      const labels = new Map<string, number>();
      for (const t of EVALUATE_PY_NEG_TYPES) {
        const list = bench[f][qid][t];
        if (list === undefined) throw new Error(`KeyError: '${t}'`);
        for (const c of list) labels.set(c, t === 'true' ? 1 : 0);
      }
      qrel.set(qid, labels);
    }
    // pytrec_eval returns queries as trec_eval walks them: qid order.
    const per: Record<keyof Metrics, number[]> = { map: [], ndcg: [], recall_5: [] };
    for (const qid of [...qrel.keys()].sort(byteCompare)) {
      const labels = qrel.get(qid)!;
      const ranked = [...labels.keys()].sort((a, b) => {
        const sa = Math.fround(scores[`${qid}_${a}`]);
        const sb = Math.fround(scores[`${qid}_${b}`]);
        if (Number.isNaN(sa) || Number.isNaN(sb)) throw new Error(`KeyError: '${qid}_${Number.isNaN(sa) ? a : b}'`);
        return sb - sa || byteCompare(b, a);
      });
      const R = [...labels.values()].filter((l) => l === 1).length;
      let hits = 0;
      let ap = 0;
      let dcg = 0;
      ranked.forEach((c, i) => {
        if (labels.get(c) === 1) {
          hits++;
          ap += hits / (i + 1);
          dcg += 1 / Math.log2(i + 2);
        }
      });
      let idcg = 0;
      for (let i = 0; i < R; i++) idcg += 1 / Math.log2(i + 2);
      per.map.push(R ? ap / R : 0);
      per.ndcg.push(idcg ? dcg / idcg : 0);
      per.recall_5.push(R ? ranked.slice(0, 5).filter((c) => labels.get(c) === 1).length / R : 0);
    }
    fields[f] = { map: npRound4(100 * npMean(per.map)), ndcg: npRound4(100 * npMean(per.ndcg)), recall_5: npRound4(100 * npMean(per.recall_5)) };
  }
  const avg = (m: keyof Metrics) => npRound4(npMean(EVALUATE_PY_FIELDS.map((f) => fields[f][m])));
  return { fields, avg: { map: avg('map'), ndcg: avg('ndcg'), recall_5: avg('recall_5') } };
}

function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** np.round(x, 4): half to even on x·10⁴. */
function npRound4(x: number): number {
  const y = x * 1e4;
  let r = Math.round(y);
  if (r - y === 0.5 && r % 2 !== 0) r -= 1;
  return r / 1e4;
}

/** np.mean: numpy's pairwise summation (8 accumulators up to 128 values, halves above), then ÷ n. */
function npMean(a: number[]): number {
  const sum = (s: number, n: number): number => {
    if (n < 8) {
      let r = 0;
      for (let i = 0; i < n; i++) r += a[s + i];
      return r;
    }
    if (n <= 128) {
      const acc = a.slice(s, s + 8);
      let i = 8;
      for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) acc[j] += a[s + i + j];
      let r = acc[0] + acc[1] + (acc[2] + acc[3]) + (acc[4] + acc[5] + (acc[6] + acc[7]));
      for (; i < n; i++) r += a[s + i];
      return r;
    }
    let h = Math.floor(n / 2);
    h -= h % 8;
    return sum(s, h) + sum(s + h, n - h);
  };
  return sum(0, a.length) / a.length;
}
