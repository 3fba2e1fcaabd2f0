/**
 * The MDCR benchmark's official evaluator (zoranmedic/mdcr evaluate.py), reproduced on the trec_eval core:
 * per field, qrels label 1 for `true` candidates and 0 for every negative type (`true` is written last, so a
 * candidate listed both as a negative and as true is relevant); the run is every judged candidate with its score;
 * trec_eval 9.0.8 semantics (float32 scores, ties by docno descending); map, ndcg and recall_5 averaged over
 * the field's queries with numpy's pairwise sum, ×100, np.round(·, 4); AVG = np.mean of the already rounded
 * per-field values, rounded to 4 dp.
 */
import { CitebenchError, InputError } from '../util/errors.ts';
import { FIELDS, TOPIC_FIELDS, schemeFields, schemeOfNames } from '../corpus/fields.ts';
import { MDCR_OFFICIAL_KEYS } from '../sampling/mdcr-build.ts';
import { evaluate } from './evaluate.ts';
import { parseMeasure } from './registry.ts';

/**
 * The negative candidate types of the official MDCR files, in evaluate.py's NEG_TYPES order (before 'true').
 * By default the evaluator accepts any type key a file holds (every key other than `true` is a negative type), so
 * benchmarks built with other models (`citebench mdcr build`) evaluate too; `official` reads only these.
 */
export const MDCR_NEGATIVE_TYPES = MDCR_OFFICIAL_KEYS.filter((k) => k !== 'true');
/** A candidate-type key: one of MDCR_NEGATIVE_TYPES in the official files, any key other than `true` in general. */
export type MdcrNegativeType = string;
export const MDCR_METRICS = ['map', 'ndcg', 'recall_5'] as const;
export type MdcrMetric = (typeof MDCR_METRICS)[number];

/** benchmark[field][queryId][candidateType] = candidate ids. */
export type MdcrBenchmark = Record<string, Record<string, Record<string, unknown>>>;
type MdcrScores = Record<string, unknown>;

export interface MdcrFieldResult {
  field: string;
  queries: number;
  /** ×100, rounded to 4 dp as evaluate.py prints. */
  values: Record<MdcrMetric, number>;
  /** Per-query values (0..1, unrounded), query ids in `queryIds` order. */
  perQuery: Record<MdcrMetric, Float64Array>;
  queryIds: string[];
}

export interface MdcrResult {
  fields: MdcrFieldResult[];
  /** Evaluated as evaluate.py does (MdcrEvalOptions.official). */
  official?: boolean;
  avg: Record<MdcrMetric, number>;
  /** Negative type evaluated alone (paper Table 4), or undefined for all types. */
  candidateType?: MdcrNegativeType;
  /** Negative lists missing from the benchmark, treated as empty (only with `lenient`; else an error). */
  missingLists: number;
}

/** A --candidate-type value: any key but `true` (checked against the benchmark's keys by evaluateMdcr). */
export function parseCandidateType(s: string): MdcrNegativeType {
  if (s !== '' && s !== 'true') return s;
  throw new CitebenchError(`candidate type '${s}' is not a negative type: choose a key of the benchmark other than 'true' (official files: ${MDCR_NEGATIVE_TYPES.join(', ')})`);
}

/**
 * Every negative-type key of a benchmark (keys other than `true` of any query), byte-sorted like NEG_TYPES;
 * `nonEmpty`: only keys holding a candidate somewhere (an official key written empty has none).
 */
export function mdcrNegativeTypes(benchmark: MdcrBenchmark, opts: { nonEmpty?: boolean } = {}): string[] {
  const types = new Set<string>();
  for (const fieldData of Object.values(benchmark)) {
    if (!isObject(fieldData)) continue;
    for (const lists of Object.values(fieldData)) {
      if (!isObject(lists)) continue;
      for (const [k, v] of Object.entries(lists)) if (k !== 'true' && (!opts.nonEmpty || (Array.isArray(v) && v.length > 0))) types.add(k);
    }
  }
  return [...types].sort(compareBytes);
}

export interface MdcrEvalOptions {
  candidateType?: MdcrNegativeType;
  /**
   * A query lacking a negative candidate list: false (default) = an InputError naming field, query and type
   * (evaluate.py stops with a KeyError there); true = the list counts as empty and is counted in missingLists.
   */
  lenient?: boolean;
  /**
   * Evaluate exactly what evaluate.py evaluates: its seven keys in its order (`true` last, so it wins a
   * duplicate), other keys and fields ignored, each of the 19 fields and each key required (where evaluate.py
   * stops with a KeyError, an InputError names the field, query and key).
   */
  official?: boolean;
  /** File names for error messages. */
  benchmarkPath?: string;
  scoresPath?: string;
}

/** Evaluate a scores object against an MDCR benchmark object. */
/**
 * evaluate.py's numbers with every candidate type together (Table 3) and with each negative type alone (Table 4):
 * `types` (default: the benchmark's types that hold candidates; an official key written empty has no column).
 */
export function evaluateMdcrByType(benchmark: unknown, scores: unknown, opts: Omit<MdcrEvalOptions, 'candidateType'> & { types?: readonly string[] } = {}): { all: MdcrResult; types: Record<string, MdcrResult> } {
  const { types, ...o } = opts;
  const all = evaluateMdcr(benchmark, scores, o);
  const each = types ?? mdcrNegativeTypes(benchmark as MdcrBenchmark, { nonEmpty: true });
  return { all, types: Object.fromEntries(each.map((t) => [t, evaluateMdcr(benchmark, scores, { ...o, candidateType: t as MdcrNegativeType })])) };
}

export function evaluateMdcr(benchmark: unknown, scores: unknown, opts: MdcrEvalOptions = {}): MdcrResult {
  const bPath = opts.benchmarkPath ?? 'benchmark';
  const sPath = opts.scoresPath ?? 'scores';
  if (!isObject(benchmark)) throw new InputError(bPath, undefined, undefined, 'expected a JSON object { field: { query_id: { type: [ids] } } }');
  if (!isObject(scores)) throw new InputError(sPath, undefined, undefined, 'expected a JSON object { "<qid>_<cid>": score }');
  const official = opts.official === true;
  if (official && opts.candidateType !== undefined) throw new CitebenchError('evaluate.py has no candidate-type analysis: evaluate one type without --official');
  if (official) {
    // evaluate.py walks its 19 fields and looks each up: a missing one stops it (other keys it never reads).
    const missing = FIELDS.filter((f) => (benchmark as MdcrBenchmark)[f] === undefined);
    if (missing.length) {
      throw new InputError(bPath, undefined, missing[0], `field '${missing[0]}' missing (${FIELDS.length - missing.length} of the 19 fields present): evaluate.py stops here with a KeyError; evaluate without --official`);
    }
  } else {
    // A benchmark built on an OpenAlex Topics store has those fields; either scheme's names, never a mix.
    const names = schemeFields(schemeOfNames(Object.keys(benchmark))) as readonly string[];
    for (const f of Object.keys(benchmark)) {
      if (!names.includes(f)) {
        throw new InputError(bPath, undefined, f, `unknown field '${f}' (MDCR fields are the 19 MAG names: ${FIELDS.join(', ')}; or, built on an OpenAlex Topics store, its 26 fields: ${TOPIC_FIELDS.join(', ')})`);
      }
    }
  }
  const present = mdcrNegativeTypes(benchmark as MdcrBenchmark);
  if (opts.candidateType !== undefined && !present.includes(opts.candidateType)) {
    throw new CitebenchError(`${bPath}: unknown candidate type '${opts.candidateType}': this benchmark has ${present.join(', ') || 'none'}`);
  }
  if (opts.candidateType !== undefined && !mdcrNegativeTypes(benchmark as MdcrBenchmark, { nonEmpty: true }).includes(opts.candidateType)) {
    // 5 positives alone would score a perfect 100: an official key written empty (its model not used at build).
    throw new CitebenchError(`${bPath}: candidate type '${opts.candidateType}' holds no candidates in any query (its model was not used when the benchmark was built): choose another type`);
  }
  // A query lacking a type that other queries have is counted in missingLists.
  const types: readonly string[] = official ? MDCR_OFFICIAL_KEYS : opts.candidateType ? [opts.candidateType, 'true'] : [...present, 'true'];
  const measures = MDCR_METRICS.flatMap((m) => parseMeasure(m));
  const fields: MdcrFieldResult[] = [];
  let missingLists = 0;
  // evaluate.py walks its FIELDS list; we evaluate those present, in that order (a Topics benchmark: theirs).
  for (const field of schemeFields(official ? 'mag' : schemeOfNames(Object.keys(benchmark)))) {
    const fieldData = (benchmark as MdcrBenchmark)[field];
    if (fieldData === undefined) continue;
    if (!isObject(fieldData)) throw new InputError(bPath, undefined, field, 'expected an object of queries');
    // Queries in byte order of their ids (trec_eval's order; only the last bit of a mean can depend on it).
    const queryIds = Object.keys(fieldData).sort(compareBytes);
    if (queryIds.length === 0) throw new InputError(bPath, undefined, field, 'field has no queries');
    const candidateIds = new Map<string, number>();
    const qOffsets = new Uint32Array(queryIds.length + 1);
    const qDocs: number[] = [];
    const qLabels: number[] = [];
    const scoreList: number[] = [];
    for (let q = 0; q < queryIds.length; q++) {
      const qid = queryIds[q];
      const lists = fieldData[qid];
      const where = `${field} / ${qid}`;
      if (!isObject(lists)) throw new InputError(bPath, undefined, where, 'expected an object of candidate lists');
      const labels = new Map<string, number>();
      for (const type of types) {
        const list = lists[type];
        if (list === undefined) {
          if (official) throw new InputError(bPath, undefined, `${where} / ${type}`, `missing candidate list '${type}' of query '${qid}' in field ${field}: evaluate.py stops here with a KeyError`);
          if (type === 'true' || type === opts.candidateType || !opts.lenient) {
            const hint = type === 'true' || type === opts.candidateType ? '' : ' (--lenient evaluates it as an empty list)';
            throw new InputError(bPath, undefined, `${where} / ${type}`, `missing candidate list '${type}' of query '${qid}' in field ${field}${hint}`);
          }
          missingLists++;
          continue;
        }
        if (!Array.isArray(list)) throw new InputError(bPath, undefined, `${where} / ${type}`, 'expected an array of candidate ids');
        for (const c of list) {
          if (typeof c !== 'string' && typeof c !== 'number') throw new InputError(bPath, undefined, `${where} / ${type}`, `candidate id ${JSON.stringify(c)} is not a string`);
          labels.set(String(c), type === 'true' ? 1 : 0);
        }
      }
      if (labels.size === 0) throw new InputError(bPath, undefined, where, 'query has no candidates (empty qrels)');
      for (const [cid, label] of labels) {
        const key = `${qid}_${cid}`;
        const s = (scores as MdcrScores)[key];
        if (s === undefined) throw new InputError(sPath, undefined, key, `missing score for query '${qid}', candidate '${cid}' (field ${field})`);
        if (typeof s !== 'number' || !Number.isFinite(s)) throw new InputError(sPath, undefined, key, `score ${JSON.stringify(s)} is not a finite number`);
        let id = candidateIds.get(cid);
        if (id === undefined) candidateIds.set(cid, (id = candidateIds.size));
        qDocs.push(id);
        qLabels.push(label);
        scoreList.push(s);
      }
      qOffsets[q + 1] = qDocs.length;
    }
    // Tie-break order: candidate ids sorted byte-wise (UTF-8), as strcmp sees them.
    const names = [...candidateIds.keys()];
    const sortedNames = names.map((n, i) => ({ b: Buffer.from(n, 'utf8'), i })).sort((a, b) => Buffer.compare(a.b, b.b));
    const docOrder = new Uint32Array(names.length);
    sortedNames.forEach((x, rank) => (docOrder[x.i] = rank));
    const docs = Uint32Array.from(qDocs);
    const result = evaluate({
      qrels: { offsets: qOffsets, docs, labels: Int32Array.from(qLabels) },
      run: { offsets: qOffsets, docs, scores: Float64Array.from(scoreList) },
      measures,
      docOrder,
    });
    const values = {} as Record<MdcrMetric, number>;
    const perQuery = {} as Record<MdcrMetric, Float64Array>;
    MDCR_METRICS.forEach((name, m) => {
      perQuery[name] = result.perQuery[m];
      values[name] = npRound4(100 * (numpySum(result.perQuery[m]) / queryIds.length));
    });
    fields.push({ field, queries: queryIds.length, values, perQuery, queryIds });
  }
  if (fields.length === 0) throw new InputError(bPath, undefined, undefined, 'no MDCR field found in the benchmark');
  const avg = {} as Record<MdcrMetric, number>;
  for (const name of MDCR_METRICS) {
    const rounded = Float64Array.from(fields.map((f) => f.values[name]));
    avg[name] = npRound4(numpySum(rounded) / rounded.length);
  }
  return { fields, avg, candidateType: opts.candidateType, missingLists, ...(official ? { official } : {}) };
}

/** numpy.round(x, 4): multiply by 10⁴, round half to even, divide. */
function npRound4(x: number): number {
  const y = x * 10000;
  const f = Math.floor(y);
  const d = y - f;
  const r = d > 0.5 ? f + 1 : d < 0.5 ? f : f % 2 === 0 ? f : f + 1;
  return r / 10000;
}

/**
 * np.sum / np.mean's summation of a float64 vector: numpy's pairwise sum (blocks of ≤ 128 summed with 8
 * accumulators, halves above), so means match numpy to the last bit (checked against numpy 2.4).
 */
function numpySum(a: Float64Array): number {
  if (a.length === 0) return 0;
  return pairwiseSum(a, 0, a.length);
}

function pairwiseSum(a: Float64Array, start: number, n: number): number {
  if (n < 8) {
    let res = 0;
    for (let i = 0; i < n; i++) res += a[start + i];
    return res;
  }
  if (n <= 128) {
    const r = [a[start], a[start + 1], a[start + 2], a[start + 3], a[start + 4], a[start + 5], a[start + 6], a[start + 7]];
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) r[j] += a[start + i + j];
    let res = r[0] + r[1] + (r[2] + r[3]) + (r[4] + r[5] + (r[6] + r[7]));
    for (; i < n; i++) res += a[start + i];
    return res;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return pairwiseSum(a, start, n2) + pairwiseSum(a, start + n2, n - n2);
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** A readable table: one row per field, then AVG. */
export function formatMdcrTable(r: Pick<MdcrResult, 'avg' | 'candidateType' | 'official'> & { fields: Pick<MdcrFieldResult, 'field' | 'queries' | 'values'>[] }): string {
  const width = Math.max(5, ...r.fields.map((f) => f.field.length));
  const head = `${'field'.padEnd(width)}  ${'queries'.padStart(7)}  ${MDCR_METRICS.map((m) => m.padStart(9)).join('  ')}`;
  const rows = r.fields.map(
    (f) => `${f.field.padEnd(width)}  ${String(f.queries).padStart(7)}  ${MDCR_METRICS.map((m) => f.values[m].toFixed(4).padStart(9)).join('  ')}`,
  );
  const total = r.fields.reduce((s, f) => s + f.queries, 0);
  const avg = `${'AVG'.padEnd(width)}  ${String(total).padStart(7)}  ${MDCR_METRICS.map((m) => r.avg[m].toFixed(4).padStart(9)).join('  ')}`;
  const title = r.candidateType ? `candidates: 5 true + ${r.candidateType} negatives`
    : r.official ? `candidates: evaluate.py's keys (${MDCR_OFFICIAL_KEYS.join(', ')})` : 'candidates: true + all negative types';
  return [title, head, '-'.repeat(head.length), ...rows, '-'.repeat(head.length), avg].join('\n') + '\n';
}

/**
 * evaluate.py's own output, line for line: the header naming both files as given, one line per field
 * (`Field\tmap: v\tndcg: v\trecall_5: v`), a blank line, the AVG line. Values print as Python prints the
 * np.float64 that np.round returns (shortest round-trip repr: 29.15, 60.0), so the text diffs cleanly against
 * evaluate.py's, e.g. the MDCR README's published output.
 */
export function formatEvaluatePy(r: MdcrResult, benchmarkPath: string, scoresPath: string): string {
  const line = (name: string, v: Record<MdcrMetric, number>) => [name, ...MDCR_METRICS.map((m) => `${m}: ${pyFloat(v[m])}`)].join('\t');
  return [
    `Results on the benchmark file ${benchmarkPath} using the scores from the file ${scoresPath}`,
    ...r.fields.map((f) => line(f.field, f.values)),
    '',
    line('AVG', r.avg),
  ].join('\n') + '\n';
}

/** Python's repr of a float (= numpy's str of a float64): shortest round-trip digits, '.0' on integers. */
export function pyFloat(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
  const a = Math.abs(x);
  // Python switches to exponent notation below 1e-4 and from 1e16; JS below 1e-6 and from 1e21.
  if (a !== 0 && (a < 1e-4 || a >= 1e16)) {
    const [mant, exp] = x.toExponential().split('e');
    const e = Number(exp);
    return `${mant}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  if (Object.is(x, -0)) return '-0.0';
  const s = String(x);
  return Number.isInteger(x) ? `${s}.0` : s;
}
